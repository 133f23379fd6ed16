//! Data tiers against real clusters: a three-node Elasticsearch 8 cluster whose nodes have only
//! tier roles (test-support's `SearchNodes::tiered`: `node-0` hot and content, `node-1` warm,
//! `node-2` cold) is listed with its tiers and counted as data nodes everywhere (node list, shard
//! grid, node page, overview), and an index that prefers a tier lands on that tier's node in the
//! grid; a three-node OpenSearch cluster, which has no tier roles, stays as it was.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{Distribution, SearchNodes, eventually_with};

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::send;

/// How long an index may take to be allocated where its tier preference says.
const SETTLE: Duration = Duration::from_secs(120);

/// The console in front of `cluster`, as cluster `tiers`.
async fn console(cluster: &SearchNodes) -> TestApp {
    spawn_app(&format!(
        "clusters:\n{}",
        cluster_yaml("tiers", cluster.url())
    ))
    .await
}

async fn get(app: &TestApp, tail: &str) -> Value {
    let (status, body) = app.get_json(&format!("/api/clusters/tiers{tail}")).await;
    assert_eq!(status, 200, "GET {tail}: {body}");
    body
}

async fn tiered() -> &'static SearchNodes {
    tokio::task::spawn_blocking(SearchNodes::tiered)
        .await
        .unwrap()
}

/// `(name, tiers, dataNode)` of each node in `nodes`, by name.
fn tiers_by_name(nodes: &Value) -> Vec<(String, Value, Value)> {
    let mut rows: Vec<(String, Value, Value)> = nodes
        .as_array()
        .unwrap_or_else(|| panic!("a node list: {nodes}"))
        .iter()
        .map(|node| {
            (
                node["name"].as_str().unwrap_or_default().to_owned(),
                node["tiers"].clone(),
                node["dataNode"].clone(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

fn expected_tiers() -> Vec<(String, Value, Value)> {
    vec![
        ("node-0".into(), json!(["hot", "content"]), json!(true)),
        ("node-1".into(), json!(["warm"]), json!(true)),
        ("node-2".into(), json!(["cold"]), json!(true)),
    ]
}

#[tokio::test]
async fn nodes_with_only_tier_roles_are_data_nodes_in_the_list_the_grid_and_their_pages() {
    let cluster = tiered().await;
    let app = console(cluster).await;

    let list = get(&app, "/nodes").await;
    assert_eq!(tiers_by_name(&list["nodes"]), expected_tiers(), "{list}");
    for node in list["nodes"].as_array().unwrap() {
        let roles = node["roles"].as_array().unwrap();
        assert!(
            !roles.iter().any(|role| role == "data"),
            "no node has the plain data role: {node}"
        );
    }

    let grid = get(&app, "/shards").await;
    let names: Vec<&str> = grid["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["node-0", "node-1", "node-2"],
        "hot, warm, cold rows"
    );
    assert_eq!(tiers_by_name(&grid["nodes"]), expected_tiers(), "{grid}");

    let warm = list["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|node| node["name"] == "node-1")
        .and_then(|node| node["id"].as_str())
        .unwrap()
        .to_owned();
    let page = get(&app, &format!("/nodes/{warm}")).await;
    assert_eq!(page["tiers"], json!(["warm"]), "{page}");
    assert_eq!(page["dataNode"], true, "{page}");

    let overview = get(&app, "/overview").await;
    assert_eq!(overview["dataNodeCount"], 3, "{overview}");
}

#[tokio::test]
async fn an_index_preferring_a_tier_lands_on_that_tiers_node_in_the_grid() {
    let cluster = tiered().await;
    let app = console(cluster).await;
    for (index, preference, node) in [
        ("tiers-warm", "data_warm", "node-1"),
        ("tiers-cold", "data_cold", "node-2"),
        ("tiers-plain", "", "node-0"),
    ] {
        let mut settings = json!({});
        if !preference.is_empty() {
            settings = json!({"index.routing.allocation.include._tier_preference": preference});
        }
        let (status, created) = send(
            app.client
                .post(app.url("/api/clusters/tiers/indices"))
                .json(&json!({"name": index, "shards": 1, "replicas": 0, "settings": settings})),
        )
        .await;
        assert_eq!(status, 200, "{index}: {created}");
        let landed = eventually_with(
            &format!("{index} started on one node"),
            SETTLE,
            async || {
                let grid = get(&app, "/shards").await;
                let copy = grid["indices"]
                    .as_array()
                    .and_then(|all| all.iter().find(|entry| entry["name"] == index))
                    .map(|entry| entry["shards"][0].clone())
                    .unwrap_or_default();
                let position = copy["node"].as_u64().filter(|_| copy["state"] == "started");
                position
                    .and_then(|position| grid["nodes"][position as usize]["name"].as_str())
                    .map(str::to_owned)
                    .ok_or(copy)
            },
        )
        .await;
        assert_eq!(landed, node, "{index} prefers {preference:?}");
        let (status, body) = send(app.client.delete(app.url(&format!(
            "/api/clusters/tiers/indices/{index}?confirm={index}"
        ))))
        .await;
        assert_eq!(status, 200, "{body}");
    }
}

#[tokio::test]
async fn opensearch_nodes_have_no_tiers_and_stay_data_nodes() {
    let cluster = tokio::task::spawn_blocking(|| SearchNodes::shared(Distribution::OpenSearch2, 3))
        .await
        .unwrap();
    let app = console(cluster).await;
    for tail in ["/nodes", "/shards"] {
        let answer = get(&app, tail).await;
        let nodes = answer["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 3, "{answer}");
        for node in nodes {
            assert_eq!(node["tiers"], json!([]), "{tail}: {node}");
            assert_eq!(node["dataNode"], true, "{tail}: {node}");
        }
    }
}
