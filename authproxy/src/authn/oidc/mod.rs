//! OpenID Connect with the `openidconnect` crate: discovery from `oidc.issuer_url` (lazily, so
//! the service starts while the provider is down, and again, at most once per
//! [`KEY_REFETCH_INTERVAL`], when an ID token or a bearer access token names a key id the cached
//! key set lacks or its signature does not verify under a cached key: a provider restarted with
//! a new key under the same key id), the authorization request (code flow, PKCE S256, `state`,
//! `nonce`, optional `login_hint`), the code exchange, ID token verification, userinfo, the
//! RP-initiated logout URL, and JWT access tokens under the same keys ([`access_token`]).

mod access_token;
mod claims;
mod http;
mod refresh;
pub mod sign_in;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreIdToken, CoreIdTokenVerifier, CoreJwsSigningAlgorithm,
};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, EndSessionUrl,
    EndpointMaybeSet, EndpointNotSet, EndpointSet, IssuerUrl, JwsSigningAlgorithm, LogoutRequest,
    Nonce, OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier, PostLogoutRedirectUrl,
    ProviderMetadataWithLogout, RedirectUrl, RequestTokenError, Scope, SignatureVerificationError,
    UserInfoUrl,
};
use secrecy::ExposeSecret;
use serde_json::{Map, Value};

pub(crate) use access_token::AccessTokenRules;
pub use claims::identity_from_claims;
pub use http::ProviderHttp;
pub(crate) use refresh::{RefreshFailure, Refreshed};

use crate::config::OidcSettings;
use crate::config::refresh::{OFFLINE_ACCESS, adds_offline_access, offers_offline_access};
use crate::error::{Error, ProviderFailure};

/// Keys are fetched again because of an ID token at most this often, whatever ID tokens claim,
/// so forged tokens cannot make the proxy hammer the provider.
pub const KEY_REFETCH_INTERVAL: Duration = Duration::from_secs(30);
/// Longest `login_hint` passed on to the provider.
const MAX_LOGIN_HINT_LEN: usize = 256;

type DiscoveredClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

struct Discovered {
    client: DiscoveredClient,
    metadata: ProviderMetadataWithLogout,
    end_session: Option<EndSessionUrl>,
    userinfo: Option<UserInfoUrl>,
    /// The ID token signing algorithms accepted: the provider's asymmetric ones.
    accepted_algs: Vec<CoreJwsSigningAlgorithm>,
}

impl Discovered {
    /// Signature with the provider's keys and an accepted algorithm, issuer, audience (no
    /// other audience trusted), expiry, issue time and nonce.
    fn id_token_verifier(&self) -> CoreIdTokenVerifier<'_> {
        self.client
            .id_token_verifier()
            .set_allowed_algs(self.accepted_algs.iter().cloned())
    }
}

/// Why an ID token was refused, for the error body and the log.
fn refusal(error: &ClaimsVerificationError) -> &'static str {
    match error {
        ClaimsVerificationError::InvalidNonce(_) => "the ID token's nonce does not match",
        ClaimsVerificationError::InvalidAudience(_) => "the ID token was issued to another client",
        ClaimsVerificationError::InvalidIssuer(_) => "the ID token comes from another issuer",
        ClaimsVerificationError::Expired(_) => "the ID token has expired",
        ClaimsVerificationError::SignatureVerification(
            SignatureVerificationError::DisallowedAlg(_)
            | SignatureVerificationError::NoSignature
            | SignatureVerificationError::UnsupportedAlg(_),
        ) => "the ID token is not signed with an accepted algorithm",
        ClaimsVerificationError::SignatureVerification(_) => {
            "the ID token's signature does not verify"
        }
        _ => "the ID token is not valid for this client",
    }
}

/// What `/auth/start` sends the browser to, and what the callback needs to finish.
pub struct AuthorizationStart {
    pub url: String,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
}

/// A verified sign-in: every claim of the ID token (and userinfo) and the raw ID token.
pub struct SignedIn {
    pub claims: Map<String, Value>,
    pub id_token: String,
    /// For renewing the session (`oidc.refresh`), when the provider issued one.
    pub refresh_token: Option<String>,
    /// When the access token expires (Unix seconds), when the provider said.
    pub access_expires_at: Option<u64>,
}

