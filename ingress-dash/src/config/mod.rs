//! ingress-dash settings: the YAML file's shape, its defaults and its validation.

use std::path::PathBuf;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use service_kit::allowed_hosts::AllowedHosts;
use service_kit::client_address::TrustedProxies;
use service_kit::config::{ConfigProblems, Validate, VariableSource};
use service_kit::settings::{ObservabilitySettings, ServerSection};

mod features;

pub use crate::access::AccessSettings;
use crate::names::is_dns1123_label;
pub use features::{BackendSettings, CertificateSettings, GatewayApiSettings};

/// The default `server.port` (the specification's 3000); the `PORT` environment variable
/// overrides both it and the file.
pub const DEFAULT_PORT: u16 = 3000;

/// The default `kubernetes.max_watchers`.
pub const DEFAULT_MAX_WATCHERS: usize = 200;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub server: ServerSettings,
    pub kubernetes: KubernetesSettings,
    pub cache: CacheSettings,
    pub rate_limit: RateLimitSettings,
    pub stream: StreamSettings,
    pub resilience: ResilienceSettings,
    pub annotations: AnnotationSettings,
    pub observability: ObservabilitySettings,
    /// Sign-in (`trusted_headers`) and namespace visibility per group.
    pub access: AccessSettings,
    /// Backend Services' state (Services and EndpointSlices).
    pub backends: BackendSettings,
    /// TLS certificates (Secrets, opt-in; cert-manager Certificates).
    pub certificates: CertificateSettings,
    /// Gateway API HTTPRoutes.
    pub gateway_api: GatewayApiSettings,
}

service_kit::server_settings! {
    /// `server:`: where to listen, and the built web app to serve.
    pub struct ServerSettings {
        default_port: DEFAULT_PORT;
        default_internal_port: 3001;
        /// Directory of the built web app (`index.html` and `assets/`); absent: API only.
        pub static_dir: Option<PathBuf> = None,
        /// The `Host` names answered (DNS-rebinding protection); empty answers every name.
        pub allowed_hosts: AllowedHosts = AllowedHosts::default(),
        /// Reverse proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client
        /// for rate limiting, and whose `X-Auth-Request-*` headers name the user in
        /// `access.mode: trusted_headers`; empty: the TCP peer is the client.
        pub trusted_proxies: TrustedProxies = TrustedProxies::default(),
    }
}

/// `kubernetes:`: how to reach the API and what to watch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KubernetesSettings {
    /// An API server URL used as is, without credentials (tests, `kubectl proxy`). Absent: the
    /// kubeconfig below, else `KUBECONFIG`/`~/.kube/config`, else the in-cluster service account.
    pub api_url: Option<String>,
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Namespaces to watch, for namespace-scoped installs without permission to list
    /// namespaces. Empty: every namespace, with one cluster-wide watcher.
    pub namespaces: Vec<String>,
    /// How long a watcher keeps running after its last subscriber left.
    #[serde(with = "humantime_serde")]
    pub watch_grace_period: Duration,
    /// Time-out of each list request.
    #[serde(with = "humantime_serde")]
    pub request_timeout: Duration,
    /// Time-out of the health check (the specification's 5 seconds).
    #[serde(with = "humantime_serde")]
    pub health_timeout: Duration,
    /// Page size of the watchers' initial lists.
    pub page_size: u32,
    /// Server-side time-out of each watch request (`timeoutSeconds`); the watcher re-watches
    /// from its last resourceVersion when it ends.
    #[serde(with = "humantime_serde")]
    pub watch_timeout: Duration,
    /// Watchers running at once, over every client; a request that would start more is
    /// refused with 503 until idle ones have stopped (`watch_grace_period`).
    pub max_watchers: usize,
    /// How long a watcher whose list or watch got a permanent error (401, 403, 404, other 4xx)
    /// waits before it tries again; there is no live reload, so a fixed RBAC is also picked up
    /// at once by a restart.
    #[serde(with = "humantime_serde")]
    pub permanent_error_retry: Duration,
}

impl Default for KubernetesSettings {
    fn default() -> Self {
        Self {
            api_url: None,
            kubeconfig: None,
            context: None,
            namespaces: Vec::new(),
            watch_grace_period: Duration::from_secs(30),
            request_timeout: Duration::from_secs(10),
            health_timeout: Duration::from_secs(5),
            page_size: 500,
            watch_timeout: Duration::from_secs(290),
            max_watchers: DEFAULT_MAX_WATCHERS,
            permanent_error_retry: Duration::from_secs(300),
        }
    }
}

