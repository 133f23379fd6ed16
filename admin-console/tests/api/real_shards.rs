//! The shard views and routes against a real three-node cluster (OpenSearch 2.19, OpenSearch 3
//! and Elasticsearch 7.10, pinned in versions.env), where copies have somewhere to go: the grid
//! spreads primaries and replicas over the nodes, a replica that fits nowhere is explained with
//! the cluster's own reasons, a move really moves, and draining a node through its route
//! (its name in the allocation filter) empties it until the drain is undone. One cluster per distribution is shared by the tests of this module;
//! they take turns (the drain changes where every copy may go) and keep to index names of their
//! own.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{Distribution, SearchNodes};
use tokio::sync::{Mutex, MutexGuard};
use tokio::time::Instant;

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::send;

/// Each test runs against each.
const DISTRIBUTIONS: [Distribution; 3] = [
    Distribution::OpenSearch2,
    Distribution::OpenSearch3,
    Distribution::Elasticsearch7,
];
const NODES: usize = 3;
/// How long a change of the routing table may take to show (a relocation copies files).
const SETTLE: Duration = Duration::from_secs(120);

/// The console in front of the shared cluster of `distribution`, and this module's turn.
struct Fixture {
    app: TestApp,
    cluster: &'static SearchNodes,
    _turn: MutexGuard<'static, ()>,
}

/// Taken by every test on the shared three-node clusters (node_detail's too): a drain here
/// moves every copy.
pub(crate) static TURN: Mutex<()> = Mutex::const_new(());

/// Clears what a test that failed half-way may have left on a shared cluster and every other
/// test would inherit: allocation filters (a drain not undone), the allocation lock and the
/// recovery throttle. Called in the turn, before each test's own setup.
pub(crate) async fn fresh_allocation(url: &str) {
    let reset = json!({
        "cluster.routing.allocation.exclude._name": null,
        "cluster.routing.allocation.exclude._ip": null,
        "cluster.routing.allocation.exclude._host": null,
        "cluster.routing.allocation.enable": null,
        "indices.recovery.max_bytes_per_sec": null,
    });
    let response = test_support::http_client()
        .put(format!("{url}/_cluster/settings"))
        .json(&json!({"persistent": reset, "transient": reset}))
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert!(
        status.is_success(),
        "resetting the allocation settings: {status} {}",
        response.text().await.unwrap_or_default()
    );
}

async fn fixture(distribution: Distribution) -> Fixture {
    let turn = TURN.lock().await;
    let cluster = tokio::task::spawn_blocking(move || SearchNodes::shared(distribution, NODES))
        .await
        .unwrap();
    fresh_allocation(cluster.url()).await;
    let app = spawn_app(&format!(
        "clusters:\n{}",
        cluster_yaml("three", cluster.url())
    ))
    .await;
    Fixture {
        app,
        cluster,
        _turn: turn,
    }
}

impl Fixture {
    fn api(&self, tail: &str) -> String {
        self.app.url(&format!("/api/clusters/three{tail}"))
    }

    async fn get(&self, tail: &str) -> Value {
        let (status, body) = send(self.app.client.get(self.api(tail))).await;
        assert_eq!(status, 200, "GET {tail}: {body}");
        body
    }

    async fn send(&self, method: reqwest::Method, tail: &str, body: Value) -> Value {
        let request = self.app.client.request(method.clone(), self.api(tail));
        let (status, answer) = send(request.json(&body)).await;
        assert_eq!(status, 200, "{method} {tail} {body}: {answer}");
        answer
    }

    async fn create_index(&self, name: &str, shards: u32, replicas: u32, settings: Value) {
        let created = self
            .send(
                reqwest::Method::POST,
                "/indices",
                json!({"name": name, "shards": shards, "replicas": replicas, "settings": settings}),
            )
            .await;
        assert_eq!(created["acknowledged"], true, "{created}");
    }

