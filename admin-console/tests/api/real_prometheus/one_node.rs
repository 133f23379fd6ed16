//! One node per distribution: every statistic from Prometheus against the cluster's own.

use super::*;

async fn statistics_match_the_cluster(distribution: Distribution) {
    let stack = stack(distribution).await;
    // No index yet: none, and no documents (0, not "no value": the exporter read the indices).
    let prom = stack
        .prom_until("a first scrape", |s| s["health"].is_string())
        .await;
    let live = stack.snapshot("live").await;
    for field in ["indexCount", "documentCount"] {
        assert_eq!(
            (&live[field], &prom[field]),
            (&json!(0), &json!(0)),
            "{distribution:?} {field}: {live} {prom}"
        );
    }

    // One index whose replica cannot be placed on one node (yellow), one without replicas.
    stack.create_index("px-replicated", 1, false).await;
    stack.create_index("px-single", 0, false).await;
    stack.index_docs("px-replicated", 3).await;
    stack.index_docs("px-single", 2).await;

    // The cluster's own measurement is shared for a second: it may follow a moment later.
    let live = poll(
        "the cluster has the two indices",
        CHANGE_DEADLINE,
        || async {
            let live = stack.snapshot("live").await;
            (live["indexCount"] == 2 && live["documentCount"] == 5, live)
        },
    )
    .await;
    assert_eq!(
        (
            &live["health"],
            &live["nodeCount"],
            &live["indexCount"],
            &live["documentCount"],
            &live["shardCount"],
            &live["unassignedShards"]
        ),
        (
            &json!("yellow"),
            &json!(1),
            &json!(2),
            &json!(5),
            &json!(2),
            &json!(1)
        ),
        "{distribution:?}: {live}"
    );
    let prom = stack
        .prom_until("Prometheus has the five documents", |s| {
            s["documentCount"] == 5 && s["shardCount"] == 2
        })
        .await;
    assert_eq!(prom["clusterId"], "prom");
    assert_eq!(prom["health"], live["health"], "{prom}");
    for field in COUNTS {
        assert_eq!(
            prom[field], live[field],
            "{distribution:?} {field}: {prom} {live}"
        );
    }

    // The usages are exactly the exporter's series at the snapshot's second, summed over the
    // nodes; and close to what the cluster says (heap moves between two reads; the disk is the
    // same file system).
    let at = prom["timestamp"].as_i64().unwrap();
    let heap = |metric: &str| format!("{metric}{{job=\"es\",area=\"heap\"}}");
    let heap_percent = 100.0
        * stack
            .sum(&heap("elasticsearch_jvm_memory_used_bytes"), at)
            .await
        / stack
            .sum(&heap("elasticsearch_jvm_memory_max_bytes"), at)
            .await;
    assert_eq!(percent(&prom, "memoryUsagePercent"), round2(heap_percent));
    let available = stack
        .sum(
            "elasticsearch_filesystem_data_available_bytes{job=\"es\"}",
            at,
        )
        .await;
    let size = stack
        .sum("elasticsearch_filesystem_data_size_bytes{job=\"es\"}", at)
        .await;
    assert_eq!(
        percent(&prom, "diskUsagePercent"),
        round2(100.0 * (1.0 - available / size))
    );
    let cpu = stack
        .query("elasticsearch_os_cpu_percent{job=\"es\"}", at)
        .await;
    assert_eq!(cpu.len(), 1, "one node: {cpu:?}");
    assert_eq!(percent(&prom, "cpuUsagePercent"), cpu[0].1);
    let live_disk = percent(&live, "diskUsagePercent");
    assert!(
        (percent(&prom, "diskUsagePercent") - live_disk).abs() < 1.0,
        "disk: {prom} {live}"
    );
    percent(&live, "memoryUsagePercent");
    percent(&live, "cpuUsagePercent");

    // A change reaches the Prometheus snapshot within a few scrapes.
    let changed = Instant::now();
    stack.index_docs("px-single", 4).await;
    stack
        .prom_until("Prometheus has the four new documents", |s| {
            s["documentCount"] == 9
        })
        .await;
    let took = changed.elapsed();
    // The cluster's own measurement is shared for a second: it may follow a moment later.
    poll(
        "the cluster has the four new documents",
        CHANGE_DEADLINE,
        || async {
            let live = stack.snapshot("live").await;
            (live["documentCount"] == 9, live)
        },
    )
    .await;

    // The history from Prometheus ends with the cluster as it is now.
    let now = at + took.as_secs() as i64 + 1;
    let (status, history) = stack
        .app
        .get_json(&format!(
            "/api/clusters/prom/metrics/history?start={}&end={now}",
            now - 600
        ))
        .await;
    assert_eq!(status, 200, "{history}");
    assert_eq!(history["source"], "external_metrics");
    let points = history["points"].as_array().unwrap();
    let last = points.last().unwrap_or_else(|| panic!("{history}"));
    assert_eq!(
        (&last["health"], &last["nodeCount"], &last["indexCount"]),
        (&json!("yellow"), &json!(1), &json!(2)),
        "{history}"
    );
    assert!(
        points
            .iter()
            .all(|p| p["documentCount"] == 5 || p["documentCount"] == 9),
        "{history}"
    );

    // What the exporter cannot see: its `_all/_stats` leaves out closed and hidden indices,
    // while `_cluster/stats` counts both, with their documents. Closed first, then hidden:
    // health counts their shards, and Prometheus answers from scrapes made after both changes
    // once its shard count is 4 and its snapshot is two scrapes later still.
    stack.create_index("px-closed", 0, false).await;
    stack.index_docs("px-closed", 1).await;
    stack
        .cluster_call(reqwest::Method::POST, "px-closed/_close", None)
        .await;
    poll("the closed index is assigned", CHANGE_DEADLINE, || async {
        let live = stack.snapshot("live").await;
        (live["shardCount"] == 3, live)
    })
    .await;
    stack.create_index("px-hidden", 0, true).await;
    stack.index_docs("px-hidden", 1).await;
    let live = poll("the hidden index is assigned", CHANGE_DEADLINE, || async {
        let live = stack.snapshot("live").await;
        (
            live["shardCount"] == 4 && live["unassignedShards"] == 1,
            live,
        )
    })
    .await;
    let first = stack
        .prom_until("Prometheus has the new shards", |s| s["shardCount"] == 4)
        .await["timestamp"]
        .as_i64()
        .unwrap();
    let prom = stack
        .prom_until("two scrapes later", |s| {
            s["timestamp"].as_i64() >= Some(first + 3)
        })
        .await;
    let mut exported: Vec<String> = stack
        .query(
            "elasticsearch_indices_docs_primary{job=\"es\"}",
            prom["timestamp"].as_i64().unwrap(),
        )
        .await
        .into_iter()
        .map(|(labels, _)| labels["index"].clone())
        .collect();
    exported.sort();
    assert_eq!(exported, ["px-replicated", "px-single"], "{distribution:?}");
    assert_eq!(
        (count(&live, "indexCount"), count(&prom, "indexCount")),
        (4, 2),
        "{distribution:?}: {live} {prom}"
    );
    assert_eq!(
        (count(&live, "documentCount"), count(&prom, "documentCount")),
        (11, 9),
        "{distribution:?}: {live} {prom}"
    );

    // A job Prometheus does not scrape: no data, and why.
    let (status, body) = stack.app.get_json("/api/clusters/wrongjob/metrics").await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "no_metrics_data");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("job=\"nope\"")
    );

    // Validation finds the real exporter's series by job and labels.
    for (labels, found) in [
        (json!({"env": "test"}), true),
        (json!({"env": "prod"}), false),
    ] {
        let response = stack
            .app
            .client
            .post(stack.app.url("/api/metrics_server/validate"))
            .json(&json!({"url": stack.prometheus.url, "job_name": "es", "labels": labels}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["reachable"], true, "{answer}");
        assert_eq!(answer["status"] == "success", found, "{answer}");
    }

    // Which collectors fail against the server, and the node roles the exporter reports.
    let (failing, roles) = collectors(&stack).await;
    // SLM (`_slm/stats`) is x-pack's: 400 from OpenSearch and from the 7.10 zip (which has no
    // x-pack); so are data streams on 7.10 (OpenSearch has its own `_data_stream`).
    // OpenSearch calls the master role `cluster_manager`: the exporter (which knows only
    // `master`) reports no such role, and `es_master_node="false"` on every node series.
    let (expected_failing, expected_roles): (&[&str], &[&str]) = match distribution {
        Distribution::Elasticsearch7 => (
            &[
                "elasticsearch_data_stream_stats_up",
                "elasticsearch_slm_stats_up",
            ],
            &["client", "data", "ingest", "master"],
        ),
        _ => (
            &["elasticsearch_slm_stats_up"],
            &["client", "data", "ingest"],
        ),
    };
    let owned = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    assert_eq!(
        (failing, roles),
        (owned(expected_failing), owned(expected_roles)),
        "{distribution:?}"
    );

    eprintln!("{distribution:?}: a new document count reached the Prometheus snapshot in {took:?}");
}

