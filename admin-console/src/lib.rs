//! admin-console: a web console for administering Elasticsearch/OpenSearch clusters.
//!
//! [`AdminConsole`] is what is the service's own; service-kit's application shell builds and runs
//! it (`Application::build` binds the listener, port 0 allowed, so tests start the whole service
//! in-process; `main.rs` is one call).

pub(crate) mod access;
pub(crate) mod audit;
pub(crate) mod cluster;
pub mod config;
pub(crate) mod error;
/// Entry points for the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzzing;
mod handlers;
pub(crate) mod manage;
pub(crate) mod metrics;
mod numbers;
mod promql;
mod registry;
pub(crate) mod relay;
pub(crate) mod same_origin;
pub(crate) mod saved;
pub(crate) mod web_app;

use std::sync::Arc;

use access::guard::{AccessGuard, Guarded as Access, authenticate, authorize};
use actix_web::middleware::{Compress, from_fn};
use actix_web::web;
use service_kit::allowed_hosts::{AllowedHosts, check_host};
use service_kit::app::{Prepared, Service};
use service_kit::identity::IdentitySource;
use service_kit::security_headers::security_headers;

/// The viewer's console calls (docs/access-control.md), for the tests that make each (not an
/// API).
#[doc(hidden)]
pub use access::viewer::{BodyRule, VIEWER_CALLS, ViewerCall};
pub use config::Settings;
use handlers::AppState;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// admin-console in service-kit's application shell.
pub type Application = service_kit::app::Application<AdminConsole>;

/// What is admin-console's own in the shell: its state, routes and history samplers.
pub struct AdminConsole;

impl Service for AdminConsole {
    const NAME: &'static str = "admin-console";
    const VERSION: &'static str = VERSION;
    const LIVENESS_PATH: &'static str = "/api/live";

    type Settings = Settings;
    type State = ();

    async fn connect(_settings: &Settings) -> anyhow::Result<Self> {
        Ok(Self)
    }

    async fn prepare(self, settings: Settings) -> anyhow::Result<Prepared<()>> {
        let clusters = registry::Clusters::new(&settings.clusters, &settings.internal_history)?;
        let mut samplers = Vec::new();
        for cluster in clusters.iter() {
            if let metrics::Metrics::Internal(internal) = &cluster.metrics {
                samplers.push(tokio::spawn(
                    internal.sampler(cluster.client.clone(), cluster.id().to_owned()),
                ));
            }
        }
        let trusted_proxies = settings.server.trusted_proxies.clone();
        let guard = Arc::new(AccessGuard {
            policy: access::AccessPolicy::new(&settings),
            identities: IdentitySource::new(settings.access.mode, trusted_proxies.clone()),
            trusted_proxies,
            audit: audit::AuditLog::new(&settings.audit)?,
        });
        tracing::info!(
            mode = settings.access.mode.as_str(),
            audit_file = ?settings.audit.file,
            "access control"
        );
        let state = web::Data::new(AppState {
            clusters,
            validation_http: metrics::validate::validation_http_client()?,
            access: guard.clone(),
        });
        if !settings.server.static_dir.join("index.html").is_file() {
            tracing::warn!(
                static_dir = %settings.server.static_dir.display(),
                "the web app is not built; the API works, / answers 404"
            );
        }
        let saved = web::Data::new(saved::api::SavedStore {
            store: saved::store::configured(&settings.saved_queries, saved::store::SAVED_QUERIES)?,
            limits: saved::Limits::DEFAULT,
        });
        let tabs = web::Data::new(saved::tabs_api::TabStore {
            store: saved::store::configured(&settings.saved_queries, saved::tabs::CONSOLE_TABS)?,
            limits: saved::tabs::TabLimits::DEFAULT,
        });
        let web_app = web::Data::new(web_app::WebApp::new(settings.server.static_dir.clone()));
        let hosts = Arc::new(settings.server.allowed_hosts.clone());
        if hosts.is_enabled() {
            tracing::info!(allowed_hosts = ?hosts.entries(), "answering only these Host names");
        }
        let routes = move |config: &mut web::ServiceConfig| {
            routes(
                config,
                state.clone(),
                web_app.clone(),
                (saved.clone(), tabs.clone()),
                hosts.clone(),
                guard.clone(),
            )
        };
        Ok(Prepared::new((), routes).with_background(samplers))
    }
}

