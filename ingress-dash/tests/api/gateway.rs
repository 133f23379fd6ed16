//! Gateway API HTTPRoutes beside ingresses (issue 20 section 2), and a cluster without the
//! Gateway API: said once, ingresses unaffected.

use std::time::Duration;

use kube_test_server::{Crd, KubeTestServer, Options, sample};
use serde_json::json;

use crate::app::{spawn_app, spawn_app_with};
use crate::backends::{ingress_to, item};

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn http_routes_are_records_with_parents_rules_and_conditions() {
    let app = spawn_app("", "").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("team-000");
    sample::populate_routes(cluster);
    cluster.put_ingress(ingress_to("team-000", "web", "storefront"));
    let mut stream = app.stream("?namespaces=team-000", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    assert_eq!(first.data["notices"], json!([]));
    let checkout = item(&first.data, "checkout");
    assert_eq!(checkout["kind"], "HTTPRoute");
    assert_eq!(checkout["ingressClassName"], json!(null));
    assert!(!checkout["hosts"].as_array().unwrap().is_empty());
    let route = &checkout["route"];
    assert_eq!(route["parentRefs"][0]["name"], "public");
    assert_eq!(route["parentRefs"][0]["namespace"], "gateway-system");
    assert_eq!(route["parentRefs"][0]["kind"], "Gateway");
    let resolved = route["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|condition| condition["type"] == "ResolvedRefs")
        .unwrap();
    assert_eq!(resolved["status"], "False");
    assert_eq!(resolved["reason"], "BackendNotFound");
    assert_eq!(resolved["parent"], "gateway-system/public/https");
    assert_eq!(route["rules"][0]["backendRefs"][0]["name"], "checkout-v2");
    assert!(
        route["rules"][0]["matches"][0]
            .as_str()
            .unwrap()
            .contains("/checkout")
    );
    assert_eq!(checkout["backends"][0]["state"], "missing_service");
    let storefront = item(&first.data, "storefront");
    assert_eq!(storefront["kind"], "HTTPRoute");
    assert_eq!(storefront["backends"][0]["state"], "ready");
    // An ingress and a route of the same name are two records.
    cluster.put_ingress(ingress_to("team-000", "checkout", "storefront"));
    let added = stream.next_event(WAIT).await.unwrap();
    assert_eq!(added.event, "added");
    assert_eq!(added.data["kind"], "Ingress");
    let (_, body) = app.get_json("/api/ingresses?namespaces=team-000").await;
    let kinds: Vec<_> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["name"] == "checkout")
        .map(|item| item["kind"].clone())
        .collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    // A route deleted is a `deleted` event.
    cluster.delete(
        kube_test_server::Kind::HttpRoute,
        Some("team-000"),
        "storefront",
    );
    let deleted = stream.next_event(WAIT).await.unwrap();
    assert_eq!(deleted.event, "deleted");
    assert_eq!(
        (deleted.data["kind"].as_str(), deleted.data["name"].as_str()),
        (Some("HTTPRoute"), Some("storefront"))
    );
}

#[tokio::test]
async fn without_the_gateway_api_a_notice_is_given_once_and_ingresses_stream() {
    let kube = KubeTestServer::start(Options {
        gateway_api: false,
        bookmark_interval: Duration::from_millis(500),
        ..Options::default()
    })
    .unwrap();
    let app = spawn_app_with(kube, "", "").await;
    let cluster = &app.kube.cluster;
    for namespace in ["a", "b"] {
        cluster.add_namespace(namespace);
        cluster.put_ingress(ingress_to(namespace, "web", "web"));
    }
    let notice = json!([{"code": "gateway_api_not_installed",
                         "message": "Gateway API is not installed: HTTPRoutes are not shown."}]);
    let mut stream = app.stream("?namespaces=a,b", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    assert_eq!(first.event, "snapshot");
    assert_eq!(first.data["errors"], json!([]));
    assert_eq!(first.data["items"].as_array().unwrap().len(), 2);
    assert_eq!(
        first.data["notices"], notice,
        "one notice for every namespace"
    );
    let (_, body) = app.get_json("/api/ingresses?namespaces=a").await;
    assert_eq!(body["notices"], notice);
    assert_eq!(body["errors"], json!([]));
    assert!(!cluster.crd_installed(Crd::GatewayApi));
}

#[tokio::test]
async fn a_gateway_api_installed_later_is_picked_up_by_the_running_watchers() {
    let kube = KubeTestServer::start(Options {
        gateway_api: false,
        bookmark_interval: Duration::from_millis(500),
        ..Options::default()
    })
    .unwrap();
    // Discovery is asked again every permanent_error_retry.
    let app = spawn_app_with(kube, "  permanent_error_retry: 1s\n", "").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("team-000");
    cluster.put_ingress(ingress_to("team-000", "web", "storefront"));
    let mut stream = app.stream("?namespaces=team-000", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    assert_eq!(first.data["notices"].as_array().unwrap().len(), 1);
    cluster.set_crd_installed(Crd::GatewayApi, true);
    sample::populate_routes(cluster);
    let mut routes = Vec::new();
    while routes.len() < 2 {
        let event = stream.next_event(WAIT).await.expect("the routes arrive");
        if event.event == "added" && event.data["kind"] == "HTTPRoute" {
            routes.push(event.data["name"].as_str().unwrap().to_owned());
        }
    }
    routes.sort();
    assert_eq!(routes, ["checkout", "storefront"]);
    let (_, body) = app.get_json("/api/ingresses?namespaces=team-000").await;
    assert_eq!(body["notices"], json!([]));
}