/// The exporter's collectors that fail against the server (`elasticsearch_*_up 0`), and the
/// node roles it reports.
async fn collectors(stack: &Stack) -> (Vec<String>, Vec<String>) {
    let lines = stack.exporter_lines().await;
    let failing = lines
        .iter()
        .filter_map(|line| line.strip_suffix(" 0"))
        .filter(|name| name.ends_with("_up") || name.contains("_up{"))
        .map(|name| name.split('{').next().unwrap().to_owned())
        .collect();
    let mut roles: Vec<String> = lines
        .iter()
        .filter(|line| line.starts_with("elasticsearch_nodes_roles{"))
        .filter_map(|line| line.split("role=\"").nth(1))
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect();
    roles.sort();
    roles.dedup();
    (failing, roles)
}

#[tokio::test]
async fn opensearch_2_statistics_from_prometheus_match_the_cluster() {
    statistics_match_the_cluster(Distribution::OpenSearch2).await;
}

#[tokio::test]
async fn elasticsearch_7_statistics_from_prometheus_match_the_cluster() {
    statistics_match_the_cluster(Distribution::Elasticsearch7).await;
}

#[tokio::test]
async fn opensearch_3_statistics_from_prometheus_match_the_cluster() {
    statistics_match_the_cluster(Distribution::OpenSearch3).await;
}
