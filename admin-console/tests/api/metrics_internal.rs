//! `internal` metrics: the snapshot from three cluster calls, the sampled history, time ranges.
//! Against the shared real OpenSearch 2 node through a recording proxy that can stop
//! answering: the counts are compared with what the node itself says while nothing else
//! changes them, heap and CPU lie in range and the disk agrees with the node's `_nodes/stats`.
//! Index names are the suite's own (`metrics-…`).

use std::time::Duration;

use serde_json::json;
use test_support::Distribution;

use crate::support::real::{Real, direct_json, has_the_node_figures, real_with, while_still};
use crate::support::{get_json_blocking, seed_indices, wait_until};

async fn app_with_sampling(interval: &str) -> Real {
    let interval = interval.to_owned();
    real_with(Distribution::OpenSearch2, move |main| {
        format!(
            "internal_history:\n  sample_interval: {interval}\n  retention: 1h\nclusters:\n{main}"
        )
    })
    .await
}

/// `value` as a percentage, failing the test when it is none or out of range.
fn percent(value: &serde_json::Value, what: &str) -> f64 {
    let percent = value.as_f64().unwrap_or_else(|| panic!("{what}: {value}"));
    assert!((0.0..=100.0).contains(&percent), "{what}: {percent}");
    percent
}

#[tokio::test]
async fn the_snapshot_has_the_specified_fields_from_the_cluster() {
    let f = app_with_sampling("1h").await;
    seed_indices(&f.cluster.url, "metrics-m", 2, |_| 3).await;
    let stats_path = "/_cluster/stats?filter_path=indices.count,indices.docs.count";
    let body = while_still(
        f.cluster,
        stats_path,
        async || {
            let (status, body) = f.app.get_json("/api/clusters/main/metrics").await;
            assert_eq!(status, 200, "{body}");
            body
        },
        |body, health, stats| {
            let expected = json!({
                "health": health["status"],
                "nodeCount": 1,
                "indexCount": stats["indices"]["count"],
                "documentCount": stats["indices"]["docs"]["count"],
                "shardCount": health["active_shards"],
                "unassignedShards": health["unassigned_shards"],
            });
            has_the_node_figures(body, &expected)
        },
    )
    .await;
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
    // The seeded indices are among them; one node holds none of their replicas.
    assert!(body["indexCount"].as_u64().unwrap() >= 2, "{body}");
    assert!(body["documentCount"].as_u64().unwrap() >= 6, "{body}");
    assert!(body["unassignedShards"].as_u64().unwrap() >= 2, "{body}");
    percent(&body["cpuUsagePercent"], "cpu");
    assert!(percent(&body["memoryUsagePercent"], "heap") > 0.0, "{body}");
    let fs = direct_json(f.cluster, "/_cluster/stats?filter_path=nodes.fs").await;
    let total = fs["nodes"]["fs"]["total_in_bytes"].as_f64().unwrap();
    let available = fs["nodes"]["fs"]["available_in_bytes"].as_f64().unwrap();
    let disk = 100.0 * (total - available) / total;
    assert!(
        (percent(&body["diskUsagePercent"], "disk") - disk).abs() < 2.0,
        "the node says {disk:.1}% used: {body}"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!((body["timestamp"].as_i64().unwrap() - now).abs() < 5);
}

#[tokio::test]
async fn bad_time_ranges_get_400_saying_which_rule_was_broken() {
    let f = app_with_sampling("1h").await;
    let app = &f.app;
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
    let f = app_with_sampling("1s").await;
    let app = &f.app;
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
    // Shared: other suites' replicas may leave it yellow.
    assert!(
        ["green", "yellow"].contains(&points[0]["health"].as_str().unwrap_or("")),
        "{body}"
    );
    assert_eq!(points[0]["nodeCount"], 1);
    percent(&points[0]["cpuUsagePercent"], "cpu");
    percent(&points[0]["memoryUsagePercent"], "heap");
    assert!(body.get("reason").is_none());
    let since = body["collectingSince"].as_i64().unwrap();
    let first = points[0]["timestamp"].as_i64().unwrap();
    assert!(since <= first, "collecting since it started: {body}");

    // A range before the console started has no points, and says why and since when.
    let (status, empty) = app
        .get_json("/api/clusters/main/metrics/history?start=1000000000&end=1000003600")
        .await;
    assert_eq!(status, 200);
    assert_eq!(empty["points"], serde_json::json!([]));
    assert!(empty["reason"].as_str().unwrap().contains("not sampled"));
    assert_eq!(empty["collectingSince"], since);
}

#[tokio::test]
async fn a_failing_cluster_records_no_invented_points() {
    let f = real_with(Distribution::OpenSearch2, |main| {
        format!("internal_history:\n  sample_interval: 1s\n  retention: 1h\nclusters:\n{main}")
    })
    .await;
    f.proxy.set_unavailable(true);
    let app = &f.app;
    // Two sampling rounds of three calls refused: the first round's outcome is settled.
    let refused = f.proxy.refused_calls();
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
