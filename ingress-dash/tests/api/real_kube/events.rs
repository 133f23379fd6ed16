//! One object on demand against the real API server: its core/v1 Events (found with the real
//! field selectors on `involvedObject.*` and `type`) and its YAML (with the managedFields and the
//! `last-applied-configuration` a real `kubectl apply` writes).

use std::time::Duration;

use kube_test_server::{Kind, sample};
use serde_json::{Value, json};
use yaml_rust2::YamlLoader;

use super::{EVENT, INGRESS, RealApp, spawn_shared};

fn reasons(body: &Value) -> Vec<&str> {
    body["events"]
        .as_array()
        .expect("an events array")
        .iter()
        .map(|event| event["reason"].as_str().unwrap())
        .collect()
}

/// A core/v1 Event about `object` of `kind` as a controller records it, stored for real.
#[allow(clippy::too_many_arguments)]
async fn record_event(
    app: &RealApp,
    kind: Kind,
    object: &Value,
    event_type: &str,
    reason: &str,
    count: i32,
    last_seen: u64,
    component: &str,
) -> Value {
    let event = sample::event(
        kind,
        object,
        event_type,
        reason,
        &format!("{reason} happened"),
        count,
        Duration::from_secs(last_seen + 60),
        Duration::from_secs(last_seen),
        component,
    );
    app.kube.put(EVENT, event).await
}

/// The application on the shared cluster, and in the new namespace `ns` the Ingress `web` (host
/// `web.example.com`) as stored.
async fn app_with_web(ns: &str) -> (RealApp, Value) {
    let app = spawn_shared("", "").await;
    app.kube.namespaces(&[ns]).await;
    let web = app
        .kube
        .put(INGRESS, super::ingress(ns, "web", "web.example.com", "web"))
        .await;
    (app, web)
}