/// The API and the web app, gzip-compressed for browsers that ask for it (streamed bodies are
/// compressed chunk by chunk; bodies the cluster already encoded pass through untouched).
///
/// Every route is wrapped, outermost first, by the security headers, the `Host` allow-list,
/// the same-origin check (every method on the relay, state-changing methods elsewhere) and the
/// caller's identity (401 in `trusted_headers` mode without one); the relay and the cluster
/// routes then by the role check and the audit log (`access::guard`). The
/// liveness path and `/_metrics` (service-kit's) stay outside: probes and scrapes address the
/// pod by IP.
fn routes(
    config: &mut web::ServiceConfig,
    state: web::Data<AppState>,
    site: web::Data<web_app::WebApp>,
    (saved, tabs): (
        web::Data<saved::api::SavedStore>,
        web::Data<saved::tabs_api::TabStore>,
    ),
    hosts: Arc<AllowedHosts>,
    guard: Arc<AccessGuard>,
) {
    use handlers::*;
    use same_origin::{Guarded, require_same_origin};
    // The relay comes first, as whole-path resources: the router tries patterns in order,
    // console traffic is the bulk of the requests, and one pattern per request costs less than
    // a scope's pattern and then the resource's (regex matching was 6% of a relayed request).
    for pattern in [
        "/api/clusters/{cluster_id}/proxy/{tail:.*}",
        "/api/clusters/{cluster_id}/proxy",
    ] {
        let hosts = hosts.clone();
        let (authorizing, authenticating) = (guard.clone(), guard.clone());
        config.service(
            web::resource(pattern)
                .wrap(from_fn(move |request, next| {
                    authorize(authorizing.clone(), Access::Relay, request, next)
                }))
                .wrap(from_fn(move |request, next| {
                    authenticate(authenticating.clone(), request, next)
                }))
                .wrap(Compress::default())
                .wrap(from_fn(|request, next| {
                    require_same_origin(Guarded::Everything, request, next)
                }))
                .wrap(from_fn(move |request, next| {
                    check_host(hosts.clone(), request, next)
                }))
                .wrap(from_fn(security_headers))
                .app_data(state.clone())
                .route(web::route().to(proxy)),
        );
    }
    let authorizing = guard.clone();
    let cluster_routes = web::scope("/api/clusters/{cluster_id}")
        .wrap(from_fn(move |request, next| {
            authorize(authorizing.clone(), Access::Views, request, next)
        }))
        .route("", web::get().to(get_cluster))
        .route("/dialect", web::get().to(dialect))
        .route("/overview", web::get().to(overview))
        .route("/nodes", web::get().to(nodes))
        .route("/indices", web::get().to(indices))
        .route("/allocation", web::get().to(get_allocation))
        .route("/allocation", web::put().to(put_allocation))
        .route("/metrics", web::get().to(snapshot))
        .route("/metrics/history", web::get().to(history))
        .configure(manage::routes);
    config.service(
        web::scope("")
            .wrap(from_fn(move |request, next| {
                authenticate(guard.clone(), request, next)
            }))
            .wrap(Compress::default())
            .wrap(from_fn(|request, next| {
                require_same_origin(Guarded::StateChanging, request, next)
            }))
            .wrap(from_fn(move |request, next| {
                check_host(hosts.clone(), request, next)
            }))
            .wrap(from_fn(security_headers))
            .app_data(state)
            .app_data(site)
            .app_data(saved)
            .app_data(tabs)
            .service(cluster_routes)
            .configure(saved::api::routes)
            .configure(saved::tabs_api::routes)
            .route("/api/clusters", web::get().to(list_clusters))
            .route("/api/whoami", web::get().to(whoami))
            .route(
                "/api/metrics_server/validate",
                web::post().to(validate_metrics_server),
            )
            .route(
                "/api/prometheus/validate",
                web::post().to(validate_metrics_server),
            )
            .default_service(web::to(web_app::serve)),
    );
}