pub struct OidcProvider {
    issuer: IssuerUrl,
    client_id: ClientId,
    client_secret: Option<ClientSecret>,
    redirect: RedirectUrl,
    scopes: Vec<String>,
    /// Ask for `offline_access` too (`oidc.refresh` needs a refresh token), when offered.
    adds_offline_access: bool,
    post_logout: String,
    pub username_claim: String,
    pub groups_claim: String,
    http: ProviderHttp,
    discovered: tokio::sync::RwLock<Option<Arc<Discovered>>>,
    /// When an ID token last made the keys be fetched again (the first discovery is not one).
    last_refetch: Mutex<Option<Instant>>,
    /// Successful fetches of the provider's metadata and keys.
    key_fetches: AtomicU64,
}

impl OidcProvider {
    pub(crate) fn new(settings: &OidcSettings) -> anyhow::Result<Self> {
        let redirect = RedirectUrl::new(settings.redirect_url.clone())?;
        let post_logout = if settings.post_logout_redirect_url.is_empty() {
            let mut root = redirect.url().clone();
            root.set_path("/");
            root.set_query(None);
            root.to_string()
        } else {
            settings.post_logout_redirect_url.clone()
        };
        Ok(Self {
            issuer: IssuerUrl::new(settings.issuer_url.clone())?,
            client_id: ClientId::new(settings.client_id.clone()),
            client_secret: settings
                .client_secret
                .as_ref()
                .map(|secret| ClientSecret::new(secret.expose_secret().to_owned())),
            redirect,
            scopes: settings.scopes.clone(),
            adds_offline_access: adds_offline_access(settings),
            post_logout,
            username_claim: settings.username_claim.clone(),
            groups_claim: settings.groups_claim.clone(),
            http: ProviderHttp::new()?,
            discovered: tokio::sync::RwLock::new(None),
            last_refetch: Mutex::new(None),
            key_fetches: AtomicU64::new(0),
        })
    }

    /// `scheme://host[:port]` of `oidc.redirect_url`: the proxy's public address.
    pub(crate) fn public_origin(&self) -> String {
        self.redirect.url().origin().ascii_serialization()
    }

    /// The issuer as configured, for the callback's `iss` parameter (RFC 9207).
    pub(crate) fn issuer(&self) -> &str {
        self.issuer.as_str()
    }

    /// The callback path (from `oidc.redirect_url`).
    pub(crate) fn callback_path(&self) -> String {
        self.redirect.url().path().to_owned()
    }

    async fn discovered(&self) -> Result<Arc<Discovered>, Error> {
        if let Some(discovered) = self.discovered.read().await.as_ref() {
            return Ok(discovered.clone());
        }
        self.discover(None)
            .await?
            .ok_or(Error::ProviderUnavailable(ProviderFailure::Other(
                "the provider's keys could not be fetched".to_owned(),
            )))
    }

