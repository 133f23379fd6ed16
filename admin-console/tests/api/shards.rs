//! Shards (issue 19): the grid from one routing-table read, a copy's allocation explained, a
//! move and a retry of failed allocations, against osmem behind search-test-server with three
//! simulated nodes, in the Elasticsearch 8 and OpenSearch 2 flavors; the request each route
//! sends is asserted from the server's record.

use std::time::Duration;

use search_test_server::{Flavor, Options, Recorded, SearchTestServer};
use serde_json::{Value, json};
use test_support::{Osmem, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::{get_json_blocking, seed_indices, wait_until};

/// The calls of the `internal` statistics sampler, which runs beside every route.
const SAMPLER_PATHS: [&str; 3] = ["/_cluster/health", "/_cluster/stats", "/_nodes/stats/os"];

pub(crate) struct Stack {
    // Dropped last: the front forwards to it.
    _osmem: Osmem,
    pub(crate) cluster: SearchTestServer,
    pub(crate) app: TestApp,
}

/// osmem with `indices` indices `<prefix>-NNNN` (1 primary, 1 replica), three simulated nodes,
/// and the console in front of them in open access mode.
pub(crate) async fn stack(
    flavor: Flavor,
    prefix: &str,
    indices: usize,
    relocation: Duration,
) -> Stack {
    let osmem = Osmem::start();
    seed_indices(&osmem.url, prefix, indices, |_| 0).await;
    let cluster = SearchTestServer::start(Options {
        osmem_url: osmem.url.clone(),
        nodes: 3,
        flavor,
        relocation,
        ..Options::default()
    });
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("c", &cluster.url))).await;
    Stack {
        _osmem: osmem,
        cluster,
        app,
    }
}