pub use service_kit::settings::CacheBackend;

/// `cache:`: list results, in memory or in Redis (shared by replicas).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheSettings {
    pub backend: CacheBackend,
    /// `redis://[:password@]host:port/db`; required for the redis backend.
    pub redis_url: Option<SecretString>,
    #[serde(with = "humantime_serde")]
    pub ttl: Duration,
    /// Entries kept by the memory backend.
    pub max_entries: u64,
}

impl Default for CacheSettings {
    fn default() -> Self {
        Self {
            backend: CacheBackend::Memory,
            redis_url: None,
            ttl: Duration::from_secs(5),
            max_entries: 1000,
        }
    }
}

/// `rate_limit:`: the per-client token bucket on `/api/`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitSettings {
    pub enabled: bool,
    /// Bucket size.
    pub burst: u32,
    /// Tokens added per second.
    pub per_second: u32,
}

impl Default for RateLimitSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            burst: 100,
            per_second: 10,
        }
    }
}

/// `stream:`: the SSE endpoint's limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StreamSettings {
    /// Namespaces one request may name.
    pub max_namespaces: usize,
    /// Concurrent stream clients; more get 503.
    pub max_clients: usize,
    /// Events kept for `Last-Event-ID` resumes.
    pub replay_buffer: usize,
    /// Events queued for one client before it is resynced.
    pub client_buffer: usize,
    #[serde(with = "humantime_serde")]
    pub heartbeat_interval: Duration,
    /// The `retry:` the browser is told.
    #[serde(with = "humantime_serde")]
    pub retry: Duration,
    /// How long one stream lasts at most: then it ends after a whole event and the browser
    /// reconnects through the front door (signed-in and authorized again), resuming from its
    /// `Last-Event-ID`.
    #[serde(with = "humantime_serde")]
    pub max_lifetime: Duration,
}

impl Default for StreamSettings {
    fn default() -> Self {
        Self {
            max_namespaces: 50,
            max_clients: 5000,
            replay_buffer: 4096,
            client_buffer: 1024,
            heartbeat_interval: Duration::from_secs(15),
            retry: Duration::from_secs(3),
            max_lifetime: Duration::from_secs(300),
        }
    }
}

/// `resilience:`: retries and the circuit breaker (specification section 8).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResilienceSettings {
    /// Attempts in total, the first one included.
    pub retry_max_attempts: usize,
    #[serde(with = "humantime_serde")]
    pub retry_initial_delay: Duration,
    #[serde(with = "humantime_serde")]
    pub retry_max_delay: Duration,
    pub retry_multiplier: f32,
    /// Failure share (0..1) over the window that opens the breaker.
    pub breaker_failure_rate: f64,
    #[serde(with = "humantime_serde")]
    pub breaker_window: Duration,
    /// Calls in the window before the failure rate counts.
    pub breaker_min_calls: usize,
    /// Time open before one probe is let through.
    #[serde(with = "humantime_serde")]
    pub breaker_open_for: Duration,
}

impl Default for ResilienceSettings {
    fn default() -> Self {
        Self {
            retry_max_attempts: 3,
            retry_initial_delay: Duration::from_secs(1),
            retry_max_delay: Duration::from_secs(30),
            retry_multiplier: 2.0,
            breaker_failure_rate: 0.5,
            breaker_window: Duration::from_secs(30),
            breaker_min_calls: 10,
            breaker_open_for: Duration::from_secs(60),
        }
    }
}

/// `annotations:`: which annotation values are replaced by `<redacted>` in every payload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AnnotationSettings {
    /// Glob patterns of annotation keys (case-insensitive; `*` crosses `/`), on top of the
    /// built-in ones ([`crate::access::redaction::DEFAULT_PATTERNS`]).
    pub redact: Vec<crate::access::redaction::RedactPattern>,
    /// Whether the built-in patterns apply.
    pub redact_defaults: bool,
}

impl Default for AnnotationSettings {
    fn default() -> Self {
        Self {
            redact: Vec::new(),
            redact_defaults: true,
        }
    }
}

impl Validate for Settings {
    /// `PORT` overrides `server.port`, as the specification and most platforms expect.
    fn apply_environment(&mut self, env: &dyn VariableSource, problems: &mut ConfigProblems) {
        if let Some(port) = env.get("PORT") {
            match port.trim().parse() {
                Ok(port) => self.server.port = port,
                Err(_) => problems.push("PORT", "must be a port number between 0 and 65535"),
            }
        }
    }

