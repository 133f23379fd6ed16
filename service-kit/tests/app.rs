//! The application shell with a small service of its own: what the shell does around
//! `Service::prepare` (recorder first, routes, state) and what happens when it cannot bind.

use std::net::TcpListener;

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use service_kit::app::{Application, Prepared, Service};
use service_kit::config::{ConfigLoader, ConfigProblems, Validate};
use tokio::sync::oneshot;

service_kit::server_settings! {
    struct ServerSettings {
        default_port: 0;
        default_internal_port: 0;
    }
}

service_kit::observability_settings! {
    struct ObservabilitySettings {}
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Settings {
    server: ServerSettings,
    observability: ObservabilitySettings,
}

impl Validate for Settings {
    fn validate(&self, _problems: &mut ConfigProblems) {}
}

service_kit::service_settings!(Settings);

/// Sends on its channel when dropped, as a background task is when it is aborted.
struct DropSignal(Option<oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            let _ = sender.send(());
        }
    }
}

struct Sample {
    /// Told when the background task is gone.
    background_gone: oneshot::Sender<()>,
}

impl Service for Sample {
    const NAME: &'static str = "sample-service";
    const VERSION: &'static str = "1.2.3";
    const LIVENESS_PATH: &'static str = "/live";

    type Settings = Settings;
    type State = web::Data<&'static str>;

    async fn connect(_settings: &Settings) -> anyhow::Result<Self> {
        anyhow::bail!("the tests build the sample with build_with")
    }

    async fn prepare(self, _settings: Settings) -> anyhow::Result<Prepared<Self::State>> {
        // Only counted when the recorder is already installed.
        metrics::counter!("sample_prepared_total").increment(1);
        let signal = DropSignal(Some(self.background_gone));
        let background = tokio::spawn(async move {
            let _signal = signal;
            std::future::pending::<()>().await;
        });
        let state = web::Data::new("sample state");
        let routes = |config: &mut web::ServiceConfig| {
            config.route(
                "/hello",
                web::get().to(|| async { HttpResponse::Ok().body("hi") }),
            );
        };
        Ok(Prepared::new(state, routes).with_background(vec![background]))
    }
}

fn settings(yaml: &str) -> Settings {
    ConfigLoader::new("SAMPLE_UNUSED")
        .with_env(Default::default())
        .load_str(yaml)
        .unwrap_or_else(|problems| panic!("{problems}"))
}

#[tokio::test]
async fn the_shell_serves_the_routes_and_state_with_the_recorder_installed_before_prepare() {
    let (gone, _background_gone) = oneshot::channel();
    let app = Application::build_with(
        Sample {
            background_gone: gone,
        },
        settings("server: {host: 127.0.0.1, port: 0}"),
    )
    .await
    .expect("the sample starts");
    assert_eq!(**app.state(), "sample state");
    let address = format!("http://127.0.0.1:{}", app.port());
    let internal_port = app.internal_port();
    tokio::spawn(app.run_until_stopped());
    let client = test_support::http_client();
    let get = |path: &str| client.get(format!("{address}{path}")).send();
    let hello = get("/hello").await.unwrap();
    assert_eq!(hello.status(), 200);
    assert_eq!(hello.text().await.unwrap(), "hi");
    let live: serde_json::Value = get("/live").await.unwrap().json().await.unwrap();
    assert_eq!(
        live,
        serde_json::json!({"status": "healthy", "version": "1.2.3"})
    );
    // `/_metrics` is on the internal listener only.
    assert_eq!(get("/_metrics").await.unwrap().status(), 404);
    let internal = format!(
        "http://127.0.0.1:{}/_metrics",
        internal_port.expect("metrics are enabled")
    );
    let metrics = client
        .get(internal)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // The recorder is process-wide: the other test's sample may have counted too.
    let prepared = metrics.lines().find_map(|line| {
        line.strip_prefix("sample_prepared_total ")
            .and_then(|value| value.parse::<f64>().ok())
    });
    assert!(prepared.is_some_and(|count| count >= 1.0), "{metrics}");
}

#[tokio::test]
async fn a_port_in_use_is_an_error_and_the_background_tasks_are_aborted() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let (gone, background_gone) = oneshot::channel();
    let result = Application::build_with(
        Sample {
            background_gone: gone,
        },
        settings(&format!("server: {{host: 127.0.0.1, port: {port}}}")),
    )
    .await;
    let error = result.err().expect("the port is taken");
    assert!(
        error.to_string().to_lowercase().contains("address"),
        "{error:#}"
    );
    tokio::time::timeout(std::time::Duration::from_secs(10), background_gone)
        .await
        .expect("the background task is aborted")
        .expect("the signal is sent on drop");
}
