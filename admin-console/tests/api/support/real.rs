//! The console before a real node, through a recording proxy: the shared node of a distribution
//! ([`SearchCluster::shared`]), a [`Proxy`] of the test's own before it (plain HTTP to the
//! console; HTTPS with the node's CA and the admin's basic auth to a secured node), and the
//! console with one cluster `main` at the proxy. What the console sent is the proxy's record;
//! what it got back is the real node's answer. Tests sharing a node keep to names of their own.

use search_test_server::{Proxy, Recorded, Upstream};
use serde_json::Value;
use test_support::{Distribution, SearchCluster, Security};

use crate::app::{TestApp, cluster_yaml, spawn_app};

/// The distributions the management suites run against: OpenSearch 2 on plain HTTP and
/// Elasticsearch 8 with x-pack security on HTTPS.
pub const REAL: [Distribution; 2] = [
    Distribution::OpenSearch2,
    Distribution::Elasticsearch8Secured,
];

/// The shared node of `distribution`, started off the test's runtime on first use.
pub async fn shared(distribution: Distribution) -> &'static SearchCluster {
    tokio::task::spawn_blocking(move || SearchCluster::shared(distribution))
        .await
        .unwrap()
}

/// A recording proxy of its own before `cluster`.
pub fn proxy_before(cluster: &SearchCluster) -> Proxy {
    proxy_to(&cluster.url, cluster.security.as_ref())
}

/// A recording proxy of its own before the node at `url`, with the CA and admin credential of
/// `security` when it has the security plugin.
pub fn proxy_to(url: &str, security: Option<&Security>) -> Proxy {
    Proxy::start(Upstream {
        url: url.to_owned(),
        ca_file: security.map(|s| s.ca_file.clone()),
        basic_auth: security.map(|s| (s.admin_user.clone(), s.admin_password.clone())),
    })
}

pub struct Real {
    pub app: TestApp,
    /// Between the console and the node.
    pub proxy: Proxy,
    pub cluster: &'static SearchCluster,
}

/// The console in open mode with one cluster `main`, the proxy before the shared node.
pub async fn real(distribution: Distribution) -> Real {
    real_with(distribution, |clusters| format!("clusters:\n{clusters}")).await
}

/// As [`real`], the configuration made by `yaml` from the `clusters:` entry.
pub async fn real_with(distribution: Distribution, yaml: impl FnOnce(&str) -> String) -> Real {
    let cluster = shared(distribution).await;
    let proxy = proxy_before(cluster);
    let app = spawn_app(&yaml(&cluster_yaml("main", &proxy.url))).await;
    Real {
        app,
        proxy,
        cluster,
    }
}

impl Real {
    pub fn url(&self, tail: &str) -> String {
        self.app.url(&format!("/api/clusters/main{tail}"))
    }

    /// The requests the proxy received whose path starts with `prefix`.
    pub fn sent(&self, prefix: &str) -> Vec<Recorded> {
        sent(&self.proxy, prefix)
    }

    /// The calls that are not reads (method, path, query, body).
    pub fn writes(&self) -> Vec<(String, String, String, Option<Value>)> {
        self.proxy
            .requests()
            .into_iter()
            .filter(|r| r.method != "GET" && r.method != "HEAD")
            .map(|r| (r.method, r.path, r.query, r.body))
            .collect()
    }
}

/// The requests `proxy` received whose path starts with `prefix`.
pub fn sent(proxy: &Proxy, prefix: &str) -> Vec<Recorded> {
    proxy
        .requests()
        .into_iter()
        .filter(|request| request.path.starts_with(prefix))
        .collect()
}

/// `method path` of `cluster` itself, not through a proxy (as its admin over HTTPS on a
/// secured node): what the console's answers and figures are compared with.
pub fn direct(
    cluster: &SearchCluster,
    method: reqwest::Method,
    path: &str,
) -> reqwest::RequestBuilder {
    let url = format!("{}{path}", cluster.url);
    match &cluster.security {
        Some(security) => security
            .client()
            .request(method, url)
            .header("authorization", security.admin_authorization()),
        None => test_support::http_client().request(method, url),
    }
}

/// The JSON answer of a [`direct`] `GET path`.
pub async fn direct_json(cluster: &SearchCluster, path: &str) -> Value {
    let answer = direct(cluster, reqwest::Method::GET, path)
        .send()
        .await
        .unwrap();
    answer.json().await.unwrap()
}

/// What `read` gets from the console once it `agrees` with the node's own `_cluster/health`
/// and `stats_path`, read before and after it and unchanged in between: on a node other suites
/// share, the console's figures must be the node's while nothing moves them. Retried for 30 s,
/// then the test fails with the last disagreement.
pub async fn while_still<T>(
    cluster: &SearchCluster,
    stats_path: &str,
    mut read: impl AsyncFnMut() -> T,
    agrees: impl Fn(&T, &Value, &Value) -> Result<(), String>,
) -> T {
    // Timings and percentages move on their own; the counts are what is compared.
    let counts = |health: &Value| -> Vec<(String, Value)> {
        health
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, _)| !key.contains("millis") && !key.contains("percent"))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    };
    test_support::eventually_with(
        "the console's figures agree with the node's",
        std::time::Duration::from_secs(30),
        async || {
            let health = direct_json(cluster, "/_cluster/health").await;
            let stats = direct_json(cluster, stats_path).await;
            let seen = read().await;
            let health_after = direct_json(cluster, "/_cluster/health").await;
            let stats_after = direct_json(cluster, stats_path).await;
            if counts(&health) != counts(&health_after) || stats != stats_after {
                return Err(format!(
                    "the node moved: {health} {stats} then {health_after} {stats_after}"
                ));
            }
            agrees(&seen, &health, &stats)?;
            Ok(seen)
        },
    )
    .await
}

/// `Ok` when `body` has each of `expected`'s keys with its value (for [`while_still`]).
pub fn has_the_node_figures(body: &Value, expected: &Value) -> Result<(), String> {
    let seen: serde_json::Map<String, Value> = expected
        .as_object()
        .unwrap()
        .keys()
        .map(|key| (key.clone(), body[key].clone()))
        .collect();
    if &Value::Object(seen) == expected {
        Ok(())
    } else {
        Err(format!("the console says {body}, the node {expected}"))
    }
}
