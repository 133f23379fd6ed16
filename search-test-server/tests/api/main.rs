//! search-test-server against a real osmem-server: the documented shapes of what it answers,
//! the state changes, forwarding and recording.

mod front;
mod nodes_stats;
mod proxy;
mod snapshots;
mod tasks;
mod topology;

use search_test_server::{Flavor, Options, SearchTestServer};
use serde_json::{Value, json};
use test_support::Osmem;

/// osmem and the front before it.
pub struct Fixture {
    pub osmem: Osmem,
    pub server: SearchTestServer,
    pub client: reqwest::Client,
}

impl Fixture {
    pub fn start(nodes: usize, flavor: Flavor) -> Self {
        let osmem = Osmem::start();
        let server = SearchTestServer::start(Options {
            osmem_url: osmem.url.clone(),
            nodes,
            flavor,
            relocation: std::time::Duration::from_millis(300),
            ..Options::default()
        });
        Self {
            osmem,
            server,
            client: test_support::http_client(),
        }
    }

    /// `method path` on the front with an optional JSON body: (status, JSON answer).
    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.server.url));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = self.call("GET", path, None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    /// Creates an index with shards and replicas.
    pub async fn create_index(&self, name: &str, shards: u32, replicas: u32) {
        let (status, body) = self
            .call(
                "PUT",
                &format!("/{name}"),
                Some(json!({"settings": {"number_of_shards": shards, "number_of_replicas": replicas}})),
            )
            .await;
        assert_eq!(status, 200, "creating {name}: {body}");
    }
}

/// Polls `check` every 50 ms until it holds, failing after 10 s.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !check().await {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
