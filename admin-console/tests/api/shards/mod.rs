//! Shards (issue 19): the grid from one routing-table read, a copy's allocation explained, a
//! move and a retry of failed allocations, against the shared real three-node clusters
//! (OpenSearch 2.19 and Elasticsearch 7.10, in `real_shards`' turn), through a recording proxy of
//! each test's own: the request each route sends is asserted from the proxy's record, what
//! comes back is the cluster's. A replica that cannot be allocated is one pinned by
//! `index.routing.allocation.require._name` to the node of its primary; a move stays relocating
//! for seconds because recoveries are throttled (`indices.recovery.max_bytes_per_sec`).

mod moves;
mod recovery;
mod rules;

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
    crate::real_shards::fresh_allocation(cluster.url()).await;
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

    /// Indexes `bulk` (NDJSON) into `index`, flushes it to segments and throttles recoveries to
    /// `rate` (`indices.recovery.max_bytes_per_sec`): moving a copy then takes seconds.
    async fn fill_and_throttle(&self, index: &str, bulk: String, rate: &str) {
        let indexed = test_support::http_client()
            .post(format!("{}/_bulk?refresh=true", self.cluster.url()))
            .header("content-type", "application/x-ndjson")
            .body(bulk)
            .send()
            .await
            .unwrap();
        assert!(indexed.status().is_success());
        self.ok("POST", &format!("/{index}/_flush"), None).await;
        self.throttle(json!(rate)).await;
    }

    /// Sets `indices.recovery.max_bytes_per_sec` (transient; `null` resets it).
    async fn throttle(&self, rate: Value) {
        self.ok(
            "PUT",
            "/_cluster/settings",
            Some(json!({"transient": {"indices.recovery.max_bytes_per_sec": rate}})),
        )
        .await;
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