#[tokio::test]
async fn events_of_the_object_are_found_by_the_real_field_selectors() {
    let ns = "rk-events";
    let (app, web) = app_with_web(ns).await;
    let other = app
        .kube
        .put(
            INGRESS,
            super::ingress(ns, "other", "other.example.com", "web"),
        )
        .await;
    let controller = "ingress-nginx-controller";
    record_event(
        &app,
        Kind::Ingress,
        &web,
        "Warning",
        "NoReadyEndpoints",
        42,
        40,
        controller,
    )
    .await;
    record_event(
        &app,
        Kind::Ingress,
        &web,
        "Warning",
        "UpstreamUnhealthy",
        1,
        95,
        controller,
    )
    .await;
    record_event(
        &app,
        Kind::Ingress,
        &web,
        "Normal",
        "Sync",
        1,
        7_200,
        controller,
    )
    .await;
    // Same name, other kind; same kind, other name: neither is about the ingress.
    record_event(
        &app,
        Kind::HttpRoute,
        &web,
        "Warning",
        "RouteOnly",
        1,
        1,
        "gw",
    )
    .await;
    record_event(
        &app,
        Kind::Ingress,
        &other,
        "Warning",
        "OtherIngress",
        1,
        1,
        "gw",
    )
    .await;

    let path = format!("/api/objects/ingresses/{ns}/web/events");
    let response = app.get(&path).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(reasons(&body), ["NoReadyEndpoints", "UpstreamUnhealthy"]);
    let newest = &body["events"][0];
    assert_eq!(newest["type"], "Warning");
    assert_eq!(newest["count"], 42);
    assert_eq!(newest["source"], controller);
    assert_eq!(newest["message"], "NoReadyEndpoints happened");
    for field in ["firstTimestamp", "lastTimestamp"] {
        assert!(
            newest[field].as_str().is_some_and(|t| t.ends_with('Z')),
            "{field}: {newest}"
        );
    }
    let (status, all) = app.get_json(&format!("{path}?type=all")).await;
    assert_eq!(status, 200);
    assert_eq!(
        reasons(&all),
        ["NoReadyEndpoints", "UpstreamUnhealthy", "Sync"]
    );
    let (_, normal) = app.get_json(&format!("{path}?type=normal")).await;
    assert_eq!(reasons(&normal), ["Sync"]);
    // Events are only told about objects that exist: there is no HTTPRoute `web`.
    let (_, route) = app
        .get_json(&format!("/api/objects/httproutes/{ns}/web/events"))
        .await;
    assert_eq!(route["error"]["code"], "not_found", "{route}");
    // An object without events: an empty list; a missing one: 404.
    let (status, quiet) = app
        .get_json(&format!(
            "/api/objects/ingresses/{ns}/other/events?type=normal"
        ))
        .await;
    assert_eq!((status, quiet), (200, json!({"events": []})));
    let (status, missing) = app
        .get_json(&format!("/api/objects/ingresses/{ns}/gone/events"))
        .await;
    assert_eq!(
        (status, missing["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
}

#[tokio::test]
async fn at_most_fifty_real_events_newest_first_with_bounded_messages() {
    let ns = "rk-events-many";
    let (app, web) = app_with_web(ns).await;
    for i in 0..60u64 {
        let mut event = sample::event(
            Kind::Ingress,
            &web,
            "Warning",
            "Flapping",
            &"x".repeat(10_000),
            1,
            Duration::from_secs(i + 60),
            Duration::from_secs(i),
            "test-controller",
        );
        event["metadata"]["name"] = json!(format!("web.flap{i:02}"));
        event["reason"] = json!(format!("Flap{i:02}"));
        app.kube.put(EVENT, event).await;
    }
    let (status, body) = app
        .get_json(&format!("/api/objects/ingresses/{ns}/web/events"))
        .await;
    assert_eq!(status, 200);
    let reasons = reasons(&body);
    assert_eq!(reasons.len(), 50);
    assert_eq!((reasons[0], reasons[49]), ("Flap00", "Flap49"));
    let message = body["events"][0]["message"].as_str().unwrap();
    assert_eq!(message.chars().count(), 1_024);
}

#[tokio::test]
async fn yaml_of_a_kubectl_applied_object_drops_managed_fields_and_redacts_annotations() {
    let app = spawn_shared("", "").await;
    let ns = "rk-yaml";
    let snippet = "proxy_set_header Authorization \"Basic ZGV2OnMzY3IzdA==\";";
    // kubectl's client-side apply writes last-applied-configuration (with the snippet in it);
    // the API server writes managedFields.
    app.kube.cluster.apply(&format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n---\n\
         apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  \
         namespace: {ns}\n  annotations:\n    \
         nginx.ingress.kubernetes.io/configuration-snippet: '{snippet}'\n    \
         nginx.ingress.kubernetes.io/rewrite-target: /\nspec:\n  ingressClassName: nginx\n  \
         rules:\n  - host: web.example.com\n    http:\n      paths:\n      - path: /\n        \
         pathType: Prefix\n        backend:\n          service:\n            name: web\n            \
         port:\n              number: 80\n"
    ));
    let stored = app.kube.get(INGRESS, ns, "web").await;
    assert!(stored["metadata"]["managedFields"].is_array(), "{stored}");
    assert!(
        stored["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
            .as_str()
            .is_some_and(|applied| applied.contains("ZGV2OnMzY3IzdA")),
        "{stored}"
    );

    let response = app
        .get(&format!("/api/objects/ingresses/{ns}/web/yaml"))
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/yaml; charset=utf-8"
    );
    let text = response.text().await.unwrap();
    assert!(
        !text.contains("managedFields") && !text.contains("fieldsV1"),
        "{text}"
    );
    assert!(
        !text.contains("ZGV2OnMzY3IzdA"),
        "the credential leaked:\n{text}"
    );
    let object = &YamlLoader::load_from_str(&text).expect("valid YAML")[0];
    assert_eq!(object["apiVersion"].as_str(), Some("networking.k8s.io/v1"));
    assert_eq!(object["kind"].as_str(), Some("Ingress"));
    assert_eq!(
        object["metadata"]["uid"].as_str(),
        stored["metadata"]["uid"].as_str()
    );
    let annotations = &object["metadata"]["annotations"];
    for key in [
        "nginx.ingress.kubernetes.io/configuration-snippet",
        "kubectl.kubernetes.io/last-applied-configuration",
    ] {
        assert_eq!(annotations[key].as_str(), Some("<redacted>"), "{key}");
    }
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/rewrite-target"].as_str(),
        Some("/")
    );
    assert_eq!(
        object["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["port"]["number"]
            .as_i64(),
        Some(80)
    );
    // The real server's status, empty for an ingress no controller serves.
    assert!(!object["status"].is_badvalue(), "{text}");
    let (status, _) = app
        .get_json(&format!("/api/objects/ingresses/{ns}/gone/yaml"))
        .await;
    assert_eq!(status, 404);
}

/// A controller on the events.k8s.io/v1 API (client-go's newer recorder) writes `eventTime`,
/// `series`, `reportingController` and `note`; the API server converts it for the core/v1
/// list ingress-dash reads, where `firstTimestamp`, `lastTimestamp`, `count` and `source` stay
/// empty.
#[tokio::test]
async fn events_written_through_the_events_api_are_dated_counted_and_attributed() {
    let ns = "rk-events-v1";
    let (app, web) = app_with_web(ns).await;
    let regarding = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "web",
                           "namespace": ns, "uid": web["metadata"]["uid"]});
    let event = |name: &str, reason: &str, event_time: &str, series: Option<Value>| {
        let mut event = json!({
            "metadata": {"name": name, "namespace": ns},
            "eventTime": event_time,
            "reportingController": "example.com/gateway-controller",
            "reportingInstance": "gateway-controller-7d9f8c6b5-x2k4q",
            "action": "Reconcile",
            "reason": reason,
            "regarding": regarding,
            "note": format!("{reason} happened"),
            "type": "Warning",
        });
        if let Some(series) = series {
            event["series"] = series;
        }
        event
    };
    let events_v1 = super::Resource {
        api_version: "events.k8s.io/v1",
        kind: "Event",
        plural: "events",
        namespaced: true,
    };
    // Seen first an hour ago and 12 times since, last a minute ago: the newest.
    app.kube
        .put(
            events_v1,
            event(
                "web.repeated",
                "Repeated",
                &ago(3_600),
                Some(json!({"count": 12, "lastObservedTime": ago(60)})),
            ),
        )
        .await;
    // Once, ten minutes ago.
    app.kube
        .put(events_v1, event("web.once", "Once", &ago(600), None))
        .await;
    let stored = app.kube.get(EVENT, ns, "web.repeated").await;
    assert!(stored["lastTimestamp"].is_null(), "{stored}");
    assert_eq!(
        stored["reportingComponent"],
        "example.com/gateway-controller"
    );

    let (status, body) = app
        .get_json(&format!("/api/objects/ingresses/{ns}/web/events"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(reasons(&body), ["Repeated", "Once"], "{body}");
    let repeated = &body["events"][0];
    assert_eq!(repeated["count"], 12, "{repeated}");
    assert_eq!(repeated["message"], "Repeated happened");
    assert_eq!(repeated["source"], "example.com/gateway-controller");
    let once = &body["events"][1];
    assert_eq!(once["count"], 1, "{once}");
    assert_eq!(once["source"], "example.com/gateway-controller");
    for event in [repeated, once] {
        for field in ["firstTimestamp", "lastTimestamp"] {
            assert!(
                event[field].as_str().is_some_and(|t| t.ends_with('Z')),
                "{field}: {event}"
            );
        }
    }
    assert!(
        repeated["lastTimestamp"].as_str() > once["lastTimestamp"].as_str(),
        "{body}"
    );
}

/// `seconds` ago as a MicroTime (RFC 3339 with microseconds), as client-go writes it.
fn ago(seconds: u64) -> String {
    let time = std::time::SystemTime::now() - Duration::from_secs(seconds);
    let text = kube_test_server::tls::rfc3339(time);
    format!("{}.123456Z", text.trim_end_matches('Z'))
}
