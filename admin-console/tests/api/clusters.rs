//! The cluster API against the shared real OpenSearch 2 node, through a recording proxy that
//! can stop answering. The node is shared with other suites: counts are compared with what the
//! node itself says while nothing else changes them, and each test keeps to index names of its
//! own (`clusters-…`). The allocation lock is cluster-wide and other suites move it, so its test
//! has a node of its own.

use serde_json::json;
use test_support::{Distribution, SearchCluster};

use crate::app::{cluster_yaml, spawn_app};
use crate::support::real::{
    Real, direct_json as direct, has_the_node_figures, real_with, while_still,
};
use crate::support::{closed_port_url, seed_indices, silent_server_url};

async fn fixture(extra_clusters: &str) -> Real {
    let extra = extra_clusters.to_owned();
    real_with(Distribution::OpenSearch2, move |main| {
        format!("clusters:\n{main}{extra}")
    })
    .await
}

#[tokio::test]
async fn the_list_probes_every_cluster_and_says_why_one_is_unreachable() {
    let dead = closed_port_url();
    let f = fixture(&cluster_yaml("dead", &dead)).await;
    let (status, body) = f.app.get_json("/api/clusters").await;
    assert_eq!(status, 200);
    let clusters = body["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 2);
    let main = &clusters[0];
    assert_eq!(main["id"], "main");
    assert_eq!(main["name"], "Cluster main");
    assert_eq!(main["metricsSource"], "internal");
    assert_eq!(main["reachable"], true);
    // Shared: other suites' replicas may leave it yellow.
    assert!(
        ["green", "yellow"].contains(&main["health"].as_str().unwrap_or("")),
        "{main}"
    );
    assert_eq!(main["distribution"], "opensearch");
    assert_eq!(main["version"], f.cluster.version().as_str());
    assert_eq!(main["error"], serde_json::Value::Null);
    let dead = &clusters[1];
    assert_eq!(dead["reachable"], false);
    assert_eq!(dead["health"], serde_json::Value::Null);
    assert!(
        dead["error"].as_str().unwrap().contains("unreachable"),
        "{dead}"
    );

    let (status, one) = f.app.get_json("/api/clusters/main").await;
    assert_eq!((status, &one["id"]), (200, &json!("main")));
}

#[tokio::test]
async fn unknown_cluster_ids_get_404_in_the_common_body() {
    let f = fixture("").await;
    for path in [
        "/api/clusters/nope",
        "/api/clusters/nope/overview",
        "/api/clusters/nope/metrics",
        "/api/clusters/nope/proxy/_cluster/health",
    ] {
        let (status, body) = f.app.get_json(path).await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(body["error"]["code"], "unknown_cluster", "{path}");
        assert!(body["error"]["message"].as_str().unwrap().contains("nope"));
    }
    // The cluster is looked up before the rest of the request is read: a bad name or body for
    // an unknown cluster is 404 too, as it is for a cluster the caller may not see.
    let (status, body) = f.app.get_json("/api/clusters/nope/indices/Bad*Name").await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (404, &json!("unknown_cluster"))
    );
    let response = f
        .app
        .client
        .post(f.app.url("/api/clusters/nope/indices"))
        .json(&json!({"nmae": "logs"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unknown_cluster");
}

#[tokio::test]
async fn overview_counts_nodes_indices_shards_and_documents() {
    let f = fixture("").await;
    seed_indices(&f.cluster.url, "clusters-logs", 3, |n| n + 1).await;
    let stats_path = "/_cluster/stats?filter_path=cluster_name,indices.count,indices.docs.count";
    let body = while_still(
        f.cluster,
        stats_path,
        async || {
            let (status, body) = f.app.get_json("/api/clusters/main/overview").await;
            assert_eq!(status, 200, "{body}");
            body
        },
        |body, health, stats| {
            let expected = json!({
                "clusterName": health["cluster_name"],
                "health": health["status"],
                "nodeCount": 1,
                "dataNodeCount": 1,
                "indexCount": stats["indices"]["count"],
                "shardCount": health["active_shards"],
                "primaryShardCount": health["active_primary_shards"],
                // One node holds no replica.
                "replicaShardCount": 0,
                "unassignedShards": health["unassigned_shards"],
                "documentCount": stats["indices"]["docs"]["count"],
            });
            has_the_node_figures(body, &expected)
        },
    )
    .await;
    assert_eq!(body["clusterId"], "main");
    assert_eq!(body["name"], "Cluster main");
    // The seeded indices are among them, their replicas unassigned.
    assert!(body["indexCount"].as_u64().unwrap() >= 3, "{body}");
    assert!(body["documentCount"].as_u64().unwrap() >= 6, "{body}");
    assert!(body["unassignedShards"].as_u64().unwrap() >= 3, "{body}");
    assert_eq!(body["distribution"], "opensearch");
    assert!(body["storeSizeBytes"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn nodes_have_roles_master_flag_and_usage_from_nodes_stats() {
    let f = fixture("").await;
    let (status, body) = f.app.get_json("/api/clusters/main/nodes").await;
    assert_eq!(status, 200, "{body}");
    let nodes = body["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 1);
    let node = &nodes[0];
    let own = direct(f.cluster, "/_nodes/stats/fs").await;
    let (id, stats) = own["nodes"].as_object().unwrap().iter().next().unwrap();
    assert_eq!(node["id"], id.as_str(), "{node}");
    assert_eq!(node["name"], stats["name"], "{node}");
    assert_eq!(node["isMaster"], true);
    let roles: Vec<&str> = node["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        roles.contains(&"cluster_manager") && roles.contains(&"data"),
        "{roles:?}"
    );
    // Heap and CPU move all the time: in range. The disk is what the node says it is.
    let percent = |key: &str| {
        let value = node[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key}: {node}"));
        assert!((0.0..=100.0).contains(&value), "{key}: {node}");
        value
    };
    assert!(percent("heapPercent") > 0.0, "{node}");
    percent("cpuPercent");
    let total = stats["fs"]["total"]["total_in_bytes"].as_f64().unwrap();
    let available = stats["fs"]["total"]["available_in_bytes"].as_f64().unwrap();
    let disk = 100.0 * (total - available) / total;
    assert!(
        (percent("diskUsedPercent") - disk).abs() < 2.0,
        "the node says {disk:.1}% used: {node}"
    );
    assert_eq!(node["ip"], "127.0.0.1");
}

#[tokio::test]
async fn indices_are_paged_sorted_and_filtered_on_the_server() {
    let f = fixture("").await;
    seed_indices(&f.cluster.url, "clusters-app", 12, |n| n % 5).await;
    seed_indices(&f.cluster.url, "clusters-audit", 3, |_| 0).await;

    let (status, page) = f
        .app
        .get_json("/api/clusters/main/indices?page=2&size=5&sort=name&order=asc&filter=clusters-a")
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 15);
    assert_eq!(
        (page["page"].as_u64(), page["size"].as_u64()),
        (Some(2), Some(5))
    );
    let names: Vec<&str> = page["indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "clusters-app-0005",
            "clusters-app-0006",
            "clusters-app-0007",
            "clusters-app-0008",
            "clusters-app-0009"
        ]
    );
    let row = &page["indices"][0];
    assert_eq!(row["docsCount"], 0);
    assert_eq!(row["status"], "open");
    assert_eq!(row["health"], "yellow");
    assert_eq!(
        (row["primaries"].as_u64(), row["replicas"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(row["storeSizeBytes"].is_u64());

    let (_, by_docs) = f
        .app
        .get_json("/api/clusters/main/indices?size=3&sort=docsCount&order=desc&filter=CLUSTERS-APP")
        .await;
    assert_eq!(by_docs["total"], 12);
    assert_eq!(by_docs["sort"], "docsCount");
    assert_eq!(by_docs["order"], "desc");
    let names: Vec<&str> = by_docs["indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "clusters-app-0009",
            "clusters-app-0004",
            "clusters-app-0008"
        ]
    );

    let (status, error) = f.app.get_json("/api/clusters/main/indices?size=501").await;
    assert_eq!(status, 400);
    assert!(error["error"]["message"].as_str().unwrap().contains("size"));
}

#[tokio::test]
async fn the_allocation_lock_is_read_and_set_persistently() {
    let cluster = tokio::task::spawn_blocking(|| SearchCluster::start(Distribution::OpenSearch2))
        .await
        .unwrap();
    let app = spawn_app(&format!(
        "clusters:\n{}",
        cluster_yaml("main", &cluster.url)
    ))
    .await;
    let (status, body) = app.get_json("/api/clusters/main/allocation").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"enable": "all", "locked": false, "excluded": {"names": [], "ips": [], "hosts": []}})
    );

    let response = app
        .client
        .put(app.url("/api/clusters/main/allocation"))
        .json(&json!({"enable": "primaries"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<serde_json::Value>().await.unwrap(),
        json!({"enable": "primaries", "locked": true, "excluded": {"names": [], "ips": [], "hosts": []}})
    );
    let settings: serde_json::Value = app
        .client
        .get(format!(
            "{}/_cluster/settings?flat_settings=true",
            cluster.url
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        settings["persistent"]["cluster.routing.allocation.enable"],
        "primaries"
    );

    let response = app
        .client
        .put(app.url("/api/clusters/main/allocation"))
        .json(&json!({"enable": "sideways"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn an_unreachable_or_silent_cluster_gets_503_or_504_saying_which() {
    let dead = closed_port_url();
    let silent = silent_server_url();
    let extra = format!(
        "{}{}    timeouts:\n      request: 300ms\n      probe: 300ms\n",
        cluster_yaml("dead", &dead),
        cluster_yaml("silent", &silent)
    );
    let f = fixture(&extra).await;
    let (status, body) = f.app.get_json("/api/clusters/dead/overview").await;
    assert_eq!(status, 503);
    assert_eq!(body["error"]["code"], "upstream_unreachable");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cluster \"dead\" is unreachable")
    );
    let (status, body) = f.app.get_json("/api/clusters/silent/nodes").await;
    assert_eq!(status, 504);
    assert_eq!(body["error"]["code"], "upstream_timeout");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not answer in time")
    );

    f.proxy.set_unavailable(true);
    let (status, body) = f.app.get_json("/api/clusters/main/overview").await;
    assert_eq!(status, 502);
    assert_eq!(body["error"]["code"], "upstream_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("state not recovered"),
        "{body}"
    );
}
