//! `external_metrics`: a live Prometheus scraping prometheus-elasticsearch-exporter in front of
//! osmem, and a Prometheus serving 30 days of backfilled exporter history.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{Osmem, Prometheus};

use crate::app::{TestApp, spawn_app};
use crate::support::cluster_stub::{ClusterStub, NodeUsage};
use crate::support::exporter::{Exporter, HistorySample, backfill};
use crate::support::{closed_port_url, get_json_blocking, seed_indices, wait_until};

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

/// Waits until Prometheus has `query`'s series at the current whole second: the snapshot asks
/// for whole seconds, so the first samples must fall before the second it asks for.
async fn wait_for_series(prometheus: &Prometheus, query: &'static str) {
    let endpoint = format!("{}/api/v1/query", prometheus.url);
    wait_until(query, Duration::from_secs(30), move || {
        let url = reqwest::Url::parse_with_params(
            &endpoint,
            [("query", query.to_owned()), ("time", now().to_string())],
        )
        .unwrap();
        get_json_blocking(url.as_str()).is_some_and(|answer| {
            answer["data"]["result"]
                .as_array()
                .is_some_and(|r| !r.is_empty())
        })
    })
    .await;
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
async fn a_live_exporter_feeds_the_snapshot_and_validation() {
    let osmem = Osmem::start();
    let stub = ClusterStub::start(&osmem.url, NodeUsage::default());
    seed_indices(&stub.url, "live", 2, |n| n + 2).await;
    let exporter = Exporter::start(&stub.url);
    let target = exporter.host_port.clone();
    let prometheus = Prometheus::start(
        |_| {
            format!(
                "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: es\n    static_configs:\n      - targets: ['{target}']\n        labels:\n          env: test\n"
            )
        },
        None,
    );
    wait_for_series(&prometheus, "elasticsearch_os_cpu_percent").await;
    wait_for_series(&prometheus, "elasticsearch_indices_docs_primary").await;
    wait_for_series(&prometheus, "elasticsearch_cluster_health_status == 1").await;

    let app = spawn_app(&format!(
        "clusters:\n{}{}",
        external_cluster("live", &stub.url, &prometheus.url, "es"),
        external_cluster("wrongjob", &stub.url, &prometheus.url, "nope"),
    ))
    .await;
    let (status, snapshot) = app.get_json("/api/clusters/live/metrics").await;
    assert_eq!(status, 200, "{snapshot}");
    assert_eq!(snapshot["clusterId"], "live");
    assert_eq!(snapshot["health"], "yellow");
    assert_eq!(snapshot["nodeCount"], 1);
    assert_eq!(snapshot["indexCount"], 2);
    assert_eq!(snapshot["documentCount"], 5);
    assert_eq!(snapshot["shardCount"], 2);
    assert_eq!(snapshot["unassignedShards"], 2);
    assert_eq!(snapshot["memoryUsagePercent"], 25.0);
    assert_eq!(snapshot["diskUsagePercent"], 60.0);
    assert_eq!(snapshot["cpuUsagePercent"], 7.0);

    let (status, body) = app.get_json("/api/clusters/wrongjob/metrics").await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "no_metrics_data");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("job=\"nope\"")
    );
    let (status, body) = app.get_json("/api/clusters/wrongjob/metrics/history").await;
    assert_eq!(status, 200);
    assert_eq!(body["points"], json!([]));
    assert!(body["reason"].as_str().unwrap().contains("job_name"));

    let (status, ok) = validate(
        &app,
        "/api/metrics_server/validate",
        json!({"url": prometheus.url, "job_name": "es", "labels": {"env": "test"}}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        (ok["status"].as_str(), ok["reachable"].as_bool()),
        (Some("success"), Some(true)),
        "{ok}"
    );
    assert!(ok["message"].as_str().unwrap().contains("match"));
    let (_, none) = validate(
        &app,
        "/api/prometheus/validate",
        json!({"url": prometheus.url, "job_name": "es", "labels": {"env": "prod"}}),
    )
    .await;
    assert_eq!(none["reachable"], true);
    assert_ne!(none["status"], "success");
    assert!(
        none["message"]
            .as_str()
            .unwrap()
            .contains("No elasticsearch_exporter series match"),
        "{none}"
    );
}

#[tokio::test]
async fn validation_reports_unreachable_and_non_prometheus_servers() {
    let osmem = Osmem::start();
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
        json!({"url": osmem.url}),
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
