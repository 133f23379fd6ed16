//! Shards (issue 19): the grid from one routing-table read, a copy's allocation explained, a
//! move and a retry of failed allocations, against the shared real three-node clusters
//! (OpenSearch 2.19 and Elasticsearch 7.10, in `real_shards`' turn), through a recording proxy of
//! each test's own: the request each route sends is asserted from the proxy's record, what
//! comes back is the cluster's. A replica that cannot be allocated is one pinned by
//! `index.routing.allocation.require._name` to the node of its primary; a move stays relocating
//! for seconds because recoveries are throttled (`indices.recovery.max_bytes_per_sec`).

use std::time::Duration;

use search_test_server::{Proxy, Recorded, Upstream};
use serde_json::{Value, json};
use test_support::{Distribution, SearchNodes, TempDir};
use tokio::sync::MutexGuard;

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::{get_json_blocking, wait_until};

/// The calls of the `internal` statistics sampler, which runs beside every route.
const SAMPLER_PATHS: [&str; 3] = ["/_cluster/health", "/_cluster/stats", "/_nodes/stats/os"];

/// The dialects: OpenSearch (`cluster_manager`) and Elasticsearch (`master`).
const DISTRIBUTIONS: [Distribution; 2] = [Distribution::OpenSearch2, Distribution::Elasticsearch7];

pub(crate) struct Stack {
    pub(crate) proxy: Proxy,
    pub(crate) app: TestApp,
    cluster: &'static SearchNodes,
    _turn: MutexGuard<'static, ()>,
}

/// The shared three-node cluster of `distribution` (in `real_shards`' turn) with `indices`
/// indices `<prefix>-NNNN` (1 primary, 1 replica, green), a proxy before it and the console in
/// front of that in open access mode (or as `yaml` makes the configuration of the `clusters:`
/// entry).
async fn stack_with(
    distribution: Distribution,
    prefix: &str,
    indices: usize,
    yaml: impl FnOnce(&str) -> String,
) -> Stack {
    let turn = crate::real_shards::TURN.lock().await;
    let cluster = tokio::task::spawn_blocking(move || SearchNodes::shared(distribution, 3))
        .await
        .unwrap();
    let proxy = Proxy::start(Upstream {
        url: cluster.url().to_owned(),
        ..Upstream::default()
    });
    let stack = Stack {
        app: spawn_app(&yaml(&cluster_yaml("c", &proxy.url))).await,
        proxy,
        cluster,
        _turn: turn,
    };
    for n in 0..indices {
        let name = format!("{prefix}-{n:04}");
        stack
            .direct("DELETE", &format!("/{name}?ignore_unavailable=true"), None)
            .await;
        stack
            .ok(
                "PUT",
                &format!("/{name}"),
                Some(json!({"settings": {"number_of_shards": 1, "number_of_replicas": 1}})),
            )
            .await;
    }
    stack
        .ok(
            "GET",
            &format!("/_cluster/health/{prefix}-*?wait_for_status=green&timeout=120s"),
            None,
        )
        .await;
    stack
}

async fn stack(distribution: Distribution, prefix: &str, indices: usize) -> Stack {
    stack_with(distribution, prefix, indices, |clusters| {
        format!("clusters:\n{clusters}")
    })
    .await
}

impl Stack {
    /// `method path` straight to the cluster (not through the proxy): status and body.
    async fn direct(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request =
            test_support::http_client().request(method, format!("{}{path}", self.cluster.url()));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// As [`Self::direct`], asserting a 2xx answer.
    async fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, answer) = self.direct(method, path, body.clone()).await;
        assert!(
            (200..300).contains(&status),
            "{method} {path} {body:?}: {status} {answer}"
        );
        answer
    }

    /// Deletes the test's indices.
    async fn delete(&self, pattern: &str) {
        self.ok("DELETE", &format!("/{pattern}?expand_wildcards=all"), None)
            .await;
    }

    /// The cluster's node ids.
    async fn node_ids(&self) -> Vec<String> {
        let nodes = self.ok("GET", "/_nodes/_all/none", None).await;
        nodes["nodes"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    }

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
        while !sampled(&self.proxy.requests()) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the sampler's first sample within 20 s: {:#?}",
                self.proxy.requests()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.proxy.clear_requests();
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

    /// Waits until the grid of `index` satisfies `ready`.
    async fn grid_until(
        &self,
        what: &'static str,
        index: &str,
        ready: fn(&Value, &[Value]) -> bool,
    ) {
        let url = self.app.url("/api/clusters/c/shards");
        let index = index.to_owned();
        wait_until(what, Duration::from_secs(120), move || {
            get_json_blocking(&url).is_some_and(|grid| ready(&grid, copies(&grid, &index)))
        })
        .await;
    }
}

