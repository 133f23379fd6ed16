//! `external_metrics` against real clusters: Debian's prometheus-elasticsearch-exporter scraping
//! a real OpenSearch 2.19 or Elasticsearch 7.10 node of the test's own (its numbers are exact:
//! no other test writes to it), a real Prometheus scraping the exporter every second, and the
//! console reading the same cluster twice: once from Prometheus (`external_metrics`) and once
//! from the cluster itself (`internal`). Every wait has a deadline; none is a fixed sleep.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::{Distribution, Prometheus, SearchCluster, SearchNodes, http_get};

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::exporter::Exporter;

/// Every collector of exporter 1.5.0, so that the test sees which of them the server answers.
const COLLECTORS: &[&str] = &[
    "--es.all",
    "--es.indices",
    "--es.indices_settings",
    "--es.indices_mappings",
    "--es.aliases",
    "--es.cluster_settings",
    "--es.shards",
    "--es.snapshots",
    "--es.slm",
    "--es.data_stream",
];

/// Scrapes every second: a change shows within a few seconds, well inside the deadlines.
const CHANGE_DEADLINE: Duration = Duration::from_secs(60);

/// What a server is run as: a node of the test's own, or three.
enum Server {
    One(SearchCluster),
    Three(SearchNodes),
}

struct Stack {
    server: Server,
    url: String,
    exporter: Exporter,
    prometheus: Prometheus,
    app: TestApp,
    /// Cluster calls: trusting the demo CA with the security plugin, and as its admin.
    http: reqwest::Client,
    authorization: Option<String>,
}

/// The cluster's own node, the exporter with every collector, Prometheus scraping it as job
/// `es` with `env: test`, and the console with `prom` (from Prometheus), `live` (from the
/// cluster) and `wrongjob` (a job Prometheus does not have).
async fn stack(distribution: Distribution) -> Stack {
    let cluster = tokio::task::spawn_blocking(move || SearchCluster::start(distribution))
        .await
        .unwrap();
    stack_on(Server::One(cluster), COLLECTORS).await
}

async fn stack_on(server: Server, collectors: &[&str]) -> Stack {
    let url = match &server {
        Server::One(cluster) => cluster.url.clone(),
        Server::Three(nodes) => nodes.url().to_owned(),
    };
    // With the security plugin: the admin's credential in the exporter's URL and the demo CA.
    let security = match &server {
        Server::One(cluster) => cluster.security.clone(),
        Server::Three(_) => None,
    };
    let mut flags: Vec<String> = collectors.iter().map(|f| f.to_string()).collect();
    let mut exporter_url = reqwest::Url::parse(&url).unwrap();
    let mut live_yaml = cluster_yaml("live", &url);
    if let Some(security) = &security {
        exporter_url.set_username(&security.admin_user).unwrap();
        exporter_url
            .set_password(Some(&security.admin_password))
            .unwrap();
        flags.push(format!("--es.ca={}", security.ca_file.display()));
        live_yaml.push_str(&format!(
            "    auth:\n      username: {}\n      password: '{}'\n    tls:\n      ca_file: {}\n",
            security.admin_user,
            security.admin_password,
            security.ca_file.display()
        ));
    }
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let exporter = Exporter::start(exporter_url.as_str(), &flags);
    let target = exporter.host_port.clone();
    let prometheus = Prometheus::start(
        |_| {
            format!(
                "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: es\n    static_configs:\n      - targets: ['{target}']\n        labels:\n          env: test\n"
            )
        },
        None,
    );
    let external = |id: &str, job: &str| {
        format!(
            "  - id: {id}\n    name: {id}\n    url: {url}\n    metrics_source: prometheus\n    prometheus_url: {}\n    prometheus_job_name: {job}\n    prometheus_labels:\n      env: test\n",
            prometheus.url
        )
    };
    let app = spawn_app(&format!(
        "clusters:\n{}{}{}",
        external("prom", "es"),
        live_yaml,
        external("wrongjob", "nope"),
    ))
    .await;
    Stack {
        http: security
            .as_ref()
            .map_or_else(reqwest::Client::new, |security| security.client()),
        authorization: security.as_ref().map(|s| s.admin_authorization()),
        server,
        url,
        exporter,
        prometheus,
        app,
    }
}

