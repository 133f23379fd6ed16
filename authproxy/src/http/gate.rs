//! Authenticating one request, whatever the mode: Basic credentials or a Bearer token, else the
//! OIDC session cookie, the counters and log records of every attempt, and the answer to a
//! request without credentials (302 toward sign-in for browsers and the root, or the 401 nginx
//! turns into that redirect; 401 with a Basic challenge otherwise, and always for API clients:
//! a Bearer token or `Accept: application/json`); then the `authorization` rules (403).

use std::net::IpAddr;
use std::sync::Arc;

use actix_web::HttpRequest;
use actix_web::http::header;

use crate::authn::basic::{
    AuthorizationHeader, BasicCredentials, BasicRejection, Verified, parse_authorization,
};
use crate::authn::refresh::Renewal;
use crate::authn::session::{SessionLookup, unix_now};
use crate::authn::tokens::{PersonalTokens, TOKEN_PREFIX};
use crate::authz::Decision;
use crate::authz::request_rules::{DenialCause, METHOD_OVERRIDE_HEADERS, RuleOutcome, RuleRequest};
use crate::config::{ForwardAuthCallers, ServerMode};
use crate::error::Error;
use crate::identity::{AuthMethod, Identity};
use crate::metrics;
use crate::request::forwarded::{FrontProxy, OriginalRequest};
use crate::state::AppState;

/// Where sign-in starts.
pub const SIGN_IN_PATH: &str = "/auth/start";
/// Where a session ends (with OIDC).
pub const LOGOUT_PATH: &str = "/auth/logout";

/// What is known about a request before authentication.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The client's address (from a trusted proxy's `X-Forwarded-For`, else the peer).
    pub source_ip: Option<IpAddr>,
    /// The request a trusted reverse proxy asks about (forward_auth only), by the contract of
    /// `server.front_proxy`.
    pub original: Option<OriginalRequest>,
}

impl RequestContext {
    /// The context of a forward_auth check or a proxied request. Standalone mode reads no
    /// proxy-contract header at all; in forward_auth mode, a trusted proxy's original host that
    /// is not `host[:port]` is refused (400, logged, counted), never judged under a guess.
    pub fn of(state: &AppState, request: &HttpRequest) -> Result<Self, Error> {
        let mut context = Self::client(state, request);
        if state.mode == ServerMode::ForwardAuth {
            let peer = request.peer_addr().map(|address| address.ip());
            context.original = crate::request::forwarded::original_request(
                state.front_proxy,
                &state.trusted,
                peer,
                request.headers(),
            )
            .map_err(|_| {
                metrics::increment(metrics::INVALID_HOSTS);
                tracing::warn!(
                    source_ip = %context.source(),
                    front_proxy = ?state.front_proxy,
                    reason = "the original host is not host[:port]",
                    "forward_auth check refused"
                );
                Error::InvalidHost
            })?;
        }
        Ok(context)
    }

    /// Only the client's address (sign-in and logout, which judge no host).
    pub fn client(state: &AppState, request: &HttpRequest) -> Self {
        let peer = request.peer_addr().map(|address| address.ip());
        Self {
            source_ip: state.trusted.client_address(peer, request.headers()),
            original: None,
        }
    }

    /// The address for log records, `-` when unknown; formatted only if a record is written.
    pub fn source(&self) -> SourceIp {
        SourceIp(self.source_ip)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct SourceIp(Option<IpAddr>);

impl std::fmt::Display for SourceIp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(ip) => ip.fmt(f),
            None => f.write_str("-"),
        }
    }
}

/// The forward_auth check answers with the managed credential, so by default only the reverse
/// proxies (`server.trusted_proxies`, judged on the TCP peer, never on a header) may ask it;
/// `server.forward_auth_callers: any` answers every peer (a listener only the proxy reaches).
pub fn admit_forward_auth_caller(state: &AppState, request: &HttpRequest) -> Result<(), Error> {
    if state.forward_auth_callers == ForwardAuthCallers::Any {
        return Ok(());
    }
    let peer = request.peer_addr().map(|address| address.ip());
    if peer.is_some_and(|peer| state.trusted.contains(peer)) {
        return Ok(());
    }
    tracing::warn!(
        username = "-",
        source_ip = %SourceIp(peer),
        path = %request.path(),
        reason = "the caller is not in server.trusted_proxies",
        "forward_auth check refused"
    );
    Err(Error::UntrustedCaller)
}

