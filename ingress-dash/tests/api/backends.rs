//! Backends behind ingresses (issue 20 section 2): each record's backend Services with their
//! ready endpoints, from the Services and EndpointSlices watched beside the ingresses, live.
//! The live backend states and switching them off run against the real API server
//! (`real_kube::watch`); here what needs kube-test-server's `forbid` on one kind.

use std::time::Duration;

use kube_test_server::{Kind, sample};
use serde_json::{Value, json};

use crate::app::spawn_app;

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