fn manager_word(distribution: Distribution) -> &'static str {
    match distribution {
        Distribution::Elasticsearch7 => "master",
        _ => "cluster_manager",
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

/// The name of the node a copy sits on.
fn node_name(grid: &Value, copy: &Value) -> String {
    let position = copy["node"].as_u64().unwrap() as usize;
    grid["nodes"][position]["name"].as_str().unwrap().to_owned()
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
    for distribution in DISTRIBUTIONS {
        let stack = stack(distribution, "shgrid", 3).await;
        stack.warm().await;
        let grid = stack.grid().await;

        let requests = stack.proxy.requests();
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
                manager_word(distribution)
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
        let mut ids: Vec<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
        ids.sort_unstable();
        let mut real = stack.node_ids().await;
        real.sort_unstable();
        assert_eq!(ids, real, "the cluster's nodes");
        assert_eq!(
            nodes.iter().filter(|n| n["elected"] == true).count(),
            1,
            "the elected {} is marked: {grid}",
            manager_word(distribution)
        );
        for index in ["shgrid-0000", "shgrid-0001", "shgrid-0002"] {
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

        // A closed index stays in the grid (Elasticsearch 7.2+ and OpenSearch keep the routing
        // of closed indices), and does not break the read.
        stack.ok("POST", "/shgrid-0002/_close", None).await;
        let grid = stack.grid().await;
        assert_eq!(copies(&grid, "shgrid-0002").len(), 2, "{grid}");
        stack.delete("shgrid-*").await;
    }
}

#[tokio::test]
async fn an_unassignable_replica_is_explained_in_words_and_retried() {
    for distribution in DISTRIBUTIONS {
        let stack = stack(distribution, "shpinned", 1).await;
        let index = "shpinned-0000";
        // Pinned to the primary's node, where its replica may not be: no node takes it.
        let grid = stack.grid().await;
        let primary = copies(&grid, index)
            .iter()
            .find(|c| c["primary"] == true)
            .unwrap()
            .clone();
        let home = node_name(&grid, &primary);
        // Its replica dropped, then added back: it has nowhere to go.
        for settings in [
            json!({"index.number_of_replicas": 0}),
            json!({"index.routing.allocation.require._name": home}),
            json!({"index.number_of_replicas": 1}),
        ] {
            stack
                .ok("PUT", &format!("/{index}/_settings"), Some(settings))
                .await;
        }
        stack
            .grid_until("the replica is unassigned", index, |_, copies| {
                copies
                    .iter()
                    .any(|c| c["primary"] == false && c["state"] == "unassigned")
            })
            .await;
        stack.warm().await;
        let grid = stack.grid().await;
        let replica = copies(&grid, index)
            .iter()
            .find(|c| c["primary"] == false)
            .unwrap()
            .clone();
        assert_eq!(replica["state"], "unassigned", "{grid}");
        assert!(replica["unassigned"]["reason"].is_string(), "{replica}");
        assert!(grid["unassigned"].as_u64().unwrap() >= 1, "{grid}");

        stack.proxy.clear_requests();
        let (status, explained) = stack
            .app
            .get_json(&format!(
                "/api/clusters/c/shards/explain?index={index}&shard=0&primary=false"
            ))
            .await;
        assert_eq!(status, 200, "{explained}");
        let sent = cluster_calls(&stack.proxy.requests(), "/_cluster/allocation/explain");
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "POST");
        assert_eq!(
            sent[0].body,
            Some(json!({"index": index, "shard": 0, "primary": false}))
        );
        assert_eq!(explained["currentState"], "unassigned");
        let headline = explained["headline"].as_str().unwrap();
        assert!(
            headline.starts_with(&format!("The replica of {index} shard 0 is unassigned")),
            "{headline}"
        );
        let nodes = explained["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 3, "a decision per node: {explained}");
        for (decider, words) in [
            (
                "same_shard",
                "says no because a copy of this shard is already on this node",
            ),
            ("filter", "says no"),
        ] {
            let refusal = nodes
                .iter()
                .find(|n| {
                    n["deciders"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|d| d["decider"] == decider)
                })
                .unwrap_or_else(|| panic!("{decider} says no: {explained}"));
            assert!(
                refusal["sentence"].as_str().unwrap().contains(words),
                "{decider}: {refusal}"
            );
        }

        stack.proxy.clear_requests();
        let (status, answer) = stack
            .post("/api/clusters/c/shards/retry", json!(null))
            .await;
        assert_eq!((status, &answer), (200, &json!({"acknowledged": true})));
        let sent = cluster_calls(&stack.proxy.requests(), "/_cluster/reroute");
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "POST");
        assert_eq!(sent[0].param("retry_failed").as_deref(), Some("true"));
        // Neither OpenSearch nor Elasticsearch 7 documents a `none` metric.
        assert_eq!(sent[0].param("metric"), None);

        // The pin lifted, the replica starts.
        stack
            .ok(
                "PUT",
                &format!("/{index}/_settings"),
                Some(json!({"index.routing.allocation.require._name": null})),
            )
            .await;
        stack
            .grid_until("the replica starts", index, |_, copies| {
                copies.len() == 2 && copies.iter().all(|c| c["state"] == "started")
            })
            .await;
        stack.delete("shpinned-*").await;
    }
}

#[tokio::test]
async fn a_moved_copy_relocates_then_lands_on_the_target_in_both_flavors() {
    for distribution in DISTRIBUTIONS {
        let stack = stack(distribution, "shmoving", 1).await;
        let index = "shmoving-0000";
        // Some kilobytes in segments, and recoveries throttled: the move takes seconds.
        let bulk: String = (0..300)
            .map(|n| format!("{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{n}\"}}}}\n{{\"n\":{n},\"text\":\"document {n} of the index that moves\"}}\n"))
            .collect();
        let indexed = test_support::http_client()
            .post(format!("{}/_bulk?refresh=true", stack.cluster.url()))
            .header("content-type", "application/x-ndjson")
            .body(bulk)
            .send()
            .await
            .unwrap();
        assert!(indexed.status().is_success());
        stack.ok("POST", &format!("/{index}/_flush"), None).await;
        stack
            .ok(
                "PUT",
                "/_cluster/settings",
                Some(json!({"transient": {"indices.recovery.max_bytes_per_sec": "2kb"}})),
            )
            .await;
        stack.warm().await;
        let grid = stack.grid().await;
        let copies_before = copies(&grid, index).clone();
        let primary = copies_before.iter().find(|c| c["primary"] == true).unwrap();
        let from = node_id(&grid, primary, "node").unwrap();
        let holders: Vec<String> = copies_before
            .iter()
            .filter_map(|c| node_id(&grid, c, "node"))
            .collect();
        let to = stack
            .node_ids()
            .await
            .into_iter()
            .find(|id| !holders.contains(id))
            .expect("a node without a copy");

        stack.proxy.clear_requests();
        let (status, answer) = stack
            .post(
                "/api/clusters/c/shards/move",
                json!({"index": index, "shard": 0, "fromNode": from, "toNode": to}),
            )
            .await;
        assert_eq!((status, &answer), (200, &json!({"acknowledged": true})));
        let sent = cluster_calls(&stack.proxy.requests(), "/_cluster/reroute");
        assert_eq!(sent.len(), 1);
        assert_eq!(
            sent[0].body,
            Some(json!({"commands": [{"move": {
                "index": index, "shard": 0, "from_node": from, "to_node": to
            }}]}))
        );
        assert_eq!(sent[0].param("metric"), None);

        let relocating = stack.grid().await;
        let copy = copies(&relocating, index)
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
        assert!(
            relocating["relocating"].as_u64().unwrap() >= 1,
            "{relocating}"
        );

        let url = stack.app.url("/api/clusters/c/shards");
        let target = to.clone();
        let moving = index.to_owned();
        wait_until(
            "the primary lands on the target",
            Duration::from_secs(120),
            move || {
                get_json_blocking(&url).is_some_and(|grid| {
                    copies(&grid, &moving).iter().any(|c| {
                        c["primary"] == true
                            && c["state"] == "started"
                            && node_id(&grid, c, "node").as_ref() == Some(&target)
                    })
                })
            },
        )
        .await;
        stack
            .ok(
                "PUT",
                "/_cluster/settings",
                Some(json!({"transient": {"indices.recovery.max_bytes_per_sec": null}})),
            )
            .await;
        stack.delete("shmoving-*").await;
    }
}

#[tokio::test]
async fn bad_input_is_refused_before_any_cluster_call_and_refusals_pass_through() {
    let stack = stack(Distribution::OpenSearch2, "shbad", 1).await;
    stack.warm().await;
    let grid = stack.grid().await;
    let copies = copies(&grid, "shbad-0000").clone();
    let (primary, replica) = (
        node_id(&grid, &copies[0], "node").unwrap(),
        node_id(&grid, &copies[1], "node").unwrap(),
    );
    stack.proxy.clear_requests();
    for (body, code, message) in [
        (
            json!({"index": "shbad-0000", "shard": 0, "fromNode": primary, "toNode": primary}),
            "bad_request",
            "toNode must differ from fromNode",
        ),
        (
            json!({"index": "shbad-*", "shard": 0, "fromNode": primary, "toNode": replica}),
            "bad_request",
            "The index name \"shbad-*\" contains \"*\"",
        ),
        (
            json!({"index": "shbad-0000", "shard": 0, "fromNode": "_local", "toNode": replica}),
            "bad_request",
            "fromNode must be one node id",
        ),
        (
            json!({"index": "shbad-0000", "shard": -1, "fromNode": primary, "toNode": replica}),
            "bad_request",
            "shard must be a whole number from 0",
        ),
        (
            json!({"index": "shbad-0000", "shard": 0}),
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
        "index=shbad-0000&shard=0",
        "index=shbad-0000&shard=x&primary=true",
        "index=_all&shard=0&primary=true",
        "shard=0&primary=true",
        "index=shbad-0000&shard=0&primary=true&node=a%2Cb",
    ] {
        let (status, answer) = stack
            .app
            .get_json(&format!("/api/clusters/c/shards/explain?{query}"))
            .await;
        assert_eq!(status, 400, "{query}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_request");
    }
    let sent = stack.proxy.requests();
    assert!(sent.is_empty(), "nothing reached the cluster: {sent:#?}");

    // The cluster refuses a move onto the node that holds the other copy: its reason, its
    // status.
    let (status, answer) = stack
        .post(
            "/api/clusters/c/shards/move",
            json!({"index": "shbad-0000", "shard": 0, "fromNode": primary, "toNode": replica}),
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
    stack.delete("shbad-*").await;
}

#[tokio::test]
async fn a_viewer_may_look_but_not_move_or_retry_and_the_refusal_is_audited() {
    let dir = TempDir::new("shards-audit");
    let file = dir.path().join("audit.log");
    let stack = stack_with(Distribution::OpenSearch2, "shroles", 1, |clusters| {
        format!(
            "{}audit:\n  file: {}\n",
            trusted_yaml(&clusters.replace("id: c\n", "id: guarded\n")),
            file.display()
        )
    })
    .await;
    let app = &stack.app;
    let url = |tail: &str| app.url(&format!("/api/clusters/guarded{tail}"));
    let grid: Value = as_caller(app.client.get(url("/shards")), &VIEWER)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let copies = copies(&grid, "shroles-0000").clone();
    let from = node_id(&grid, &copies[0], "node").unwrap();
    let holders: Vec<String> = copies
        .iter()
        .filter_map(|c| node_id(&grid, c, "node"))
        .collect();
    let to = stack
        .node_ids()
        .await
        .into_iter()
        .find(|id| !holders.contains(id))
        .unwrap();
    let explain = as_caller(
        app.client.get(url(
            "/shards/explain?index=shroles-0000&shard=0&primary=true",
        )),
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

    let move_body = json!({"index": "shroles-0000", "shard": 0, "fromNode": from, "toNode": to});
    stack.proxy.clear_requests();
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
        cluster_calls(&stack.proxy.requests(), "/_cluster/reroute").is_empty(),
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
        cluster_calls(&stack.proxy.requests(), "/_cluster/reroute").len(),
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
    // The operator's move relocates the primary: wait until the cluster is green before the
    // index goes (and the next test's turn begins).
    stack
        .ok("GET", "/_cluster/health/shroles-*?wait_for_status=green&wait_for_no_relocating_shards=true&timeout=120s", None)
        .await;
    stack.delete("shroles-*").await;
}
