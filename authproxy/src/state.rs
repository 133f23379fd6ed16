//! Everything the handlers share, built once from the settings.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use service_kit::client_tls::ClientTls;
use service_kit::relay_client::RelayClient;

use crate::authn::basic::BasicAuthenticator;
use crate::authn::bearer::BearerTokens;
use crate::authn::cookies::CookieSigner;
use crate::authn::oidc::OidcProvider;
use crate::authn::oidc::sign_in::SignInFlow;
use crate::authn::refresh::SessionRefresher;
use crate::authn::session::Sessions;
use crate::authn::tokens::PersonalTokens;
use crate::authz::Authorizer;
use crate::authz::roles::RoleMapper;
use crate::config::{CacheBackend, ForwardAuthCallers, ServerMode, Settings};
use crate::crypto::CredentialCipher;
use crate::request::forwarded::{FrontProxy, TrustedProxies};
use crate::request::redirect::RedirectPolicy;
use crate::store::{KeyValueStore, MemoryStore, RedisStore};
use crate::upstream::cluster::{SearchClusterClient, SearchUsers};
use crate::upstream::managed::lifecycle::{Lifecycle, LifecycleCounts, LifecycleTask};
use crate::upstream::managed::{ManagedOptions, ManagedUsers};

/// Time to open a connection to the search cluster before it counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

pub struct AppState {
    pub(crate) mode: ServerMode,
    /// `None` when `basic_auth.enabled` is false.
    pub(crate) basic: Option<BasicAuthenticator>,
    /// `None` when `user_management.enabled` is false: the caller's identity is passed on
    /// without search-cluster credentials.
    pub(crate) managed: Option<ManagedUsers>,
    pub(crate) trusted: TrustedProxies,
    /// Whose header contract names the original request (`server.front_proxy`).
    pub(crate) front_proxy: FrontProxy,
    /// Who the forward_auth check answers (`server.forward_auth_callers`).
    pub(crate) forward_auth_callers: ForwardAuthCallers,
    pub(crate) store: Arc<dyn KeyValueStore>,
    pub(crate) cluster: Arc<dyn SearchUsers>,
    /// For the identity provider's health check.
    pub(crate) http: reqwest::Client,
    /// standalone forwarding's client towards `search.url` (hyper directly, a pool per
    /// worker thread).
    pub(crate) relay: RelayClient,
    /// Time the cluster has to start answering a forwarded request.
    pub(crate) upstream_timeout: Duration,
    /// OIDC sign-in and its browser sessions; `None` when `oidc.enabled` is false.
    pub oidc: Option<Oidc>,
    /// Which `rd` targets are allowed after sign-in and logout.
    pub(crate) redirects: RedirectPolicy,
    /// Trace context goes to the search cluster only when tracing is on.
    pub(crate) tracing_enabled: bool,
    /// Who may enter once authenticated (`authorization`).
    pub(crate) authorizer: Authorizer,
    /// The managed-user lifecycle sweep, when `user_management.lifecycle.enabled`.
    lifecycle: Option<LifecycleTask>,
}

/// What OIDC brings, all or nothing: the provider's issuer (for its health check), the sign-in
/// flow and the browser sessions it creates, and API clients' bearer tokens when
/// `oidc.bearer.enabled`.
pub struct Oidc {
    /// `oidc.issuer_url` without a trailing `/`.
    pub(crate) issuer: String,
    pub sign_in: SignInFlow,
    pub(crate) sessions: Sessions,
    /// Renews sessions before their access token expires; `None` when `oidc.refresh` is off.
    pub(crate) refresher: Option<SessionRefresher>,
    pub(crate) bearer: Option<BearerTokens>,
    /// Personal access tokens, when `personal_tokens.enabled`.
    pub(crate) tokens: Option<PersonalTokens>,
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
            SearchClusterClient::new(search_http, &settings.search).context("search.url")?,
        );
        let redirects = RedirectPolicy::new(&settings.session.cookie_domain);
        let oidc = if settings.oidc.enabled {
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
            let sign_in = SignInFlow::new(provider, signer, &settings.session.cookie_name);
            let tokens = settings.personal_tokens.enabled.then(|| {
                PersonalTokens::new(store.clone(), cipher.clone(), &settings.personal_tokens)
            });
            Some(Oidc {
                issuer: settings.oidc.issuer_url.trim_end_matches('/').to_owned(),
                sign_in,
                sessions,
                refresher: (settings.oidc.refresh.enabled)
                    .then(|| SessionRefresher::new(settings.oidc.refresh.before_expiry)),
                bearer: settings
                    .oidc
                    .bearer
                    .enabled
                    .then(|| BearerTokens::new(&settings.oidc)),
                tokens,
            })
        } else {
            None
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
                    lifecycle: users.lifecycle.enabled.then(|| users.lifecycle.clone()),
                },
            )
        });
        let lifecycle = (users.enabled && users.lifecycle.enabled)
            .then(|| {
                Lifecycle::new(
                    store.clone(),
                    cluster.clone(),
                    users.lifecycle.clone(),
                    settings.search.flavor,
                )
                .spawn()
            })
            .flatten();
        Ok(Self {
            mode: settings.server.mode,
            basic: settings
                .basic_auth
                .enabled
                .then(|| BasicAuthenticator::new(&settings.basic_auth)),
            managed,
            trusted: settings.server.trusted_proxies.clone(),
            front_proxy: settings.server.front_proxy.unwrap_or_default(),
            forward_auth_callers: settings.server.forward_auth_callers,
            store,
            cluster,
            http,
            relay: RelayClient::new(
                reqwest::Url::parse(&settings.search.url)
                    .context("search.url")?
                    .as_str(),
                &search_tls,
                CONNECT_TIMEOUT,
            ),
            upstream_timeout: settings.server.write_timeout,
            oidc,
            redirects,
            tracing_enabled: settings.observability.otel_enabled,
            authorizer: Authorizer::new(
                &settings.authorization,
                settings.server.mode,
                settings.identity_sources(),
            ),
            lifecycle,
        })
    }

    /// What this replica's lifecycle sweep did (for tests); `None` when it is off.
    #[doc(hidden)]
    pub fn lifecycle_counts(&self) -> Option<&LifecycleCounts> {
        self.lifecycle.as_ref().map(|task| &task.lifecycle.counts)
    }
}