impl Stack {
    fn cluster_request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let request = self.http.request(method, format!("{}/{path}", self.url));
        match &self.authorization {
            Some(authorization) => request.header("authorization", authorization),
            None => request,
        }
    }

    async fn cluster_call(&self, method: reqwest::Method, path: &str, body: Option<Value>) {
        let mut request = self.cluster_request(method.clone(), path);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        assert!(status.is_success(), "{method} {path}: {status} {text}");
    }

    async fn create_index(&self, name: &str, replicas: u32, hidden: bool) {
        let mut settings = json!({"number_of_shards": 1, "number_of_replicas": replicas});
        if hidden {
            settings["index.hidden"] = json!(true);
        }
        self.cluster_call(
            reqwest::Method::PUT,
            name,
            Some(json!({"settings": settings})),
        )
        .await;
    }

    async fn index_docs(&self, index: &str, count: usize) {
        let mut bulk = String::new();
        for n in 0..count {
            bulk.push_str(&format!(
                "{{\"index\":{{\"_index\":\"{index}\"}}}}\n{{\"n\":{n}}}\n"
            ));
        }
        let response = self
            .cluster_request(reqwest::Method::POST, "_bulk?refresh=true")
            .header("content-type", "application/x-ndjson")
            .body(bulk)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let answer: Value = response.json().await.unwrap();
        assert!(status.is_success() && answer["errors"] == false, "{answer}");
    }

    async fn snapshot(&self, id: &str) -> Value {
        let (status, body) = self
            .app
            .get_json(&format!("/api/clusters/{id}/metrics"))
            .await;
        assert_eq!(status, 200, "{id}: {body}");
        body
    }

    /// Polls the `prom` snapshot until `ready` holds; the last snapshot on time-out.
    async fn prom_until(&self, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
        poll(what, CHANGE_DEADLINE, || async {
            let (status, body) = self.app.get_json("/api/clusters/prom/metrics").await;
            (status == 200 && ready(&body), body)
        })
        .await
    }

    /// An instant query of Prometheus at `time`: each series' labels and value.
    async fn query(&self, query: &str, time: i64) -> Vec<(BTreeMap<String, String>, f64)> {
        let answer: Value = self
            .http
            .get(
                reqwest::Url::parse_with_params(
                    &format!("{}/api/v1/query", self.prometheus.url),
                    [("query", query.to_owned()), ("time", time.to_string())],
                )
                .unwrap(),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["status"], "success", "{query}: {answer}");
        answer["data"]["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|series| {
                let labels = serde_json::from_value(series["metric"].clone()).unwrap();
                let value = series["value"][1].as_str().unwrap().parse().unwrap();
                (labels, value)
            })
            .collect()
    }

    /// The sum of `query`'s series at `time`.
    async fn sum(&self, query: &str, time: i64) -> f64 {
        self.query(query, time)
            .await
            .iter()
            .map(|(_, value)| value)
            .sum()
    }

    /// The exporter's own page: every `<name>{labels} value` line.
    async fn exporter_lines(&self) -> Vec<String> {
        let host_port = self.exporter.host_port.clone();
        let (status, text) =
            tokio::task::spawn_blocking(move || http_get(&host_port, "/metrics").unwrap())
                .await
                .unwrap();
        assert_eq!(status, 200);
        text.lines()
            .filter(|line| !line.starts_with('#'))
            .map(str::to_owned)
            .collect()
    }
}

