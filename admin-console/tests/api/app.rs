//! The application started in-process on a free port, as every later test of this crate does.

use admin_console::{Application, Settings};
use service_kit::config::ConfigLoader;

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
}

/// Starts the application on 127.0.0.1 with a free port and `overrides_yaml` on top of the
/// defaults, the way `main` would.
pub async fn spawn_app(overrides_yaml: &str) -> TestApp {
    let yaml = format!("server:\n  host: 127.0.0.1\n  port: 0\n{overrides_yaml}");
    let settings: Settings = ConfigLoader::new("TEST_UNUSED_PREFIX")
        .with_env(Default::default())
        .load_str(&yaml)
        .expect("test configuration is valid");
    let app = Application::build(settings)
        .await
        .expect("application starts");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        client: test_support::http_client(),
    }
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
