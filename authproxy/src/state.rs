//! Everything the handlers share, built once from the settings.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use service_kit::client_tls::ClientTls;
use service_kit::relay_client::RelayClient;

use crate::basic::BasicAuthenticator;
use crate::cluster::{SearchClusterClient, SearchUsers};
use crate::config::{CacheBackend, ForwardAuthCallers, ServerMode, Settings};
use crate::cookies::CookieSigner;
use crate::crypto::CredentialCipher;
use crate::forwarded::TrustedProxies;
use crate::managed::{ManagedOptions, ManagedUsers};
use crate::oidc::OidcProvider;
use crate::oidc::sign_in::SignInFlow;
use crate::redirect::RedirectPolicy;
use crate::roles::RoleMapper;
use crate::session::Sessions;
use crate::store::{KeyValueStore, MemoryStore, RedisStore};

/// Time to open a connection to the search cluster before it counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

pub struct AppState {
    pub mode: ServerMode,
    /// `None` when `basic_auth.enabled` is false.
    pub basic: Option<BasicAuthenticator>,
    /// `None` when `user_management.enabled` is false: the caller's identity is passed on
    /// without search-cluster credentials.
    pub managed: Option<ManagedUsers>,
    pub trusted: TrustedProxies,
    /// Who the forward_auth check answers (`server.forward_auth_callers`).
    pub forward_auth_callers: ForwardAuthCallers,
    pub store: Arc<dyn KeyValueStore>,
    pub cluster: Arc<dyn SearchUsers>,
    /// For the identity provider's health check.
    pub http: reqwest::Client,
    /// The client towards the cluster for user management and its health.
    pub search_http: reqwest::Client,
    /// standalone forwarding's client towards `search.url` (hyper directly, a pool per
    /// worker thread).
    pub relay: RelayClient,
    /// Time the cluster has to start answering a forwarded request.
    pub upstream_timeout: Duration,
    pub oidc_enabled: bool,
    pub oidc_issuer: String,
    /// Browser sessions; `None` without OIDC.
    pub sessions: Option<Sessions>,
    /// OIDC sign-in; `None` without OIDC.
    pub sign_in: Option<SignInFlow>,
    /// Which `rd` targets are allowed after sign-in and logout.
    pub redirects: RedirectPolicy,
    /// Trace context goes to the search cluster only when tracing is on.
    pub tracing_enabled: bool,
}

/// The outbound client settings every reqwest client of this service shares.
fn client_builder() -> reqwest::ClientBuilder {
    service_kit::install_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .pool_idle_timeout(Duration::from_secs(60))
}

impl AppState {
    pub fn build(settings: &Settings) -> anyhow::Result<Self> {
        let http = client_builder()
            .build()
            .context("building the HTTP client")?;
        let search_tls = ClientTls::load(&settings.search.tls).context("search.tls")?;
        if search_tls.skips_verification() {
            tracing::warn!("TLS verification towards the search cluster is off (search.tls)");
        }
        let search_http = search_tls
            .apply(client_builder())
            .build()
            .context("building the search client")?;
        let store: Arc<dyn KeyValueStore> = match settings.cache.backend {
            CacheBackend::Memory => Arc::new(MemoryStore::default()),
            CacheBackend::Redis => {
                Arc::new(RedisStore::new(&settings.cache.redis_url).context("configuring Redis")?)
            }
        };
        let cipher = match &settings.cache.encryption_key {
            Some(key) if !secrecy::ExposeSecret::expose_secret(key).is_empty() => {
                CredentialCipher::new(secrecy::ExposeSecret::expose_secret(key).as_bytes())
                    .context("cache.encryption_key")?
            }
            _ => CredentialCipher::ephemeral(),
        };
        let cluster: Arc<dyn SearchUsers> = Arc::new(
            SearchClusterClient::new(search_http.clone(), &settings.search)
                .context("search.url")?,
        );
        let redirects = RedirectPolicy::new(&settings.session.cookie_domain);
        let (sessions, sign_in) = if settings.oidc.enabled {
            let secret = settings
                .session
                .secret
                .as_ref()
                .map(|secret| secrecy::ExposeSecret::expose_secret(secret).as_bytes())
                .unwrap_or_default();
            let signer = CookieSigner::new(
                secret,
                &settings.session.cookie_domain,
                &settings.oidc.redirect_url,
            )?;
            let provider = OidcProvider::new(&settings.oidc).context("oidc")?;
            let sessions = Sessions::new(
                store.clone(),
                cipher.clone(),
                signer.clone(),
                &settings.session.cookie_name,
                settings.session.ttl,
            );
            let flow = SignInFlow::new(provider, signer, &settings.session.cookie_name);
            (Some(sessions), Some(flow))
        } else {
            (None, None)
        };
        let users = &settings.user_management;
        let managed = users.enabled.then(|| {
            ManagedUsers::new(
                store.clone(),
                cipher,
                cluster.clone(),
                RoleMapper::new(&users.role_mappings, &users.default_search_roles),
                ManagedOptions {
                    ttl: settings.cache.credential_ttl.min(users.credential_ttl),
                    password_length: users.password_length,
                    min_refresh_interval: users.min_refresh_interval,
                    local_names: settings
                        .basic_auth
                        .users
                        .iter()
                        .map(|user| user.username.clone())
                        .collect(),
                },
            )
        });
        Ok(Self {
            mode: settings.server.mode,
            basic: settings
                .basic_auth
                .enabled
                .then(|| BasicAuthenticator::new(&settings.basic_auth)),
            managed,
            trusted: TrustedProxies::new(&settings.server.trusted_proxies),
            forward_auth_callers: settings.server.forward_auth_callers,
            store,
            cluster,
            http,
            search_http,
            relay: RelayClient::new(
                reqwest::Url::parse(&settings.search.url)
                    .context("search.url")?
                    .as_str(),
                &search_tls,
                CONNECT_TIMEOUT,
            ),
            upstream_timeout: settings.server.write_timeout,
            oidc_enabled: settings.oidc.enabled,
            oidc_issuer: settings.oidc.issuer_url.trim_end_matches('/').to_owned(),
            sessions,
            sign_in,
            redirects,
            tracing_enabled: settings.observability.otel_enabled,
        })
    }
}