pub async fn authenticate(
    state: &AppState,
    request: &HttpRequest,
    context: &RequestContext,
) -> Result<Arc<Identity>, Error> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return session_identity(state, request, context).await;
    };
    metrics::increment(metrics::AUTH_ATTEMPTS);
    let source_ip = context.source();
    // The same header as a recent success: no decoding, no bcrypt.
    if let Some(identity) = state
        .basic
        .as_ref()
        .and_then(|basic| basic.remembered(value.as_bytes()))
    {
        return Ok(succeeded(identity, true, source_ip));
    }
    let parsed = parse_authorization(value.as_bytes());
    if let AuthorizationHeader::Basic(credentials) = &parsed
        && let Some(tokens) = state.oidc.as_ref().and_then(|oidc| oidc.tokens.as_ref())
        && secrecy::ExposeSecret::expose_secret(&credentials.password).starts_with(TOKEN_PREFIX)
    {
        return personal_token_identity(tokens, credentials, source_ip).await;
    }
    let (credentials, basic) = match (parsed, &state.basic) {
        (AuthorizationHeader::Bearer(token), _) => {
            return bearer_identity(state, &token, source_ip).await;
        }
        (AuthorizationHeader::Basic(credentials), Some(basic)) => (credentials, basic),
        (parsed, _) => {
            let reason = match parsed {
                AuthorizationHeader::Basic(_) => "basic credentials are disabled",
                AuthorizationHeader::Bearer(_) | AuthorizationHeader::OtherScheme => {
                    "unsupported authorization scheme"
                }
                AuthorizationHeader::Malformed => "malformed basic credentials",
            };
            failed(AuthMethod::Basic, "-", source_ip, reason);
            return Err(Error::Unauthenticated);
        }
    };
    match basic
        .verify(value.as_bytes(), &credentials, context.source_ip)
        .await
    {
        Ok(Verified {
            identity,
            from_cache,
        }) => Ok(succeeded(identity, from_cache, source_ip)),
        Err(rejection) => {
            let (reason, error) = match rejection {
                BasicRejection::Invalid => ("invalid credentials", Error::Unauthenticated),
                BasicRejection::Limited(retry_after_secs) => (
                    "too many failed attempts",
                    Error::TooManyFailures { retry_after_secs },
                ),
            };
            failed(AuthMethod::Basic, &credentials.username, source_ip, reason);
            Err(error)
        }
    }
}

/// A personal access token as the Basic password (`personal_tokens`): the identity its owner
/// had when creating it (so the same managed user), or 401.
async fn personal_token_identity(
    tokens: &PersonalTokens,
    credentials: &BasicCredentials,
    source_ip: SourceIp,
) -> Result<Arc<Identity>, Error> {
    let token = secrecy::ExposeSecret::expose_secret(&credentials.password);
    match tokens.verify(&credentials.username, token).await? {
        // Routine at request rate, like a remembered Basic credential: a debug record.
        Some(identity) => Ok(succeeded(Arc::new(identity), true, source_ip)),
        None => {
            failed(
                AuthMethod::Oidc,
                &credentials.username,
                source_ip,
                "unknown, revoked, expired or another user's personal access token",
            );
            Err(Error::Unauthenticated)
        }
    }
}

/// A Bearer token (`oidc.bearer`): verified with the provider's keys, or refused with 401
/// `invalid_token` and the reason logged. Without `oidc.bearer` the scheme is not accepted.
async fn bearer_identity(
    state: &AppState,
    token: &str,
    source_ip: SourceIp,
) -> Result<Arc<Identity>, Error> {
    let enabled = state
        .oidc
        .as_ref()
        .and_then(|oidc| Some((oidc.bearer.as_ref()?, &oidc.sign_in.provider)));
    let outcome = match enabled {
        Some((bearer, provider)) => bearer.verify(provider, token).await,
        None => Err(Error::Unauthenticated),
    };
    match outcome {
        Ok(verified) => Ok(succeeded(verified.identity, verified.from_cache, source_ip)),
        Err(error) => {
            let reason = match &error {
                Error::InvalidToken(reason) => reason,
                Error::Unauthenticated => "bearer tokens are not enabled (oidc.bearer)",
                _ => "the identity provider's keys could not be fetched",
            };
            failed(AuthMethod::Bearer, "-", source_ip, reason);
            Err(error)
        }
    }
}

