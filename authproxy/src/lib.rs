//! authproxy: an authentication proxy in front of a search cluster.
//!
//! `Application::build` binds the listener (port 0 allowed) so tests can start the whole service
//! in-process; `main.rs` only parses the command line.

pub mod config;
pub mod error;

use actix_web::web;
use service_kit::server::{RunningServer, ServerOptions};

pub use config::Settings;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub struct Application {
    server: RunningServer,
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let options = ServerOptions {
            host: settings.server.host.clone(),
            port: settings.server.port,
            shutdown_timeout: settings.server.shutdown_timeout,
            metrics_enabled: settings.observability.metrics_enabled,
            version: VERSION,
            liveness_path: "/healthz",
            client_request_timeout: None,
        };
        let server = RunningServer::start(options, routes)?;
        Ok(Self { server })
    }

    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// Serves until SIGTERM/SIGINT, then lets in-flight requests finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.run_until_stopped().await
    }
}

/// The service's own routes; authentication and forwarding arrive with their issue.
fn routes(_config: &mut web::ServiceConfig) {}
