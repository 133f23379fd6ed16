//! A cluster down behind a working exporter, three nodes behind one exporter, a secured node.

use super::*;

#[tokio::test]
async fn a_cluster_down_behind_a_working_exporter_is_reported_as_down() {
    let Stack {
        server,
        exporter: _exporter,
        prometheus: _prometheus,
        app,
        ..
    } = stack(Distribution::OpenSearch2).await;
    let path = "/api/clusters/prom/metrics";
    let (status, body) = app.get_json(path).await;
    assert!(status == 200 || status == 502, "{body}");
    poll("a scrape of the cluster", CHANGE_DEADLINE, || async {
        let (status, body) = app.get_json(path).await;
        (status == 200, body)
    })
    .await;
    // The exporter goes on answering; its health collector says it cannot read the cluster
    // (`elasticsearch_cluster_health_up 0`) and the health series go stale at once.
    drop(server);
    let body = poll(
        "the cluster gone from Prometheus",
        CHANGE_DEADLINE,
        || async {
            let (status, body) = app.get_json(path).await;
            (status != 200, json!({"status": status, "body": body}))
        },
    )
    .await;
    assert_eq!(body["status"], 502, "{body}");
    assert_eq!(body["body"]["error"]["code"], "no_metrics_data", "{body}");
    let message = body["body"]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot read the cluster")
            && !message.contains("check metrics_server_job_name"),
        "{message}"
    );
}

/// Three OpenSearch nodes behind one exporter with `--es.all --es.indices` (as
/// docker/compose.yaml runs it): the node series of all three, summed and averaged as the
/// cluster sums its own.
#[tokio::test]
async fn three_nodes_behind_one_exporter_match_the_cluster() {
    let nodes = tokio::task::spawn_blocking(|| SearchNodes::start(Distribution::OpenSearch2, 3))
        .await
        .unwrap();
    let stack = stack_on(Server::Three(nodes), &["--es.all", "--es.indices"]).await;
    // One primary and a replica on each other node: green.
    stack.create_index("px-three", 2, false).await;
    stack.index_docs("px-three", 5).await;
    let live = poll("the replicas are assigned", CHANGE_DEADLINE, || async {
        let live = stack.snapshot("live").await;
        let ready = live["health"] == "green" && live["shardCount"] == 3;
        (ready && live["documentCount"] == 5, live)
    })
    .await;
    assert_eq!(
        (&live["nodeCount"], &live["documentCount"]),
        (&json!(3), &json!(5)),
        "{live}"
    );
    let prom = stack
        .prom_until("Prometheus has the green index", |s| {
            s["health"] == "green" && s["shardCount"] == 3 && s["documentCount"] == 5
        })
        .await;
    for field in COUNTS {
        assert_eq!(prom[field], live[field], "{field}: {prom} {live}");
    }
    let at = prom["timestamp"].as_i64().unwrap();
    let used = stack
        .query(
            "elasticsearch_jvm_memory_used_bytes{job=\"es\",area=\"heap\"}",
            at,
        )
        .await;
    let max = stack
        .sum(
            "elasticsearch_jvm_memory_max_bytes{job=\"es\",area=\"heap\"}",
            at,
        )
        .await;
    assert_eq!(used.len(), 3, "one heap series per node: {used:?}");
    let used: f64 = used.iter().map(|(_, value)| value).sum();
    assert_eq!(
        percent(&prom, "memoryUsagePercent"),
        round2(100.0 * used / max)
    );
    let cpu = stack
        .query("elasticsearch_os_cpu_percent{job=\"es\"}", at)
        .await;
    assert_eq!(cpu.len(), 3, "{cpu:?}");
    let mean = cpu.iter().map(|(_, value)| value).sum::<f64>() / 3.0;
    assert_eq!(percent(&prom, "cpuUsagePercent"), round2(mean));
    // Three nodes on one file system: the exporter sums it three times, the cluster counts it
    // once (`_cluster/stats` dedupes by address); the ratio is the same.
    assert!(
        (percent(&prom, "diskUsagePercent") - percent(&live, "diskUsagePercent")).abs() < 1.0,
        "{prom} {live}"
    );
    percent(&live, "memoryUsagePercent");
}

/// OpenSearch with its security plugin: the exporter over HTTPS with the demo CA and the
/// admin's credential in its URL.
#[tokio::test]
async fn a_secured_opensearch_behind_an_exporter_with_its_credential() {
    let stack = stack(Distribution::OpenSearch2Secured).await;
    stack.create_index("px-secured", 0, false).await;
    stack.index_docs("px-secured", 3).await;
    stack
        .prom_until("Prometheus has the documents", |s| {
            s["documentCount"].as_u64() >= Some(3)
        })
        .await;
    // The plugin's own indices are visible to the exporter too, and its audit log gains
    // documents from the reads themselves (the exporter's and the console's), so the live count
    // keeps moving ahead of the last scrape: every other count agrees, and the document count is
    // the exported indices' own at the scrape's time.
    let (live, prom) = poll_pair(&stack, &COUNTS_BUT_DOCUMENTS).await;
    let time = prom["timestamp"].as_i64().unwrap();
    let exported = stack
        .query("elasticsearch_indices_docs_primary{job=\"es\"}", time)
        .await;
    let mut names: Vec<String> = exported
        .iter()
        .map(|(labels, _)| labels["index"].clone())
        .collect();
    names.sort();
    assert!(
        names.len() == 3
            && names[0] == ".opendistro_security"
            && names[1] == "px-secured"
            && names[2].starts_with("security-auditlog-"),
        "{names:?}"
    );
    let docs_of = |index: &str| {
        exported
            .iter()
            .find(|(labels, _)| labels["index"] == index)
            .map(|(_, value)| *value)
    };
    assert_eq!(docs_of("px-secured"), Some(3.0), "{exported:?}");
    let exported_total: f64 = exported.iter().map(|(_, value)| value).sum();
    assert_eq!(
        count(&prom, "documentCount") as f64,
        exported_total,
        "{prom}"
    );
    assert!(
        count(&live, "documentCount") >= count(&prom, "documentCount"),
        "{live} {prom}"
    );
    assert_eq!(prom["health"], live["health"]);
}

/// The `live` and `prom` snapshots once they agree on `fields` (polled with a deadline).
async fn poll_pair(stack: &Stack, fields: &[&str]) -> (Value, Value) {
    let pair = poll("the two sources agree", CHANGE_DEADLINE, || async {
        let live = stack.snapshot("live").await;
        let (status, prom) = stack.app.get_json("/api/clusters/prom/metrics").await;
        let agree = status == 200 && fields.iter().all(|field| live[field] == prom[field]);
        (agree, json!([live, prom]))
    })
    .await;
    (pair[0].clone(), pair[1].clone())
}