/// The `authorization` rules for an authenticated identity: the rule of the original request's
/// host (forward_auth, from a trusted proxy) or the global lists. A refusal is 403 (a plain page
/// for browsers), counted and logged with the user name and the rule; never a new sign-in.
pub fn authorize(
    state: &AppState,
    request: &HttpRequest,
    context: &RequestContext,
    identity: &Identity,
) -> Result<(), Error> {
    let host = context
        .original
        .as_ref()
        .and_then(|original| original.host.as_ref());
    match state.authorizer.decide(identity, host) {
        Decision::Allowed(_) => Ok(()),
        Decision::Denied { rule, reason } => {
            metrics::denied(&rule.to_string(), reason.as_str());
            tracing::warn!(
                username = %identity.username,
                method = %identity.method,
                source_ip = %context.source(),
                host = host.map_or("-", |host| host.name()),
                rule = %state.authorizer.describe(rule),
                reason = reason.as_str(),
                "access denied"
            );
            Err(Error::Forbidden {
                html: wants_html(request),
            })
        }
    }
}

/// `authorization.request_rules` for an authenticated, admitted identity: the forwarded request
/// (standalone: its method and raw path, exactly what is sent on) or the original request a
/// trusted front proxy names (forward_auth). A refusal is 403 `forbidden` (a plain page for
/// browsers), counted by rule index and logged with the rule, never with the query.
pub fn enforce_request_rules(
    state: &AppState,
    request: &HttpRequest,
    context: &RequestContext,
    identity: &Identity,
) -> Result<(), Error> {
    let rules = state.authorizer.request_rules();
    if rules.is_empty() {
        return Ok(());
    }
    let roles = match (&state.managed, rules.uses_roles()) {
        (Some(managed), true) => managed.roles().roles_for(identity),
        _ => Vec::new(),
    };
    let (method, uri) = match state.mode {
        ServerMode::Standalone => (Some(request.method().as_str()), Some(request.uri().path())),
        ServerMode::ForwardAuth => match &context.original {
            Some(original) => (original.method.as_deref(), original.uri.as_deref()),
            None => (None, None),
        },
    };
    let method_override = METHOD_OVERRIDE_HEADERS
        .iter()
        .any(|name| request.headers().contains_key(*name));
    let outcome = rules.decide(
        identity,
        &roles,
        RuleRequest {
            method,
            uri,
            method_override,
        },
    );
    let RuleOutcome::Denied { rule, why } = outcome else {
        return Ok(());
    };
    metrics::request_denied(rule, why.reason());
    let (entry, detail) = match why {
        DenialCause::Entry(entry) => (format!("deny[{entry}]"), "matches a deny entry"),
        DenialCause::Ambiguous(detail) => ("-".to_owned(), detail),
    };
    let path = uri.map_or("-", crate::request::forwarded::path_of);
    tracing::warn!(
        username = %identity.username,
        method = %identity.method,
        source_ip = %context.source(),
        http_method = method.unwrap_or("-"),
        path = truncated(path, 200),
        rule = %format!("request_rules[{rule}]"),
        entry = %entry,
        reason = why.reason(),
        detail = detail,
        "request refused by a request rule"
    );
    Err(Error::Forbidden {
        html: wants_html(request),
    })
}

/// At most `max` bytes of `text`, on a character boundary.
fn truncated(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The client accepts HTML (a browser navigating) and is not an API client.
pub fn wants_html(request: &HttpRequest) -> bool {
    !is_api_client(request) && accepts(request, "text/html")
}

/// An API client, which gets the JSON error body and never a redirect: it sent a Bearer token
/// or asks for `application/json`.
pub fn is_api_client(request: &HttpRequest) -> bool {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.as_bytes().trim_ascii_start().get(..7))
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(b"bearer "));
    bearer || accepts(request, "application/json")
}

/// The `Accept` header names `media_type` (any parameters, any case).
fn accepts(request: &HttpRequest, media_type: &str) -> bool {
    request
        .headers()
        .get_all(header::ACCEPT)
        .filter_map(|accept| accept.to_str().ok())
        .flat_map(|accept| accept.split(','))
        .any(|range| {
            range
                .split(';')
                .next()
                .is_some_and(|name| name.trim().eq_ignore_ascii_case(media_type))
        })
}

/// Counts and logs a failed authentication (never a credential: `username` is what the caller
/// claimed, or `-`).
fn failed(method: AuthMethod, username: &str, source_ip: SourceIp, reason: &str) {
    metrics::increment(metrics::AUTH_FAILURES);
    tracing::warn!(
        username = %username,
        method = %method,
        source_ip = %source_ip,
        reason = %reason,
        "authentication failed"
    );
}

