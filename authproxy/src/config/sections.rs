//! The sections of the configuration file and their defaults (the specification's example
//! values where it gives one).

use std::time::Duration;

use secrecy::SecretString;
use serde::Deserialize;
use service_kit::client_tls::ClientTlsSettings;

/// `server.mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerMode {
    /// Answers a reverse proxy's authentication sub-request (Traefik forwardAuth, nginx
    /// auth_request) with the managed credentials in headers.
    #[default]
    ForwardAuth,
    /// Forwards every request to `search.url` itself.
    Standalone,
}

service_kit::server_settings! {
    /// `server:` — where to listen, how (forward-auth or standalone) and whom to believe.
    pub struct ServerSettings {
        default_port: 9000;
        default_internal_port: 9001;
        pub mode: ServerMode = ServerMode::ForwardAuth,
        /// Time a client has to send a request's head.
        #[serde(with = "humantime_serde")]
        pub read_timeout: Duration = Duration::from_secs(30),
        /// Time the search cluster has to start answering a forwarded request (504 after it).
        #[serde(with = "humantime_serde")]
        pub write_timeout: Duration = Duration::from_secs(30),
        /// Addresses or CIDR ranges (`10.0.0.0/8`) whose `X-Forwarded-*` / `X-Original-*` headers
        /// are believed. Empty: forwarded headers are ignored.
        pub trusted_proxies: crate::request::forwarded::TrustedProxies =
            crate::request::forwarded::TrustedProxies::default(),
        /// forward_auth: which reverse proxy asks the check, so whose headers name the
        /// original request: `nginx` (`X-Original-URL/-Method`) or `traefik`
        /// (`X-Forwarded-Method/-Proto/-Host/-Uri`); the other's are never read. Unset: traefik.
        pub front_proxy: Option<crate::request::forwarded::FrontProxy> = None,
        /// Who may ask the forward_auth check (which answers with the managed credential).
        pub forward_auth_callers: ForwardAuthCallers = ForwardAuthCallers::TrustedProxies,
    }
}

/// `server.forward_auth_callers`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForwardAuthCallers {
    /// Only peers in `server.trusted_proxies` get an answer; others get 403.
    #[default]
    TrustedProxies,
    /// Any peer: only for a listener that nothing but the reverse proxy can reach.
    Any,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OidcSettings {
    pub enabled: bool,
    pub issuer_url: String,
    pub client_id: String,
    /// `OIDC_CLIENT_SECRET` when empty.
    pub client_secret: Option<SecretString>,
    /// The callback address; its path is the callback route.
    pub redirect_url: String,
    /// Scopes requested; `openid` is always sent. Add `groups` for providers (Dex, Keycloak
    /// with a mapper) that release group membership only under that scope.
    pub scopes: Vec<String>,
    /// The claim that names the search-cluster user; `email`, then `sub` when it is absent.
    pub username_claim: String,
    /// The claim (a list or one string) shown as `X-Auth-Request-Groups`.
    pub groups_claim: String,
    /// Where the provider sends the browser after logout (must be registered there); empty:
    /// the root of the `redirect_url` host.
    pub post_logout_redirect_url: String,
    /// API clients with JWT access tokens from this provider (off by default).
    pub bearer: super::bearer::BearerSettings,
    /// Renewing sessions with their refresh token before the access token expires.
    pub refresh: super::refresh::RefreshSettings,
}

impl Default for OidcSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            issuer_url: String::new(),
            client_id: String::new(),
            client_secret: None,
            redirect_url: String::new(),
            scopes: vec![
                "openid".to_owned(),
                "email".to_owned(),
                "profile".to_owned(),
            ],
            username_claim: "preferred_username".to_owned(),
            groups_claim: "groups".to_owned(),
            post_logout_redirect_url: String::new(),
            bearer: super::bearer::BearerSettings::default(),
            refresh: super::refresh::RefreshSettings::default(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionSettings {
    #[serde(with = "humantime_serde")]
    pub ttl: Duration,
    pub cookie_name: String,
    /// Empty: a host-only cookie.
    pub cookie_domain: String,
    /// Signs session cookies; `SESSION_SECRET` when empty; at least 32 bytes.
    pub secret: Option<SecretString>,
}

impl Default for SessionSettings {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(24 * 3600),
            cookie_name: "_authproxy_session".to_owned(),
            cookie_domain: String::new(),
            secret: None,
        }
    }
}

