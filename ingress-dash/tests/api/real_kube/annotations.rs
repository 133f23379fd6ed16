//! Hole 10a of the security review: annotation values that hold credentials (`*-snippet`,
//! tokens, passwords) never leave the service; their keys stay visible. Against the real API
//! server (moved from kube-test-server): the objects as it stores them, `managedFields` and all.

use serde_json::{Value, json};

use kube_test_server::Kind;

use super::{INGRESS, WAIT, events_after_a_warning, spawn_shared};

/// Texts that must appear in no payload.
const SECRETS: &[&str] = &[
    "c2VjcmV0LXBhc3M=",
    "t0p-s3cret-token",
    "hunter2",
    "snippet-body",
];

fn ingress_with_credentials(namespace: &str, host: &str) -> Value {
    json!({
        "metadata": {
            "name": "web",
            "namespace": namespace,
            "annotations": {
                "nginx.ingress.kubernetes.io/configuration-snippet":
                    "proxy_set_header Authorization \"Basic c2VjcmV0LXBhc3M=\"; # snippet-body",
                "nginx.ingress.kubernetes.io/server-snippet": "location /x { return 200 snippet-body; }",
                "example.com/api-token": "t0p-s3cret-token",
                "example.com/db-password": "hunter2",
                "nginx.ingress.kubernetes.io/proxy-body-size": "8m",
            },
        },
        "spec": {"rules": [{"host": host, "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}
        ]}}]},
    })
}

fn assert_redacted(payload: &str, record: &Value) {
    for secret in SECRETS {
        assert!(!payload.contains(secret), "{secret} leaked in {payload}");
    }
    let annotations = &record["annotations"];
    for key in [
        "nginx.ingress.kubernetes.io/configuration-snippet",
        "nginx.ingress.kubernetes.io/server-snippet",
        "example.com/api-token",
        "example.com/db-password",
    ] {
        assert_eq!(annotations[key], "<redacted>", "{key} in {record}");
    }
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/proxy-body-size"],
        "8m"
    );
}

#[tokio::test]
async fn credential_annotations_are_redacted_in_snapshots_and_stream_events() {
    let app = spawn_shared("", "").await;
    let ns = "rk-annotations";
    app.kube.namespaces(&[ns]).await;
    app.kube
        .put(INGRESS, ingress_with_credentials(ns, "a.example.com"))
        .await;
    // The first snapshot comes from (cached) lists, the next ones from the watcher's memory.
    for _ in 0..2 {
        let text = app
            .get(&format!("/api/ingresses?namespaces={ns}"))
            .await
            .text()
            .await
            .unwrap();
        let body: Value = serde_json::from_str(&text).unwrap();
        assert_redacted(&text, &body["items"][0]);
    }
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let snapshot = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(snapshot.event, "snapshot");
    app.kube
        .put(INGRESS, ingress_with_credentials(ns, "b.example.com"))
        .await;
    let modified = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(modified.event, "modified");
    assert_redacted(
        std::str::from_utf8(&stream.raw).unwrap(),
        &snapshot.data["items"][0],
    );
    assert_redacted(std::str::from_utf8(&stream.raw).unwrap(), &modified.data);
    app.kube.delete(INGRESS, ns, "web").await;
    let deleted = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(deleted.event, "deleted");
    assert_redacted(std::str::from_utf8(&stream.raw).unwrap(), &deleted.data);
}

#[tokio::test]
async fn redaction_patterns_are_configurable() {
    let app = spawn_shared(
        "",
        "annotations:\n  redact: [\"*/PROXY-BODY-*\"]\n  redact_defaults: false\n",
    )
    .await;
    let ns = "rk-annotations-patterns";
    app.kube.namespaces(&[ns]).await;
    app.kube
        .put(INGRESS, ingress_with_credentials(ns, "a.example.com"))
        .await;
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={ns}"))
        .await;
    assert_eq!(status, 200);
    let annotations = &body["items"][0]["annotations"];
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/proxy-body-size"],
        "<redacted>"
    );
    assert_eq!(annotations["example.com/db-password"], "hunter2");
}

#[tokio::test]
async fn credentials_of_an_ingress_quoted_in_its_kubernetes_events_are_redacted() {
    let app = spawn_shared("", "").await;
    let ns = "rk-annotations-events";
    app.kube.namespaces(&[ns]).await;
    let ingress = app
        .kube
        .put(INGRESS, ingress_with_credentials(ns, "a.example.com"))
        .await;
    // ingress-nginx quotes the snippet line nginx refused when a reload fails.
    let message = "Error reloading NGINX: nginx: [emerg] unknown directive in \
                   \"proxy_set_header Authorization \"Basic c2VjcmV0LXBhc3M=\"; # snippet-body\"";
    let text = events_after_a_warning(
        &app,
        (Kind::Ingress, "ingresses"),
        &ingress,
        "RELOAD",
        message,
        "nginx-ingress-controller",
    )
    .await;
    for secret in SECRETS {
        assert!(!text.contains(secret), "{secret} leaked in {text}");
    }
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        body["events"][0]["message"],
        "Error reloading NGINX: nginx: [emerg] unknown directive in \"<redacted>\""
    );
}