impl Stack {
    /// Reads the dialect once (kept by the console for a minute), waits for the statistics
    /// sampler's first sample (taken at start, the next one a minute later), and forgets the
    /// requests, so that what follows records only what a route sends.
    pub(crate) async fn warm(&self) {
        let (status, _) = self.app.get_json("/api/clusters/c/dialect").await;
        assert_eq!(status, 200);
        let sampled = |requests: &[Recorded]| {
            SAMPLER_PATHS
                .iter()
                .all(|path| requests.iter().any(|request| request.path == *path))
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while !sampled(&self.cluster.requests()) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the sampler's first sample within 20 s: {:#?}",
                self.cluster.requests()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.cluster.clear_requests();
    }

    pub(crate) async fn grid(&self) -> Value {
        let (status, grid) = self.app.get_json("/api/clusters/c/shards").await;
        assert_eq!(status, 200, "{grid}");
        grid
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .app
            .client
            .post(self.app.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

fn manager_word(flavor: Flavor) -> &'static str {
    match flavor {
        Flavor::Elasticsearch8 => "master",
        Flavor::OpenSearch2 => "cluster_manager",
    }
}

/// The copies of `index` in a grid answer.
fn copies<'a>(grid: &'a Value, index: &str) -> &'a Vec<Value> {
    grid["indices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == index)
        .unwrap_or_else(|| panic!("{index} in {grid}"))["shards"]
        .as_array()
        .unwrap()
}

/// The id of the node a copy names by position (`key`: `node` or `relocatingNode`).
pub(crate) fn node_id(grid: &Value, copy: &Value, key: &str) -> Option<String> {
    let position = copy.get(key)?.as_u64()? as usize;
    grid["nodes"][position]["id"].as_str().map(str::to_owned)
}

fn cluster_calls(requests: &[Recorded], prefix: &str) -> Vec<Recorded> {
    requests
        .iter()
        .filter(|request| request.path.starts_with(prefix))
        .cloned()
        .collect()
}

#[tokio::test]
async fn the_grid_is_one_routing_table_read_without_metadata_in_both_flavors() {
    for flavor in [Flavor::OpenSearch2, Flavor::Elasticsearch8] {
        let stack = stack(flavor, "grid", 3, Duration::from_secs(1)).await;
        stack.warm().await;
        let grid = stack.grid().await;

        let requests = stack.cluster.requests();
        assert_eq!(
            requests.len(),
            1,
            "one cluster call per grid load: {requests:#?}"
        );
        let read = &requests[0];
        assert_eq!(read.method, "GET");
        assert_eq!(
            read.path,
            format!(
                "/_cluster/state/routing_table,nodes,blocks,{}_node",
                manager_word(flavor)
            )
        );
        assert!(!read.path.contains("metadata") && !read.query.contains("metadata"));
        let filter = read.param("filter_path").unwrap();
        assert!(
            filter.contains("routing_table.indices.*.shards.*.relocating_node"),
            "{filter}"
        );

        let nodes = grid["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 3, "{grid}");
        let ids: Vec<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
        let sim = stack.cluster.nodes();
        assert!(sim.iter().all(|node| ids.contains(&node.id.as_str())));
        assert_eq!(
            nodes.iter().filter(|n| n["elected"] == true).count(),
            1,
            "the elected {} is marked: {grid}",
            manager_word(flavor)
        );
        for index in ["grid-0000", "grid-0001", "grid-0002"] {
            let copies = copies(&grid, index);
            assert_eq!(copies.len(), 2, "{index}: {copies:?}");
            assert_eq!(copies[0]["primary"], true);
            assert_eq!(copies[1]["primary"], false);
            assert!(copies.iter().all(|c| c["state"] == "started"), "{copies:?}");
            assert_ne!(
                copies[0]["node"], copies[1]["node"],
                "never two copies on one node"
            );
        }
        assert_eq!(grid["unassigned"], 0);

        // A closed index stays in the grid (Elasticsearch 7.2+ and OpenSearch keep the routing
        // of closed indices), and does not break the read.
        let closed = test_support::http_client()
            .post(format!("{}/grid-0002/_close", stack.cluster.url))
            .send()
            .await
            .unwrap();
        assert!(closed.status().is_success(), "{}", closed.status());
        let grid = stack.grid().await;
        assert_eq!(copies(&grid, "grid-0002").len(), 2, "{grid}");
    }
}

#[tokio::test]
async fn a_failed_replica_is_explained_in_words_and_retried() {
    for flavor in [Flavor::Elasticsearch8, Flavor::OpenSearch2] {
        let stack = stack(flavor, "failing", 1, Duration::from_millis(300)).await;
        stack.cluster.fail_allocation("failing-0000", 0).unwrap();
        stack.warm().await;
        let grid = stack.grid().await;
        let replica = copies(&grid, "failing-0000")
            .iter()
            .find(|c| c["primary"] == false)
            .unwrap()
            .clone();
        assert_eq!(replica["state"], "unassigned", "{grid}");
        assert_eq!(replica["unassigned"]["reason"], "ALLOCATION_FAILED");
        assert_eq!(grid["unassigned"], 1);

        stack.cluster.clear_requests();
        let (status, explained) = stack
            .app
            .get_json("/api/clusters/c/shards/explain?index=failing-0000&shard=0&primary=false")
            .await;
        assert_eq!(status, 200, "{explained}");
        let sent = cluster_calls(&stack.cluster.requests(), "/_cluster/allocation/explain");
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "POST");
        assert_eq!(
            sent[0].body,
            Some(json!({"index": "failing-0000", "shard": 0, "primary": false}))
        );
        assert_eq!(explained["currentState"], "unassigned");
        let headline = explained["headline"].as_str().unwrap();
        assert!(
            headline.starts_with("The replica of failing-0000 shard 0 is unassigned"),
            "{headline}"
        );
        assert!(
            explained["sentences"][0]
                .as_str()
                .unwrap()
                .starts_with("Allocating this copy failed"),
            "{explained}"
        );
        let nodes = explained["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 3, "a decision per node: {explained}");
        let refusal = nodes
            .iter()
            .find(|n| {
                n["deciders"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|d| d["decider"] == "max_retry")
            })
            .unwrap_or_else(|| panic!("max_retry says no: {explained}"));
        assert!(
            refusal["sentence"]
                .as_str()
                .unwrap()
                .contains("says no because allocation failed too many times in a row"),
            "{refusal}"
        );

        stack.cluster.clear_requests();
        let (status, answer) = stack
            .post("/api/clusters/c/shards/retry", json!(null))
            .await;
        assert_eq!((status, &answer), (200, &json!({"acknowledged": true})));
        let sent = cluster_calls(&stack.cluster.requests(), "/_cluster/reroute");
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "POST");
        assert_eq!(sent[0].param("retry_failed").as_deref(), Some("true"));
        assert_eq!(
            sent[0].param("metric").as_deref(),
            (flavor == Flavor::Elasticsearch8).then_some("none")
        );
        let url = stack.app.url("/api/clusters/c/shards");
        wait_until(
            "the retried replica starts",
            Duration::from_secs(20),
            move || {
                get_json_blocking(&url).is_some_and(|grid| {
                    copies(&grid, "failing-0000")
                        .iter()
                        .all(|c| c["state"] == "started")
                })
            },
        )
        .await;
    }
}

#[tokio::test]
async fn a_moved_copy_relocates_then_lands_on_the_target_in_both_flavors() {
    for flavor in [Flavor::OpenSearch2, Flavor::Elasticsearch8] {
        let stack = stack(flavor, "moving", 1, Duration::from_secs(3)).await;
        stack.warm().await;
        let grid = stack.grid().await;
        let copies_before = copies(&grid, "moving-0000").clone();
        let primary = copies_before.iter().find(|c| c["primary"] == true).unwrap();
        let from = node_id(&grid, primary, "node").unwrap();
        let holders: Vec<String> = copies_before
            .iter()
            .filter_map(|c| node_id(&grid, c, "node"))
            .collect();
        let to = stack
            .cluster
            .nodes()
            .into_iter()
            .map(|node| node.id)
            .find(|id| !holders.contains(id))
            .expect("a node without a copy");

        stack.cluster.clear_requests();
        let (status, answer) = stack
            .post(
                "/api/clusters/c/shards/move",
                json!({"index": "moving-0000", "shard": 0, "fromNode": from, "toNode": to}),
            )
            .await;
        assert_eq!((status, &answer), (200, &json!({"acknowledged": true})));
        let sent = cluster_calls(&stack.cluster.requests(), "/_cluster/reroute");
        assert_eq!(sent.len(), 1);
        assert_eq!(
            sent[0].body,
            Some(json!({"commands": [{"move": {
                "index": "moving-0000", "shard": 0, "from_node": from, "to_node": to
            }}]}))
        );
        assert_eq!(
            sent[0].param("metric").as_deref(),
            (flavor == Flavor::Elasticsearch8).then_some("none")
        );

        let relocating = stack.grid().await;
        let copy = copies(&relocating, "moving-0000")
            .iter()
            .find(|c| c["primary"] == true)
            .unwrap()
            .clone();
        assert_eq!(copy["state"], "relocating", "{relocating}");
        assert_eq!(node_id(&relocating, &copy, "node"), Some(from.clone()));
        assert_eq!(
            node_id(&relocating, &copy, "relocatingNode"),
            Some(to.clone())
        );
        assert_eq!(relocating["relocating"], 1);

        let url = stack.app.url("/api/clusters/c/shards");
        let target = to.clone();
        wait_until(
            "the primary lands on the target",
            Duration::from_secs(20),
            move || {
                get_json_blocking(&url).is_some_and(|grid| {
                    copies(&grid, "moving-0000").iter().any(|c| {
                        c["primary"] == true
                            && c["state"] == "started"
                            && node_id(&grid, c, "node").as_ref() == Some(&target)
                    })
                })
            },
        )
        .await;
    }
}

#[tokio::test]
async fn bad_input_is_refused_before_any_cluster_call_and_refusals_pass_through() {
    let stack = stack(Flavor::OpenSearch2, "bad", 1, Duration::from_secs(1)).await;
    stack.warm().await;
    let grid = stack.grid().await;
    let copies = copies(&grid, "bad-0000").clone();
    let (primary, replica) = (
        node_id(&grid, &copies[0], "node").unwrap(),
        node_id(&grid, &copies[1], "node").unwrap(),
    );
    stack.cluster.clear_requests();
    for (body, code, message) in [
        (
            json!({"index": "bad-0000", "shard": 0, "fromNode": primary, "toNode": primary}),
            "bad_request",
            "toNode must differ from fromNode",
        ),
        (
            json!({"index": "bad-*", "shard": 0, "fromNode": primary, "toNode": replica}),
            "bad_request",
            "The index name \"bad-*\" contains \"*\"",
        ),
        (
            json!({"index": "bad-0000", "shard": 0, "fromNode": "_local", "toNode": replica}),
            "bad_request",
            "fromNode must be one node id",
        ),
        (
            json!({"index": "bad-0000", "shard": -1, "fromNode": primary, "toNode": replica}),
            "bad_request",
            "shard must be a whole number from 0",
        ),
        (
            json!({"index": "bad-0000", "shard": 0}),
            "invalid_body",
            "fromNode",
        ),
    ] {
        let (status, answer) = stack
            .post("/api/clusters/c/shards/move", body.clone())
            .await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}");
        let text = answer["error"]["message"].as_str().unwrap();
        assert!(text.contains(message), "{body}: {text}");
    }
    for query in [
        "index=bad-0000&shard=0",
        "index=bad-0000&shard=x&primary=true",
        "index=_all&shard=0&primary=true",
        "shard=0&primary=true",
        "index=bad-0000&shard=0&primary=true&node=a%2Cb",
    ] {
        let (status, answer) = stack
            .app
            .get_json(&format!("/api/clusters/c/shards/explain?{query}"))
            .await;
        assert_eq!(status, 400, "{query}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_request");
    }
    let sent = stack.cluster.requests();
    assert!(sent.is_empty(), "nothing reached the cluster: {sent:#?}");

    // The cluster refuses a move onto the node that holds the other copy: its reason, its
    // status.
    let (status, answer) = stack
        .post(
            "/api/clusters/c/shards/move",
            json!({"index": "bad-0000", "shard": 0, "fromNode": primary, "toNode": replica}),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], "rejected_by_cluster");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("refused the call"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_viewer_may_look_but_not_move_or_retry_and_the_refusal_is_audited() {
    let osmem = Osmem::start();
    seed_indices(&osmem.url, "roles", 1, |_| 0).await;
    let cluster = SearchTestServer::start(Options {
        osmem_url: osmem.url.clone(),
        nodes: 3,
        relocation: Duration::from_millis(200),
        ..Options::default()
    });
    let dir = TempDir::new("shards-audit");
    let file = dir.path().join("audit.log");
    let app = spawn_app(&format!(
        "{}audit:\n  file: {}\n",
        trusted_yaml(&cluster_yaml("guarded", &cluster.url)),
        file.display()
    ))
    .await;
    let url = |tail: &str| app.url(&format!("/api/clusters/guarded{tail}"));
    let grid: Value = as_caller(app.client.get(url("/shards")), &VIEWER)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let copies = copies(&grid, "roles-0000").clone();
    let from = node_id(&grid, &copies[0], "node").unwrap();
    let holders: Vec<String> = copies
        .iter()
        .filter_map(|c| node_id(&grid, c, "node"))
        .collect();
    let to = cluster
        .nodes()
        .into_iter()
        .map(|n| n.id)
        .find(|id| !holders.contains(id))
        .unwrap();
    let explain = as_caller(
        app.client
            .get(url("/shards/explain?index=roles-0000&shard=0&primary=true")),
        &VIEWER,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(explain.status(), 200, "a viewer may read the explanation");
    let node_page = as_caller(app.client.get(url(&format!("/nodes/{from}"))), &VIEWER)
        .send()
        .await
        .unwrap();
    assert_eq!(node_page.status(), 200, "a viewer may read a node's page");

    let move_body = json!({"index": "roles-0000", "shard": 0, "fromNode": from, "toNode": to});
    cluster.clear_requests();
    for (path, body) in [
        ("/shards/move", move_body.clone()),
        ("/shards/retry", json!({})),
    ] {
        let refused = as_caller(app.client.post(url(path)).json(&body), &VIEWER)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 403, "{path}");
        let answer: Value = refused.json().await.unwrap();
        assert_eq!(answer["error"]["code"], "forbidden");
    }
    assert!(
        cluster_calls(&cluster.requests(), "/_cluster/reroute").is_empty(),
        "a refused call sends nothing"
    );
    for (path, body, caller) in [
        ("/shards/move", move_body, &OPERATOR),
        ("/shards/retry", json!({}), &ADMIN),
    ] {
        let done = as_caller(app.client.post(url(path)).json(&body), caller)
            .send()
            .await
            .unwrap();
        assert_eq!(done.status(), 200, "{path}");
    }
    assert_eq!(
        cluster_calls(&cluster.requests(), "/_cluster/reroute").len(),
        2
    );

    let path = file.clone();
    wait_until("four audit lines", Duration::from_secs(10), move || {
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .count()
            >= 4
    })
    .await;
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let outcomes: Vec<(&str, &str, &str)> = lines
        .iter()
        .map(|line| {
            (
                line["user"].as_str().unwrap(),
                line["path"].as_str().unwrap(),
                line["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("vera", "/api/clusters/guarded/shards/move", "denied"),
            ("vera", "/api/clusters/guarded/shards/retry", "denied"),
            ("otto", "/api/clusters/guarded/shards/move", "success"),
            ("ada", "/api/clusters/guarded/shards/retry", "success"),
        ],
        "reads are not audited"
    );
}