pub use service_kit::settings::CacheBackend;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheSettings {
    pub backend: CacheBackend,
    /// `REDIS_URL` when empty; required for the redis backend.
    pub redis_url: String,
    #[serde(with = "humantime_serde")]
    pub credential_ttl: Duration,
    /// Exactly 32 bytes; `CACHE_ENCRYPTION_KEY` when empty. Without one, the memory backend
    /// uses a random key for the life of the process.
    pub encryption_key: Option<SecretString>,
}

impl Default for CacheSettings {
    fn default() -> Self {
        Self {
            backend: CacheBackend::Memory,
            redis_url: String::new(),
            credential_ttl: Duration::from_secs(3600),
            encryption_key: None,
        }
    }
}

/// One claim-to-role rule: when the identity's `claim` (or one of its values, for a list)
/// matches the glob `pattern`, the identity gets `search_roles`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleMapping {
    pub claim: String,
    pub pattern: String,
    #[serde(alias = "es_roles")]
    pub search_roles: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UserManagementSettings {
    pub enabled: bool,
    pub password_length: usize,
    /// How long a generated password is used before the user is upserted with a new one.
    #[serde(with = "humantime_serde")]
    pub credential_ttl: Duration,
    pub role_mappings: Vec<RoleMapping>,
    #[serde(alias = "default_es_roles")]
    pub default_search_roles: Vec<String>,
    /// Least time between two refreshes of one managed user after the cluster answered 401.
    #[serde(with = "humantime_serde")]
    pub min_refresh_interval: Duration,
    /// Disabling and deleting managed users nobody used for a while (off by default).
    pub lifecycle: super::lifecycle::LifecycleSettings,
}

impl Default for UserManagementSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            password_length: 32,
            credential_ttl: Duration::from_secs(3600),
            role_mappings: Vec::new(),
            default_search_roles: Vec::new(),
            min_refresh_interval: Duration::from_secs(30),
            lifecycle: super::lifecycle::LifecycleSettings::default(),
        }
    }
}

/// Which security API the search cluster speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchFlavor {
    /// `PUT /_security/user/<name>`.
    #[default]
    Elasticsearch,
    /// `PUT /_plugins/_security/api/internalusers/<name>`.
    Opensearch,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchSettings {
    pub url: String,
    pub flavor: SearchFlavor,
    pub admin_user: String,
    /// `SEARCH_ADMIN_PASSWORD` when empty.
    pub admin_password: Option<SecretString>,
    /// TLS towards the cluster (a private CA, a client certificate); the same block as
    /// admin-console's `clusters[].tls`.
    pub tls: ClientTlsSettings,
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            url: "http://localhost:9200".to_owned(),
            flavor: SearchFlavor::Elasticsearch,
            admin_user: "elastic".to_owned(),
            admin_password: None,
            tls: ClientTlsSettings::default(),
        }
    }
}

/// A local user for HTTP Basic credentials.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalUser {
    pub username: String,
    /// bcrypt (`$2a$`, `$2b$`, `$2y$`), e.g. from `htpasswd -nbB`.
    pub password_hash: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub groups: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BasicAuthSettings {
    pub enabled: bool,
    pub users: Vec<LocalUser>,
    /// How long a successful verification is remembered, so bcrypt does not run per request.
    #[serde(with = "humantime_serde")]
    pub verified_ttl: Duration,
    /// Failed attempts allowed per user name within `failure_window` before 429.
    pub max_failures_per_user: u32,
    /// Failed attempts allowed per source address within `failure_window` before 429.
    pub max_failures_per_address: u32,
    #[serde(with = "humantime_serde")]
    pub failure_window: Duration,
}

impl Default for BasicAuthSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            users: Vec::new(),
            verified_ttl: Duration::from_secs(60),
            max_failures_per_user: 5,
            max_failures_per_address: 20,
            failure_window: Duration::from_secs(60),
        }
    }
}

service_kit::observability_settings! {
    /// `observability:` — logs and metrics, plus OpenTelemetry traces and `/_health`'s reuse.
    pub struct ObservabilitySettings {
        pub otel_enabled: bool = false,
        pub otel_endpoint: String = "http://localhost:4318".to_owned(),
        pub otel_service_name: String = "authproxy".to_owned(),
        pub otel_trace_ratio: f64 = 1.0,
        /// How long `/_health` reuses its last report (the checks reach Redis, the identity
        /// provider and the cluster, and the endpoint needs no credentials). 0s: callers waiting
        /// on a running check still share it.
        #[serde(with = "humantime_serde")]
        pub health_cache_ttl: Duration = Duration::from_secs(5),
    }
}
