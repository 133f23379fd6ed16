//! ingress-dash: a live dashboard of Kubernetes Ingresses.
//!
//! `Application::build` binds the listener (port 0 allowed) so tests can start the whole service
//! in-process; `main.rs` only parses the command line.

pub(crate) mod cache;
pub(crate) mod config;
pub mod error;
/// Entry points for the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod health;
pub(crate) mod hub;
pub(crate) mod kube_api;
pub(crate) mod labels;
pub mod namespaces;
pub(crate) mod rate_limit;
pub(crate) mod records;
pub(crate) mod redaction;
pub(crate) mod resilience;
mod routes;
pub mod state;
mod static_files;
pub mod stream;

use std::sync::Arc;

use actix_web::middleware::from_fn;
use actix_web::web;
use service_kit::allowed_hosts::check_host_except;
use service_kit::client_address::TrustedProxies;
use service_kit::security_headers::security_headers;
use service_kit::server::{RunningServer, ServerOptions};

pub use config::Settings;

use crate::cache::CoalescingCache;
use crate::hub::{Hub, HubSettings};
use crate::kube_api::{KubeClient, SharedKubeApi};
use crate::rate_limit::ClientRateLimiter;
use crate::redaction::Redaction;
use crate::resilience::Resilience;
use crate::state::AppState;
use crate::stream::ClientCounter;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub struct Application {
    server: RunningServer,
    state: web::Data<AppState>,
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        // kube's TLS uses rustls; ring is the workspace's only provider.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let api: SharedKubeApi = Arc::new(KubeClient::connect(&settings.kubernetes).await);
        Self::build_with_api(settings, api)
    }

    /// Builds with a given Kubernetes API implementation (tests pass fakes or wrappers).
    pub fn build_with_api(settings: Settings, api: SharedKubeApi) -> anyhow::Result<Self> {
        // Install the recorder before the first gauge (the breaker's state) is set.
        let _ = service_kit::metrics::prometheus_handle();
        let redaction = Arc::new(Redaction::configured(
            settings.annotations.redact_defaults,
            &settings.annotations.redact,
        )?);
        let hub = Hub::new(
            api.clone(),
            HubSettings {
                grace_period: settings.kubernetes.watch_grace_period,
                replay_buffer: settings.stream.replay_buffer,
                client_buffer: settings.stream.client_buffer,
                namespaces: settings.kubernetes.namespaces.clone(),
                max_watchers: settings.kubernetes.max_watchers,
                redaction: redaction.clone(),
            },
        );
        let state = web::Data::new(AppState {
            resilience: Resilience::new(&settings.resilience),
            cache: CoalescingCache::new(cache::build_cache(&settings.cache)?),
            api,
            hub,
            redaction,
            clients: Arc::new(ClientCounter::default()),
            settings: settings.clone(),
        });
        let limiter = ClientRateLimiter::new(
            &settings.rate_limit,
            TrustedProxies::new(&settings.server.trusted_proxies),
        )
        .map(web::Data::from);
        let options = ServerOptions {
            host: settings.server.host.clone(),
            port: settings.server.port,
            shutdown_timeout: settings.server.shutdown_timeout,
            metrics_enabled: settings.observability.metrics_enabled,
            version: VERSION,
            liveness_path: "/api/live",
            client_request_timeout: None,
        };
        let static_dir = settings.server.static_dir.clone();
        // DNS-rebinding protection; readiness (/api/health) is probed by the pod's IP.
        let hosts = Arc::new(settings.server.allowed_hosts.clone());
        let shared = state.clone();
        let server = RunningServer::start(options, move |config: &mut web::ServiceConfig| {
            config.app_data(shared.clone());
            if let Some(limiter) = &limiter {
                config.app_data(limiter.clone());
            }
            // Security headers (CSP, nosniff, no referrer, no framing) on every answer, and
            // server.allowed_hosts.
            let hosts = hosts.clone();
            config.service(
                web::scope("")
                    .wrap(from_fn(move |request, next| {
                        check_host_except(hosts.clone(), &["/api/health"], request, next)
                    }))
                    .wrap(from_fn(security_headers))
                    .configure(|scope| routes::configure(scope, static_dir.clone())),
            );
        })?;
        Ok(Self { server, state })
    }

    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// The running state, for tests (watcher count, breaker state).
    pub fn state(&self) -> web::Data<AppState> {
        self.state.clone()
    }

    /// Serves until SIGTERM/SIGINT, then lets in-flight requests finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.run_until_stopped().await
    }
}