    /// Fetches the metadata and keys: the first time (`stale` is `None`), or again because an
    /// ID token did not verify under `stale`, unless `stale` was already replaced or the last
    /// such refetch is less than [`KEY_REFETCH_INTERVAL`] ago (then `Ok(None)`).
    async fn discover(
        &self,
        stale: Option<&Arc<Discovered>>,
    ) -> Result<Option<Arc<Discovered>>, Error> {
        let mut slot = self.discovered.write().await;
        if let Some(current) = slot.as_ref() {
            let Some(stale) = stale else {
                return Ok(Some(current.clone()));
            };
            if !Arc::ptr_eq(stale, current) {
                return Ok(Some(current.clone()));
            }
            let mut last = self.last_refetch.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|at| at.elapsed() < KEY_REFETCH_INTERVAL) {
                tracing::warn!(
                    "a token (ID or access token) did not verify under the cached keys, which \
                     were fetched again less than {}s ago; not fetched again",
                    KEY_REFETCH_INTERVAL.as_secs()
                );
                return Ok(None);
            }
            // Counted before the fetch, so a provider that fails also waits the interval.
            *last = Some(Instant::now());
            tracing::info!(
                "a token (ID or access token) did not verify under the cached keys; fetching \
                 the identity provider's keys again"
            );
        }
        let metadata = ProviderMetadataWithLogout::discover_async(self.issuer.clone(), &self.http)
            .await
            .map_err(|error| {
                Error::ProviderUnavailable(ProviderFailure::Discovery(Box::new(error)))
            })?;
        self.key_fetches.fetch_add(1, Ordering::Relaxed);
        let discovered = Arc::new(self.client_for(metadata));
        *slot = Some(discovered.clone());
        Ok(Some(discovered))
    }

    /// Runs `check` under the keys of `discovered`; when no key matches or the signature does
    /// not verify, fetches the keys again (within [`KEY_REFETCH_INTERVAL`]'s limit) and runs it
    /// once more. The outer error is the provider's (unreachable), the inner the token's.
    async fn with_current_keys<T>(
        &self,
        discovered: Arc<Discovered>,
        check: impl Fn(&Discovered) -> Result<T, ClaimsVerificationError>,
    ) -> Result<Result<T, ClaimsVerificationError>, Error> {
        match check(&discovered) {
            Err(
                error @ ClaimsVerificationError::SignatureVerification(
                    SignatureVerificationError::NoMatchingKey
                    | SignatureVerificationError::CryptoError(_),
                ),
            ) => {
                // The provider rotated its keys since they were fetched (a new key id), or was
                // restarted with a new key under the same key id. A forgery lands here too:
                // hence the rate limit in `discover`.
                Ok(match self.discover(Some(&discovered)).await? {
                    Some(fresh) => check(&fresh),
                    None => Err(error),
                })
            }
            other => Ok(other),
        }
    }

    /// How many times the provider's metadata and keys were fetched. For tests of the refetch.
    #[doc(hidden)]
    pub fn key_fetches(&self) -> u64 {
        self.key_fetches.load(Ordering::Relaxed)
    }

    fn client_for(&self, metadata: ProviderMetadataWithLogout) -> Discovered {
        // Only asymmetric signatures the provider lists: never `none`, and never HMAC, whose key
        // (the client secret) is not the provider's alone.
        let accepted_algs = metadata
            .id_token_signing_alg_values_supported()
            .iter()
            .filter(|alg| !alg.uses_shared_secret() && **alg != CoreJwsSigningAlgorithm::None)
            .cloned()
            .collect();
        let end_session = metadata.additional_metadata().end_session_endpoint.clone();
        let userinfo = metadata.userinfo_endpoint().cloned();
        let client = CoreClient::from_provider_metadata(
            metadata.clone(),
            self.client_id.clone(),
            self.client_secret.clone(),
        )
        .set_redirect_uri(self.redirect.clone());
        Discovered {
            client,
            metadata,
            end_session,
            userinfo,
            accepted_algs,
        }
    }

    /// Makes the cached key set stale, as if the provider had rotated its keys since they were
    /// fetched: the next ID token names a key id the cache lacks. For tests of the re-fetch.
    #[doc(hidden)]
    pub async fn forget_keys(&self) {
        let mut slot = self.discovered.write().await;
        if let Some(current) = slot.as_ref() {
            let metadata = current
                .metadata
                .clone()
                .set_jwks(openidconnect::JsonWebKeySet::new(Vec::new()));
            *slot = Some(Arc::new(self.client_for(metadata)));
        }
        *self.last_refetch.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The provider's authorization URL for a new sign-in.
    pub(crate) async fn start(
        &self,
        login_hint: Option<&str>,
    ) -> Result<AuthorizationStart, Error> {
        let discovered = self.discovered().await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = discovered
            .client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .set_pkce_challenge(challenge);
        for scope in self.scopes.iter().filter(|scope| *scope != "openid") {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let supported = discovered.metadata.scopes_supported();
        if self.adds_offline_access
            && offers_offline_access(supported.map(|s| s.iter().map(|s| s.as_str())))
        {
            request = request.add_scope(Scope::new(OFFLINE_ACCESS.to_owned()));
        }
        if let Some(hint) = login_hint
            .filter(|hint| !hint.is_empty() && hint.len() <= MAX_LOGIN_HINT_LEN)
            .filter(|hint| !hint.chars().any(char::is_control))
        {
            request = request.add_extra_param("login_hint", hint.to_owned());
        }
        let (url, state, nonce) = request.url();
        Ok(AuthorizationStart {
            url: url.to_string(),
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            pkce_verifier: verifier.secret().clone(),
        })
    }

    /// Exchanges the code (with the PKCE verifier) and verifies the ID token: signature with
    /// the provider's keys and an asymmetric algorithm it lists, issuer, audience (and `azp`
    /// when present), expiry and `nonce`.
    pub(crate) async fn finish(
        &self,
        code: &str,
        pkce_verifier: &str,
        nonce: &str,
    ) -> Result<SignedIn, Error> {
        let discovered = self.discovered().await?;
        let token = discovered
            .client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|_| Error::ProviderUnavailable(ProviderFailure::NoTokenEndpoint))?
            .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier.to_owned()))
            .request_async(&self.http)
            .await
            .map_err(|error| match error {
                RequestTokenError::ServerResponse(_) | RequestTokenError::Parse(..) => {
                    Error::SignInFailed("the provider did not accept the authorization code")
                }
                RequestTokenError::Request(error) => {
                    Error::ProviderUnavailable(ProviderFailure::TokenRequest(Box::new(error)))
                }
                RequestTokenError::Other(message) => {
                    Error::ProviderUnavailable(ProviderFailure::Other(message))
                }
            })?;
        let id_token = token
            .extra_fields()
            .id_token()
            .ok_or(Error::SignInFailed("the provider sent no ID token"))?;
        let nonce = Nonce::new(nonce.to_owned());
        let authorized_party = self
            .with_current_keys(discovered.clone(), |keys| {
                id_token
                    .claims(&keys.id_token_verifier(), &nonce)
                    .map(|claims| claims.authorized_party().cloned())
            })
            .await?
            .map_err(|error| Error::SignInFailed(refusal(&error)))?;
        // OIDC Core 3.1.3.7 (5): a token that names another authorized party was issued to
        // that client, even when this one is among its audiences.
        if authorized_party.is_some_and(|party| party != self.client_id) {
            return Err(Error::SignInFailed(
                "the ID token was issued to another client",
            ));
        }
        let raw = id_token.to_string();
        let mut claims = claims::payload_of(&raw)
            .ok_or(Error::SignInFailed("the ID token's claims cannot be read"))?;
        if let Some(userinfo) = &discovered.userinfo {
            self.merge_userinfo(userinfo, token.access_token().secret(), &mut claims)
                .await;
        }
        Ok(SignedIn {
            claims,
            id_token: raw,
            refresh_token: token.refresh_token().map(|token| token.secret().clone()),
            access_expires_at: token.expires_in().map(|lifetime| {
                crate::authn::session::unix_now().saturating_add(lifetime.as_secs())
            }),
        })
    }

    /// Adds the claims the userinfo endpoint has and the ID token lacks (some providers put
    /// `groups` only there). Best effort: the sign-in stands on the verified ID token.
    async fn merge_userinfo(
        &self,
        endpoint: &UserInfoUrl,
        access_token: &str,
        claims: &mut Map<String, Value>,
    ) {
        match self
            .userinfo(endpoint, access_token, claims.get("sub"))
            .await
        {
            Ok(userinfo) => {
                for (name, value) in userinfo {
                    claims.entry(name).or_insert(value);
                }
            }
            Err(reason) => tracing::warn!("{reason}; using the ID token alone"),
        }
    }

    /// The userinfo answer for `access_token`, when it is a success for the subject `sub`
    /// (OIDC Core 5.3.2: userinfo for another subject must not be used); else why not.
    async fn userinfo(
        &self,
        endpoint: &UserInfoUrl,
        access_token: &str,
        sub: Option<&Value>,
    ) -> Result<Map<String, Value>, &'static str> {
        let response = self
            .http
            .client()
            .get(endpoint.url().clone())
            .bearer_auth(access_token)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|_| "the userinfo endpoint could not be reached")?;
        if !response.status().is_success() {
            return Err("the userinfo endpoint answered an error");
        }
        let userinfo = response
            .json::<Map<String, Value>>()
            .await
            .map_err(|_| "the userinfo answer cannot be read")?;
        if userinfo.get("sub") != sub {
            return Err("the userinfo response names another subject");
        }
        Ok(userinfo)
    }

    /// Where to send the browser at logout: the provider's `end_session_endpoint` with
    /// `id_token_hint` and `post_logout_redirect_uri`, when it publishes one.
    pub(crate) async fn logout_url(&self, id_token: Option<&str>) -> Option<String> {
        let discovered = self.discovered().await.ok()?;
        let endpoint = discovered.end_session.clone()?;
        let mut request = LogoutRequest::from(endpoint).set_client_id(self.client_id.clone());
        if let Some(token) = id_token.and_then(|token| token.parse::<CoreIdToken>().ok()) {
            request = request.set_id_token_hint(&token);
        }
        if let Ok(target) = PostLogoutRedirectUrl::new(self.post_logout.clone()) {
            request = request.set_post_logout_redirect_uri(target);
        }
        Some(request.http_get_url().to_string())
    }
}
