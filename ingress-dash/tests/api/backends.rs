//! Backends behind ingresses (issue 20 section 2): each record's backend Services with their
//! ready endpoints, from the Services and EndpointSlices watched beside the ingresses, live.

use std::time::Duration;

use kube_test_server::{Kind, sample};
use serde_json::{Value, json};

use crate::app::{TestApp, spawn_app};

const WAIT: Duration = Duration::from_secs(10);

pub fn ingress_to(namespace: &str, name: &str, service: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"rules": [{"host": format!("{name}.example.com"), "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": service, "port": {"number": 80}}}},
        ]}}]},
    })
}

/// The item named `name` of a snapshot.
pub fn item<'a>(snapshot: &'a Value, name: &str) -> &'a Value {
    snapshot["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {snapshot}"))
}

async fn snapshot(app: &TestApp, namespaces: &str) -> Value {
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={namespaces}"))
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn a_backend_without_ready_endpoints_turns_ready_with_one_modified_event() {
    let app = spawn_app("", "").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("shop");
    sample::put_service_with_endpoints(cluster, "shop", "web", 80, 2, false);
    cluster.put_ingress(ingress_to("shop", "web", "web"));
    cluster.put_ingress(ingress_to("shop", "orphan", "nowhere"));
    let mut stream = app.stream("?namespaces=shop", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    assert_eq!(first.event, "snapshot");
    let web = item(&first.data, "web");
    assert_eq!(
        web["backends"],
        json!([{"service": "web", "namespace": "shop", "port": 80, "state": "no_ready_endpoints",
                "readyEndpoints": 0, "totalEndpoints": 2}])
    );
    assert_eq!(
        item(&first.data, "orphan")["backends"][0]["state"],
        "missing_service"
    );
    assert_eq!(first.data["errors"], json!([]));

    // The pods become ready: one `modified` for the ingress, with the new state.
    let service = cluster.get(Kind::Service, Some("shop"), "web").unwrap();
    cluster.put(
        Kind::EndpointSlice,
        sample::endpoint_slice("shop", &service, 8080, 2, true),
    );
    let event = stream.next_event(WAIT).await.unwrap();
    assert_eq!(event.event, "modified", "{:?}", event.data);
    assert_eq!(event.data["name"], "web");
    assert_eq!(event.data["backends"][0]["state"], "ready");
    assert_eq!(event.data["backends"][0]["readyEndpoints"], 2);
    // No second `modified` follows: the next event is a change made afterwards. The same
    // slice again changes nothing a client sees, so it sends nothing either.
    cluster.put(
        Kind::EndpointSlice,
        sample::endpoint_slice("shop", &service, 8080, 2, true),
    );
    cluster.put_ingress(ingress_to("shop", "sentinel", "web"));
    let next = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        (next.event.as_str(), next.data["name"].as_str()),
        ("added", Some("sentinel"))
    );
    assert_eq!(next.data["backends"][0]["state"], "ready");
    // The snapshot says the same.
    let body = snapshot(&app, "shop").await;
    assert_eq!(item(&body, "web")["backends"][0]["state"], "ready");

    // The Service goes: missing.
    cluster.delete(Kind::Service, Some("shop"), "web");
    let mut states = Vec::new();
    while states.len() < 2 {
        let event = stream.next_event(WAIT).await.unwrap();
        assert_eq!(event.event, "modified");
        states.push((
            event.data["name"].as_str().unwrap().to_owned(),
            event.data["backends"][0]["state"].clone(),
        ));
    }
    states.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        states,
        [
            ("sentinel".to_owned(), json!("missing_service")),
            ("web".to_owned(), json!("missing_service"))
        ]
    );
}

#[tokio::test]
async fn forbidden_services_make_backends_unknown_and_keep_the_ingresses() {
    let app = spawn_app("", "").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("shop");
    sample::put_service_with_endpoints(cluster, "shop", "web", 80, 2, true);
    cluster.put_ingress(ingress_to("shop", "web", "web"));
    cluster.forbid(Kind::Service, Some("shop"));
    let mut stream = app.stream("?namespaces=shop", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    assert_eq!(first.event, "snapshot");
    assert_eq!(
        first.data["errors"],
        json!([]),
        "the namespace did not fail"
    );
    let backend = &item(&first.data, "web")["backends"][0];
    assert_eq!(backend["state"], "unknown");
    let error = backend["error"].as_str().unwrap();
    assert!(
        error.contains("may not list or watch services in shop"),
        "{error}"
    );
    // Ingress changes still stream.
    cluster.put_ingress(ingress_to("shop", "api", "web"));
    let added = stream.next_event(WAIT).await.unwrap();
    assert_eq!(added.event, "added");
    assert_eq!(added.data["backends"][0]["state"], "unknown");
}

#[tokio::test]
async fn backends_can_be_switched_off() {
    let app = spawn_app("", "backends:\n  enabled: false\n").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("shop");
    cluster.put_ingress(ingress_to("shop", "web", "web"));
    let body = snapshot(&app, "shop").await;
    assert_eq!(item(&body, "web")["backends"], json!([]));
}