/// Counts and logs a successful Basic or Bearer authentication.
fn succeeded(identity: Arc<Identity>, from_cache: bool, source_ip: SourceIp) -> Arc<Identity> {
    metrics::increment(metrics::AUTH_SUCCESSES);
    // A sign-in (bcrypt ran) is an event worth a line; the same credentials again within
    // verified_ttl are routine and would flood the log at request rate.
    if from_cache {
        tracing::debug!(
            username = %identity.username,
            method = %identity.method,
            source_ip = %source_ip,
            "authentication succeeded"
        );
    } else {
        tracing::info!(
            username = %identity.username,
            method = %identity.method,
            source_ip = %source_ip,
            "authentication succeeded"
        );
    }
    identity
}

/// The identity of a valid session cookie; otherwise the challenge. A cookie whose signature
/// does not verify is a failed authentication; an ended session is simply signed out.
async fn session_identity(
    state: &AppState,
    request: &HttpRequest,
    context: &RequestContext,
) -> Result<Arc<Identity>, Error> {
    let Some(oidc) = state.oidc.as_ref() else {
        return Err(challenge(state, request, context));
    };
    let sessions = &oidc.sessions;
    let Some(cookie) = request.cookie(sessions.cookie_name()) else {
        return Err(challenge(state, request, context));
    };
    match sessions.lookup(cookie.value()).await? {
        SessionLookup::Valid(record) => match &oidc.refresher {
            Some(refresher) if refresher.is_due(&record, unix_now()) => {
                let Some(key) = sessions.key_of(cookie.value()) else {
                    return Err(challenge(state, request, context));
                };
                match refresher
                    .renew(sessions, &oidc.sign_in.provider, &key)
                    .await?
                {
                    Renewal::Current(record) => Ok(Arc::new(record.identity())),
                    Renewal::Ended => Err(challenge(state, request, context)),
                }
            }
            _ => Ok(Arc::new(record.identity())),
        },
        SessionLookup::Ended => Err(challenge(state, request, context)),
        SessionLookup::BadSignature => {
            metrics::increment(metrics::AUTH_ATTEMPTS);
            failed(
                AuthMethod::Oidc,
                "-",
                context.source(),
                "the session cookie's signature does not verify",
            );
            Err(challenge(state, request, context))
        }
    }
}

/// No credentials: browsers and the root are sent to sign-in, other clients get 401. Behind a
/// trusted reverse proxy whose original host is inside the cookie domain, `rd` is that full URL,
/// so the browser returns to the application it came from; and in forward_auth mode with OIDC,
/// sign-in starts on the proxy's own public host (that of `oidc.redirect_url`), so the reverse
/// proxy need not route `/auth/*` of every application.
fn challenge(state: &AppState, request: &HttpRequest, context: &RequestContext) -> Error {
    let uri = context
        .original
        .as_ref()
        .and_then(|original| original.uri.clone())
        .unwrap_or_else(|| request.uri().to_string());
    let path = crate::request::forwarded::path_of(&uri);
    if is_api_client(request) || (path != "/" && !wants_html(request)) {
        return Error::Unauthenticated;
    }
    // nginx cannot pass a redirect from its auth_request on: 401 without a Basic challenge,
    // which its `error_page 401` turns into the redirect to sign-in.
    if context
        .original
        .as_ref()
        .is_some_and(|original| original.contract == FrontProxy::Nginx)
    {
        return Error::SignInByProxy;
    }
    let return_to = match context.original.as_ref() {
        Some(OriginalRequest {
            proto: Some(proto),
            host: Some(host),
            ..
        }) if matches!(proto.as_str(), "http" | "https")
            && state.redirects.is_inside_cookie_domain(host.name()) =>
        {
            format!("{proto}://{host}{uri}")
        }
        _ => uri,
    };
    let location = sign_in_location(&return_to);
    let location = match (&state.oidc, state.mode) {
        (Some(oidc), ServerMode::ForwardAuth) => {
            format!("{}{location}", oidc.sign_in.provider.public_origin())
        }
        _ => location,
    };
    Error::SignInRequired { location }
}

/// `/auth/start?rd=<uri, percent-encoded>`.
pub fn sign_in_location(return_to: &str) -> String {
    let mut url = reqwest::Url::parse("http://authproxy.invalid").expect("a valid base");
    url.set_path(SIGN_IN_PATH);
    url.query_pairs_mut().append_pair("rd", return_to);
    format!("{}?{}", url.path(), url.query().unwrap_or_default())
}
