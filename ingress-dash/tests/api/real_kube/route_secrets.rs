//! Issue 31 item 3: credentials an HTTPRoute holds in its header filters
//! (`RequestHeaderModifier` / `ResponseHeaderModifier` set and add, on a rule or a backendRef)
//! and in its header or query matches never leave the service: not in the YAML, the snapshot's
//! records, the stream's events or a Kubernetes event about the route that quotes them. The
//! header names stay visible. Against the real API server and the real Gateway API CRDs (moved
//! from kube-test-server): the CRD's schema takes every one of these fields.

use kube_test_server::Kind;
use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;
use yaml_rust2::YamlLoader;

use super::{HTTP_ROUTE, RealApp, WAIT, events_after_a_warning, spawn_shared};

/// Texts that must appear in no payload.
const SECRETS: &[&str] = &[
    "c2VjcmV0LXBhc3M=",
    "k3y-abc123",
    "s3ss10n-id",
    "upstr3am-t0k",
    "m4tch-t0ken",
    "qu3ry-t0ken",
];

fn header(name: &str, value: &str) -> Value {
    json!({"name": name, "value": value})
}

fn route_with_credentials(namespace: &str, host: &str) -> Value {
    json!({
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "api", "namespace": namespace},
        "spec": {
            "parentRefs": [{"name": "public", "namespace": "gateway-system"}],
            "hostnames": [host],
            "rules": [{
                "matches": [{
                    "path": {"type": "PathPrefix", "value": "/v1"},
                    "headers": [header("Authorization", "Bearer m4tch-t0ken"), header("x-env", "canary")],
                    "queryParams": [header("access_token", "qu3ry-t0ken"), header("v", "2")],
                }],
                "filters": [
                    {"type": "RequestHeaderModifier", "requestHeaderModifier": {
                        "set": [header("Authorization", "Basic c2VjcmV0LXBhc3M="), header("X-Env", "prod")],
                        "add": [header("X-Api-Key", "k3y-abc123")],
                        "remove": ["Cookie"],
                    }},
                    {"type": "ResponseHeaderModifier", "responseHeaderModifier": {
                        "add": [header("Set-Cookie", "sid=s3ss10n-id")],
                    }},
                ],
                "backendRefs": [{"name": "api", "port": 8080, "filters": [
                    {"type": "RequestHeaderModifier", "requestHeaderModifier": {
                        "set": [header("X-Upstream-Token", "upstr3am-t0k")],
                    }},
                ]}],
            }],
        },
    })
}

/// The application on the shared cluster with the Gateway API CRDs, and `namespace` made.
async fn app_in(namespace: &'static str) -> (RealApp, &'static str) {
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    app.kube.namespaces(&[namespace]).await;
    (app, namespace)
}

fn assert_no_secret(payload: &str) {
    for secret in SECRETS {
        assert!(!payload.contains(secret), "{secret} leaked in {payload}");
    }
}

/// The record's match shows which headers and parameters are matched, not the credentials.
fn assert_record_redacted(record: &Value) {
    assert_eq!(
        record["route"]["rules"][0]["matches"],
        json!([
            "PathPrefix /v1 header Authorization=<redacted> header x-env=canary \
             query access_token=<redacted> query v=2"
        ]),
        "{record}"
    );
}

#[tokio::test]
async fn credentials_in_route_header_filters_and_matches_are_redacted_in_the_yaml() {
    let (app, ns) = app_in("rk-route-secrets-yaml").await;
    app.kube
        .put(HTTP_ROUTE, route_with_credentials(ns, "api.example.com"))
        .await;
    let response = app
        .get(&format!("/api/objects/httproutes/{ns}/api/yaml"))
        .await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert_no_secret(&text);
    let route = &YamlLoader::load_from_str(&text).expect("valid YAML")[0];
    let rule = &route["spec"]["rules"][0];
    let set = &rule["filters"][0]["requestHeaderModifier"]["set"];
    assert_eq!(set[0]["name"].as_str(), Some("Authorization"));
    assert_eq!(set[0]["value"].as_str(), Some("<redacted>"));
    assert_eq!(set[1]["value"].as_str(), Some("prod"), "{text}");
    let added = &rule["filters"][0]["requestHeaderModifier"]["add"][0];
    assert_eq!(added["name"].as_str(), Some("X-Api-Key"));
    assert_eq!(added["value"].as_str(), Some("<redacted>"));
    let matched = &rule["matches"][0];
    assert_eq!(matched["headers"][0]["value"].as_str(), Some("<redacted>"));
    assert_eq!(matched["headers"][1]["value"].as_str(), Some("canary"));
    assert_eq!(
        rule["backendRefs"][0]["filters"][0]["requestHeaderModifier"]["set"][0]["value"].as_str(),
        Some("<redacted>")
    );
}

#[tokio::test]
async fn credentials_in_route_matches_are_redacted_in_snapshots_and_stream_events() {
    let (app, ns) = app_in("rk-route-secrets-stream").await;
    app.kube
        .put(HTTP_ROUTE, route_with_credentials(ns, "a.example.com"))
        .await;
    let text = app
        .get(&format!("/api/ingresses?namespaces={ns}"))
        .await
        .text()
        .await
        .unwrap();
    assert_no_secret(&text);
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_record_redacted(&body["items"][0]);
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let snapshot = stream.next_event(WAIT).await.expect("a snapshot");
    assert_record_redacted(&snapshot.data["items"][0]);
    app.kube
        .put(HTTP_ROUTE, route_with_credentials(ns, "b.example.com"))
        .await;
    let modified = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(modified.event, "modified");
    assert_record_redacted(&modified.data);
    assert_no_secret(std::str::from_utf8(&stream.raw).unwrap());
}

#[tokio::test]
async fn credentials_of_a_route_quoted_in_its_kubernetes_events_are_redacted() {
    let (app, ns) = app_in("rk-route-secrets-events").await;
    let route = app
        .kube
        .put(HTTP_ROUTE, route_with_credentials(ns, "api.example.com"))
        .await;
    // A gateway controller that quotes the header it could not apply.
    let text = events_after_a_warning(
        &app,
        (Kind::HttpRoute, "httproutes"),
        &route,
        "InvalidFilter",
        "filter 0: header Authorization: Basic c2VjcmV0LXBhc3M= is not allowed; X-Env: prod",
        "gateway-controller",
    )
    .await;
    assert_no_secret(&text);
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        body["events"][0]["message"],
        "filter 0: header Authorization: <redacted> is not allowed; X-Env: prod"
    );
}
