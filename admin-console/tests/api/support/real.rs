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
