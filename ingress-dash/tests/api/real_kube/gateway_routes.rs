//! GRPCRoutes and TLSRoutes through the real Gateway API 1.6.3 CRDs (standard channel: both
//! served at v1): records of their own in the stream, with their parents' conditions in words,
//! and rows of the Hosts view with the listener each attaches to, a GRPCRoute beside an
//! HTTPRoute on one host, and two TLSRoutes claiming one SNI hostname flagged as a conflict;
//! each route's parentRef joined to the listeners of the real Gateway it names that accept it
//! (the listener's `allowedRoutes` kinds and namespaces as the API server defaulted them, its
//! hostname), or why not: "no such listener", "no such Gateway", a kind or namespace not
//! allowed, a hostname no listener takes, a namespace selector not checked.

use serde_json::{Value, json};
use test_support::eventually_with;
use test_support::kube_cluster::KubeCluster;

use super::{
    ENDPOINT_SLICE, GATEWAY, GRPC_ROUTE, HTTP_ROUTE, RealApp, SERVICE, TLS_ROUTE, WAIT,
    endpoint_slice, record, service, spawn_shared,
};

const NS: &str = "rk-grpc-tls";

fn parent(section: &str) -> Value {
    json!({"name": "public", "namespace": "rk-grpc-tls-infra", "sectionName": section})
}

fn tls_route(name: &str, backend: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": NS},
        "spec": {"parentRefs": [parent("tls")], "hostnames": ["db.rk-grpc-tls.example"],
                 "rules": [{"backendRefs": [{"name": backend, "port": 5432}]}]},
    })
}

/// `/api/hosts?namespaces=NS` once it holds `host` with `objects` objects.
async fn hosts_with(app: &RealApp, host: &str, objects: usize) -> Value {
    hosts_of(app, NS, host, objects).await
}

/// `/api/hosts?namespaces=namespace` once it holds `host` with `objects` objects.
async fn hosts_of(app: &RealApp, namespace: &str, host: &str, objects: usize) -> Value {
    eventually_with("the routes in the Hosts view", WAIT, async || {
        let (status, body) = app
            .get_json(&format!("/api/hosts?namespaces={namespace}"))
            .await;
        let found = body["hosts"].as_array().and_then(|hosts| {
            hosts
                .iter()
                .find(|entry| entry["host"] == host)
                .filter(|entry| entry["objects"].as_array().map(Vec::len) == Some(objects))
        });
        match found {
            Some(entry) if status == 200 => Ok(entry.clone()),
            _ => Err(format!("{status} {body}")),
        }
    })
    .await
}