    async fn delete_index(&self, name: &str) {
        let tail = format!("/indices/{name}?confirm={name}");
        let (status, body) = send(self.app.client.delete(self.api(&tail))).await;
        assert_eq!(status, 200, "DELETE {tail}: {body}");
    }

    /// The grid, read through the console until `ready` holds for it.
    async fn grid_until(&self, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + SETTLE;
        loop {
            let grid = self.get("/shards").await;
            if ready(&grid) {
                return grid;
            }
            assert!(
                Instant::now() < deadline,
                "{what} within {SETTLE:?}: {grid}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// One copy in the grid, its nodes by name.
#[derive(Debug, Clone, PartialEq)]
struct Copy {
    shard: u64,
    primary: bool,
    state: String,
    node: Option<String>,
    relocating_to: Option<String>,
    unassigned_reason: Option<String>,
}

fn copies(grid: &Value, index: &str) -> Vec<Copy> {
    let name = |copy: &Value, key: &str| {
        let position = copy.get(key)?.as_u64()? as usize;
        grid["nodes"][position]["name"].as_str().map(str::to_owned)
    };
    grid["indices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == index)
        .map(|entry| entry["shards"].as_array().unwrap().clone())
        .unwrap_or_default()
        .iter()
        .map(|copy| Copy {
            shard: copy["shard"].as_u64().unwrap(),
            primary: copy["primary"].as_bool().unwrap(),
            state: copy["state"].as_str().unwrap().to_owned(),
            node: name(copy, "node"),
            relocating_to: name(copy, "relocatingNode"),
            unassigned_reason: copy["unassigned"]["reason"].as_str().map(str::to_owned),
        })
        .collect()
}

/// Every copy of `index` started, `count` of them.
fn all_started(grid: &Value, index: &str, count: usize) -> bool {
    let copies = copies(grid, index);
    copies.len() == count && copies.iter().all(|copy| copy.state == "started")
}

/// The id of the node named `name` in a grid.
fn node_id(grid: &Value, name: &str) -> String {
    grid["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|node| node["name"] == name)
        .and_then(|node| node["id"].as_str())
        .unwrap_or_else(|| panic!("node {name} in {grid}"))
        .to_owned()
}

#[tokio::test]
async fn primaries_and_replicas_spread_over_three_nodes_with_their_stats() {
    for distribution in DISTRIBUTIONS {
        let fixture = fixture(distribution).await;
        fixture.create_index("spread", 3, 1, json!({})).await;
        let grid = fixture
            .grid_until("spread green", |grid| all_started(grid, "spread", 6))
            .await;

        let nodes = grid["nodes"].as_array().unwrap();
        let mut names: Vec<&str> = nodes.iter().map(|n| n["name"].as_str().unwrap()).collect();
        names.sort_unstable();
        assert_eq!(names, ["node-0", "node-1", "node-2"], "{grid}");
        assert!(nodes.iter().all(|node| node["dataNode"] == true), "{grid}");
        assert_eq!(
            nodes.iter().filter(|node| node["elected"] == true).count(),
            1,
            "one elected manager: {grid}"
        );
        let spread = copies(&grid, "spread");
        for shard in 0..3 {
            let holders: Vec<&Option<String>> = spread
                .iter()
                .filter(|copy| copy.shard == shard)
                .map(|copy| &copy.node)
                .collect();
            assert_eq!(holders.len(), 2, "{spread:?}");
            assert_ne!(holders[0], holders[1], "a primary and its replica apart");
        }
        for name in ["node-0", "node-1", "node-2"] {
            assert!(
                spread.iter().any(|copy| copy.node.as_deref() == Some(name)),
                "{name} holds a copy of spread: {spread:?}"
            );
        }

        // The node list and each node's page: three real JVMs with the harness's heap.
        let list = fixture.get("/nodes").await;
        let listed = list["nodes"].as_array().unwrap();
        assert_eq!(listed.len(), NODES, "{list}");
        assert_eq!(
            listed
                .iter()
                .filter(|node| node["isMaster"] == true)
                .count(),
            1,
            "{list}"
        );
        let version = fixture.cluster.version();
        assert!(
            listed
                .iter()
                .all(|node| node["version"] == version.as_str())
        );
        let metrics = fixture.get("/metrics").await;
        assert_eq!(metrics["nodeCount"], NODES, "{metrics}");
        for name in ["node-0", "node-1", "node-2"] {
            let id = node_id(&grid, name);
            let detail = fixture.get(&format!("/nodes/{id}")).await;
            assert_eq!(detail["name"], name, "{detail}");
            let heap = detail["jvm"]["heapMaxBytes"].as_u64().unwrap();
            assert!(
                (256 << 20..=512 << 20).contains(&heap),
                "{name}: a 512 MB heap, not {heap}"
            );
            let held = detail["shards"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|shard| shard["index"] == "spread")
                .count();
            let expected = spread
                .iter()
                .filter(|copy| copy.node.as_deref() == Some(name))
                .count();
            assert_eq!(
                held, expected,
                "{name}'s page agrees with the grid: {detail}"
            );
        }
        assert_eq!(fixture.cluster.pids().len(), NODES);
        fixture.delete_index("spread").await;
    }
}

#[tokio::test]
async fn a_replica_that_fits_nowhere_is_explained_node_by_node() {
    for distribution in DISTRIBUTIONS {
        let fixture = fixture(distribution).await;
        // The primary may only live on node-0, and its replica never beside it.
        let pinned = json!({"index.routing.allocation.require._name": "node-0"});
        fixture.create_index("pinned", 1, 1, pinned).await;
        let grid = fixture
            .grid_until("pinned's primary started", |grid| {
                copies(grid, "pinned")
                    .iter()
                    .any(|copy| copy.primary && copy.state == "started")
            })
            .await;
        let pinned = copies(&grid, "pinned");
        let primary = pinned.iter().find(|copy| copy.primary).unwrap();
        assert_eq!(primary.node.as_deref(), Some("node-0"), "{pinned:?}");
        let replica = pinned.iter().find(|copy| !copy.primary).unwrap();
        assert_eq!(replica.state, "unassigned", "{pinned:?}");
        assert_eq!(
            replica.unassigned_reason.as_deref(),
            Some("INDEX_CREATED"),
            "{pinned:?}"
        );

        let explained = fixture
            .get("/shards/explain?index=pinned&shard=0&primary=false")
            .await;
        assert_eq!(explained["currentState"], "unassigned", "{explained}");
        assert_eq!(explained["canAllocate"], "no", "{explained}");
        assert_eq!(
            explained["headline"],
            "The replica of pinned shard 0 is unassigned and cannot be allocated: 3 of 3 nodes \
             refuse it.",
            "{explained}"
        );
        let decisions = explained["nodes"].as_array().unwrap();
        assert_eq!(decisions.len(), NODES, "{explained}");
        for decision in decisions {
            let name = decision["nodeName"].as_str().unwrap();
            assert_eq!(decision["decision"], "no", "{decision}");
            let refusing: Vec<&Value> = decision["deciders"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|decider| decider["decision"] == "NO")
                .collect();
            let (decider, words) = if name == "node-0" {
                ("same_shard", "already allocated to this node")
            } else {
                ("filter", "index.routing.allocation.require")
            };
            assert!(
                refusing.iter().any(|verdict| verdict["decider"] == decider
                    && verdict["explanation"].as_str().unwrap().contains(words)),
                "{name} refuses by {decider} ({words}): {decision}"
            );
        }
        fixture.delete_index("pinned").await;
    }
}

#[tokio::test]
async fn a_shard_moved_through_the_console_lands_on_the_target_node() {
    for distribution in DISTRIBUTIONS {
        let fixture = fixture(distribution).await;
        // The balancer leaves this index alone: only the move may put it elsewhere.
        let still = json!({"index.routing.rebalance.enable": "none"});
        fixture.create_index("moving", 1, 0, still).await;
        let grid = fixture
            .grid_until("moving started", |grid| all_started(grid, "moving", 1))
            .await;
        let from = copies(&grid, "moving")[0].node.clone().unwrap();
        let to = ["node-0", "node-1", "node-2"]
            .into_iter()
            .find(|name| *name != from)
            .unwrap();
        let moved = fixture
            .send(
                reqwest::Method::POST,
                "/shards/move",
                json!({"index": "moving", "shard": 0, "fromNode": node_id(&grid, &from),
                       "toNode": node_id(&grid, to)}),
            )
            .await;
        assert_eq!(moved["acknowledged"], true, "{moved}");
        // The move starts at once: the copy relocates (or has already landed).
        let grid = fixture.get("/shards").await;
        let copy = &copies(&grid, "moving")[0];
        assert!(
            copy.relocating_to.as_deref() == Some(to) || copy.node.as_deref() == Some(to),
            "moving from {from} to {to}: {copy:?}"
        );
        fixture
            .grid_until("moving started on its new node", |grid| {
                copies(grid, "moving")
                    == [Copy {
                        shard: 0,
                        primary: true,
                        state: "started".to_owned(),
                        node: Some(to.to_owned()),
                        relocating_to: None,
                        unassigned_reason: None,
                    }]
            })
            .await;

        // A move to where a copy cannot go is the cluster's refusal, passed on.
        let (status, refused) = send(fixture.app.client.post(fixture.api("/shards/move")).json(
            &json!({"index": "moving", "shard": 0, "fromNode": node_id(&grid, &from),
                              "toNode": node_id(&grid, to)}),
        ))
        .await;
        assert_eq!(status, 400, "no copy is on {from} any more: {refused}");
        fixture.delete_index("moving").await;
    }
}

#[tokio::test]
async fn draining_a_node_empties_it_until_the_drain_is_undone() {
    for distribution in DISTRIBUTIONS {
        let fixture = fixture(distribution).await;
        fixture.create_index("drained", 3, 0, json!({})).await;
        let grid = fixture
            .grid_until("drained started", |grid| all_started(grid, "drained", 3))
            .await;
        let on = |grid: &Value, name: &str| {
            copies(grid, "drained")
                .iter()
                .filter(|copy| copy.node.as_deref() == Some(name))
                .count()
        };
        // The balancer spreads three primaries over three nodes; drain one that holds some.
        let victim = ["node-0", "node-1", "node-2"]
            .into_iter()
            .find(|name| on(&grid, name) > 0)
            .unwrap();
        let key = "cluster.routing.allocation.exclude._name";
        let drain = format!("/nodes/{}/drain", node_id(&grid, victim));
        let answer = fixture.send(reqwest::Method::PUT, &drain, json!({})).await;
        assert_eq!(answer["excluded"]["names"], json!([victim]), "{answer}");
        // Draining twice changes nothing; the header's read says the same.
        fixture.send(reqwest::Method::PUT, &drain, json!({})).await;
        let allocation = fixture.get("/allocation").await;
        assert_eq!(
            allocation["excluded"]["names"],
            json!([victim]),
            "{allocation}"
        );
        let settings = fixture.get("/settings").await;
        assert_eq!(settings["persistent"][key], victim, "{settings}");
        let drained = fixture
            .grid_until("every copy off the excluded node", |grid| {
                // Every copy, system indices' too (`.tasks` of other tests' operations).
                on(grid, victim) == 0 && all_started(grid, "drained", 3) && grid["relocating"] == 0
            })
            .await;
        assert_eq!(drained["relocating"], 0, "{drained}");
        let detail = fixture
            .get(&format!("/nodes/{}", node_id(&drained, victim)))
            .await;
        assert_eq!(
            detail["shards"],
            json!([]),
            "{victim} holds nothing: {detail}"
        );

        // The cluster says why a copy may not go back.
        let moved = copies(&drained, "drained")[0].clone();
        let explained = fixture
            .get(&format!(
                "/shards/explain?index=drained&shard={}&primary=true",
                moved.shard
            ))
            .await;
        let refusal = explained["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|decision| decision["nodeName"] == victim)
            .unwrap_or_else(|| panic!("{victim} in {explained}"));
        assert!(
            refusal["sentence"]
                .as_str()
                .unwrap()
                .contains("cluster.routing.allocation.exclude"),
            "{refusal}"
        );

        let undone = fixture
            .send(reqwest::Method::DELETE, &drain, json!({}))
            .await;
        assert_eq!(undone["excluded"]["names"], json!([]), "{undone}");
        let settings = fixture.get("/settings").await;
        assert!(settings["persistent"].get(key).is_none(), "{settings}");
        // A node the cluster does not have is 404, and nothing is written.
        let (status, body) = send(
            fixture
                .app
                .client
                .put(fixture.api("/nodes/no-such-node/drain")),
        )
        .await;
        assert_eq!(status, 404, "{body}");
        fixture.delete_index("drained").await;
        // The next test starts from a settled cluster.
        fixture
            .grid_until("no relocation", |grid| {
                grid["relocating"] == 0 && grid["initializing"] == 0
            })
            .await;
    }
}

#[tokio::test]
async fn the_allocation_lock_keeps_new_replicas_unassigned_until_it_is_lifted() {
    for distribution in DISTRIBUTIONS {
        let fixture = fixture(distribution).await;
        let locked = fixture
            .send(
                reqwest::Method::PUT,
                "/allocation",
                json!({"enable": "primaries"}),
            )
            .await;
        assert_eq!(
            locked,
            json!({"enable": "primaries", "locked": true, "excluded": {"names": [], "ips": [], "hosts": []}})
        );
        fixture.create_index("locked", 1, 1, json!({})).await;
        let grid = fixture
            .grid_until("locked's primary started", |grid| {
                copies(grid, "locked")
                    .iter()
                    .any(|copy| copy.primary && copy.state == "started")
            })
            .await;
        let replica = copies(&grid, "locked")
            .into_iter()
            .find(|copy| !copy.primary)
            .unwrap();
        assert_eq!(replica.state, "unassigned", "{replica:?}");
        let overview = fixture.get("/overview").await;
        assert_eq!(overview["health"], "yellow", "{overview}");
        assert_eq!(overview["nodeCount"], NODES, "{overview}");
        assert!(
            overview["unassignedShards"].as_u64().unwrap() >= 1,
            "{overview}"
        );
        // Every node refuses the replica because of the lock (the primary's node for its copy
        // too).
        let explained = fixture
            .get("/shards/explain?index=locked&shard=0&primary=false")
            .await;
        let by_lock = explained["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|node| {
                node["deciders"].as_array().unwrap().iter().any(|decider| {
                    decider["decider"] == "enable"
                        && decider["decision"] == "NO"
                        && decider["explanation"]
                            .as_str()
                            .unwrap()
                            .contains("cluster.routing.allocation.enable")
                })
            })
            .count();
        assert_eq!(by_lock, NODES, "{explained}");

        let lifted = fixture
            .send(
                reqwest::Method::PUT,
                "/allocation",
                json!({"enable": "all"}),
            )
            .await;
        assert_eq!(
            lifted,
            json!({"enable": "all", "locked": false, "excluded": {"names": [], "ips": [], "hosts": []}})
        );
        let grid = fixture
            .grid_until("locked's replica started once the lock is lifted", |grid| {
                all_started(grid, "locked", 2)
            })
            .await;
        let copies = copies(&grid, "locked");
        assert_ne!(copies[0].node, copies[1].node, "{copies:?}");
        fixture.delete_index("locked").await;
    }
}
