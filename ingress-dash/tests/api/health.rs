//! `GET /api/health`: the 200 and 503 shapes and the 5 s time-out.

use std::time::{Duration, Instant};

use crate::app::spawn_app;

fn assert_timestamp(body: &serde_json::Value) {
    let timestamp = body["timestamp"].as_str().unwrap();
    assert!(
        timestamp.ends_with('Z') && timestamp.contains('T'),
        "{timestamp}"
    );
}

#[tokio::test]
async fn healthy_when_the_api_lists_namespaces() {
    let app = spawn_app("", "").await;
    app.kube.cluster.add_namespace("default");
    let (status, body) = app.get_json("/api/health").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "healthy");
    assert_eq!(body["checks"]["kubernetes"]["status"], "up");
    assert!(body["checks"]["kubernetes"]["latency"].is_u64());
    assert!(body["checks"]["kubernetes"].get("error").is_none());
    assert_eq!(body["checks"]["kubernetes"]["circuitBreaker"], "closed");
    assert_timestamp(&body);
}

#[tokio::test]
async fn unhealthy_with_an_error_when_the_api_fails() {
    let app = spawn_app("", "").await;
    app.kube.cluster.faults.fail_next(1);
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
    let app = spawn_app("", "").await;
    drop(app.kube);
    let app_address = app.address.clone();
    let response = app
        .client
        .get(format!("{app_address}/api/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["checks"]["kubernetes"]["status"], "down");
}

#[tokio::test]
async fn the_check_times_out_after_5_seconds() {
    let app = spawn_app("", "").await;
    app.kube.cluster.faults.set_latency(Duration::from_secs(8));
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
