//! `external_metrics` without an exporter: validation of servers that are not Prometheus (a
//! closed port, the shared real OpenSearch 2 node), and a Prometheus serving 30 days of
//! backfilled exporter history (a month no test can wait for).
//! The live exporter in front of real clusters is in `real_prometheus`.

use serde_json::{Value, json};
use test_support::{Distribution, Prometheus};

use crate::app::{TestApp, spawn_app};
use crate::support::closed_port_url;
use crate::support::exporter::{HistorySample, backfill};
use crate::support::real::shared;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The product names (`prometheus`, `prometheus_url`, …) are accepted as aliases.
fn external_cluster(id: &str, cluster_url: &str, prometheus_url: &str, job: &str) -> String {
    format!(
        "  - id: {id}\n    name: {id}\n    url: {cluster_url}\n    metrics_source: prometheus\n    prometheus_url: {prometheus_url}\n    prometheus_job_name: {job}\n    prometheus_labels:\n      env: test\n"
    )
}

async fn validate(app: &TestApp, path: &str, body: Value) -> (u16, Value) {
    let response = app
        .client
        .post(app.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn validation_reports_unreachable_and_non_prometheus_servers() {
    // A real search node: an HTTP server that answers JSON, not Prometheus's.
    let cluster = shared(Distribution::OpenSearch2).await;
    let app = spawn_app("").await;
    let (status, closed) = validate(
        &app,
        "/api/metrics_server/validate",
        json!({"url": closed_port_url()}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(closed["reachable"], false);
    assert_eq!(closed["status"], "error");
    assert!(
        closed["message"].as_str().unwrap().contains("unreachable"),
        "{closed}"
    );
    let (_, wrong) = validate(
        &app,
        "/api/metrics_server/validate",
        json!({"url": cluster.url}),
    )
    .await;
    assert_eq!(wrong["reachable"], false);
    assert!(
        wrong["message"]
            .as_str()
            .unwrap()
            .contains("does not look like Prometheus"),
        "{wrong}"
    );
    let (status, bad) = validate(
        &app,
        "/api/metrics_server/validate",
        json!({"url": "not a url"}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(bad["error"]["message"].as_str().unwrap().contains("url"));
}

fn history_samples(now: i64) -> Vec<HistorySample> {
    const INDICES: &[(&str, u64)] = &[("orders", 1_000), ("users", 250)];
    let start = now - 31 * 86_400;
    (0..)
        .map(|n| start + n * 300)
        .take_while(|t| *t < now - 600)
        .map(|timestamp| {
            let age_days = (now - timestamp) / 86_400;
            let color = match age_days {
                10 => "red",
                3 => "yellow",
                _ => "green",
            };
            HistorySample {
                timestamp,
                color,
                nodes: 3,
                active_shards: 12,
                unassigned_shards: u64::from(color != "green") * 2,
                indices: INDICES,
                cpu_percent: 20.0,
            }
        })
        .collect()
}

#[tokio::test]
async fn backfilled_history_answers_7_and_30_day_ranges_with_real_points() {
    let now = now();
    let data = backfill("es", ("env", "test"), &history_samples(now));
    let prometheus = Prometheus::start(
        |_| "global:\n  scrape_interval: 1m\nscrape_configs: []\n".to_owned(),
        Some(data.path().join("data")),
    );
    let app = spawn_app(&format!(
        "clusters:\n{}",
        external_cluster("hist", "http://127.0.0.1:9", &prometheus.url, "es")
    ))
    .await;

    let (status, week) = app.get_json("/api/clusters/hist/metrics/history").await;
    assert_eq!(status, 200, "{week}");
    assert_eq!(week["source"], "external_metrics");
    let points = week["points"].as_array().unwrap();
    assert!(
        points.len() > 400 && points.len() <= 500,
        "{}",
        points.len()
    );
    assert!(
        points
            .iter()
            .all(|p| p["nodeCount"] == 3 && p["indexCount"] == 2 && p["documentCount"] == 1_250)
    );
    assert!(points.iter().any(|p| p["health"] == "yellow"));
    assert!(
        points.iter().all(|p| p["health"] != "red"),
        "the red day is 10 days ago"
    );
    assert!(
        points.iter().all(|p| p["memoryUsagePercent"].is_null()),
        "no heap series: null, not 0"
    );
    assert_eq!(points[0]["cpuUsagePercent"], 20.0);

    let (status, month) = app
        .get_json(&format!(
            "/api/clusters/hist/metrics/history?start={}&end={now}",
            now - 30 * 86_400
        ))
        .await;
    assert_eq!(status, 200);
    let points = month["points"].as_array().unwrap();
    assert!(
        points.len() > 400 && points.len() <= 500,
        "{}",
        points.len()
    );
    assert!(points.iter().any(|p| p["health"] == "red"));
    let step = month["step"].as_i64().unwrap();
    assert!(step >= 30 * 86_400 / 500, "{step}");
    let stamps: Vec<i64> = points
        .iter()
        .map(|p| p["timestamp"].as_i64().unwrap())
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] < w[1]));

    // Before the backfilled range: nothing, and the reason.
    let (_, empty) = app
        .get_json("/api/clusters/hist/metrics/history?start=1000000000&end=1000086400")
        .await;
    assert_eq!(empty["points"], json!([]));
    assert!(empty["reason"].is_string());
}
