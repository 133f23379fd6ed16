//! The application started in-process on a free port, as every test of this crate does.

use admin_console::{Application, Settings};
use service_kit::config::ConfigLoader;

pub struct TestApp {
    pub address: String,
    /// The internal listener (`/_metrics`), which only the scraper reaches; empty when it is
    /// not bound (`metrics_enabled: false`).
    pub internal: String,
    /// Sends [`CONSOLE_HEADER`] with every request, as the web app does and as scripts and
    /// `curl` users are told to: the console refuses state-changing requests without it.
    pub client: reqwest::Client,
}

/// The header the web app sends with every API call (docs/api/admin-console.md).
pub const CONSOLE_HEADER: (&str, &str) = ("x-requested-by", "admin-console");

/// A client that sends [`CONSOLE_HEADER`] with every request.
pub fn console_client() -> reqwest::Client {
    test_support::install_crypto_provider();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        CONSOLE_HEADER.0,
        reqwest::header::HeaderValue::from_static(CONSOLE_HEADER.1),
    );
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        let status = response.status().as_u16();
        (
            status,
            response.json().await.unwrap_or(serde_json::Value::Null),
        )
    }
}

/// Starts the application on 127.0.0.1 with a free port and `overrides_yaml` on top of the
/// defaults, the way `main` would.
pub async fn spawn_app(overrides_yaml: &str) -> TestApp {
    let yaml = format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  static_dir: /nonexistent-admin-console-web\n{overrides_yaml}"
    );
    spawn_app_with(&yaml).await
}

/// A cluster for the tests about something else (liveness, the web app, the metrics server
/// validation): the console refuses a configuration without clusters. Nothing listens there.
const PLACEHOLDER_CLUSTER: &str =
    "clusters:\n  - {id: placeholder, name: Placeholder, url: 'http://127.0.0.1:9'}\n";

/// Starts the application with exactly `yaml` (which must set `server.port: 0`), plus
/// [`PLACEHOLDER_CLUSTER`] when it lists none.
pub async fn spawn_app_with(yaml: &str) -> TestApp {
    let has_clusters = yaml.lines().any(|line| line.starts_with("clusters:"));
    let yaml = if has_clusters {
        yaml.to_owned()
    } else {
        format!("{yaml}{PLACEHOLDER_CLUSTER}")
    };
    let yaml = yaml.as_str();
    let mut settings: Settings = ConfigLoader::new("TEST_UNUSED_PREFIX")
        .with_env(Default::default())
        .load_str(yaml)
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
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        internal,
        client: console_client(),
    }
}

/// A `clusters:` list entry pointing at `url` (more keys may follow, indented by 4).
pub fn cluster_yaml(id: &str, url: &str) -> String {
    format!("  - id: {id}\n    name: Cluster {id}\n    url: {url}\n")
}

#[tokio::test]
async fn liveness_reports_healthy_with_the_version() {
    let app = spawn_app("").await;
    let response = app
        .client
        .get(format!("{}/api/live", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body,
        serde_json::json!({"status": "healthy", "version": admin_console::VERSION})
    );
}
