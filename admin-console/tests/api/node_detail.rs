//! A node's page: `GET /api/clusters/:id/nodes/:nodeId` reads the node's statistics and its
//! shards, against a real three-node OpenSearch 2 cluster (shared with `real_shards`, whose
//! turn the test takes) and the real single secured Elasticsearch 8 node, through a recording
//! proxy that shows the two calls the console makes.

use std::time::Duration;

use search_test_server::{Proxy, Recorded};
use serde_json::Value;
use test_support::{Distribution, SearchNodes};
use tokio::sync::MutexGuard;

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{proxy_to, real, shared};
use crate::support::seed_indices;
use crate::support::send;

/// The calls of the console's statistics sampler, which runs beside every route (at start, then
/// every minute).
const SAMPLER_PATHS: [&str; 3] = ["/_cluster/health", "/_cluster/stats", "/_nodes/stats/os"];

struct Target {
    app: TestApp,
    proxy: Proxy,
    manager: &'static str,
    _turn: Option<MutexGuard<'static, ()>>,
}

/// The console before the shared three-node OpenSearch 2 cluster, in `real_shards`' turn.
async fn three_nodes() -> Target {
    let turn = crate::real_shards::TURN.lock().await;
    let cluster = tokio::task::spawn_blocking(|| SearchNodes::shared(Distribution::OpenSearch2, 3))
        .await
        .unwrap();
    crate::real_shards::fresh_allocation(cluster.url()).await;
    let proxy = proxy_to(cluster.url(), None);
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("main", &proxy.url))).await;
    Target {
        app,
        proxy,
        manager: "cluster_manager",
        _turn: Some(turn),
    }
}

/// The console before the shared secured Elasticsearch 8 node.
async fn secured_node() -> Target {
    let cluster = shared(Distribution::Elasticsearch8Secured).await;
    let proxy = proxy_to(&cluster.url, cluster.security.as_ref());
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("main", &proxy.url))).await;
    Target {
        app,
        proxy,
        manager: "master",
        _turn: None,
    }
}

/// What the proxy received apart from the sampler's calls.
fn route_calls(proxy: &Proxy) -> Vec<Recorded> {
    proxy
        .requests()
        .into_iter()
        .filter(|r| !SAMPLER_PATHS.contains(&r.path.as_str()))
        .collect()
}

impl Target {
    fn url(&self, tail: &str) -> String {
        self.app.url(&format!("/api/clusters/main{tail}"))
    }

    async fn get(&self, tail: &str) -> Value {
        let (status, body) = send(self.app.client.get(self.url(tail))).await;
        assert_eq!(status, 200, "GET {tail}: {body}");
        body
    }

