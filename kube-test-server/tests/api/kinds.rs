//! Services, Secrets, Events, EndpointSlices, HTTPRoutes and Certificates on the wire:
//! discovery, selectors, watches, writes, an absent CRD and RBAC denials per kind.

use std::time::Duration;

use futures_util::StreamExt;
use kube_test_server::{Kind, KubeTestServer, Options, sample};
use serde_json::{Value, json};

async fn get(url: String) -> (u16, Value) {
    let response = test_support::http_client().get(url).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["metadata"]["name"].as_str().unwrap().to_owned())
        .collect()
}

fn resource<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|resource| resource["name"] == name)
}

#[tokio::test]
async fn discovery_lists_each_kind_with_both_crds() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    let url = server.url();
    let (_, core) = get(format!("{url}/api/v1")).await;
    let services = resource(&core, "services").expect("services in /api/v1");
    assert_eq!(services["kind"], "Service");
    assert_eq!(services["namespaced"], true);
    assert_eq!(services["shortNames"], json!(["svc"]));
    assert!(
        services["verbs"]
            .as_array()
            .unwrap()
            .contains(&json!("watch"))
    );
    assert_eq!(
        resource(&core, "events").unwrap()["shortNames"],
        json!(["ev"])
    );
    assert_eq!(resource(&core, "secrets").unwrap()["kind"], "Secret");
    let (_, slices) = get(format!("{url}/apis/discovery.k8s.io/v1")).await;
    assert_eq!(
        resource(&slices, "endpointslices").unwrap()["kind"],
        "EndpointSlice"
    );
    let (_, certs) = get(format!("{url}/apis/cert-manager.io/v1")).await;
    assert_eq!(
        resource(&certs, "certificates").unwrap()["shortNames"],
        json!(["cert", "certs"])
    );

    let group_names = |groups: &Value| -> Vec<String> {
        groups["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|group| group["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let (_, groups) = get(format!("{url}/apis")).await;
    assert!(group_names(&groups).contains(&"gateway.networking.k8s.io".to_owned()));
    let (_, routes) = get(format!("{url}/apis/gateway.networking.k8s.io/v1")).await;
    let httproutes = resource(&routes, "httproutes").unwrap();
    assert_eq!(httproutes["kind"], "HTTPRoute");
    assert_eq!(httproutes["categories"], json!(["gateway-api"]));
    let (status, list) = get(format!(
        "{url}/apis/gateway.networking.k8s.io/v1/httproutes"
    ))
    .await;
    assert_eq!(
        (status, list["kind"].as_str()),
        (200, Some("HTTPRouteList"))
    );
}

#[tokio::test]
async fn event_field_selectors_pick_an_objects_warnings() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate_everything(&server.cluster, 3, 3).unwrap();
    let url = server.url();
    let (status, events) = get(format!(
        "{url}/api/v1/events?fieldSelector=involvedObject.name%3Dapp-00001,involvedObject.kind%3DIngress,type%3DWarning"
    ))
    .await;
    assert_eq!(status, 200);
    assert_eq!(events["kind"], "EventList");
    let reasons: Vec<&str> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 2, "{events}");
    assert!(reasons.contains(&"NoReadyEndpoints"));
    assert!(events["items"].as_array().unwrap().iter().all(|event| {
        event["type"] == "Warning" && event["involvedObject"]["namespace"] == "team-001"
    }));
    // The same in its namespace, and the Normal one is there without type=Warning.
    let (_, all) = get(format!(
        "{url}/api/v1/namespaces/team-001/events?fieldSelector=involvedObject.name%3Dapp-00001"
    ))
    .await;
    assert_eq!(names(&all).len(), 3);
    let (_, other) = get(format!(
        "{url}/api/v1/namespaces/team-000/events?fieldSelector=involvedObject.name%3Dapp-00001"
    ))
    .await;
    assert!(names(&other).is_empty());
    // Label selectors: the EndpointSlices of one Service.
    let (_, slices) = get(format!(
        "{url}/apis/discovery.k8s.io/v1/namespaces/team-000/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dapp-00000"
    ))
    .await;
    assert_eq!(names(&slices).len(), 1);
    assert!(names(&slices)[0].starts_with("app-00000-"));
    // A field the kind does not support, and a selector that does not parse: 400 Status.
    let (status, body) = get(format!(
        "{url}/api/v1/services?fieldSelector=type%3DWarning"
    ))
    .await;
    assert_eq!((status, body["reason"].as_str()), (400, Some("BadRequest")));
    assert_eq!(body["message"], "field label not supported: type");
    let (status, _) = get(format!("{url}/api/v1/secrets?labelSelector=app%20in%20(x")).await;
    assert_eq!(status, 400);
    let (_, secrets) = get(format!(
        "{url}/api/v1/secrets?fieldSelector=type%3Dkubernetes.io%2Ftls"
    ))
    .await;
    assert_eq!(names(&secrets), ["app-00000-tls", "app-00002-tls"]);
}

/// Reads watch lines until `count` events arrived or 5 s pass without one.
async fn watch_lines(url: String, count: usize) -> Vec<Value> {
    let response = test_support::http_client().get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let (mut buffer, mut events) = (Vec::new(), Vec::new());
    while events.len() < count {
        let Ok(Some(Ok(chunk))) = tokio::time::timeout(Duration::from_secs(5), body.next()).await
        else {
            break;
        };
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            events.push(serde_json::from_slice(&line).unwrap());
        }
    }
    events
}

#[tokio::test]
async fn a_watch_with_a_selector_sees_objects_enter_and_leave_it() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 0, 1);
    let cluster = server.cluster.clone();
    let slice = |ready: bool| {
        let service = cluster.put(Kind::Service, sample::service("team-000", "web", 80, 8080));
        sample::endpoint_slice("team-000", &service, 8080, 1, ready)
    };
    let from = server.cluster.revision();
    let url = format!(
        "{}/apis/discovery.k8s.io/v1/namespaces/team-000/endpointslices?watch=1&resourceVersion={from}&labelSelector=tier%3Dfront&timeoutSeconds=3",
        server.url()
    );
    let watching = tokio::spawn(watch_lines(url, 3));
    let waiting = server.cluster.clone();
    tokio::task::spawn_blocking(move || {
        test_support::wait_until("the watch", Duration::from_secs(10), || {
            waiting.open_watches() == 1
        })
    })
    .await
    .unwrap();
    let mut object = slice(true);
    server.cluster.put(Kind::EndpointSlice, object.clone()); // not selected: no event
    object["metadata"]["labels"]["tier"] = json!("front");
    server.cluster.put(Kind::EndpointSlice, object.clone()); // enters: ADDED
    object["endpoints"][0]["conditions"]["ready"] = json!(false);
    server.cluster.put(Kind::EndpointSlice, object.clone()); // MODIFIED
    object["metadata"]["labels"]["tier"] = json!("back");
    server.cluster.put(Kind::EndpointSlice, object); // leaves: DELETED
    let events = watching.await.unwrap();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["ADDED", "MODIFIED", "DELETED"], "{events:?}");
    assert_eq!(events[0]["object"]["kind"], "EndpointSlice");
    assert_eq!(events[0]["object"]["apiVersion"], "discovery.k8s.io/v1");
    assert_eq!(
        events[1]["object"]["endpoints"][0]["conditions"]["ready"],
        false
    );
}
