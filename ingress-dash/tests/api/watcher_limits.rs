//! Unauthenticated requests naming made-up namespaces must not start watchers on the
//! Kubernetes API, and watchers are capped globally. Against the real API server through the
//! fault proxy (`real_kube::spawn_proxied`), whose counters say which lists and watches the
//! application asked for; each test in namespaces of its own on the shared cluster.

use std::time::Duration;

use crate::app::eventually;
use crate::real_kube::{RealApp, scoped, spawn_proxied};

const WAIT: Duration = Duration::from_secs(10);

/// A comma-separated list of 50 namespace names that do not exist.
fn made_up_namespaces(round: usize) -> String {
    (0..50)
        .map(|index| format!("ghost-{round}-{index}"))
        .collect::<Vec<_>>()
        .join(",")
}

async fn assert_refused(app: &RealApp, path: &str, status: u16, code: &str) -> serde_json::Value {
    let response = app.get(path).await;
    assert_eq!(response.status().as_u16(), status, "{path}");
    let retry_after = response.headers().get("retry-after").cloned();
    let body: serde_json::Value = response.json().await.expect("a JSON body");
    assert_eq!(body["error"]["code"], code, "{path}: {body}");
    if status == 503 {
        let seconds: u64 = retry_after
            .expect("Retry-After on 503")
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(seconds >= 1);
    }
    body
}

#[tokio::test]
async fn made_up_namespaces_start_no_watcher_cluster_wide() {
    let app = spawn_proxied("", "").await;
    let namespaces = ["wl-wide-0", "wl-wide-1"];
    app.kube.populate(&namespaces, 4).await;
    // The attack: ten requests naming 50 random namespaces each, snapshots and streams alike.
    let app = &app;
    let requests = (0..10).map(|round| {
        let endpoint = if round % 2 == 0 {
            "ingresses"
        } else {
            "ingresses/stream"
        };
        let path = format!("/api/{endpoint}?namespaces={}", made_up_namespaces(round));
        async move { assert_refused(app, &path, 404, "namespace_not_found").await }
    });
    for body in futures_util::future::join_all(requests).await {
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("\"ghost-"),
            "names the namespace: {message}"
        );
    }
    // One existing namespace among unknown ones starts nothing either.
    assert_refused(
        app,
        "/api/ingresses?namespaces=wl-wide-0,ghost",
        404,
        "namespace_not_found",
    )
    .await;
    assert_eq!(app.state.hub.watcher_count(), 0);
    // The Kubernetes API saw no watch and no ingress list: only the (cached) namespace list.
    let faults = app.kube.faults();
    assert_eq!(faults.watch_requests(), 0);
    assert_eq!(faults.list_requests(), 1);
    // Existing namespaces still work.
    let (status, body) = app
        .get_json("/api/ingresses?namespaces=wl-wide-0,wl-wide-1")
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["items"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn made_up_namespaces_are_refused_in_a_namespace_scoped_install() {
    let namespaces = ["wl-scoped-0", "wl-scoped-1", "wl-scoped-2"];
    let app = spawn_proxied(&scoped(&namespaces[..2]), "").await;
    app.kube.populate(&namespaces, 4).await;
    // wl-scoped-2 exists in the cluster but is not configured.
    for path in [
        "/api/ingresses?namespaces=wl-scoped-2".to_owned(),
        format!("/api/ingresses/stream?namespaces={}", made_up_namespaces(0)),
    ] {
        let body = assert_refused(&app, &path, 404, "namespace_not_watched").await;
        assert!(body["error"]["message"].as_str().unwrap().contains('"'));
    }
    assert_eq!(app.state.hub.watcher_count(), 0);
    assert_eq!(app.kube.faults().watch_requests(), 0);
    assert_eq!(app.kube.faults().list_requests(), 0);
}

#[tokio::test]
async fn watchers_are_capped_for_snapshots_and_streams() {
    // Heartbeats every second, so the server notices quickly that a client left.
    let app = spawn_proxied("  max_watchers: 3\n", "stream:\n  heartbeat_interval: 1s\n").await;
    let namespaces: Vec<String> = (0..6).map(|index| format!("wl-cap-{index}")).collect();
    let namespaces: Vec<&str> = namespaces.iter().map(String::as_str).collect();
    app.kube.populate(&namespaces, 10).await;
    let mut first = app.stream("?namespaces=wl-cap-0,wl-cap-1", None).await;
    let mut second = app.stream("?namespaces=wl-cap-2", None).await;
    first.next_event(WAIT).await.expect("a snapshot");
    second.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(app.state.hub.watcher_count(), 3);
    // Past the cap: refused, both endpoints, with Retry-After and the common body.
    assert_refused(
        &app,
        "/api/ingresses?namespaces=wl-cap-3",
        503,
        "too_many_watchers",
    )
    .await;
    assert_refused(
        &app,
        "/api/ingresses/stream?namespaces=wl-cap-3,wl-cap-4",
        503,
        "too_many_watchers",
    )
    .await;
    // A request that fits entirely (partly shared watchers) does not start a partial set.
    assert_refused(
        &app,
        "/api/ingresses?namespaces=wl-cap-0,wl-cap-5",
        503,
        "too_many_watchers",
    )
    .await;
    assert_eq!(app.state.hub.watcher_count(), 3);
    // Namespaces whose watchers run are still served.
    let (status, body) = app.get_json("/api/ingresses?namespaces=wl-cap-1").await;
    assert_eq!(status, 200);
    assert_eq!(body["items"].as_array().unwrap().len(), 2);
    // Once a client leaves, its watcher stops after the grace period (1s here) and makes room.
    drop(second);
    assert!(
        eventually(async || app.get("/api/ingresses?namespaces=wl-cap-3").await.status() == 200)
            .await,
        "a stopped watcher did not make room"
    );
    assert!(app.state.hub.watcher_count() <= 3);
}
