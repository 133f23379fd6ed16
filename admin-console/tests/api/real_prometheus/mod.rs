//! `external_metrics` against real clusters: Debian's prometheus-elasticsearch-exporter scraping
//! a real OpenSearch 2.19 or Elasticsearch 7.10 node of the test's own (its numbers are exact:
//! no other test writes to it), a real Prometheus scraping the exporter every second, and the
//! console reading the same cluster twice: once from Prometheus (`external_metrics`) and once
//! from the cluster itself (`internal`). Every wait has a deadline; none is a fixed sleep.

mod one_node;
mod topologies;

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
