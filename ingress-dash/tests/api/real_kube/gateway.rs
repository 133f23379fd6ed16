//! HTTPRoutes through the real Gateway API 1.6.3 CRDs (their schema defaults filled in by the
//! API server, their status written through the status subresource as a gateway controller
//! does), and a cluster without them. Moved from kube-test-server (`gateway.rs`), with the
//! YAML of a route from `src/http/objects`.

use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use super::{
    Cluster, ENDPOINT_SLICE, GATEWAY, HTTP_ROUTE, INGRESS, Real, RealApp, SERVICE, WAIT,
    endpoint_slice, ingress, record, service, spawn_real, spawn_shared,
};

/// An HTTPRoute `name` under Gateway `infra/public`, section `http`, for `host`: `path` (a
/// PathPrefix match; none when empty: the CRD's default `PathPrefix /`) to `backend`:80.
fn route(namespace: &str, name: &str, host: &str, path: &str, backend: &str) -> Value {
    let mut rule = json!({"backendRefs": [{"name": backend, "port": 80}]});
    if !path.is_empty() {
        rule["matches"] = json!([{"path": {"type": "PathPrefix", "value": path}}]);
    }
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "parentRefs": [{"name": "public", "namespace": "rk-gateway-infra", "sectionName": "http"}],
            "hostnames": [host],
            "rules": [rule],
        },
    })
}

/// The status a gateway controller writes: Accepted, and ResolvedRefs as told.
fn route_status(namespace: &str, name: &str, resolved: (&str, &str, &str)) -> Value {
    let condition = |kind: &str, status: &str, reason: &str, message: &str| {
        json!({"type": kind, "status": status, "reason": reason, "message": message,
               "lastTransitionTime": "2026-11-27T10:00:00Z", "observedGeneration": 1})
    };
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "status": {"parents": [{
            "parentRef": {"name": "public", "namespace": "rk-gateway-infra", "sectionName": "http"},
            "controllerName": "example.com/gateway-controller",
            "conditions": [
                condition("Accepted", "True", "Accepted", "Accepted"),
                condition("ResolvedRefs", resolved.0, resolved.1, resolved.2),
            ],
        }]},
    })
}

async fn gateway(kube: &Real) {
    kube.namespaces(&["rk-gateway-infra"]).await;
    kube.put(
        GATEWAY,
        json!({
            "metadata": {"name": "public", "namespace": "rk-gateway-infra"},
            "spec": {"gatewayClassName": "example", "listeners": [
                {"name": "http", "port": 80, "protocol": "HTTP", "allowedRoutes": {"namespaces": {"from": "All"}}},
            ]},
        }),
    )
    .await;
}

