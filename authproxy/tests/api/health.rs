//! `GET /_health`: per-check values and 503 when something is unhealthy.

use serde_json::json;

use std::time::Duration;

use crate::app::{Stack, spawn_app, spawn_stack};
use crate::real_security::Flavor;

#[tokio::test]
async fn healthy_when_store_and_cluster_answer_and_oidc_is_disabled() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let response = stack
        .app
        .client
        .get(stack.app.url("/_health"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"status": "healthy", "checks": {"session_store": "ok", "oidc_provider": "disabled", "search_backend": "ok"}})
    );
}

#[tokio::test]
async fn unhealthy_with_an_explanation_when_the_cluster_is_down() {
    let closed_port = test_support::free_port();
    let app = spawn_app(&format!(
        "search: {{url: \"http://127.0.0.1:{closed_port}\"}}\n"
    ))
    .await;
    let response = app.client.get(app.url("/_health")).send().await.unwrap();
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["status"], "unhealthy");
    assert_eq!(body["checks"]["session_store"], "ok");
    assert_ne!(body["checks"]["search_backend"], "ok");
    assert!(
        body["checks"]["search_backend"]
            .as_str()
            .unwrap()
            .starts_with("unhealthy")
    );
}

#[tokio::test]
async fn metrics_list_the_seven_counters_and_the_duration_histogram() {
    let app = spawn_app("").await;
    let text = app.metrics_text().await;
    for name in [
        "proxy_auth_attempts_total",
        "proxy_auth_successes_total",
        "proxy_auth_failures_total",
        "proxy_session_creates_total",
        "proxy_user_upserts_total",
        "proxy_cred_cache_hits_total",
        "proxy_cred_cache_misses_total",
    ] {
        assert!(
            text.lines()
                .any(|line| line.starts_with(&format!("{name} "))),
            "{name} missing:\n{text}"
        );
    }
    // The histogram appears once a request has been recorded.
    let again = app.metrics_text().await;
    assert!(
        again.contains("http_request_duration_seconds_bucket"),
        "{again}"
    );
}

#[tokio::test]
async fn metrics_are_not_served_when_disabled() {
    let app = spawn_app("observability: {metrics_enabled: false}\n").await;
    let response = app.client.get(app.url("/_metrics")).send().await.unwrap();
    // forward_auth answers every other path: without credentials, a challenge.
    assert_ne!(response.status(), 200);
}

#[tokio::test]
async fn an_unreachable_identity_provider_is_reported_when_oidc_is_enabled() {
    let closed_port = test_support::free_port();
    let app = crate::app::spawn_app_with_env(
        &format!(
            "oidc:\n  enabled: true\n  issuer_url: \"http://127.0.0.1:{closed_port}/realms/x\"\n  \
             client_id: authproxy\n  redirect_url: \"http://127.0.0.1/auth/callback\"\n"
        ),
        [
            ("OIDC_CLIENT_SECRET", "client-secret"),
            ("SESSION_SECRET", "0123456789abcdef0123456789abcdef"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect(),
    )
    .await;
    let response = app.client.get(app.url("/_health")).send().await.unwrap();
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["status"], "unhealthy");
    assert_eq!(body["checks"]["oidc_provider"], "unreachable");
}

/// `/_health` checks of the search backend (the admin's `/_cluster/health`) that reached the
/// cluster.
fn backend_checks(stack: &Stack) -> usize {
    stack
        .recorder
        .requests()
        .iter()
        .filter(|request| request.path == "/_cluster/health")
        .count()
}

#[tokio::test]
async fn a_flood_of_health_requests_checks_the_backends_once_per_interval() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let started = std::time::Instant::now();
    // Concurrent callers share one check in flight...
    let statuses = futures_util::future::join_all(
        (0..40).map(|_| async { app.client.get(app.url("/_health")).send().await.unwrap() }),
    )
    .await;
    // ...and later ones reuse its result.
    let mut bodies = Vec::new();
    for _ in 0..40 {
        let response = app.client.get(app.url("/_health")).send().await.unwrap();
        assert_eq!(response.status(), 200);
        bodies.push(response.json::<serde_json::Value>().await.unwrap());
    }
    let elapsed = started.elapsed();
    assert!(statuses.iter().all(|response| response.status() == 200));
    assert!(bodies.iter().all(|body| body["status"] == "healthy"));
    // The default reuse interval is 5 s: at most one check per started interval.
    let intervals = 1 + (elapsed.as_secs_f64() / 5.0).floor() as usize;
    let checks = backend_checks(&stack);
    assert!(
        (1..=intervals).contains(&checks),
        "80 requests in {elapsed:?} made {checks} backend checks"
    );
}

#[tokio::test]
async fn a_new_check_runs_once_the_configured_interval_has_passed() {
    let stack = spawn_stack(
        "forward_auth",
        Flavor::Elasticsearch,
        "observability: {health_cache_ttl: 300ms}\n",
    )
    .await;
    let app = &stack.app;
    let get = || async { app.client.get(app.url("/_health")).send().await.unwrap() };
    assert_eq!(get().await.status(), 200);
    assert_eq!(backend_checks(&stack), 1);
    test_support::eventually("a second check", Duration::from_secs(10), async || {
        assert_eq!(get().await.status(), 200);
        backend_checks(&stack) >= 2
    })
    .await;
}