#[tokio::test]
async fn grpc_and_tls_routes_are_records_and_rows_of_the_hosts_view() {
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    kube.namespaces(&[NS, "rk-grpc-tls-infra"]).await;
    kube.put(
        GATEWAY,
        json!({
            "metadata": {"name": "public", "namespace": "rk-grpc-tls-infra"},
            "spec": {"gatewayClassName": "example", "listeners": [
                {"name": "grpc", "port": 80, "protocol": "HTTP", "hostname": "*.rk-grpc-tls.example"},
                {"name": "tls", "port": 8443, "protocol": "TLS", "tls": {"mode": "Passthrough"},
                 "allowedRoutes": {"namespaces": {"from": "All"}}},
            ]},
        }),
    )
    .await;
    kube.put(SERVICE, service(NS, "cart")).await;
    kube.put(ENDPOINT_SLICE, endpoint_slice(NS, "cart", 2, true))
        .await;
    kube.put(
        GRPC_ROUTE,
        json!({
            "metadata": {"name": "cart", "namespace": NS},
            "spec": {"parentRefs": [parent("grpc")], "hostnames": ["api.rk-grpc-tls.example"],
                     "rules": [{"matches": [{"method": {"service": "shop.Cart", "method": "Add"}}],
                                "backendRefs": [{"name": "cart", "port": 9000}]}]},
        }),
    )
    .await;
    kube.put_status(
        GRPC_ROUTE,
        json!({
            "metadata": {"name": "cart", "namespace": NS},
            "status": {"parents": [{
                "parentRef": parent("grpc"),
                "controllerName": "example.com/gateway-controller",
                "conditions": [{"type": "Accepted", "status": "False", "reason": "NotAllowedByListeners",
                    "message": "listener grpc allows HTTPRoutes only",
                    "lastTransitionTime": "2026-11-28T10:00:00Z", "observedGeneration": 1}],
            }]},
        }),
    )
    .await;
    kube.put(
        HTTP_ROUTE,
        json!({
            "metadata": {"name": "web", "namespace": NS},
            "spec": {"parentRefs": [parent("https"), {"name": "private", "namespace": "rk-grpc-tls-infra"}],
                     "hostnames": ["api.rk-grpc-tls.example"],
                     "rules": [{"backendRefs": [{"name": "cart", "port": 80}]}]},
        }),
    )
    .await;
    kube.put(TLS_ROUTE, tls_route("db", "postgres")).await;
    kube.put(TLS_ROUTE, tls_route("db-old", "postgres-old"))
        .await;

    let mut stream = app.stream(&format!("?namespaces={NS}"), None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.data["errors"], json!([]), "{}", first.data);
    let grpc = record(&first.data, "GRPCRoute", "cart");
    assert_eq!(
        grpc["route"]["rules"][0]["matches"],
        json!(["gRPC shop.Cart/Add"])
    );
    assert_eq!(
        grpc["route"]["diagnosis"][0]["code"], "not_accepted",
        "{grpc}"
    );
    assert!(
        grpc["route"]["diagnosis"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no listener of the Gateway allows this route"),
        "{grpc}"
    );
    let tls = record(&first.data, "TLSRoute", "db");
    assert_eq!(tls["hosts"], json!(["db.rk-grpc-tls.example"]));
    assert_eq!(
        tls["route"]["diagnosis"][0]["code"], "never_attached",
        "no controller wrote its status: {tls}"
    );

    let api = hosts_with(&app, "api.rk-grpc-tls.example", 2).await;
    let kinds: Vec<&Value> = api["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|object| &object["kind"])
        .collect();
    assert_eq!(kinds, [&json!("GRPCRoute"), &json!("HTTPRoute")]);
    assert_eq!(
        api["objects"][0]["listeners"],
        json!(["rk-grpc-tls-infra/public/grpc"])
    );
    assert_eq!(
        api["objects"][0]["attachments"],
        json!([{"gatewayNamespace": "rk-grpc-tls-infra", "gateway": "public", "sectionName": "grpc",
                "listeners": [],
                "problem": "listener grpc: namespace not allowed (rk-grpc-tls is not the Gateway's \
                            namespace rk-grpc-tls-infra, and the listener takes routes from it only)"}]),
        "the API server defaults allowedRoutes to routes of the Gateway's own namespace"
    );
    let problems: Vec<&Value> = api["objects"][1]["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attachment| &attachment["problem"])
        .collect();
    assert_eq!(
        problems,
        [
            &json!(
                "no such listener: Gateway rk-grpc-tls-infra/public has no listener named https"
            ),
            &json!("no such Gateway: rk-grpc-tls-infra/private does not exist"),
        ]
    );
    assert_eq!(api["conflict"], false, "a method and a path differ: {api}");
    let method = api["paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|path| path["matched"] == "gRPC shop.Cart/Add")
        .unwrap_or_else(|| panic!("{api}"));
    assert_eq!(method["object"], "grpcroute/rk-grpc-tls/cart");
    assert_eq!(method["backends"][0]["state"], "ready");

    let db = hosts_with(&app, "db.rk-grpc-tls.example", 2).await;
    assert_eq!(db["conflict"], true);
    assert_eq!(
        db["conflicts"],
        json!([{"matched": "SNI", "objects": ["tlsroute/rk-grpc-tls/db", "tlsroute/rk-grpc-tls/db-old"]}])
    );
    assert_eq!(db["paths"][0]["backends"][0]["state"], "missing_service");
    assert_eq!(
        db["objects"][0]["attachments"][0]["listeners"][0]["tlsMode"],
        "Passthrough"
    );
}

const ALLOWED: &str = "rk-allowed-routes";

/// A parentRef to listener `section` of Gateway `ALLOWED/edge`.
fn edge(section: &str) -> Value {
    json!({"name": "edge", "sectionName": section})
}

#[tokio::test]
async fn a_listener_attaches_only_the_kinds_namespaces_and_hostnames_it_allows() {
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    kube.namespaces(&[ALLOWED]).await;
    kube.put(
        GATEWAY,
        json!({
            "metadata": {"name": "edge", "namespace": ALLOWED},
            "spec": {"gatewayClassName": "example", "listeners": [
                {"name": "http-only", "port": 80, "protocol": "HTTP",
                 "allowedRoutes": {"kinds": [{"kind": "HTTPRoute"}]}},
                {"name": "api", "port": 443, "protocol": "HTTPS", "hostname": "*.api.rk-allowed.example",
                 "tls": {"certificateRefs": [{"name": "api-tls"}]}},
                {"name": "shared", "port": 8080, "protocol": "HTTP",
                 "allowedRoutes": {"namespaces": {"from": "Selector",
                     "selector": {"matchLabels": {"shared-gateway": "true"}}}}},
            ]},
        }),
    )
    .await;
    kube.put(
        GRPC_ROUTE,
        json!({
            "metadata": {"name": "cart", "namespace": ALLOWED},
            "spec": {"parentRefs": [edge("http-only")], "hostnames": ["cart.rk-allowed.example"],
                     "rules": [{"backendRefs": [{"name": "cart", "port": 9000}]}]},
        }),
    )
    .await;
    kube.put(
        HTTP_ROUTE,
        json!({
            "metadata": {"name": "www", "namespace": ALLOWED},
            "spec": {"parentRefs": [edge("api"), edge("shared")], "hostnames": ["www.rk-allowed.example"],
                     "rules": [{"backendRefs": [{"name": "www", "port": 80}]}]},
        }),
    )
    .await;
    kube.put(
        HTTP_ROUTE,
        json!({
            "metadata": {"name": "v1", "namespace": ALLOWED},
            "spec": {"parentRefs": [{"name": "edge"}], "hostnames": ["v1.api.rk-allowed.example"],
                     "rules": [{"backendRefs": [{"name": "v1", "port": 80}]}]},
        }),
    )
    .await;

    let cart = hosts_of(&app, ALLOWED, "cart.rk-allowed.example", 1).await;
    assert_eq!(
        cart["objects"][0]["attachments"][0]["problem"],
        "listener http-only does not allow GRPCRoute",
        "{cart}"
    );
    assert_eq!(cart["objects"][0]["attachments"][0]["listeners"], json!([]));

    let www = hosts_of(&app, ALLOWED, "www.rk-allowed.example", 1).await;
    let attachments = &www["objects"][0]["attachments"];
    assert_eq!(
        attachments[0]["problem"],
        "not accepted by listener api: hostname (no hostname of the route matches \
         *.api.rk-allowed.example)",
        "{www}"
    );
    assert_eq!(attachments[1]["problem"], Value::Null, "{www}");
    assert_eq!(attachments[1]["listeners"][0]["name"], "shared");
    assert_eq!(
        attachments[1]["listeners"][0]["note"], "namespace selector not checked",
        "namespace labels are not read: the selector is not guessed"
    );

    let v1 = hosts_of(&app, ALLOWED, "v1.api.rk-allowed.example", 1).await;
    let names: Vec<&Value> = v1["objects"][0]["attachments"][0]["listeners"]
        .as_array()
        .unwrap_or_else(|| panic!("{v1}"))
        .iter()
        .map(|listener| &listener["name"])
        .collect();
    assert_eq!(
        names,
        [&json!("http-only"), &json!("api"), &json!("shared")],
        "a parentRef without a section attaches to every listener that takes it"
    );
}