#[tokio::test]
async fn http_routes_of_the_real_crds_are_records_with_parents_rules_and_conditions() {
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    let ns = "rk-gateway";
    kube.namespaces(&[ns]).await;
    gateway(kube).await;
    kube.put(SERVICE, service(ns, "storefront")).await;
    kube.put(ENDPOINT_SLICE, endpoint_slice(ns, "storefront", 2, true))
        .await;
    kube.put(
        HTTP_ROUTE,
        route(ns, "storefront", "shop.example.com", "", "storefront"),
    )
    .await;
    kube.put_status(
        HTTP_ROUTE,
        route_status(ns, "storefront", ("True", "ResolvedRefs", "Resolved")),
    )
    .await;
    let checkout = kube
        .put(
            HTTP_ROUTE,
            route(
                ns,
                "checkout",
                "shop.example.com",
                "/checkout",
                "checkout-v2",
            ),
        )
        .await;
    // The CRD's schema defaults, filled in by the API server.
    assert_eq!(
        checkout["spec"]["parentRefs"][0]["group"],
        "gateway.networking.k8s.io"
    );
    assert_eq!(checkout["spec"]["parentRefs"][0]["kind"], "Gateway");
    kube.put_status(
        HTTP_ROUTE,
        route_status(
            ns,
            "checkout",
            ("False", "BackendNotFound", "service checkout-v2 not found"),
        ),
    )
    .await;

    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.event, "snapshot");
    assert_eq!(first.data["notices"], json!([]));
    assert_eq!(first.data["errors"], json!([]));
    let record_of = record(&first.data, "HTTPRoute", "checkout");
    assert_eq!(record_of["hosts"], json!(["shop.example.com"]));
    let detail = &record_of["route"];
    assert_eq!(
        detail["parentRefs"],
        json!([{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                "namespace": "rk-gateway-infra", "name": "public", "sectionName": "http"}])
    );
    let resolved = detail["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|condition| condition["type"] == "ResolvedRefs")
        .unwrap_or_else(|| panic!("{detail}"));
    assert_eq!(resolved["status"], "False");
    assert_eq!(resolved["reason"], "BackendNotFound");
    assert_eq!(resolved["parent"], "rk-gateway-infra/public/http");
    assert_eq!(
        detail["rules"][0]["matches"],
        json!(["PathPrefix /checkout"])
    );
    assert_eq!(detail["rules"][0]["backendRefs"][0]["name"], "checkout-v2");
    assert_eq!(record_of["backends"][0]["state"], "missing_service");
    let storefront = record(&first.data, "HTTPRoute", "storefront");
    // No match given: the CRD's default, one PathPrefix / match.
    assert_eq!(
        storefront["route"]["rules"][0]["matches"],
        json!(["PathPrefix /"])
    );
    assert_eq!(storefront["backends"][0]["state"], "ready");
    assert_eq!(storefront["backends"][0]["readyEndpoints"], 2);

    // An ingress of the same name is a second record.
    kube.put(
        INGRESS,
        ingress(ns, "checkout", "shop.example.com", "storefront"),
    )
    .await;
    let added = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(
        (added.event.as_str(), added.data["kind"].as_str()),
        ("added", Some("Ingress"))
    );
    let (_, body) = app
        .get_json(&format!("/api/ingresses?namespaces={ns}"))
        .await;
    let kinds: Vec<_> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["name"] == "checkout")
        .map(|item| item["kind"].clone())
        .collect();
    assert_eq!(kinds, [json!("Ingress"), json!("HTTPRoute")], "{body}");
    // The route's YAML, with the status the controller wrote.
    let response = app
        .get(&format!("/api/objects/httproutes/{ns}/checkout/yaml"))
        .await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let yaml = &yaml_rust2::YamlLoader::load_from_str(&text).expect("valid YAML")[0];
    assert_eq!(yaml["kind"].as_str(), Some("HTTPRoute"));
    assert_eq!(
        yaml["apiVersion"].as_str(),
        Some("gateway.networking.k8s.io/v1")
    );
    let conditions = yaml["status"]["parents"][0]["conditions"]
        .as_vec()
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        conditions
            .iter()
            .any(|c| c["reason"].as_str() == Some("BackendNotFound")),
        "{text}"
    );
    // The controller finds the backend: the condition changes, one `modified`.
    kube.put_status(
        HTTP_ROUTE,
        route_status(ns, "checkout", ("True", "ResolvedRefs", "Resolved")),
    )
    .await;
    let modified = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(
        (modified.event.as_str(), modified.data["kind"].as_str()),
        ("modified", Some("HTTPRoute"))
    );
    assert!(
        modified.data["route"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "ResolvedRefs" && c["status"] == "True"),
        "{}",
        modified.data
    );
    // A route deleted is a `deleted` event.
    assert!(kube.delete(HTTP_ROUTE, ns, "storefront").await);
    let deleted = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(deleted.event, "deleted");
    assert_eq!(
        (deleted.data["kind"].as_str(), deleted.data["name"].as_str()),
        (Some("HTTPRoute"), Some("storefront"))
    );
}

/// The application on a cluster of its own (its CRDs are the test's to change), asking discovery
/// again every second after a permanent error (`permanent_error_retry: 1s`).
async fn spawn_own_retrying() -> RealApp {
    spawn_real(
        Cluster::Own(Box::new(KubeCluster::start())),
        None,
        "  permanent_error_retry: 1s\n",
        "",
    )
    .await
}