    /// The grid once every copy of the `paged-` indices that can be placed is started.
    async fn settled_grid(&self, nodes: usize) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let grid = self.get("/shards").await;
            let copies: Vec<&Value> = grid["indices"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|entry| entry["name"].as_str().unwrap_or("").starts_with("paged-"))
                .flat_map(|entry| entry["shards"].as_array().unwrap())
                .collect();
            let started = copies.iter().filter(|c| c["state"] == "started").count();
            // One primary and one replica of each of two indices; on one node the replicas
            // have nowhere to go.
            let placeable = if nodes > 1 { 4 } else { 2 };
            if started == placeable && copies.len() == 4 {
                return grid;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the paged- copies started within 120 s: {grid}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

#[tokio::test]
async fn a_node_page_has_its_statistics_and_shards_in_both_flavors() {
    for (target, nodes) in [(three_nodes().await, 3), (secured_node().await, 1)] {
        node_page(&target, nodes).await;
        for index in ["paged-0000", "paged-0001"] {
            let tail = format!("/indices/{index}?confirm={index}");
            let (status, body) = send(target.app.client.delete(target.url(&tail))).await;
            assert_eq!(status, 200, "DELETE {tail}: {body}");
        }
    }
}

async fn node_page(target: &Target, nodes: usize) {
    let manager = target.manager;
    seed_indices(&target.proxy.url, "paged", 2, |_| 0).await;
    let grid = target.settled_grid(nodes).await;
    // The node that holds the most copies of the test's indices.
    let held = |position: usize| {
        grid["indices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|index| index["name"].as_str().unwrap().starts_with("paged-"))
            .flat_map(|index| index["shards"].as_array().unwrap())
            .filter(|copy| copy["node"].as_u64() == Some(position as u64))
            .count()
    };
    let busiest = (0..nodes).max_by_key(|&position| held(position)).unwrap();
    let node = &grid["nodes"][busiest];
    let id = node["id"].as_str().unwrap_or_else(|| panic!("{grid}"));
    target.proxy.clear_requests();
    let detail = target.get(&format!("/nodes/{id}")).await;

    let requests = route_calls(&target.proxy);
    let mut paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            format!("/_cluster/state/routing_table,nodes,blocks,{manager}_node"),
            format!("/_nodes/{id}/stats/jvm,os,fs,thread_pool,breaker"),
        ],
        "two calls, no full cluster state"
    );

    assert_eq!(detail["id"], id, "{detail}");
    assert_eq!(detail["name"], node["name"], "{detail}");
    assert_eq!(detail["managerRole"], manager, "{detail}");
    assert_eq!(
        detail["managerEligible"], true,
        "every node of the harness may be elected: {detail}"
    );
    let jvm = &detail["jvm"];
    assert!(jvm["heapMaxBytes"].as_u64().unwrap() > 0, "{detail}");
    assert!(jvm["heapUsedPercent"].as_f64().is_some(), "{detail}");
    assert!(
        !jvm["gc"].as_array().unwrap().is_empty(),
        "GC collectors: {detail}"
    );
    assert!(detail["os"]["cpuPercent"].as_f64().is_some(), "{detail}");
    let fs = detail["fileSystems"].as_array().unwrap();
    assert!(!fs.is_empty() && fs[0]["path"].is_string(), "{detail}");
    // Thread pools, the ones that rejected the most work first.
    let pools = detail["threadPools"].as_array().unwrap();
    assert!(pools.len() > 5, "{detail}");
    let rejected: Vec<u64> = pools
        .iter()
        .map(|pool| pool["rejected"].as_u64().unwrap())
        .collect();
    assert!(
        rejected.windows(2).all(|pair| pair[0] >= pair[1]),
        "{rejected:?}"
    );
    assert!(pools.iter().any(|pool| pool["name"] == "write"), "{detail}");
    // Its copies of the test's indices are exactly the grid's on this node (other tests may
    // create and delete indices of their own meanwhile).
    let position = grid["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["id"] == id)
        .unwrap() as u64;
    let mut expected: Vec<(String, u64, bool)> = grid["indices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|index| index["name"].as_str().unwrap().starts_with("paged-"))
        .flat_map(|index| {
            index["shards"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|copy| copy["node"].as_u64() == Some(position))
                .map(|copy| {
                    (
                        index["name"].as_str().unwrap().to_owned(),
                        copy["shard"].as_u64().unwrap(),
                        copy["primary"].as_bool().unwrap(),
                    )
                })
        })
        .collect();
    let mut shown: Vec<(String, u64, bool)> = detail["shards"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["index"].as_str().unwrap().starts_with("paged-"))
        .map(|s| {
            (
                s["index"].as_str().unwrap().to_owned(),
                s["shard"].as_u64().unwrap(),
                s["primary"].as_bool().unwrap(),
            )
        })
        .collect();
    expected.sort();
    shown.sort();
    assert!(!shown.is_empty(), "{detail} / {grid}");
    assert_eq!(shown, expected, "{detail} / {grid}");
}

#[tokio::test]
async fn an_unknown_node_is_404_and_a_node_selector_is_refused_before_sending() {
    let f = real(Distribution::OpenSearch2).await;
    f.proxy.clear_requests();
    for selector in ["_local", "_all", "a,b", "node*", "a%2Fb"] {
        let (status, answer) = f
            .app
            .get_json(&format!("/api/clusters/main/nodes/{selector}"))
            .await;
        assert_eq!(status, 400, "{selector}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_request");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("nodeId must be one node id"),
            "{answer}"
        );
    }
    let sent = route_calls(&f.proxy);
    assert!(sent.is_empty(), "nothing reached the cluster: {sent:#?}");
    let (status, answer): (u16, Value) = f
        .app
        .get_json("/api/clusters/main/nodes/no-such-node")
        .await;
    assert_eq!(status, 404, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no node \"no-such-node\""),
        "{answer}"
    );
}
