//! `internal` metrics: the snapshot from three cluster calls, the sampled history, time ranges.

use std::time::Duration;

use serde_json::Value;
use test_support::Osmem;

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::cluster_stub::{ClusterStub, NodeUsage};
use crate::support::{get_json_blocking, seed_indices, wait_until};

async fn app_with_sampling(stub: &ClusterStub, interval: &str) -> TestApp {
    spawn_app(&format!(
        "internal_history:\n  sample_interval: {interval}\n  retention: 1h\nclusters:\n{}",
        cluster_yaml("main", &stub.url)
    ))
    .await
}

#[tokio::test]
async fn the_snapshot_has_the_specified_fields_from_the_cluster() {
    let osmem = Osmem::start();
    let usage = NodeUsage {
        cpu_percent: 12,
        ..NodeUsage::default()
    };
    let stub = ClusterStub::start(&osmem.url, usage);
    seed_indices(&stub.url, "m", 2, |_| 3).await;
    let app = app_with_sampling(&stub, "1h").await;
    let (status, body) = app.get_json("/api/clusters/main/metrics").await;
    assert_eq!(status, 200, "{body}");
    let mut keys: Vec<&String> = body.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "clusterId",
            "cpuUsagePercent",
            "diskUsagePercent",
            "documentCount",
            "health",
            "indexCount",
            "memoryUsagePercent",
            "nodeCount",
            "shardCount",
            "timestamp",
            "unassignedShards"
        ]
    );
    assert_eq!(body["clusterId"], "main");
    assert_eq!(body["health"], "yellow");
    assert_eq!(body["nodeCount"], 1);
    assert_eq!(body["indexCount"], 2);
    assert_eq!(body["documentCount"], 6);
    assert_eq!(body["shardCount"], 2);
    assert_eq!(body["unassignedShards"], 2);
    assert_eq!(body["cpuUsagePercent"], 12.0);
    // osmem's own _cluster/stats reports no heap or disk totals: null, never a made-up 0.
    assert_eq!(body["memoryUsagePercent"], Value::Null);
    assert_eq!(body["diskUsagePercent"], Value::Null);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!((body["timestamp"].as_i64().unwrap() - now).abs() < 5);
}

#[tokio::test]
async fn bad_time_ranges_get_400_saying_which_rule_was_broken() {
    let osmem = Osmem::start();
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("main", &osmem.url))).await;
    for (query, expected) in [
        ("start=1700000000000", "looks like milliseconds"),
        ("end=soon", "whole number of Unix seconds"),
        ("start=1700000100&end=1700000000", "must be before end"),
        ("start=1700000000&end=1700000000", "must be before end"),
    ] {
        for endpoint in ["metrics", "metrics/history"] {
            let (status, body) = app
                .get_json(&format!("/api/clusters/main/{endpoint}?{query}"))
                .await;
            assert_eq!(status, 400, "{endpoint}?{query}");
            assert_eq!(body["error"]["code"], "bad_request");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains(expected), "{endpoint}?{query}: {message}");
        }
    }
}

#[tokio::test]
async fn history_holds_sampled_points_only() {
    let osmem = Osmem::start();
    let stub = ClusterStub::start(&osmem.url, NodeUsage::default());
    let app = app_with_sampling(&stub, "1s").await;
    let history = app.url("/api/clusters/main/metrics/history");
    wait_until("the first sample", Duration::from_secs(10), move || {
        get_json_blocking(&history)
            .is_some_and(|body| body["points"].as_array().is_some_and(|p| !p.is_empty()))
    })
    .await;
    let (status, body) = app.get_json("/api/clusters/main/metrics/history").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clusterId"], "main");
    assert_eq!(body["source"], "internal");
    assert_eq!(
        body["end"].as_i64().unwrap() - body["start"].as_i64().unwrap(),
        7 * 86_400
    );
    assert!(body["step"].as_i64().unwrap() >= 1);
    let points = body["points"].as_array().unwrap();
    assert!(!points.is_empty() && points.len() <= 500, "{body}");
    let stamps: Vec<i64> = points
        .iter()
        .map(|p| p["timestamp"].as_i64().unwrap())
        .collect();
    assert!(
        stamps.windows(2).all(|w| w[0] < w[1]),
        "oldest first: {stamps:?}"
    );
    assert_eq!(points[0]["health"], "green");
    assert_eq!(points[0]["nodeCount"], 1);
    assert_eq!(points[0]["cpuUsagePercent"], 7.0);
    assert!(body.get("reason").is_none());

    // A range before the console started has no points, and says why.
    let (status, empty) = app
        .get_json("/api/clusters/main/metrics/history?start=1000000000&end=1000003600")
        .await;
    assert_eq!(status, 200);
    assert_eq!(empty["points"], serde_json::json!([]));
    assert!(empty["reason"].as_str().unwrap().contains("not sampled"));
}

#[tokio::test]
async fn a_failing_cluster_records_no_invented_points() {
    let osmem = Osmem::start();
    let stub = ClusterStub::start(&osmem.url, NodeUsage::default());
    stub.set_unavailable(true);
    let app = app_with_sampling(&stub, "1s").await;
    // Two sampling rounds of three calls refused: the first round's outcome is settled.
    let refused = stub.refused_calls();
    wait_until("two failed samples", Duration::from_secs(10), move || {
        refused() >= 6
    })
    .await;
    let (status, body) = app.get_json("/api/clusters/main/metrics/history").await;
    assert_eq!(status, 200);
    assert_eq!(body["points"], serde_json::json!([]));
    let (status, body) = app.get_json("/api/clusters/main/metrics").await;
    assert_eq!(status, 502, "{body}");
}
