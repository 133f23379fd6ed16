//! A node's page (issue 19): `GET /api/clusters/:id/nodes/:nodeId` reads the node's statistics
//! and its shards, against osmem behind search-test-server with three simulated nodes, in both
//! flavors; the requests sent are asserted from the server's record.

use std::time::Duration;

use search_test_server::Flavor;
use serde_json::Value;

use crate::shards::{node_id, stack};

#[tokio::test]
async fn a_node_page_has_its_statistics_and_shards_in_both_flavors() {
    for (flavor, manager) in [
        (Flavor::OpenSearch2, "cluster_manager"),
        (Flavor::Elasticsearch8, "master"),
    ] {
        let stack = stack(flavor, "paged", 2, Duration::from_secs(1)).await;
        stack.warm().await;
        let grid = stack.grid().await;
        let node = stack.cluster.nodes()[1].clone();
        stack.cluster.clear_requests();
        let (status, detail) = stack
            .app
            .get_json(&format!("/api/clusters/c/nodes/{}", node.id))
            .await;
        assert_eq!(status, 200, "{detail}");

        let requests = stack.cluster.requests();
        let mut paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
        paths.sort();
        assert_eq!(
            paths,
            [
                format!("/_cluster/state/routing_table,nodes,blocks,{manager}_node"),
                format!("/_nodes/{}/stats/jvm,os,fs,thread_pool,breaker", node.id),
            ],
            "two calls, no full cluster state"
        );

        assert_eq!(detail["id"], node.id.as_str());
        assert_eq!(detail["name"], node.name.as_str());
        assert_eq!(detail["managerRole"], manager);
        assert_eq!(
            detail["managerEligible"],
            node.roles.iter().any(|role| role == manager)
        );
        let jvm = &detail["jvm"];
        assert!(jvm["heapMaxBytes"].as_u64().unwrap() > 0, "{detail}");
        assert!(jvm["heapUsedPercent"].as_f64().is_some());
        assert!(
            !jvm["gc"].as_array().unwrap().is_empty(),
            "GC collectors: {detail}"
        );
        assert!(detail["os"]["cpuPercent"].as_f64().is_some());
        let fs = detail["fileSystems"].as_array().unwrap();
        assert!(!fs.is_empty() && fs[0]["path"].is_string(), "{detail}");
        // Thread pools, the ones that rejected work first.
        let pools = detail["threadPools"].as_array().unwrap();
        assert!(pools.len() > 5, "{detail}");
        assert_eq!(pools[0]["name"], "write", "{detail}");
        assert!(pools[0]["rejected"].as_u64().unwrap() > 0);
        assert!(pools[1..].iter().all(|p| p["rejected"] == 0));
        // Its shards are exactly the grid's copies on this node.
        let expected: usize = grid["indices"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|index| index["shards"].as_array().unwrap())
            .filter(|copy| node_id(&grid, copy, "node").as_deref() == Some(node.id.as_str()))
            .count();
        let shards = detail["shards"].as_array().unwrap();
        assert_eq!(shards.len(), expected, "{detail} / {grid}");
        assert!(
            shards
                .iter()
                .all(|s| s["index"].as_str().unwrap().starts_with("paged-"))
        );
    }
}

#[tokio::test]
async fn an_unknown_node_is_404_and_a_node_selector_is_refused_before_sending() {
    let stack = stack(Flavor::OpenSearch2, "lost", 1, Duration::from_secs(1)).await;
    stack.warm().await;
    for selector in ["_local", "_all", "a,b", "node*", "a%2Fb"] {
        let (status, answer) = stack
            .app
            .get_json(&format!("/api/clusters/c/nodes/{selector}"))
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
    let sent = stack.cluster.requests();
    assert!(sent.is_empty(), "nothing reached the cluster: {sent:#?}");
    let (status, answer): (u16, Value) = stack
        .app
        .get_json("/api/clusters/c/nodes/no-such-node")
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
