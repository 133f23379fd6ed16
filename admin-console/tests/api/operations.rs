//! Long operations as tasks through `/api/clusters/:id/indices/:index/{shrink,split,clone,
//! forcemerge}` and `/api/clusters/:id/reindex`, against real clusters: the shared three-node
//! OpenSearch 2.19 cluster (resizes and force merges run as tasks; the cluster reports a refusal
//! in the task's result) and the shared three-node Elasticsearch 7.10 cluster (no task mode for
//! a resize or a force merge: a resize returns once the target exists, a force merge task is
//! refused), each through a recording proxy of the test's own; a reindex on the shared
//! OpenSearch 3.8 node (its zip has the reindex module), throttled so that the Tasks list shows
//! it with its progress; who may start which, audited.

use std::time::Duration;

use reqwest::Method;
use search_test_server::{Proxy, Recorded};
use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster, SearchNodes, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::real_shards::TURN;
use crate::support::real::{Real, direct, proxy_before, proxy_to, real, sent, shared};
use crate::support::send;
use crate::templates::{audit_lines, trusted_app};

/// How long a task or a target's shards may take on a busy machine.
const SETTLE: Duration = Duration::from_secs(120);

struct Console {
    app: TestApp,
    proxy: Proxy,
}

impl Console {
    /// A name of this test's own: `prefix` and the port of its proxy.
    fn tag(&self, prefix: &str) -> String {
        tag(prefix, &self.proxy)
    }

    fn url(&self, tail: &str) -> String {
        self.app.url(&format!("/api/clusters/main{tail}"))
    }

    async fn post(&self, tail: &str, body: Value) -> (u16, Value) {
        send(self.app.client.post(self.url(tail)).json(&body)).await
    }

    /// `POST tail` answered `status` with an error message that contains `words`.
    async fn refused(&self, tail: &str, body: Value, status: u16, words: &str) -> Value {
        let (got, answer) = self.post(tail, body).await;
        assert_eq!(got, status, "{answer}");
        assert!(message(&answer).contains(words), "{words}: {answer}");
        answer
    }

    /// Starts `operation` (shrink, split, clone) of `source` into `target` with `shards`
    /// primaries (`None`: the source's) and no replicas: the 202 answer and the resize the
    /// cluster received.
    async fn resize(
        &self,
        source: &str,
        operation: &str,
        target: &str,
        shards: Option<u64>,
    ) -> (Value, Recorded) {
        let mut request = json!({"target": target, "replicas": 0});
        if let Some(shards) = shards {
            request["shards"] = json!(shards);
        }
        let (status, started) = self
            .post(&format!("/indices/{source}/{operation}"), request)
            .await;
        assert_eq!(status, 202, "{operation}: {started}");
        assert_eq!(started["target"], target);
        let resize = sent(&self.proxy, &format!("/{source}/_{operation}/{target}"))
            .into_iter()
            .next()
            .expect("the resize reached the cluster");
        (started, resize)
    }

    /// The task's detail through the console once the cluster says it completed.
    async fn completed(&self, task: &str) -> Value {
        test_support::eventually_with("the task to complete", SETTLE, async || {
            let (status, detail) =
                send(self.app.client.get(self.url(&format!("/tasks/{task}")))).await;
            if status == 200 && detail["completed"] == true {
                Ok(detail)
            } else {
                Err(format!("{status} {detail}"))
            }
        })
        .await
    }
}

async fn console_before(url: &str) -> Console {
    let proxy = proxy_to(url, None);
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("main", &proxy.url))).await;
    Console { app, proxy }
}

/// The console before the shared node of `distribution` through a proxy of the test's own.
async fn console_on(distribution: Distribution) -> (Console, &'static SearchCluster) {
    let Real {
        app,
        proxy,
        cluster,
    } = real(distribution).await;
    (Console { app, proxy }, cluster)
}

/// A name of the test's own: `prefix` and the port of its `proxy`.
fn tag(prefix: &str, proxy: &Proxy) -> String {
    format!(
        "{prefix}-{}",
        proxy.url.rsplit(':').next().unwrap_or_default()
    )
}

