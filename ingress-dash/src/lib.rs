//! ingress-dash: a live dashboard of Kubernetes Ingresses.
//!
//! [`IngressDash`] is what is the service's own; service-kit's application shell builds and runs
//! it (`Application::build` binds the listener, port 0 allowed, so tests start the whole service
//! in-process; `main.rs` is one call).
//!
//! The modules are layers; each uses only the ones above it in this list:
//!
//! - [`names`]: Kubernetes name rules. `access`: who sees which namespaces, and what nobody
//!   sees (`access::redaction`). `config`: the settings.
//! - `kube`: the Kubernetes API (the client behind a narrow trait, the kinds read beside
//!   ingresses, retries and the circuit breaker, the list cache). [`error`]: the error enum.
//! - `records`: the dashboard's records built from objects (backends, certificates, HTTPRoutes
//!   as records, the packed JSON they are kept as).
//! - [`hub`]: the shared watchers and their state machine, which every client reads.
//! - `migration`: the annotation catalogue, the explainer and the migration inventory.
//! - `hosts`: the Hosts view, the records regrouped by hostname with conflicts flagged.
//! - [`http`]: the routes, the SSE stream, the snapshot bodies and their cache, rate limiting.
//!
//! [`alloc`] (the allocator of the kept records) stands beside them.

pub(crate) mod access;
/// The binary's allocator (`main.rs`) and the long-lived heap of the stored records.
#[allow(unsafe_code)] // mimalloc's heap functions are FFI; the only unsafe code in the workspace
pub mod alloc;
pub(crate) mod config;
pub mod error;
/// Entry points for the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod hosts;
pub mod http;
pub mod hub;
pub(crate) mod kube;
pub(crate) mod migration;
pub mod names;
pub(crate) mod records;

use std::sync::Arc;

use actix_web::middleware::from_fn;
use actix_web::web;
use service_kit::allowed_hosts::check_host_except;
use service_kit::app::{Prepared, Service};
use service_kit::security_headers::security_headers;

pub use config::Settings;

use crate::access::AccessPolicy;
use crate::access::redaction::Redaction;
use crate::http::rate_limit::ClientRateLimiter;
use crate::http::state::AppState;
use crate::http::stream::ClientCounter;
use crate::hub::{Features, Hub, HubSettings, WatchSettings};
use crate::kube::client::{KubeClient, SharedKubeApi};
use crate::kube::list_cache::{self, CoalescingCache};
use crate::kube::resilience::Resilience;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// ingress-dash in service-kit's application shell.
pub type Application = service_kit::app::Application<IngressDash>;

/// What is ingress-dash's own in the shell: the Kubernetes API it watches (`connect` reaches the
/// configured cluster; code in this crate may wrap another implementation and pass it to
/// `Application::build_with`), its state and routes.
pub struct IngressDash {
    api: SharedKubeApi,
}

impl Service for IngressDash {
    const NAME: &'static str = "ingress-dash";
    const VERSION: &'static str = VERSION;
    const LIVENESS_PATH: &'static str = "/api/live";
    const WRITE_BUFFER_BYTES: Option<usize> = Some(http::stream::WRITE_BUFFER_BYTES);

    type Settings = Settings;
    /// The running state, for tests (watcher count, breaker state).
    type State = web::Data<AppState>;

    async fn connect(settings: &Settings) -> anyhow::Result<Self> {
        let api: SharedKubeApi = Arc::new(KubeClient::connect(&settings.kubernetes).await);
        Ok(Self { api })
    }

    async fn prepare(self, settings: Settings) -> anyhow::Result<Prepared<web::Data<AppState>>> {
        let api = self.api;
        crate::alloc::remember_main_runtime();
        let redaction = Arc::new(Redaction::configured(
            settings.annotations.redact_defaults,
            &settings.annotations.redact,
        )?);
        // One breaker per API server, shared by the list calls and the watchers; it sets its
        // gauge: the shell has installed the recorder.
        let resilience = Resilience::new(&settings.resilience);
        let hub = Hub::new(
            api.clone(),
            HubSettings {
                grace_period: settings.kubernetes.watch_grace_period,
                replay_buffer: settings.stream.replay_buffer,
                client_buffer: settings.stream.client_buffer,
                namespaces: settings.kubernetes.namespaces.clone(),
                max_watchers: settings.kubernetes.max_watchers,
                redaction: redaction.clone(),
                resilience: resilience.clone(),
                watch: WatchSettings {
                    permanent_error_retry: settings.kubernetes.permanent_error_retry,
                    idle_timeout: settings.kubernetes.watch_timeout
                        + settings.kubernetes.request_timeout,
                },
                features: Features {
                    backends: settings.backends.enabled,
                    read_secrets: settings.certificates.read_secrets,
                    cert_manager: settings.certificates.cert_manager,
                    gateway_api: settings.gateway_api.enabled,
                    expiry_warning_days: settings.certificates.expiry_warning_days,
                },
            },
        );
        let trusted_proxies = settings.server.trusted_proxies.clone();
        let limiter = ClientRateLimiter::new(&settings.rate_limit, trusted_proxies.clone())
            .map(web::Data::from);
        let access = Arc::new(AccessPolicy::new(&settings.access, trusted_proxies));
        let static_dir = settings.server.static_dir.clone();
        // DNS-rebinding protection; readiness (/api/health) is probed by the pod's IP.
        let hosts = Arc::new(settings.server.allowed_hosts.clone());
        let state = web::Data::new(AppState {
            resilience,
            cache: CoalescingCache::new(list_cache::build_cache(&settings.cache)?),
            api,
            hub,
            redaction,
            clients: Arc::new(ClientCounter::default()),
            snapshots: Default::default(),
            settings,
        });
        let shared = state.clone();
        let routes = move |config: &mut web::ServiceConfig| {
            config.app_data(shared.clone());
            if let Some(limiter) = &limiter {
                config.app_data(limiter.clone());
            }
            // Security headers (CSP, nosniff, no referrer, no framing) on every answer, and
            // server.allowed_hosts.
            let (hosts, access) = (hosts.clone(), access.clone());
            config.service(
                web::scope("")
                    // Innermost: the caller is identified (401 in trusted_headers mode without a
                    // trusted identity) after the host check.
                    .wrap(from_fn(move |request, next| {
                        crate::access::require_identity(access.clone(), request, next)
                    }))
                    .wrap(from_fn(move |request, next| {
                        check_host_except(hosts.clone(), &["/api/health"], request, next)
                    }))
                    .wrap(from_fn(security_headers))
                    .configure(|scope| http::configure(scope, static_dir.clone())),
            );
        };
        Ok(Prepared::new(state, routes))
    }
}
