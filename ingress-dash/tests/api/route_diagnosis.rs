//! "Why a route does not work" (`route.diagnosis` of an HTTPRoute's record) against the real
//! kube-apiserver with the real Gateway API CRDs.
//!
//! There is no gateway controller in the test cluster: the test writes each route's
//! `status.parents[]` through the status subresource itself, as a controller would (its
//! `Accepted` and `ResolvedRefs` conditions with the Gateway API's standard reasons). What the
//! dashboard derives on its own is tested against what it really watches: a parentRef no
//! status entry mentions (never attached), and a backend Service that does not exist.
//! ReferenceGrants are not read by the dashboard yet: a cross-namespace backendRef is judged
//! from the controller's `RefNotPermitted`, and a ReferenceGrant written into the target
//! namespace is followed here by the controller's new status, which clears the finding.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::eventually_with;
use test_support::kube_cluster::KubeCluster;

use crate::real_kube::{
    Cluster, GATEWAY, GRPC_ROUTE, HTTP_ROUTE, RealApp, Resource, SERVICE, TLS_ROUTE, WAIT,
    reader_token, scoped, service, spawn_real, spawn_shared,
};

const REFERENCE_GRANT: Resource = Resource {
    api_version: "gateway.networking.k8s.io/v1beta1",
    kind: "ReferenceGrant",
    plural: "referencegrants",
    namespaced: true,
};

const NS: &str = "rd-routes";
const SHARED: &str = "rd-shared";
const INFRA: &str = "rd-infra";

fn parent_ref() -> Value {
    json!({"name": "public", "namespace": INFRA, "sectionName": "http"})
}

/// A route in [`NS`] under `rd-infra/public` section `http`, sending `/` to `backend`:80
/// (in `backend_namespace` when given).
fn route(name: &str, backend: &str, backend_namespace: Option<&str>) -> Value {
    let mut backend_ref = json!({"name": backend, "port": 80});
    if let Some(namespace) = backend_namespace {
        backend_ref["namespace"] = json!(namespace);
    }
    json!({
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "parentRefs": [parent_ref()],
            "hostnames": [format!("{name}.example.com")],
            "rules": [{"backendRefs": [backend_ref]}],
        },
    })
}

/// The status a controller writes for the route's one parent.
fn status(name: &str, conditions: &[(&str, &str, &str, &str)]) -> Value {
    let conditions: Vec<Value> = conditions
        .iter()
        .map(|(kind, status, reason, message)| {
            json!({"type": kind, "status": status, "reason": reason, "message": message,
                   "lastTransitionTime": "2026-11-28T06:00:00Z", "observedGeneration": 1})
        })
        .collect();
    json!({
        "metadata": {"name": name, "namespace": NS},
        "status": {"parents": [{
            "parentRef": parent_ref(),
            "controllerName": "example.com/gateway-controller",
            "conditions": conditions,
        }]},
    })
}

const ACCEPTED: (&str, &str, &str, &str) = ("Accepted", "True", "Accepted", "Accepted");
const RESOLVED: (&str, &str, &str, &str) = ("ResolvedRefs", "True", "ResolvedRefs", "Resolved");