    fn warnings(&self, warnings: &mut ConfigProblems) {
        self.access.warnings(&self.server.trusted_proxies, warnings);
    }

    fn validate(&self, problems: &mut ConfigProblems) {
        self.server.validate_listen(problems);
        self.server
            .allowed_hosts
            .validate("server.allowed_hosts", problems);
        self.access.validate(problems);
        self.certificates.validate(problems);
        let kube = &self.kubernetes;
        if let Some(url) = &kube.api_url {
            problems.check(
                url.starts_with("http://") || url.starts_with("https://"),
                "kubernetes.api_url",
                "must be an http:// or https:// URL",
            );
        }
        for namespace in &kube.namespaces {
            problems.check(
                is_dns1123_label(namespace),
                "kubernetes.namespaces",
                format!("\"{namespace}\" is not a valid namespace name (a DNS-1123 label)"),
            );
        }
        problems.check(
            kube.health_timeout > Duration::ZERO && kube.request_timeout > Duration::ZERO,
            "kubernetes.request_timeout",
            "time-outs must be longer than zero",
        );
        problems.check(
            kube.max_watchers > 0,
            "kubernetes.max_watchers",
            "must be at least 1",
        );
        problems.check(
            kube.max_watchers >= kube.namespaces.len(),
            "kubernetes.max_watchers",
            "must be at least the number of kubernetes.namespaces, or \"all namespaces\" could never be shown",
        );
        problems.check(
            kube.permanent_error_retry >= Duration::from_secs(1),
            "kubernetes.permanent_error_retry",
            "must be at least 1s",
        );
        problems.check(
            kube.page_size > 0,
            "kubernetes.page_size",
            "must be at least 1",
        );
        if self.cache.backend == CacheBackend::Redis {
            let url = self.cache.redis_url.as_ref().map(|url| url.expose_secret());
            problems.check(
                url.is_some_and(|url| url.starts_with("redis://") || url.starts_with("rediss://")),
                "cache.redis_url",
                "must be a redis:// or rediss:// URL when cache.backend is redis",
            );
        }
        problems.check(
            self.cache.max_entries > 0,
            "cache.max_entries",
            "must be at least 1",
        );
        if self.rate_limit.enabled {
            problems.check(
                self.rate_limit.burst > 0,
                "rate_limit.burst",
                "must be at least 1",
            );
            problems.check(
                self.rate_limit.per_second > 0,
                "rate_limit.per_second",
                "must be at least 1",
            );
        }
        let stream = &self.stream;
        problems.check(
            stream.max_namespaces > 0,
            "stream.max_namespaces",
            "must be at least 1",
        );
        problems.check(
            stream.max_clients > 0,
            "stream.max_clients",
            "must be at least 1",
        );
        problems.check(
            stream.replay_buffer > 0,
            "stream.replay_buffer",
            "must be at least 1",
        );
        problems.check(
            stream.client_buffer > 0,
            "stream.client_buffer",
            "must be at least 1",
        );
        problems.check(
            stream.heartbeat_interval >= Duration::from_secs(1),
            "stream.heartbeat_interval",
            "must be at least 1s",
        );
        problems.check(
            (Duration::from_secs(1)..=Duration::from_secs(24 * 3600))
                .contains(&stream.max_lifetime),
            "stream.max_lifetime",
            "must be between 1s and 24h",
        );
        let resilience = &self.resilience;
        problems.check(
            (1..=10).contains(&resilience.retry_max_attempts),
            "resilience.retry_max_attempts",
            "must be between 1 and 10",
        );
        problems.check(
            resilience.retry_multiplier >= 1.0,
            "resilience.retry_multiplier",
            "must be at least 1",
        );
        problems.check(
            resilience.retry_initial_delay <= resilience.retry_max_delay,
            "resilience.retry_initial_delay",
            "must not exceed resilience.retry_max_delay",
        );
        problems.check(
            resilience.breaker_failure_rate > 0.0 && resilience.breaker_failure_rate <= 1.0,
            "resilience.breaker_failure_rate",
            "must be above 0 and at most 1",
        );
        problems.check(
            resilience.breaker_window >= Duration::from_secs(1),
            "resilience.breaker_window",
            "must be at least 1s",
        );
    }
}

