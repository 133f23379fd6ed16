//! authproxy: an authentication proxy in front of a search cluster.
//!
//! [`Authproxy`] is what is the service's own; service-kit's application shell builds and runs it
//! (`Application::build` binds the listener, port 0 allowed, so tests start the whole service
//! in-process; `main.rs` is one call).
//!
//! The modules are layers; each uses only the ones above it in this list:
//!
//! - `identity` (who a request is from), `request` (what an incoming request may be believed to
//!   say: forwarded headers, `rd`, same origin), `crypto`, `store`, `metrics`.
//! - `config`: the settings (with the `glob` syntax of their patterns). `error`: the error enum,
//!   and the HTML pages a browser is shown instead of its JSON body.
//! - [`authn`]: who the caller is (Basic, OIDC, sessions, cookies). `authz`: what it may do
//!   (the authorization rules, the roles its claims map to).
//! - `upstream`: the search cluster (its client, the managed users).
//! - `state`, then `http`: the gate every request passes, the routes and standalone forwarding.

pub mod authn;
pub(crate) mod authz;
pub(crate) mod config;
pub(crate) mod crypto;
pub(crate) mod error;
/// Entry points for the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzzing;
mod http;
pub(crate) mod identity;
pub(crate) mod metrics;
pub(crate) mod request;
pub(crate) mod state;
pub(crate) mod store;
pub(crate) mod upstream;

use std::time::Duration;

use actix_web::web;
use service_kit::app::{Prepared, Service};
use service_kit::telemetry::PropagatingRootSpan;
use tracing_actix_web::TracingLogger;

pub use config::Settings;
pub use state::AppState;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// authproxy in service-kit's application shell.
pub type Application = service_kit::app::Application<Authproxy>;

/// What is authproxy's own in the shell: its state, metrics and routes (tests reach the state,
/// e.g. the OIDC provider's key cache, through `Application::state`).
pub struct Authproxy;

impl Service for Authproxy {
    const NAME: &'static str = "authproxy";
    const VERSION: &'static str = VERSION;
    const LIVENESS_PATH: &'static str = "/healthz";

    type Settings = Settings;
    type State = web::Data<AppState>;

    async fn connect(_settings: &Settings) -> anyhow::Result<Self> {
        Ok(Self)
    }

    fn client_request_timeout(settings: &Settings) -> Option<Duration> {
        Some(settings.server.read_timeout)
    }

    async fn prepare(self, settings: Settings) -> anyhow::Result<Prepared<web::Data<AppState>>> {
        let state = web::Data::new(AppState::build(&settings)?);
        // The shell has installed the recorder: the counters register with it.
        metrics::register();
        let mode = settings.server.mode;
        let callback_path = state
            .oidc
            .as_ref()
            .map(|oidc| oidc.sign_in.provider.callback_path());
        let traced = settings.observability.otel_enabled;
        let shared = state.clone();
        // `/_health`'s last report, reused for `observability.health_cache_ttl`.
        let health = web::Data::new(http::health::LastReport::keeping_for(
            settings.observability.health_cache_ttl,
        ));
        let internal_state = state.clone();
        let routes = move |config: &mut web::ServiceConfig| {
            config.app_data(shared.clone());
            config.app_data(health.clone());
            traced_routes(traced, config, |config| {
                http::configure(mode, callback_path.as_deref(), config);
            });
        };
        // The forward_auth check, on the listener only the front door and the scraper reach.
        let internal_routes = move |config: &mut web::ServiceConfig| {
            config.app_data(internal_state.clone());
            traced_routes(traced, config, |config| {
                http::configure_internal(mode, config);
            });
        };
        tracing::info!(
            mode = ?settings.server.mode,
            cache_backend = ?settings.cache.backend,
            search_flavor = ?settings.search.flavor,
            "authproxy configured"
        );
        Ok(Prepared::new(state, routes).with_internal_routes(internal_routes))
    }
}

/// Adds `routes` to `config`: with tracing, in one scope behind the root span that continues
/// the caller's trace (every route but liveness and `/_metrics`: probes and scrapes are not
/// worth a trace); without, as they are, so the request path costs nothing.
fn traced_routes(
    traced: bool,
    config: &mut web::ServiceConfig,
    routes: impl FnOnce(&mut web::ServiceConfig),
) {
    if traced {
        config.service(
            web::scope("")
                .wrap(TracingLogger::<PropagatingRootSpan>::new())
                .configure(routes),
        );
    } else {
        routes(config);
    }
}