/// A cluster of its own, without the Gateway API first: one notice for every namespace,
/// ingresses unaffected; the CRDs installed later are found by the running watchers (discovery
/// asked again every `permanent_error_retry`).
#[tokio::test]
async fn without_the_gateway_api_a_notice_then_routes_once_the_crds_are_installed() {
    let app = spawn_own_retrying().await;
    let kube = &app.kube;
    let served = kube
        .admin
        .get(format!(
            "{}/apis/gateway.networking.k8s.io",
            kube.cluster.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 404, "the API server serves no Gateway API");
    kube.namespaces(&["rk-a", "rk-b"]).await;
    for ns in ["rk-a", "rk-b"] {
        kube.put(INGRESS, ingress(ns, "web", "web.example.com", "web"))
            .await;
    }
    let notice = json!([{"code": "gateway_api_not_installed",
                         "message": "Gateway API is not installed: HTTPRoutes are not shown."}]);
    let mut stream = app.stream("?namespaces=rk-a,rk-b", None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.event, "snapshot");
    assert_eq!(first.data["errors"], json!([]));
    assert_eq!(first.data["items"].as_array().unwrap().len(), 2);
    assert_eq!(
        first.data["notices"], notice,
        "one notice for every namespace"
    );
    let (_, body) = app.get_json("/api/ingresses?namespaces=rk-a").await;
    assert_eq!(body["notices"], notice);
    assert_eq!(body["errors"], json!([]));
    // An HTTPRoute asked for by name is not found.
    let (status, body) = app.get_json("/api/objects/httproutes/rk-a/web/yaml").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("not_found")),
        "{body}"
    );

    kube.cluster.install_gateway_api_crds();
    gateway(kube).await;
    for (name, path) in [("storefront", "/"), ("checkout", "/checkout")] {
        kube.put(
            HTTP_ROUTE,
            route("rk-a", name, "shop.example.com", path, "web"),
        )
        .await;
    }
    let mut routes = Vec::new();
    while routes.len() < 2 {
        let event = stream.next_event(WAIT).await.expect("the routes arrive");
        if event.event == "added" && event.data["kind"] == "HTTPRoute" {
            routes.push(event.data["name"].as_str().unwrap().to_owned());
        }
    }
    routes.sort();
    assert_eq!(routes, ["checkout", "storefront"]);
    let (_, body) = app.get_json("/api/ingresses?namespaces=rk-a").await;
    assert_eq!(body["notices"], json!([]), "{body}");
}

/// The Gateway API uninstalled while watched: the API server's CRD finalizer deletes every
/// HTTPRoute (one `deleted` each), then stops serving the kind; the namespace is not in error,
/// the notice comes back and the ingresses stream on.
#[tokio::test]
async fn the_gateway_api_uninstalled_deletes_the_routes_and_brings_the_notice_back() {
    let app = spawn_own_retrying().await;
    let kube = &app.kube;
    kube.cluster.install_gateway_api_crds();
    let ns = "rk-uninstall";
    kube.namespaces(&[ns]).await;
    gateway(kube).await;
    kube.put(INGRESS, ingress(ns, "web", "web.example.com", "web"))
        .await;
    kube.put(
        HTTP_ROUTE,
        route(ns, "storefront", "shop.example.com", "/", "web"),
    )
    .await;
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.data["notices"], json!([]));
    assert_eq!(super::names(&first.data), ["storefront", "web"]);

    let output = kube.cluster.kubectl(&[
        "delete",
        "crd",
        "httproutes.gateway.networking.k8s.io",
        "--timeout=60s",
    ]);
    assert!(output.status.success(), "{output:?}");
    let events = stream
        .events_until(WAIT, |events| {
            events.iter().any(|event| event.event == "deleted")
        })
        .await;
    let deleted = events.last().unwrap();
    assert_eq!(
        (deleted.data["kind"].as_str(), deleted.data["name"].as_str()),
        (Some("HTTPRoute"), Some("storefront"))
    );
    // Until discovery has looked again.
    let notice = json!([{"code": "gateway_api_not_installed",
                         "message": "Gateway API is not installed: HTTPRoutes are not shown."}]);
    let mut body = json!(null);
    let settled = crate::app::eventually(async || {
        body = app
            .get_json(&format!("/api/ingresses?namespaces={ns}"))
            .await
            .1;
        body["notices"] == notice
    })
    .await;
    assert!(settled, "{body}");
    assert_eq!(body["errors"], json!([]), "{body}");
    assert_eq!(super::names(&body), ["web"]);
    kube.put(INGRESS, ingress(ns, "api", "api.example.com", "web"))
        .await;
    let events = stream
        .events_until(WAIT, |events| {
            events.iter().any(|event| event.data["name"] == "api")
        })
        .await;
    assert!(
        events.iter().all(|event| event.event != "error"),
        "{events:#?}"
    );
}
