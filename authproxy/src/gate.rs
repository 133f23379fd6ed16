//! Authenticating one request, whatever the mode: Basic credentials now (sessions arrive with
//! OIDC), the counters and log records of every attempt, and the answer to a request without
//! credentials (302 toward sign-in for browsers and the root, 401 with a Basic challenge
//! otherwise).

use std::net::IpAddr;
use std::sync::Arc;

use actix_web::HttpRequest;
use actix_web::http::header;

use crate::basic::{AuthorizationHeader, BasicRejection, Verified, parse_authorization};
use crate::error::Error;
use crate::forwarded::OriginalRequest;
use crate::identity::{AuthMethod, Identity};
use crate::metrics;
use crate::state::AppState;

/// Where sign-in starts.
pub const SIGN_IN_PATH: &str = "/auth/start";

/// What is known about a request before authentication.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The client's address (from a trusted proxy's `X-Forwarded-For`, else the peer).
    pub source_ip: Option<IpAddr>,
    /// The request a trusted reverse proxy asks about (forward_auth).
    pub original: Option<OriginalRequest>,
}

impl RequestContext {
    pub fn of(state: &AppState, request: &HttpRequest) -> Self {
        let peer = request.peer_addr().map(|address| address.ip());
        Self {
            source_ip: state.trusted.client_address(peer, request.headers()),
            original: state.trusted.original_request(peer, request.headers()),
        }
    }

    fn source(&self) -> String {
        self.source_ip
            .map_or_else(|| "-".to_owned(), |ip| ip.to_string())
    }
}

pub async fn authenticate(
    state: &AppState,
    request: &HttpRequest,
    context: &RequestContext,
) -> Result<Arc<Identity>, Error> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Err(challenge(request, context));
    };
    metrics::increment(metrics::AUTH_ATTEMPTS);
    let source_ip = context.source();
    let credentials = match (parse_authorization(value.as_bytes()), &state.basic) {
        (AuthorizationHeader::Basic(credentials), Some(_)) => credentials,
        (parsed, _) => {
            let reason = match parsed {
                AuthorizationHeader::Basic(_) => "basic credentials are disabled",
                AuthorizationHeader::OtherScheme => "unsupported authorization scheme",
                AuthorizationHeader::Malformed => "malformed basic credentials",
            };
            metrics::increment(metrics::AUTH_FAILURES);
            tracing::warn!(
                username = "-",
                method = %AuthMethod::Basic,
                source_ip = %source_ip,
                reason = %reason,
                "authentication failed"
            );
            return Err(Error::Unauthenticated);
        }
    };
    let basic = state.basic.as_ref().expect("matched Some above");
    match basic.verify(&credentials, context.source_ip).await {
        Ok(Verified {
            identity,
            from_cache,
        }) => {
            metrics::increment(metrics::AUTH_SUCCESSES);
            // A sign-in (bcrypt ran) is an event worth a line; the same credentials again
            // within verified_ttl are routine and would flood the log at request rate.
            if from_cache {
                tracing::debug!(
                    username = %identity.username,
                    method = %AuthMethod::Basic,
                    source_ip = %source_ip,
                    "authentication succeeded"
                );
            } else {
                tracing::info!(
                    username = %identity.username,
                    method = %AuthMethod::Basic,
                    source_ip = %source_ip,
                    "authentication succeeded"
                );
            }
            Ok(identity)
        }
        Err(rejection) => {
            metrics::increment(metrics::AUTH_FAILURES);
            let (reason, error) = match rejection {
                BasicRejection::Invalid => ("invalid credentials", Error::Unauthenticated),
                BasicRejection::Limited(retry_after_secs) => (
                    "too many failed attempts",
                    Error::TooManyFailures { retry_after_secs },
                ),
            };
            tracing::warn!(
                username = %credentials.username,
                method = %AuthMethod::Basic,
                source_ip = %source_ip,
                reason = %reason,
                "authentication failed"
            );
            Err(error)
        }
    }
}

/// No credentials: browsers and the root are sent to sign-in, other clients get 401.
fn challenge(request: &HttpRequest, context: &RequestContext) -> Error {
    let uri = context
        .original
        .as_ref()
        .and_then(|original| original.uri.clone())
        .unwrap_or_else(|| request.uri().to_string());
    let path = uri.split(['?', '#']).next().unwrap_or("/");
    let wants_html = request
        .headers()
        .get(header::ACCEPT)
        .and_then(|accept| accept.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    if path == "/" || wants_html {
        Error::SignInRequired {
            location: sign_in_location(&uri),
        }
    } else {
        Error::Unauthenticated
    }
}

/// `/auth/start?rd=<uri, percent-encoded>`.
pub fn sign_in_location(return_to: &str) -> String {
    let mut url = reqwest::Url::parse("http://authproxy.invalid").expect("a valid base");
    url.set_path(SIGN_IN_PATH);
    url.query_pairs_mut().append_pair("rd", return_to);
    format!("{}?{}", url.path(), url.query().unwrap_or_default())
}
