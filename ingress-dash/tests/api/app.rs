//! The application started in-process on a free port against the shared real API server of
//! `real_kube` (or, through [`build_app`], whatever serves the Kubernetes API), and an SSE
//! reader for the stream tests.

use std::time::Duration;

use futures_util::StreamExt;
use ingress_dash::{Application, Settings};
use service_kit::config::ConfigLoader;
use test_support::kube_cluster::KubeCluster;

use crate::real_kube::{Cluster, Real, spawn_real_server};

/// `K` is what serves the Kubernetes API: the real API server (`real_kube::Real`) by default.
pub struct TestApp<K = Real> {
    pub address: String,
    /// The internal listener (`/_metrics`), which only the scraper reaches; empty when it is
    /// not bound (`metrics_enabled: false`).
    pub internal: String,
    pub client: reqwest::Client,
    pub kube: K,
    pub state: actix_web::web::Data<ingress_dash::http::state::AppState>,
}

/// The application against the shared real API server as its admin, with `overrides_yaml`
/// (top-level sections other than `server` and `kubernetes`, or `kubernetes` keys via
/// `kube_yaml`). For tests of what needs no objects of their own (the cluster is shared).
pub async fn spawn_app(kube_yaml: &str, overrides_yaml: &str) -> TestApp {
    spawn_app_full("", kube_yaml, overrides_yaml).await
}

/// The application serving the web app built in `static_dir`.
pub async fn spawn_app_static(static_dir: &std::path::Path) -> TestApp {
    let server = format!("  static_dir: {}\n", static_dir.display());
    spawn_app_full(&server, "", "").await
}

/// A web app "build": `index.html` and one hashed asset, `assets/app-3f2a.js`.
pub fn built_web_app() -> test_support::TempDir {
    let dir = test_support::TempDir::new("web-dist");
    std::fs::create_dir_all(dir.path().join("assets")).unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><title>ingress-dash</title>",
    )
    .unwrap();
    std::fs::write(dir.path().join("assets/app-3f2a.js"), "console.log(1)").unwrap();
    dir
}

/// The application with `server_yaml` (keys of `server:`, indented) and `overrides_yaml`.
pub async fn spawn_app_server(server_yaml: &str, overrides_yaml: &str) -> TestApp {
    spawn_app_full(server_yaml, "", overrides_yaml).await
}

async fn spawn_app_full(server_yaml: &str, kube_yaml: &str, overrides_yaml: &str) -> TestApp {
    spawn_real_server(
        Cluster::Shared(KubeCluster::shared()),
        None,
        server_yaml,
        kube_yaml,
        overrides_yaml,
    )
    .await
}

/// The application against whatever `kube` serves, `kube_yaml` saying how to reach it (the
/// `kubernetes:` keys, indented, e.g. `api_url` or `kubeconfig`).
pub async fn build_app<K>(
    kube: K,
    server_yaml: &str,
    kube_yaml: &str,
    overrides_yaml: &str,
) -> TestApp<K> {
    let yaml = format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n{server_yaml}kubernetes:\n  watch_grace_period: 1s\n{kube_yaml}resilience:\n  retry_initial_delay: 10ms\n  retry_max_delay: 50ms\n{overrides_yaml}"
    );
    let mut settings: Settings = ConfigLoader::new("TEST_UNUSED_PREFIX")
        .with_env(Default::default())
        .load_str(&yaml)
        .expect("test configuration is valid");
    // A free port for the internal listener too, unless the test chose one.
    if !yaml.contains("internal_port") {
        settings.server.internal_port = 0;
    }
    let app = Application::build(settings)
        .await
        .expect("application starts");
    let address = format!("http://127.0.0.1:{}", app.port());
    let internal = app
        .internal_port()
        .map(|port| format!("http://127.0.0.1:{port}"))
        .unwrap_or_default();
    let state = app.state();
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        internal,
        client: test_support::http_client(),
        kube,
        state,
    }
}

impl<K> TestApp<K> {
    /// `GET path` on the public listener; `/_metrics` on the internal one, as the scraper
    /// asks it (the public listener answers 404 there).
    pub async fn get(&self, path: &str) -> reqwest::Response {
        let base = if path.starts_with("/_metrics") {
            &self.internal
        } else {
            &self.address
        };
        self.client
            .get(format!("{base}{path}"))
            .send()
            .await
            .expect("request sent")
    }

    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        let response = self.get(path).await;
        let status = response.status().as_u16();
        (status, response.json().await.expect("a JSON body"))
    }

    pub async fn stream(&self, query: &str, last_event_id: Option<&str>) -> SseReader {
        let mut request = self
            .client
            .get(format!("{}/api/ingresses/stream{query}", self.address));
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        open_stream(request).await
    }
}