/// Calls `probe` every 200 ms until it says ready; panics after `deadline` with what it saw.
async fn poll<F, Fut>(what: &str, deadline: Duration, mut probe: F) -> Value
where
    F: FnMut() -> Fut,
    Fut: Future<Output = (bool, Value)>,
{
    let started = Instant::now();
    loop {
        let (ready, seen) = probe().await;
        if ready {
            return seen;
        }
        assert!(
            started.elapsed() < deadline,
            "{what}: not within {deadline:?}; last seen {seen}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn count(snapshot: &Value, field: &str) -> u64 {
    snapshot[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {snapshot}"))
}

fn percent(snapshot: &Value, field: &str) -> f64 {
    let value = snapshot[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} in {snapshot}"));
    assert!((0.0..=100.0).contains(&value), "{field} in {snapshot}");
    value
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// The counts a cluster-sampled and a Prometheus-sourced snapshot must agree on.
const COUNTS: [&str; 5] = [
    "nodeCount",
    "indexCount",
    "documentCount",
    "shardCount",
    "unassignedShards",
];

/// [`COUNTS`] without the document count, for a cluster that writes documents of its own.
const COUNTS_BUT_DOCUMENTS: [&str; 4] =
    ["nodeCount", "indexCount", "shardCount", "unassignedShards"];

async fn statistics_match_the_cluster(distribution: Distribution) {
    let stack = stack(distribution).await;
    // No index yet: none, and no documents (0, not "no value": the exporter read the indices).
    let prom = stack
        .prom_until("a first scrape", |s| s["health"].is_string())
        .await;
    let live = stack.snapshot("live").await;
    for field in ["indexCount", "documentCount"] {
        assert_eq!(
            (&live[field], &prom[field]),
            (&json!(0), &json!(0)),
            "{distribution:?} {field}: {live} {prom}"
        );
    }

    // One index whose replica cannot be placed on one node (yellow), one without replicas.
    stack.create_index("px-replicated", 1, false).await;
    stack.create_index("px-single", 0, false).await;
    stack.index_docs("px-replicated", 3).await;
    stack.index_docs("px-single", 2).await;

    // The cluster's own measurement is shared for a second: it may follow a moment later.
    let live = poll(
        "the cluster has the two indices",
        CHANGE_DEADLINE,
        || async {
            let live = stack.snapshot("live").await;
            (live["indexCount"] == 2 && live["documentCount"] == 5, live)
        },
    )
    .await;
    assert_eq!(
        (
            &live["health"],
            &live["nodeCount"],
            &live["indexCount"],
            &live["documentCount"],
            &live["shardCount"],
            &live["unassignedShards"]
        ),
        (
            &json!("yellow"),
            &json!(1),
            &json!(2),
            &json!(5),
            &json!(2),
            &json!(1)
        ),
        "{distribution:?}: {live}"
    );
    let prom = stack
        .prom_until("Prometheus has the five documents", |s| {
            s["documentCount"] == 5 && s["shardCount"] == 2
        })
        .await;
    assert_eq!(prom["clusterId"], "prom");
    assert_eq!(prom["health"], live["health"], "{prom}");
    for field in COUNTS {
        assert_eq!(
            prom[field], live[field],
            "{distribution:?} {field}: {prom} {live}"
        );
    }

    // The usages are exactly the exporter's series at the snapshot's second, summed over the
    // nodes; and close to what the cluster says (heap moves between two reads; the disk is the
    // same file system).
    let at = prom["timestamp"].as_i64().unwrap();
    let heap = |metric: &str| format!("{metric}{{job=\"es\",area=\"heap\"}}");
    let heap_percent = 100.0
        * stack
            .sum(&heap("elasticsearch_jvm_memory_used_bytes"), at)
            .await
        / stack
            .sum(&heap("elasticsearch_jvm_memory_max_bytes"), at)
            .await;
    assert_eq!(percent(&prom, "memoryUsagePercent"), round2(heap_percent));
    let available = stack
        .sum(
            "elasticsearch_filesystem_data_available_bytes{job=\"es\"}",
            at,
        )
        .await;
    let size = stack
        .sum("elasticsearch_filesystem_data_size_bytes{job=\"es\"}", at)
        .await;
    assert_eq!(
        percent(&prom, "diskUsagePercent"),
        round2(100.0 * (1.0 - available / size))
    );
    let cpu = stack
        .query("elasticsearch_os_cpu_percent{job=\"es\"}", at)
        .await;
    assert_eq!(cpu.len(), 1, "one node: {cpu:?}");
    assert_eq!(percent(&prom, "cpuUsagePercent"), cpu[0].1);
    let live_disk = percent(&live, "diskUsagePercent");
    assert!(
        (percent(&prom, "diskUsagePercent") - live_disk).abs() < 1.0,
        "disk: {prom} {live}"
    );
    percent(&live, "memoryUsagePercent");
    percent(&live, "cpuUsagePercent");

    // A change reaches the Prometheus snapshot within a few scrapes.
    let changed = Instant::now();
    stack.index_docs("px-single", 4).await;
    stack
        .prom_until("Prometheus has the four new documents", |s| {
            s["documentCount"] == 9
        })
        .await;
    let took = changed.elapsed();
    // The cluster's own measurement is shared for a second: it may follow a moment later.
    poll(
        "the cluster has the four new documents",
        CHANGE_DEADLINE,
        || async {
            let live = stack.snapshot("live").await;
            (live["documentCount"] == 9, live)
        },
    )
    .await;

    // The history from Prometheus ends with the cluster as it is now.
    let now = at + took.as_secs() as i64 + 1;
    let (status, history) = stack
        .app
        .get_json(&format!(
            "/api/clusters/prom/metrics/history?start={}&end={now}",
            now - 600
        ))
        .await;
    assert_eq!(status, 200, "{history}");
    assert_eq!(history["source"], "external_metrics");
    let points = history["points"].as_array().unwrap();
    let last = points.last().unwrap_or_else(|| panic!("{history}"));
    assert_eq!(
        (&last["health"], &last["nodeCount"], &last["indexCount"]),
        (&json!("yellow"), &json!(1), &json!(2)),
        "{history}"
    );
    assert!(
        points
            .iter()
            .all(|p| p["documentCount"] == 5 || p["documentCount"] == 9),
        "{history}"
    );

    // What the exporter cannot see: its `_all/_stats` leaves out closed and hidden indices,
    // while `_cluster/stats` counts both, with their documents. Closed first, then hidden:
    // health counts their shards, and Prometheus answers from scrapes made after both changes
    // once its shard count is 4 and its snapshot is two scrapes later still.
    stack.create_index("px-closed", 0, false).await;
    stack.index_docs("px-closed", 1).await;
    stack
        .cluster_call(reqwest::Method::POST, "px-closed/_close", None)
        .await;
    poll("the closed index is assigned", CHANGE_DEADLINE, || async {
        let live = stack.snapshot("live").await;
        (live["shardCount"] == 3, live)
    })
    .await;
    stack.create_index("px-hidden", 0, true).await;
    stack.index_docs("px-hidden", 1).await;
    let live = poll("the hidden index is assigned", CHANGE_DEADLINE, || async {
        let live = stack.snapshot("live").await;
        (
            live["shardCount"] == 4 && live["unassignedShards"] == 1,
            live,
        )
    })
    .await;
    let first = stack
        .prom_until("Prometheus has the new shards", |s| s["shardCount"] == 4)
        .await["timestamp"]
        .as_i64()
        .unwrap();
    let prom = stack
        .prom_until("two scrapes later", |s| {
            s["timestamp"].as_i64() >= Some(first + 3)
        })
        .await;
    let mut exported: Vec<String> = stack
        .query(
            "elasticsearch_indices_docs_primary{job=\"es\"}",
            prom["timestamp"].as_i64().unwrap(),
        )
        .await
        .into_iter()
        .map(|(labels, _)| labels["index"].clone())
        .collect();
    exported.sort();
    assert_eq!(exported, ["px-replicated", "px-single"], "{distribution:?}");
    assert_eq!(
        (count(&live, "indexCount"), count(&prom, "indexCount")),
        (4, 2),
        "{distribution:?}: {live} {prom}"
    );
    assert_eq!(
        (count(&live, "documentCount"), count(&prom, "documentCount")),
        (11, 9),
        "{distribution:?}: {live} {prom}"
    );

    // A job Prometheus does not scrape: no data, and why.
    let (status, body) = stack.app.get_json("/api/clusters/wrongjob/metrics").await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "no_metrics_data");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("job=\"nope\"")
    );

    // Validation finds the real exporter's series by job and labels.
    for (labels, found) in [
        (json!({"env": "test"}), true),
        (json!({"env": "prod"}), false),
    ] {
        let response = stack
            .app
            .client
            .post(stack.app.url("/api/metrics_server/validate"))
            .json(&json!({"url": stack.prometheus.url, "job_name": "es", "labels": labels}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["reachable"], true, "{answer}");
        assert_eq!(answer["status"] == "success", found, "{answer}");
    }

    // Which collectors fail against the server, and the node roles the exporter reports.
    let (failing, roles) = collectors(&stack).await;
    // SLM (`_slm/stats`) is x-pack's: 400 from OpenSearch and from the 7.10 zip (which has no
    // x-pack); so are data streams on 7.10 (OpenSearch has its own `_data_stream`).
    // OpenSearch calls the master role `cluster_manager`: the exporter (which knows only
    // `master`) reports no such role, and `es_master_node="false"` on every node series.
    let (expected_failing, expected_roles): (&[&str], &[&str]) = match distribution {
        Distribution::Elasticsearch7 => (
            &[
                "elasticsearch_data_stream_stats_up",
                "elasticsearch_slm_stats_up",
            ],
            &["client", "data", "ingest", "master"],
        ),
        _ => (
            &["elasticsearch_slm_stats_up"],
            &["client", "data", "ingest"],
        ),
    };
    let owned = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    assert_eq!(
        (failing, roles),
        (owned(expected_failing), owned(expected_roles)),
        "{distribution:?}"
    );

    eprintln!("{distribution:?}: a new document count reached the Prometheus snapshot in {took:?}");
}

/// The exporter's collectors that fail against the server (`elasticsearch_*_up 0`), and the
/// node roles it reports.
async fn collectors(stack: &Stack) -> (Vec<String>, Vec<String>) {
    let lines = stack.exporter_lines().await;
    let failing = lines
        .iter()
        .filter_map(|line| line.strip_suffix(" 0"))
        .filter(|name| name.ends_with("_up") || name.contains("_up{"))
        .map(|name| name.split('{').next().unwrap().to_owned())
        .collect();
    let mut roles: Vec<String> = lines
        .iter()
        .filter(|line| line.starts_with("elasticsearch_nodes_roles{"))
        .filter_map(|line| line.split("role=\"").nth(1))
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect();
    roles.sort();
    roles.dedup();
    (failing, roles)
}

#[tokio::test]
async fn opensearch_2_statistics_from_prometheus_match_the_cluster() {
    statistics_match_the_cluster(Distribution::OpenSearch2).await;
}

#[tokio::test]
async fn elasticsearch_7_statistics_from_prometheus_match_the_cluster() {
    statistics_match_the_cluster(Distribution::Elasticsearch7).await;
}

#[tokio::test]
async fn opensearch_3_statistics_from_prometheus_match_the_cluster() {
    statistics_match_the_cluster(Distribution::OpenSearch3).await;
}

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
