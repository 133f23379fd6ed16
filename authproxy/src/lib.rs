//! authproxy: an authentication proxy in front of a search cluster.
//!
//! `Application::build` binds the listener (port 0 allowed) so tests can start the whole service
//! in-process; `main.rs` only parses the command line.

pub(crate) mod basic;
pub(crate) mod cluster;
pub(crate) mod config;
pub mod cookies;
pub(crate) mod crypto;
pub(crate) mod error;
pub(crate) mod forwarded;
/// Entry points for the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod gate;
pub(crate) mod glob;
mod handlers;
pub(crate) mod health;
pub(crate) mod identity;
pub(crate) mod managed;
pub(crate) mod metrics;
pub(crate) mod oidc;
pub(crate) mod proxy;
pub(crate) mod redirect;
pub(crate) mod reused;
pub(crate) mod roles;
pub(crate) mod same_origin;
pub(crate) mod session;
pub(crate) mod state;
pub(crate) mod store;

use actix_web::web;
use service_kit::server::{RunningServer, ServerOptions};
use service_kit::telemetry::PropagatingRootSpan;
use tracing_actix_web::TracingLogger;

pub use config::Settings;
pub use state::AppState;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub struct Application {
    server: RunningServer,
    state: web::Data<AppState>,
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let state = web::Data::new(AppState::build(&settings)?);
        // The recorder is process-wide and installed on first use; register after it exists.
        let _recorder = service_kit::metrics::prometheus_handle();
        metrics::register();
        let options = ServerOptions {
            host: settings.server.host.clone(),
            port: settings.server.port,
            shutdown_timeout: settings.server.shutdown_timeout,
            metrics_enabled: settings.observability.metrics_enabled,
            version: VERSION,
            liveness_path: "/healthz",
            client_request_timeout: Some(settings.server.read_timeout),
        };
        let mode = settings.server.mode;
        let callback_path = state
            .oidc
            .as_ref()
            .map(|oidc| oidc.sign_in.provider.callback_path());
        let traced = settings.observability.otel_enabled;
        let shared = state.clone();
        // `/_health`'s last report, reused for `observability.health_cache_ttl`.
        let health = web::Data::new(reused::Reused::<health::HealthReport>::new(
            settings.observability.health_cache_ttl,
        ));
        let server = RunningServer::start(options, move |config: &mut web::ServiceConfig| {
            config.app_data(state.clone());
            config.app_data(health.clone());
            let routes = |config: &mut web::ServiceConfig| {
                handlers::configure(mode, callback_path.as_deref(), config);
            };
            if traced {
                // Every route but liveness and `/_metrics` (probes and scrapes are not worth a
                // trace) in one scope behind the root span that continues the caller's trace.
                // Without tracing the scope is not there at all: the request path costs nothing.
                config.service(
                    web::scope("")
                        .wrap(TracingLogger::<PropagatingRootSpan>::new())
                        .configure(routes),
                );
            } else {
                routes(config);
            }
        })?;
        tracing::info!(
            mode = ?settings.server.mode,
            cache_backend = ?settings.cache.backend,
            search_flavor = ?settings.search.flavor,
            "authproxy configured"
        );
        Ok(Self {
            server,
            state: shared,
        })
    }

    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// What the handlers share (tests reach the OIDC provider's key cache through it).
    pub fn state(&self) -> web::Data<AppState> {
        self.state.clone()
    }

    /// Serves until SIGTERM/SIGINT, then lets in-flight requests finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.run_until_stopped().await
    }
}