/// The console before the shared three-node cluster of `distribution` (its URL beside), with
/// `{prefix}-*` deleted and `{prefix}-src` seeded: 20 documents in `shards` primaries, every
/// copy on `node` (as a shrink needs).
async fn resize_source(
    distribution: Distribution,
    prefix: &str,
    shards: u64,
    node: &str,
) -> (&'static str, Console) {
    let nodes = tokio::task::spawn_blocking(move || SearchNodes::shared(distribution, 3))
        .await
        .unwrap();
    let url = nodes.url();
    crate::real_shards::fresh_allocation(url).await;
    let c = console_before(url).await;
    delete(url, &format!("{prefix}-*")).await;
    let settings = json!({"number_of_shards": shards, "number_of_replicas": 0,
                          "index.routing.allocation.require._name": node});
    seed(url, &format!("{prefix}-src"), settings, 20).await;
    (url, c)
}

/// `GET path` on `cluster` itself, not through the console.
async fn read(cluster: &SearchCluster, path: &str) -> Value {
    direct(cluster, Method::GET, path)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// `count` documents into `index` (made with `settings` first), refreshed.
async fn seed(url: &str, index: &str, settings: Value, count: usize) {
    let client = test_support::http_client();
    let made = client
        .put(format!("{url}/{index}"))
        .json(&json!({"settings": settings}))
        .send()
        .await
        .unwrap();
    assert!(made.status().is_success(), "{}", made.text().await.unwrap());
    let bulk: String = (0..count)
        .map(|n| {
            format!("{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{n}\"}}}}\n{{\"n\":{n}}}\n")
        })
        .collect();
    let written = client
        .post(format!("{url}/_bulk?refresh=true"))
        .header("content-type", "application/x-ndjson")
        .body(bulk)
        .send()
        .await
        .unwrap();
    let written: Value = written.json().await.unwrap();
    assert_eq!(written["errors"], false, "{written}");
}

/// Waits until `index` is green with `shards` primaries and `docs` documents (read from the
/// cluster itself, not through the console).
async fn index_until(url: &str, index: &str, shards: u64, docs: u64) {
    let client = test_support::http_client();
    test_support::eventually_with("the target index", SETTLE, async || {
        let answer = client
            .get(format!(
                "{url}/_cat/indices/{index}?format=json&h=health,pri,docs.count"
            ))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let rows: Value = answer.json().await.map_err(|e| e.to_string())?;
        let row = &rows[0];
        let ok = row["health"] == "green"
            && number(&row["pri"]) == Some(shards)
            && number(&row["docs.count"]) == Some(docs);
        if ok { Ok(()) } else { Err(rows.to_string()) }
    })
    .await;
}

/// The write block on `index`, set on the cluster itself.
async fn block_writes(url: &str, index: &str) {
    let blocked = test_support::http_client()
        .put(format!("{url}/{index}/_block/write"))
        .send()
        .await
        .unwrap();
    assert!(
        blocked.status().is_success(),
        "{}",
        blocked.text().await.unwrap()
    );
}

/// A `_cat` figure (a string) as a number.
fn number(value: &Value) -> Option<u64> {
    value.as_str()?.parse().ok()
}

async fn delete(url: &str, indices: &str) {
    let _ = test_support::http_client()
        .delete(format!("{url}/{indices}?ignore_unavailable=true"))
        .send()
        .await;
}

fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn shrink_split_clone_and_force_merge_run_as_tasks_on_opensearch() {
    let _turn = TURN.lock().await;
    let (url, c) = resize_source(Distribution::OpenSearch2, "ops-os", 4, "node-0").await;

    // Preconditions in words, before any resize reaches the cluster.
    let small = json!({"target": "ops-os-small", "shards": 2});
    let must_block = "\"ops-os-src\" must be read-only before a shrink";
    c.refused("/indices/ops-os-src/shrink", small, 409, must_block)
        .await;
    let odd = json!({"target": "ops-os-small", "shards": 3});
    c.refused("/indices/ops-os-src/shrink", odd, 400, "one of 1, 2")
        .await;
    let big = json!({"target": "ops-os-big", "shards": 6});
    c.refused(
        "/indices/ops-os-src/split",
        big,
        400,
        "larger multiple of 4",
    )
    .await;
    let (status, body) = c
        .post(
            "/indices/ops-os-none/clone",
            json!({"target": "ops-os-copy"}),
        )
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], "rejected_by_cluster");
    assert!(
        sent(&c.proxy, "/ops-os-src/_")
            .iter()
            .all(|request| request.method == "GET"),
        "{:?}",
        c.proxy.requests()
    );

    let (status, body) = c
        .post(
            "/indices/_actions/block_write",
            json!({"indices": ["ops-os-src"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    for (operation, target, shards) in [
        ("shrink", "ops-os-small", Some(2)),
        ("split", "ops-os-big", Some(8)),
        ("clone", "ops-os-copy", None),
    ] {
        let (started, resize) = c.resize("ops-os-src", operation, target, shards).await;
        assert_eq!(started["operation"], operation);
        let task = started["taskId"].as_str().unwrap().to_owned();
        assert_eq!(
            resize.param("wait_for_completion").as_deref(),
            Some("false")
        );
        let detail = c.completed(&task).await;
        assert_eq!(detail["task"]["action"], "indices:admin/resize", "{detail}");
        assert_eq!(detail["response"]["index"], target, "{detail}");
        index_until(url, target, shards.unwrap_or(4), 20).await;
    }
    // A target that exists: said before the cluster is called.
    c.proxy.clear_requests();
    let copy = json!({"target": "ops-os-copy"});
    c.refused(
        "/indices/ops-os-src/clone",
        copy,
        409,
        "\"ops-os-copy\" exists already",
    )
    .await;
    assert!(sent(&c.proxy, "/ops-os-src/_clone").is_empty());
    // What only the cluster knows comes back in the task's result, in its words.
    let (status, started) = c
        .post(
            "/indices/ops-os-src/split",
            json!({"target": "ops-os-odd", "shards": 12}),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    let detail = c.completed(started["taskId"].as_str().unwrap()).await;
    assert!(
        detail["error"]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("must be a multiple of the target shards [12]"),
        "{detail}"
    );

    let (status, started) = c
        .post(
            "/indices/ops-os-big/forcemerge",
            json!({"maxNumSegments": 1}),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    let detail = c.completed(started["taskId"].as_str().unwrap()).await;
    assert_eq!(
        detail["task"]["action"], "indices:admin/forcemerge",
        "{detail}"
    );
    assert_eq!(detail["response"]["_shards"]["failed"], 0, "{detail}");
    let merge = &sent(&c.proxy, "/ops-os-big/_forcemerge")[0];
    assert_eq!(merge.param("max_num_segments").as_deref(), Some("1"));
    assert_eq!(merge.param("wait_for_completion").as_deref(), Some("false"));
    delete(url, "ops-os-*").await;
}

#[tokio::test]
async fn on_elasticsearch_7_a_resize_returns_once_its_target_exists() {
    let _turn = TURN.lock().await;
    let (url, c) = resize_source(Distribution::Elasticsearch7, "ops-es", 2, "node-1").await;
    block_writes(url, "ops-es-src").await;
    for (operation, target, shards) in [
        ("shrink", "ops-es-small", Some(1)),
        ("split", "ops-es-big", Some(4)),
        ("clone", "ops-es-copy", None),
    ] {
        let (started, resize) = c.resize("ops-es-src", operation, target, shards).await;
        assert_eq!(started["taskId"], Value::Null, "{started}");
        assert_eq!(resize.param("wait_for_completion"), None);
        index_until(url, target, shards.unwrap_or(2), 20).await;
    }
    // The cluster's own refusal, in the common error body: Elasticsearch 7.10 answers this
    // one 500 (an illegal_state_exception), passed on as 502 with its reason.
    let odd = json!({"target": "ops-es-odd", "shards": 6});
    let multiple = "must be a multiple of the target shards [6]";
    let body = c
        .refused("/indices/ops-es-src/split", odd, 502, multiple)
        .await;
    assert_eq!(body["error"]["code"], "upstream_error");
    let no_task = "Elasticsearch 7 cannot run a force merge as a task";
    c.refused("/indices/ops-es-src/forcemerge", json!({}), 409, no_task)
        .await;
    assert!(sent(&c.proxy, "/ops-es-src/_forcemerge").is_empty());
    delete(url, "ops-es-*").await;
}

#[tokio::test]
async fn a_reindex_is_listed_with_its_progress_until_it_completes() {
    let (c, cluster) = console_on(Distribution::OpenSearch3).await;
    let tag = c.tag("ops-re");
    let (source, dest) = (format!("{tag}-src"), format!("{tag}-dst"));
    seed(
        &cluster.url,
        &source,
        json!({"number_of_shards": 1, "number_of_replicas": 0}),
        3000,
    )
    .await;

    // Five batches of 1000 a second apart at most: long enough to be listed, short to wait for.
    let (status, started) = c
        .post(
            "/reindex",
            json!({"source": source, "dest": dest, "requestsPerSecond": 500}),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["operation"], "reindex");
    let task = started["taskId"].as_str().unwrap().to_owned();
    // Listed with its progress once its first batch is read (the total is 0 before).
    let listed =
        test_support::eventually_with("the reindex listed with its total", SETTLE, async || {
            let (status, list) = send(c.app.client.get(c.url("/tasks?actions=*reindex"))).await;
            list["tasks"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| t["id"] == task.as_str() && t["status"]["total"] == 3000)
                .cloned()
                .ok_or_else(|| format!("{status} {list}"))
        })
        .await;
    assert_eq!(
        listed["description"],
        format!("reindex from [{source}] to [{dest}]")
    );
    let completed = c.completed(&task).await;
    assert_eq!(completed["response"]["created"], 3000, "{completed}");
    assert_eq!(completed["response"]["failures"], json!([]), "{completed}");
    let request = &sent(&c.proxy, "/_reindex")[0];
    assert_eq!(
        request.param("wait_for_completion").as_deref(),
        Some("false")
    );
    assert_eq!(request.param("requests_per_second").as_deref(), Some("500"));
    assert_eq!(
        request.body.as_ref().unwrap()["dest"]["index"],
        dest.as_str()
    );
    let count = read(cluster, &format!("/{dest}/_count")).await;
    assert_eq!(count["count"], 3000, "{count}");

    // Bad input: never sent.
    c.proxy.clear_requests();
    for (body, expected) in [
        (
            json!({"source": source, "dest": "x", "remote": {"host": "http://127.0.0.1:1"}}),
            "remote cluster is off",
        ),
        (json!({"source": "a*", "dest": "x"}), "contains \"*\""),
        (
            json!({"source": source, "dest": source}),
            "copies into another index",
        ),
        (json!({"source": source, "dest": "Upper"}), "lowercase"),
    ] {
        c.refused("/reindex", body, 400, expected).await;
    }
    assert!(sent(&c.proxy, "/_reindex").is_empty());
    let _ = direct(cluster, Method::DELETE, &format!("/{source},{dest}"))
        .send()
        .await;
}

#[tokio::test]
async fn an_operator_force_merges_only_an_admin_resizes_or_reindexes_audited() {
    let cluster = shared(Distribution::OpenSearch2).await;
    let proxy = proxy_before(cluster);
    let tag = tag("ops-roles", &proxy);
    seed(
        &cluster.url,
        &tag,
        json!({"number_of_shards": 2, "number_of_replicas": 0}),
        3,
    )
    .await;
    block_writes(&cluster.url, &tag).await;
    let dir = TempDir::new("operations-roles");
    let (app, file) = trusted_app(&proxy.url, &dir).await;
    let url = |tail: &str| app.url(&format!("/api/clusters/main{tail}"));
    let merge = url(&format!("/indices/{tag}/forcemerge"));
    let clone = url(&format!("/indices/{tag}/clone"));
    let reindex = url("/reindex");
    let target = format!("{tag}-copy");

    let (status, body) = send(as_caller(app.client.post(&merge).json(&json!({})), &VIEWER)).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = send(as_caller(
        app.client.post(&merge).json(&json!({})),
        &OPERATOR,
    ))
    .await;
    assert_eq!(status, 202, "{body}");
    for request in [
        app.client.post(&clone).json(&json!({"target": target})),
        app.client
            .post(&reindex)
            .json(&json!({"source": tag, "dest": target})),
    ] {
        let (status, body) = send(as_caller(request, &OPERATOR)).await;
        assert_eq!(status, 403, "{body}");
    }
    assert!(sent(&proxy, &format!("/{tag}/_clone")).is_empty());
    let (status, body) = send(as_caller(
        app.client.post(&clone).json(&json!({"target": target})),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 202, "{body}");
    let lines = audit_lines(&file, 5).await;
    let outcomes: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["user"].as_str().unwrap_or_default(),
                l["outcome"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(outcomes[0], ("vera", "denied"), "{lines:?}");
    assert_eq!(outcomes[1], ("otto", "success"), "{lines:?}");
    assert_eq!(
        lines[4]["path"],
        format!("/api/clusters/main/indices/{tag}/clone")
    );
    assert_eq!(lines[4]["outcome"], "success", "{lines:?}");
    test_support::eventually_with("the clone", SETTLE, async || {
        let answer = direct(cluster, Method::GET, &format!("/{target}/_count"))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let count: Value = answer.json().await.map_err(|e| e.to_string())?;
        if count["count"] == 3 {
            Ok(())
        } else {
            Err(count.to_string())
        }
    })
    .await;
    let _ = direct(cluster, Method::DELETE, &format!("/{tag},{target}"))
        .send()
        .await;
}

#[tokio::test]
async fn a_reindex_on_a_cluster_without_the_reindex_module_says_so() {
    // The OpenSearch 2.19 integ-test zip (make run's cluster) has no reindex module.
    let (c, _) = console_on(Distribution::OpenSearch2).await;
    let body = json!({"source": "ops-nomodule", "dest": "ops-nomodule-2"});
    let body = c
        .refused("/reindex", body, 405, "This cluster has no reindex API")
        .await;
    assert_eq!(body["error"]["code"], "rejected_by_cluster");
    assert!(
        message(&body).starts_with("This cluster has no reindex API"),
        "{body}"
    );
    assert_eq!(sent(&c.proxy, "/_reindex").len(), 1);
}

#[tokio::test]
async fn an_alias_rolls_over_to_a_new_write_index() {
    let (c, cluster) = console_on(Distribution::OpenSearch2).await;
    let tag = c.tag("ops-ro");
    let first = format!("{tag}-000001");
    let made = direct(cluster, Method::PUT, &format!("/{first}"))
        .json(&json!({"aliases": {tag.clone(): {"is_write_index": true}},
                      "settings": {"number_of_shards": 1, "number_of_replicas": 0}}))
        .send()
        .await
        .unwrap();
    assert!(made.status().is_success());

    let (status, rolled) = c
        .post(&format!("/aliases/{tag}/rollover"), json!(null))
        .await;
    assert_eq!(status, 200, "{rolled}");
    let second = format!("{tag}-000002");
    assert_eq!(
        rolled,
        json!({"name": tag, "oldIndex": first, "newIndex": second, "rolledOver": true})
    );
    let aliases = read(cluster, &format!("/_alias/{tag}")).await;
    assert_eq!(
        aliases[&second]["aliases"][&tag]["is_write_index"], true,
        "{aliases}"
    );
    assert_eq!(
        aliases[&first]["aliases"][&tag]["is_write_index"], false,
        "{aliases}"
    );

    // No such alias: 404 in words, nothing rolled.
    c.proxy.clear_requests();
    let none = format!("/aliases/{tag}-none/rollover");
    let body = c
        .refused(&none, json!(null), 404, "No alias is named")
        .await;
    assert!(message(&body).starts_with("No alias is named"), "{body}");
    assert!(sent(&c.proxy, &format!("/{tag}-none/_rollover")).is_empty());
    let (status, body) = c.post("/aliases/a*/rollover", json!(null)).await;
    assert_eq!(status, 400, "{body}");
    let _ = direct(cluster, Method::DELETE, &format!("/{first},{second}"))
        .send()
        .await;
}
