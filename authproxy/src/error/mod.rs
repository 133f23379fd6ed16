//! The one error enum of authproxy and its mapping to statuses (the only place that maps).

pub(crate) mod pages;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, ResponseError};
use service_kit::http::{ApiError, error_response};
use service_kit::relay_client::RelayError;

use crate::store::StoreError;

/// What the client's request could not be made into.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("{0}")]
    Read(#[source] actix_web::error::PayloadError),
    #[error("it is longer than its Content-Length")]
    LongerThanDeclared,
    #[error("the method is not valid")]
    Method(#[source] http::method::InvalidMethod),
    #[error("the path is not valid: {0}")]
    Path(#[source] http::uri::InvalidUri),
    #[error("{0}")]
    Request(#[source] http::Error),
}

/// Why the identity provider could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProviderFailure {
    #[error("discovery failed: {0}")]
    Discovery(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("the provider has no token endpoint")]
    NoTokenEndpoint,
    #[error("{0}")]
    TokenRequest(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The OIDC library's own description (it has no error value).
    #[error("{0}")]
    Other(String),
}

/// Why a call to the search cluster failed: the classification decides the answer (the error
/// module maps it), the source keeps what the transport said.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum ClusterError {
    #[error(
        "its TLS certificate is not trusted (name the CA that signed it in search.tls.ca_file)"
    )]
    UntrustedCertificate(#[source] RelayError),
    #[error("the connection was refused or failed")]
    Unreachable(#[source] RelayError),
    #[error("time-out")]
    Timeout,
    #[error("the connection broke")]
    Broken(#[source] RelayError),
    /// An answer that is not what the API documents (its status, its body), described.
    #[error("{0}")]
    BadResponse(String),
    #[error("the administrative credentials were rejected")]
    AdminRejected,
    #[error("user {0:?} exists and is not managed by this proxy")]
    ForeignUser(String),
    #[error("user {name:?} belongs to {owner} sign-ins")]
    OtherSource { name: String, owner: &'static str },
    /// A managed user an operator disabled on the cluster (Elasticsearch `enabled: false`): an
    /// upsert, which sets `enabled: true`, would undo that lock-out.
    #[error("user {0:?} is disabled on the cluster")]
    DisabledUser(String),
}

impl ClusterError {
    /// Classifies a transport error: connect → unreachable (saying so when it was the
    /// certificate), time-out → time-out.
    pub fn from_transport(error: &reqwest::Error) -> Self {
        Self::from_relay(RelayError::from_reqwest(error))
    }

    /// Classifies a failed call to the cluster, forwarded or made with reqwest.
    pub fn from_relay(error: RelayError) -> Self {
        match error {
            RelayError::Timeout => Self::Timeout,
            RelayError::Connect {
                untrusted_certificate: true,
                ..
            } => Self::UntrustedCertificate(error),
            RelayError::Connect { .. } => Self::Unreachable(error),
            RelayError::Broken(_) => Self::Broken(error),
        }
    }
}

/// The message of a failed call to the search cluster.
fn search_message(error: &ClusterError) -> String {
    match error {
        ClusterError::UntrustedCertificate(_) | ClusterError::Unreachable(_) => {
            format!("The search cluster is unreachable: {error}.")
        }
        ClusterError::Timeout => "The search cluster did not answer in time.".to_owned(),
        ClusterError::Broken(_) | ClusterError::BadResponse(_) => {
            format!("The search cluster answered badly: {error}.")
        }
        ClusterError::AdminRejected => {
            "The search cluster rejected the proxy's administrative credentials.".to_owned()
        }
        ClusterError::ForeignUser(name) => format!(
            "The search cluster already has a user named {name:?} that this proxy did not \
             create; it is not overwritten."
        ),
        ClusterError::OtherSource { name, owner } => format!(
            "The search cluster user {name:?} belongs to {owner} sign-ins; an identity of \
             another kind with that name is refused."
        ),
        ClusterError::DisabledUser(name) => format!(
            "The search cluster user {name:?} is disabled there; this proxy does not enable it \
             again."
        ),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No credentials, or credentials that did not verify: 401 with a Basic challenge.
    #[error("Authentication is required.")]
    Unauthenticated,
    /// A browser (or a request to the root) without credentials: 302 toward sign-in.
    #[error("Sign-in is required.")]
    SignInRequired { location: String },
    #[error("Too many failed sign-in attempts; try again in {retry_after_secs} seconds.")]
    TooManyFailures { retry_after_secs: u64 },
    #[error("The session store is unavailable, so the request cannot be authorized.")]
    StoreUnavailable(#[source] StoreError),
    /// A call to the search cluster failed; its classification decides the answer.
    #[error("{}", search_message(.0))]
    Search(#[source] ClusterError),
    #[error("The request body could not be read: {0}.")]
    InvalidBody(#[source] BodyError),
    /// An `Authorization: Bearer` token that did not verify (the reason): 401 with an RFC 6750
    /// `invalid_token` challenge, never a redirect.
    #[error("The bearer token was refused: {0}.")]
    InvalidToken(&'static str),
    /// A personal access token request with a bad field (the reason).
    #[error("The token request is not valid: {0}.")]
    InvalidTokenRequest(&'static str),
    /// A state-changing request from another site's page.
    #[error("This request must come from this service's own pages.")]
    CrossSiteRequest,
    /// A personal access token (or the tokens page) that does not exist here.
    #[error("Not found.")]
    NotFound,
    /// An OIDC callback that does not complete a sign-in this browser started.
    #[error("Sign-in failed ({0}); start again from the application.")]
    SignInFailed(&'static str),
    #[error("The identity provider is unavailable: {0}.")]
    ProviderUnavailable(#[source] ProviderFailure),
    /// A forward_auth check from a peer that is not a trusted proxy.
    #[error("Only the configured reverse proxies may ask this authentication check.")]
    UntrustedCaller,
    /// A signed-in identity the authorization rules refuse: 403, a plain page for browsers
    /// (`html`), never a new sign-in.
    #[error("You are signed in, but this account is not allowed to use this application.")]
    Forbidden { html: bool },
    /// An unauthenticated browser behind nginx `auth_request`, which accepts only 2xx, 401 and
    /// 403 from the check: 401 without a Basic challenge, which the nginx configuration turns
    /// into the redirect to sign-in (`error_page 401`).
    #[error("Sign-in is required.")]
    SignInByProxy,
    /// The reverse proxy reports an original host that is not `host[:port]`: no rule is
    /// guessed for it.
    #[error("The request's host is not a valid host name with an optional numeric port.")]
    InvalidHost,
}

/// The Basic challenge every 401 carries.
pub const BASIC_CHALLENGE: &str = "Basic realm=\"authproxy\", charset=\"UTF-8\"";

/// The challenge of a refused bearer token (RFC 6750 §3.1); the reason is in the body.
pub const BEARER_INVALID_TOKEN: &str = "Bearer realm=\"authproxy\", error=\"invalid_token\"";

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Unauthenticated => StatusCode::UNAUTHORIZED,
            Self::SignInRequired { .. } => StatusCode::FOUND,
            Self::TooManyFailures { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::StoreUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Search(error) => match error {
                ClusterError::UntrustedCertificate(_) | ClusterError::Unreachable(_) => {
                    StatusCode::SERVICE_UNAVAILABLE
                }
                ClusterError::ForeignUser(_) | ClusterError::OtherSource { .. } => {
                    StatusCode::CONFLICT
                }
                ClusterError::DisabledUser(_) => StatusCode::FORBIDDEN,
                ClusterError::Timeout => StatusCode::GATEWAY_TIMEOUT,
                ClusterError::Broken(_)
                | ClusterError::BadResponse(_)
                | ClusterError::AdminRejected => StatusCode::BAD_GATEWAY,
            },
            Self::InvalidBody(_) | Self::InvalidTokenRequest(_) => StatusCode::BAD_REQUEST,
            Self::CrossSiteRequest => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::SignInFailed(_) | Self::InvalidToken(_) => StatusCode::UNAUTHORIZED,
            Self::ProviderUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::UntrustedCaller | Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::SignInByProxy => StatusCode::UNAUTHORIZED,
            Self::InvalidHost => StatusCode::BAD_REQUEST,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Forbidden { html: true } = self {
            // Static text, nothing from the request.
            return pages::error_page(
                StatusCode::FORBIDDEN,
                "Access denied",
                &[
                    "You are signed in, but this account is not allowed to use this application.",
                    "Ask the application's owner for access, or sign out and sign in with \
                     another account.",
                ],
                None,
            );
        }
        let mut response = error_response(self);
        let headers = response.headers_mut();
        match self {
            Self::Unauthenticated => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    header::HeaderValue::from_static(BASIC_CHALLENGE),
                );
            }
            Self::InvalidToken(_) => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    header::HeaderValue::from_static(BEARER_INVALID_TOKEN),
                );
            }
            Self::SignInRequired { location } => {
                if let Ok(value) = header::HeaderValue::from_str(location) {
                    headers.insert(header::LOCATION, value);
                }
            }
            _ => {}
        }
        response
    }
}

impl ApiError for Error {
    fn code(&self) -> &'static str {
        match self {
            Self::Unauthenticated => "unauthenticated",
            Self::SignInRequired { .. } => "sign_in_required",
            Self::TooManyFailures { .. } => "too_many_failures",
            Self::StoreUnavailable(_) => "session_store_unavailable",
            Self::Search(error) => match error {
                ClusterError::ForeignUser(_) | ClusterError::OtherSource { .. } => {
                    "search_user_conflict"
                }
                ClusterError::DisabledUser(_) => "search_user_disabled",
                ClusterError::UntrustedCertificate(_) | ClusterError::Unreachable(_) => {
                    "search_unreachable"
                }
                ClusterError::Timeout => "search_timeout",
                ClusterError::Broken(_) | ClusterError::BadResponse(_) => "search_bad_response",
                ClusterError::AdminRejected => "search_admin_rejected",
            },
            Self::InvalidBody(_) => "invalid_body",
            Self::InvalidTokenRequest(_) => "invalid_request",
            Self::CrossSiteRequest => "cross_site_request",
            Self::NotFound => "not_found",
            Self::SignInFailed(_) => "sign_in_failed",
            Self::InvalidToken(_) => "invalid_token",
            Self::ProviderUnavailable(_) => "oidc_provider_unavailable",
            Self::UntrustedCaller => "untrusted_caller",
            Self::Forbidden { .. } => "forbidden",
            Self::SignInByProxy => "sign_in_required",
            Self::InvalidHost => "invalid_host",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Self::TooManyFailures { retry_after_secs } => Some(*retry_after_secs),
            Self::StoreUnavailable(_)
            | Self::Search(ClusterError::UntrustedCertificate(_) | ClusterError::Unreachable(_))
            | Self::ProviderUnavailable(_) => Some(5),
            _ => None,
        }
    }
}

impl From<StoreError> for Error {
    fn from(error: StoreError) -> Self {
        Self::StoreUnavailable(error)
    }
}

impl From<ClusterError> for Error {
    fn from(error: ClusterError) -> Self {
        Self::Search(error)
    }
}