impl TestApp {
    /// Opens the stream `request` asks for (headers of the test's choosing); expects a 200.
    pub async fn open_stream(request: reqwest::RequestBuilder) -> SseReader {
        open_stream(request).await
    }
}

/// Opens the stream `request` asks for (headers of the test's choosing); expects a 200.
pub async fn open_stream(request: reqwest::RequestBuilder) -> SseReader {
    let response = request.send().await.expect("stream opened");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    SseReader {
        body: Box::pin(response.bytes_stream()),
        raw: Vec::new(),
        consumed: 0,
    }
}

/// The built ingress-dash binary started on a free port, with `kube_yaml` (the `kubernetes:`
/// keys saying how to reach the API, indented, e.g. `kubeconfig`), `shutdown_timeout` and
/// `extra_yaml` (top-level YAML after the `kubernetes` section, which may continue it with
/// two-space indented keys). The `ServiceBinary` holds the configuration file.
pub fn start_binary_with(
    kube_yaml: &str,
    shutdown_timeout: &str,
    extra_yaml: &str,
) -> (
    test_support::binary::ServiceBinary,
    test_support::binary::RunningBinary,
) {
    let binary = test_support::binary::ServiceBinary::new(
        env!("CARGO_BIN_EXE_ingress-dash"),
        "ingress-dash",
        "/api/live",
    );
    let config = binary.config_file(
        "ingress-dash.yaml",
        &format!(
            "server:\n  host: 127.0.0.1\n  port: 0\n  shutdown_timeout: {shutdown_timeout}\nkubernetes:\n{kube_yaml}{extra_yaml}"
        ),
    );
    let running = binary.start(&config);
    (binary, running)
}

/// One parsed SSE block.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub event: String,
    pub id: String,
    pub data: serde_json::Value,
}

pub struct SseReader {
    body: std::pin::Pin<
        Box<dyn futures_util::Stream<Item = reqwest::Result<actix_web::web::Bytes>> + Send>,
    >,
    /// Every byte received, for byte-exact checks.
    pub raw: Vec<u8>,
    consumed: usize,
}

impl SseReader {
    /// The next complete block (`\n\n`-terminated) as text, waiting at most `timeout`.
    pub async fn next_block(&mut self, timeout: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(end) = find(&self.raw[self.consumed..], b"\n\n") {
                let block =
                    String::from_utf8(self.raw[self.consumed..self.consumed + end].to_vec())
                        .unwrap();
                self.consumed += end + 2;
                return Some(block);
            }
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Ok(Some(Ok(chunk))) => self.raw.extend_from_slice(&chunk),
                _ => return None,
            }
        }
    }

    /// The next event (skipping comments and `retry:`).
    pub async fn next_event(&mut self, timeout: Duration) -> Option<SseEvent> {
        loop {
            let block = self.next_block(timeout).await?;
            let mut event = SseEvent {
                event: String::new(),
                id: String::new(),
                data: serde_json::Value::Null,
            };
            for line in block.lines() {
                if let Some(value) = line.strip_prefix("event: ") {
                    event.event = value.to_owned();
                } else if let Some(value) = line.strip_prefix("id: ") {
                    event.id = value.to_owned();
                } else if let Some(value) = line.strip_prefix("data: ") {
                    event.data = serde_json::from_str(value).unwrap();
                }
            }
            if !event.event.is_empty() {
                return Some(event);
            }
        }
    }

    /// Reads on until the server ends the body: whether it did within `timeout` (what it
    /// wrote on the way is in `raw`).
    pub async fn ends_within(&mut self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Ok(Some(Ok(chunk))) => self.raw.extend_from_slice(&chunk),
                Ok(None) => return true,
                Ok(Some(Err(_))) | Err(_) => return false,
            }
        }
    }

    /// Events until `done` says so, failing after `timeout`.
    pub async fn events_until(
        &mut self,
        timeout: Duration,
        mut done: impl FnMut(&[SseEvent]) -> bool,
    ) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let deadline = tokio::time::Instant::now() + timeout;
        while !done(&events) {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_event(left).await {
                Some(event) => events.push(event),
                None => panic!("timed out; events so far: {events:#?}"),
            }
        }
        events
    }
}

/// Waits until `condition` holds, failing after `seconds` (test-support's `eventually`).
pub async fn within(seconds: u64, what: &str, mut condition: impl FnMut() -> bool) {
    test_support::eventually(what, Duration::from_secs(seconds), async || condition()).await;
}

/// Waits (with a deadline of 10 s) until `condition` holds; whether it did.
pub async fn eventually(mut condition: impl AsyncFnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while tokio::time::Instant::now() < deadline {
        if condition().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[tokio::test]
async fn liveness_reports_healthy_with_the_version() {
    let app = spawn_app("", "").await;
    let (status, body) = app.get_json("/api/live").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        serde_json::json!({"status": "healthy", "version": ingress_dash::VERSION})
    );
}