/// The route records of [`NS`] by name, once `ready` holds for them (polled until [`WAIT`]
/// plus the list cache's time to live).
async fn routes_when(
    app: &RealApp,
    what: &str,
    ready: impl Fn(&serde_json::Map<String, Value>) -> bool,
) -> serde_json::Map<String, Value> {
    eventually_with(what, WAIT + Duration::from_secs(10), async || {
        let (status, body) = app
            .get_json(&format!("/api/ingresses?namespaces={NS}"))
            .await;
        if status != 200 {
            return Err(format!("{status} {body}"));
        }
        let routes: serde_json::Map<String, Value> = body["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| item["kind"] == "HTTPRoute")
            .map(|item| (item["name"].as_str().unwrap_or("").to_owned(), item.clone()))
            .collect();
        if ready(&routes) {
            Ok(routes)
        } else {
            Err(Value::Object(routes).to_string())
        }
    })
    .await
}

fn findings(record: &Value) -> Vec<Value> {
    record["route"]["diagnosis"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn codes(record: &Value) -> Vec<String> {
    findings(record)
        .iter()
        .map(|finding| finding["code"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test]
async fn a_route_says_why_it_does_not_work_per_parent() {
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    kube.namespaces(&[NS, SHARED, INFRA]).await;
    kube.put(
        GATEWAY,
        json!({
            "metadata": {"name": "public", "namespace": INFRA},
            "spec": {"gatewayClassName": "example", "listeners": [
                {"name": "http", "port": 80, "protocol": "HTTP",
                 "allowedRoutes": {"namespaces": {"from": "Same"}}},
            ]},
        }),
    )
    .await;
    for (namespace, name) in [(NS, "web"), (SHARED, "api")] {
        kube.put(SERVICE, service(namespace, name)).await;
    }
    // Fine: accepted, resolved, its Service exists.
    kube.put(HTTP_ROUTE, route("fine", "web", None)).await;
    kube.put_status(HTTP_ROUTE, status("fine", &[ACCEPTED, RESOLVED]))
        .await;
    // No controller ever wrote a status.
    kube.put(HTTP_ROUTE, route("lonely", "web", None)).await;
    // The listener allows routes of its own namespace only; the message is hostile text.
    kube.put(HTTP_ROUTE, route("refused", "web", None)).await;
    kube.put_status(
        HTTP_ROUTE,
        status(
            "refused",
            &[
                (
                    "Accepted",
                    "False",
                    "NotAllowedByListeners",
                    "<b>no</b> listener\u{7} allows it",
                ),
                RESOLVED,
            ],
        ),
    )
    .await;
    // A Service that does not exist, which the controller has not noticed yet.
    kube.put(HTTP_ROUTE, route("dangling", "gone", None)).await;
    kube.put_status(HTTP_ROUTE, status("dangling", &[ACCEPTED, RESOLVED]))
        .await;
    // A Service of another namespace, no ReferenceGrant there.
    kube.put(HTTP_ROUTE, route("cross", "api", Some(SHARED)))
        .await;
    kube.put_status(
        HTTP_ROUTE,
        status(
            "cross",
            &[
                ACCEPTED,
                (
                    "ResolvedRefs",
                    "False",
                    "RefNotPermitted",
                    "backendRef rd-shared/api not permitted",
                ),
            ],
        ),
    )
    .await;

    let routes = routes_when(&app, "the five routes with their findings", |routes| {
        routes.len() == 5
            && routes
                .get("dangling")
                .is_some_and(|r| codes(r) == ["service_missing"])
            && routes.get("cross").is_some_and(|r| !codes(r).is_empty())
            && routes.get("refused").is_some_and(|r| !codes(r).is_empty())
    })
    .await;
    assert_eq!(
        routes["fine"]["route"].get("diagnosis"),
        None,
        "nothing wrong: no diagnosis on the wire"
    );

    let lonely = findings(&routes["lonely"]);
    assert_eq!(codes(&routes["lonely"]), ["never_attached"], "{lonely:?}");
    assert_eq!(lonely[0]["parent"], "rd-infra/public/http");
    assert_eq!(lonely[0]["severity"], "error");
    assert!(
        lonely[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Never attached")
    );

    let refused = findings(&routes["refused"]);
    assert_eq!(codes(&routes["refused"]), ["not_accepted"], "{refused:?}");
    assert_eq!(refused[0]["parent"], "rd-infra/public/http");
    let message = refused[0]["message"].as_str().unwrap();
    assert!(message.contains("allowedRoutes"), "{message}");
    assert!(
        message.contains("(reason NotAllowedByListeners)"),
        "{message}"
    );
    assert!(
        message.ends_with("The controller says: <b>no</b> listener allows it"),
        "quoted as text, the control character dropped: {message}"
    );

    let dangling = findings(&routes["dangling"]);
    assert_eq!(dangling[0]["severity"], "error");
    assert_eq!(
        dangling[0]["message"],
        "Service rd-routes/gone does not exist: requests routed to it fail"
    );
    assert_eq!(dangling[0].get("parent"), None, "the route as a whole");

    let cross = findings(&routes["cross"]);
    assert_eq!(codes(&routes["cross"]), ["refs_not_resolved"], "{cross:?}");
    assert!(
        cross[0]["message"]
            .as_str()
            .unwrap()
            .contains("no ReferenceGrant"),
        "{cross:?}"
    );
    // rd-shared is not watched with rd-routes: its Service is not known to be missing.
    assert_eq!(routes["cross"]["backends"][0]["state"], "unknown");
    assert_eq!(
        routes["cross"]["backends"][0]["error"],
        "The Services of namespace rd-shared are not watched with this one."
    );

    // The fixes: a controller attaches `lonely`; the Service `gone` is created; a
    // ReferenceGrant in rd-shared lets routes of rd-routes refer to its Services, and the
    // controller resolves `cross` again.
    kube.put_status(HTTP_ROUTE, status("lonely", &[ACCEPTED, RESOLVED]))
        .await;
    kube.put(SERVICE, service(NS, "gone")).await;
    kube.put(
        REFERENCE_GRANT,
        json!({
            "metadata": {"name": "routes-to-api", "namespace": SHARED},
            "spec": {
                "from": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "namespace": NS}],
                "to": [{"group": "", "kind": "Service", "name": "api"}],
            },
        }),
    )
    .await;
    kube.put_status(HTTP_ROUTE, status("cross", &[ACCEPTED, RESOLVED]))
        .await;
    let routes = routes_when(&app, "every finding but refused's gone", |routes| {
        ["fine", "lonely", "dangling", "cross"]
            .iter()
            .all(|name| routes.get(*name).is_some_and(|r| codes(r).is_empty()))
    })
    .await;
    assert_eq!(codes(&routes["refused"]), ["not_accepted"]);
}

/// `GET /api/objects/httproutes/{namespace}/{name}/diagnosis` reads the ReferenceGrants of the
/// namespaces a route's backendRefs point to, when asked: a cross-namespace backendRef without
/// a grant there is a finding, a grant from another namespace or for another Service does not
/// allow it, a matching one does.
#[tokio::test]
async fn the_diagnosis_endpoint_reads_reference_grants_on_demand() {
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    let (routes, shared) = ("rd-grant-routes", "rd-grant-shared");
    kube.namespaces(&[routes, shared]).await;
    kube.put(SERVICE, service(shared, "api")).await;
    kube.put(
        HTTP_ROUTE,
        json!({
            "metadata": {"name": "cross", "namespace": routes},
            "spec": {
                "parentRefs": [parent_ref()],
                "rules": [{"backendRefs": [{"name": "api", "namespace": shared, "port": 80}]}],
            },
        }),
    )
    .await;
    let path = format!("/api/objects/httproutes/{routes}/cross/diagnosis");
    let grant = |name: &str, from: &str, service: &str| {
        json!({
            "metadata": {"name": name, "namespace": shared},
            "spec": {
                "from": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "namespace": from}],
                "to": [{"group": "", "kind": "Service", "name": service}],
            },
        })
    };
    let codes_now = async || {
        let (status, body) = app.get_json(&path).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["notRead"], json!([]), "{body}");
        let codes: Vec<String> = body["findings"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .map(|finding| finding["code"].as_str().unwrap_or("").to_owned())
            .collect();
        (codes, body)
    };

    let (codes, body) = codes_now().await;
    assert_eq!(
        codes,
        ["never_attached", "cross_namespace_without_grant"],
        "{body}"
    );
    assert_eq!(
        body["findings"][1]["message"],
        "Service rd-grant-shared/api is in another namespace and no ReferenceGrant in \
         rd-grant-shared allows HTTPRoutes from rd-grant-routes to refer to it"
    );
    // Grants that do not fit: from another namespace, to another Service.
    kube.put(REFERENCE_GRANT, grant("from-elsewhere", "rd-other", "api"))
        .await;
    kube.put(REFERENCE_GRANT, grant("to-another", routes, "web"))
        .await;
    let (codes, body) = codes_now().await;
    assert_eq!(
        codes,
        ["never_attached", "cross_namespace_without_grant"],
        "{body}"
    );
    // The grant that fits: read at the next request (no cache, no watch).
    kube.put(REFERENCE_GRANT, grant("routes-to-api", routes, "api"))
        .await;
    let (codes, body) = codes_now().await;
    assert_eq!(codes, ["never_attached"], "{body}");

    // A namespace-scoped install that does not watch the target namespace does not read it.
    let scoped_app = spawn_real(
        Cluster::Shared(KubeCluster::shared()),
        None,
        &scoped(&[routes]),
        "",
    )
    .await;
    let (status, body) = scoped_app.get_json(&path).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["notRead"],
        json!([{"namespace": shared, "reason": "not a namespace this dashboard shows you"}])
    );
    assert_eq!(body["findings"].as_array().map(Vec::len), Some(1), "{body}");

    // Bad names are the common error body; a missing route is 404.
    let (status, body) = app
        .get_json(&format!(
            "/api/objects/httproutes/{routes}/Bad_Name/diagnosis"
        ))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"]["code"].is_string(), "{body}");
    let (status, _) = app
        .get_json(&format!(
            "/api/objects/httproutes/{routes}/absent/diagnosis"
        ))
        .await;
    assert_eq!(status, 404);
}

/// GRPCRoutes and TLSRoutes are diagnosed by the same endpoint: a cross-namespace backendRef
/// needs a ReferenceGrant `from` the route's own kind (a grant from HTTPRoute does not cover a
/// GRPCRoute), read from the real API server at each request.
#[tokio::test]
async fn grpc_and_tls_routes_need_a_grant_from_their_own_kind() {
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    let (routes, shared) = ("rd-kinds-routes", "rd-kinds-shared");
    kube.namespaces(&[routes, shared]).await;
    kube.put(SERVICE, service(shared, "api")).await;
    let backend = json!([{"backendRefs": [{"name": "api", "namespace": shared, "port": 80}]}]);
    for kind in [GRPC_ROUTE, TLS_ROUTE] {
        kube.put(
            kind,
            json!({
                "metadata": {"name": "cross", "namespace": routes},
                "spec": {"parentRefs": [parent_ref()], "hostnames": ["api.rd-kinds.example"],
                         "rules": backend},
            }),
        )
        .await;
    }
    let grant = |name: &str, from_kind: &str| {
        json!({
            "metadata": {"name": name, "namespace": shared},
            "spec": {
                "from": [{"group": "gateway.networking.k8s.io", "kind": from_kind, "namespace": routes}],
                "to": [{"group": "", "kind": "Service", "name": "api"}],
            },
        })
    };
    let findings_now = async |plural: &str| {
        let path = format!("/api/objects/{plural}/{routes}/cross/diagnosis");
        let (status, body) = app.get_json(&path).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(body["notRead"], json!([]), "{body}");
        body["findings"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .filter(|finding| finding["code"] == "cross_namespace_without_grant")
            .map(|finding| finding["message"].as_str().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
    };
    let without = |kind: &str| {
        vec![format!(
            "Service rd-kinds-shared/api is in another namespace and no ReferenceGrant in \
             rd-kinds-shared allows {kind}s from rd-kinds-routes to refer to it"
        )]
    };

    assert_eq!(findings_now("grpcroutes").await, without("GRPCRoute"));
    assert_eq!(findings_now("tlsroutes").await, without("TLSRoute"));
    // A grant from HTTPRoutes only covers neither.
    kube.put(REFERENCE_GRANT, grant("from-httproutes", "HTTPRoute"))
        .await;
    assert_eq!(findings_now("grpcroutes").await, without("GRPCRoute"));
    assert_eq!(findings_now("tlsroutes").await, without("TLSRoute"));
    // A grant from GRPCRoutes covers the GRPCRoute only; one from TLSRoutes the TLSRoute.
    kube.put(REFERENCE_GRANT, grant("from-grpcroutes", "GRPCRoute"))
        .await;
    assert_eq!(findings_now("grpcroutes").await, Vec::<String>::new());
    assert_eq!(findings_now("tlsroutes").await, without("TLSRoute"));
    kube.put(REFERENCE_GRANT, grant("from-tlsroutes", "TLSRoute"))
        .await;
    assert_eq!(findings_now("tlsroutes").await, Vec::<String>::new());

    // An Ingress has no diagnosis: the common error body, not a route's answer.
    let (status, body) = app
        .get_json(&format!("/api/objects/ingresses/{routes}/cross/diagnosis"))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "invalid_kind", "{body}");
}

/// A service account that may not list ReferenceGrants in the target namespace (real RBAC: it
/// reads everything in the route's namespace only): the route is still diagnosed, the target
/// namespace is named as not read, with why.
#[tokio::test]
async fn grants_the_service_account_may_not_list_are_named_not_read() {
    KubeCluster::shared().install_gateway_api_crds();
    let cluster = KubeCluster::shared();
    let home = "rd-rbac-home";
    let token = reader_token(cluster, &[home]);
    let app = spawn_real(Cluster::Shared(cluster), Some(&token), "", "").await;
    app.kube
        .put(
            HTTP_ROUTE,
            json!({
                "metadata": {"name": "cross", "namespace": home},
                "spec": {
                    "parentRefs": [parent_ref()],
                    "rules": [{"backendRefs": [{"name": "api", "namespace": "rd-rbac-elsewhere", "port": 80}]}],
                },
            }),
        )
        .await;
    let (status, body) = app
        .get_json(&format!("/api/objects/httproutes/{home}/cross/diagnosis"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["notRead"],
        json!([{"namespace": "rd-rbac-elsewhere",
                "reason": "its ReferenceGrants cannot be listed: the service account may not list \
                           referencegrants.gateway.networking.k8s.io there"}])
    );
    assert_eq!(
        codes(&json!({"route": {"diagnosis": body["findings"]}})),
        ["never_attached"]
    );
}
