//! `GET /api/health`: the 200 and 503 shapes and the 5 s time-out, against the real API server
//! through the fault proxy (a 5xx answer, refused connections, an answer slower than the
//! check's time-out).

use std::time::{Duration, Instant};

use crate::real_kube::spawn_proxied;

fn assert_timestamp(body: &serde_json::Value) {
    let timestamp = body["timestamp"].as_str().unwrap();
    assert!(
        timestamp.ends_with('Z') && timestamp.contains('T'),
        "{timestamp}"
    );
}

#[tokio::test]
async fn healthy_when_the_api_lists_namespaces() {
    let app = spawn_proxied("", "").await;
    let (status, body) = app.get_json("/api/health").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "healthy");
    assert_eq!(body["checks"]["kubernetes"]["status"], "up");
    assert!(body["checks"]["kubernetes"]["latency"].is_u64());
    assert!(body["checks"]["kubernetes"].get("error").is_none());
    assert_eq!(body["checks"]["kubernetes"]["circuitBreaker"], "closed");
    assert_timestamp(&body);
}

#[tokio::test]
async fn unhealthy_with_an_error_when_the_api_fails() {
    let app = spawn_proxied("", "").await;
    // Every request fails (the application's own background requests included).
    app.kube.faults().fail_next(1_000, 503);
    let (status, body) = app.get_json("/api/health").await;
    assert_eq!(status, 503);
    assert_eq!(body["status"], "unhealthy");
    assert_eq!(body["checks"]["kubernetes"]["status"], "down");
    assert!(body["checks"]["kubernetes"]["latency"].is_u64());
    let error = body["checks"]["kubernetes"]["error"].as_str().unwrap();
    assert!(error.contains("503"), "{error}");
    assert_timestamp(&body);
}

#[tokio::test]
async fn unhealthy_when_the_api_is_unreachable() {
    let app = spawn_proxied("", "").await;
    app.kube.proxy().refuse_connections().await;
    let (status, body) = app.get_json("/api/health").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["checks"]["kubernetes"]["status"], "down");
    // And up again once the API server can be reached.
    app.kube.proxy().accept_connections().await;
    test_support::eventually_with("healthy again", Duration::from_secs(20), async || match app
        .get_json("/api/health")
        .await
    {
        (200, _) => Ok(()),
        (_, body) => Err(body),
    })
    .await;
}

#[tokio::test]
async fn the_check_times_out_after_5_seconds() {
    let app = spawn_proxied("", "").await;
    app.kube.faults().set_latency(Duration::from_secs(8));
    let started = Instant::now();
    let (status, body) = app.get_json("/api/health").await;
    let elapsed = started.elapsed();
    assert_eq!(status, 503);
    assert!(
        elapsed >= Duration::from_secs(5) && elapsed < Duration::from_secs(7),
        "{elapsed:?}"
    );
    let latency = body["checks"]["kubernetes"]["latency"].as_u64().unwrap();
    assert!((5000..6000).contains(&latency), "{latency}");
    assert!(
        body["checks"]["kubernetes"]["error"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
}