service_kit::service_settings!(Settings);

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use service_kit::config::ConfigLoader;

    use super::*;

    fn load(yaml: &str, env: &[(&str, &str)]) -> Result<Settings, ConfigProblems> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        ConfigLoader::new("INGRESS_DASH")
            .with_env(env)
            .load_str(yaml)
    }

    #[test]
    fn port_defaults_to_3000() {
        assert_eq!(load("", &[]).unwrap().server.port, 3000);
    }

    #[test]
    fn port_variable_overrides_file_and_default() {
        assert_eq!(
            load("server:\n  port: 4000\n", &[("PORT", "8081")])
                .unwrap()
                .server
                .port,
            8081
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let problems = load(
            "kubernetes:\n  namespaces: [Bad_Name]\ncache:\n  backend: redis\nresilience:\n  retry_max_attempts: 0\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(problems.contains("kubernetes.namespaces"), "{problems}");
        assert!(problems.contains("cache.redis_url"), "{problems}");
        assert!(
            problems.contains("resilience.retry_max_attempts"),
            "{problems}"
        );
    }

    #[test]
    fn defaults_follow_the_specification() {
        let settings = load("", &[]).unwrap();
        assert_eq!(settings.kubernetes.health_timeout, Duration::from_secs(5));
        assert_eq!(settings.resilience.retry_max_attempts, 3);
        assert_eq!(
            settings.resilience.breaker_open_for,
            Duration::from_secs(60)
        );
        assert_eq!(
            (settings.rate_limit.burst, settings.rate_limit.per_second),
            (100, 10)
        );
        assert_eq!(settings.stream.heartbeat_interval, Duration::from_secs(15));
        assert_eq!(
            settings.kubernetes.permanent_error_retry,
            Duration::from_secs(300)
        );
        let problems = load("kubernetes:\n  permanent_error_retry: 0s\n", &[])
            .unwrap_err()
            .to_string();
        assert!(
            problems.contains("kubernetes.permanent_error_retry"),
            "{problems}"
        );
    }

    #[test]
    fn redaction_patterns_and_watcher_limit_are_validated() {
        let problems = load(
            "kubernetes:\n  namespaces: [a, b]\n  max_watchers: 1\nannotations:\n  redact: [\"ok-*\", \"bad-[a\"]\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(problems.contains("annotations.redact[1]"), "{problems}");
        assert!(!problems.contains("annotations.redact[0]"), "{problems}");
        assert!(problems.contains("kubernetes.max_watchers"), "{problems}");
        let settings = load("", &[]).unwrap();
        assert!(settings.annotations.redact_defaults);
        assert_eq!(settings.kubernetes.max_watchers, 200);
    }

    #[test]
    fn stream_lifetime_is_validated() {
        assert_eq!(
            load("", &[]).unwrap().stream.max_lifetime,
            Duration::from_secs(300)
        );
        for bad in ["0s", "500ms", "25h"] {
            let problems = load(&format!("stream:\n  max_lifetime: {bad}\n"), &[])
                .unwrap_err()
                .to_string();
            assert!(
                problems.contains("stream.max_lifetime"),
                "{bad}: {problems}"
            );
        }
        let settings = load("stream:\n  max_lifetime: 1s\n", &[]).unwrap();
        assert_eq!(settings.stream.max_lifetime, Duration::from_secs(1));
    }

    #[test]
    fn what_is_read_beside_ingresses_has_safe_defaults_and_is_validated() {
        let settings = load("", &[]).unwrap();
        assert!(settings.backends.enabled);
        assert!(!settings.certificates.read_secrets, "Secrets are opt-in");
        assert!(settings.certificates.cert_manager);
        assert_eq!(settings.certificates.expiry_warning_days, 14);
        assert!(settings.gateway_api.enabled);
        let settings = load(
            "certificates:\n  read_secrets: true\n  expiry_warning_days: 30\ngateway_api:\n  enabled: false\n",
            &[],
        )
        .unwrap();
        assert!(settings.certificates.read_secrets);
        assert_eq!(settings.certificates.expiry_warning_days, 30);
        assert!(!settings.gateway_api.enabled);
        for days in ["0", "3651"] {
            let problems = load(
                &format!("certificates:\n  expiry_warning_days: {days}\n"),
                &[],
            )
            .unwrap_err()
            .to_string();
            assert!(
                problems.contains("certificates.expiry_warning_days"),
                "{problems}"
            );
        }
        let problems = load("certificates:\n  read_secret: true\n", &[])
            .unwrap_err()
            .to_string();
        assert!(problems.contains("read_secret"), "{problems}");
    }

    #[test]
    fn bad_port_variable_is_a_problem() {
        let problems = load("", &[("PORT", "http")]).unwrap_err().to_string();
        assert_eq!(problems, "PORT: must be a port number between 0 and 65535");
    }
}
