//! admin-console settings: the YAML file's shape, its defaults and its validation.

mod access;
mod cluster;
mod saved_queries;

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use service_kit::allowed_hosts::AllowedHosts;
use service_kit::client_address::TrustedProxies;
use service_kit::config::{ConfigProblems, Validate};
use service_kit::settings::{ObservabilitySettings, ServerSection};

pub(crate) use access::compile_glob;
pub use access::{AccessSettings, AuditSettings, ClusterAccess, DEFAULT_ROLE, Role, RoleRule};
pub use cluster::{ClusterAuth, ClusterSettings, ClusterTimeouts, Environment, MetricsSource};
pub(crate) use cluster::{MetricsServerSettings, check_http_url};
pub use saved_queries::{SavedQueriesRedis, SavedQueriesSettings, SavedQueryStoreKind};

/// The default `server.port`.
const DEFAULT_PORT: u16 = 8080;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub server: ServerSettings,
    pub observability: ObservabilitySettings,
    /// The search clusters the console administers, in display order.
    pub clusters: Vec<ClusterSettings>,
    /// The background sampler that feeds the history of `internal` clusters.
    pub internal_history: InternalHistorySettings,
    /// Who is calling (`open` or `trusted_headers`) and what each role may do.
    pub access: AccessSettings,
    /// The audit log of state-changing calls.
    pub audit: AuditSettings,
    /// Where the console's saved queries are kept (embedded file or Redis).
    pub saved_queries: SavedQueriesSettings,
}

service_kit::server_settings! {
    /// `server:` — where to listen, and where the built web app is.
    pub struct ServerSettings {
        default_port: DEFAULT_PORT;
        default_internal_port: 8081;
        /// Directory of the built web app (`npm run build` in `admin-console/web` writes
        /// `admin-console/web/dist`). Relative paths are taken from the working directory, so the
        /// default suits `make run` from the repository root; containers set an absolute path.
        /// When it does not exist the API still works and `/` says the web app is not built.
        pub static_dir: PathBuf = PathBuf::from("admin-console/web/dist"),
        /// The `Host` names answered (DNS-rebinding protection); empty answers every name.
        pub allowed_hosts: AllowedHosts = AllowedHosts::default(),
        /// Addresses or CIDR ranges (`10.0.0.0/8`) of the reverse proxies (authproxy's
        /// forward_auth in front): only their `X-Forwarded-For`, `X-Request-Id` and, in
        /// `access.mode: trusted_headers`, `X-Auth-Request-*` headers are believed.
        pub trusted_proxies: TrustedProxies = TrustedProxies::default(),
    }
}

/// `internal_history:` — how often `internal` clusters are sampled and how much is kept.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InternalHistorySettings {
    /// Time between two samples of each cluster (three light calls each).
    #[serde(with = "humantime_serde")]
    pub sample_interval: Duration,
    /// How far back samples are kept; memory is bounded by `retention / sample_interval`
    /// samples per cluster.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
}

impl Default for InternalHistorySettings {
    fn default() -> Self {
        Self {
            sample_interval: Duration::from_secs(60),
            retention: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

/// The most samples kept per cluster, whatever the settings say (about 100 bytes each).
const MAX_SAMPLES_PER_CLUSTER: usize = 100_000;

impl InternalHistorySettings {
    pub(crate) fn capacity(&self) -> usize {
        let interval = self.sample_interval.as_secs_f64().max(1.0);
        ((self.retention.as_secs_f64() / interval).ceil() as usize)
            .clamp(1, MAX_SAMPLES_PER_CLUSTER)
    }

    fn validate(&self, problems: &mut ConfigProblems) {
        problems.check(
            self.sample_interval >= Duration::from_secs(1),
            "internal_history.sample_interval",
            "must be at least 1s",
        );
        problems.check(
            self.retention >= self.sample_interval,
            "internal_history.retention",
            "must be at least one sample_interval",
        );
    }
}

impl Validate for Settings {
    fn validate(&self, problems: &mut ConfigProblems) {
        self.server.validate_listen(problems);
        problems.check(
            !self.server.static_dir.as_os_str().is_empty(),
            "server.static_dir",
            "must not be empty",
        );
        self.server
            .allowed_hosts
            .validate("server.allowed_hosts", problems);
        self.internal_history.validate(problems);
        problems.check(
            !self.clusters.is_empty(),
            "clusters",
            "no cluster is configured: the console administers the clusters listed here; add at \
             least one with its id, name and url (clusters: [{id: main, name: Main, url: \
             'https://search.internal:9200'}], see examples/admin-console.yaml)",
        );
        self.access.validate(problems);
        self.audit.validate(problems);
        self.saved_queries.validate(problems);
        for (index, cluster) in self.clusters.iter().enumerate() {
            cluster.validate(&format!("clusters[{index}]"), problems);
        }
        for (index, cluster) in self.clusters.iter().enumerate() {
            if let Some(first) = self.clusters[..index]
                .iter()
                .position(|earlier| earlier.id == cluster.id)
            {
                problems.push(
                    format!("clusters[{index}].id"),
                    format!(
                        "\"{}\" is already the id of clusters[{first}]; ids must be unique",
                        cluster.id
                    ),
                );
            }
        }
    }

    fn warnings(&self, warnings: &mut ConfigProblems) {
        let per_cluster = self.clusters.iter().any(|cluster| cluster.access.is_some());
        self.access
            .warnings(&self.server.trusted_proxies, per_cluster, warnings);
        self.audit.warnings(warnings);
    }
}

service_kit::service_settings!(Settings);
