//! The one error enum of authproxy and its mapping to statuses (the only place that maps).

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, ResponseError};
use service_kit::http::{ApiError, error_response};

use crate::store::StoreError;

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
    #[error(
        "The search cluster already has a user named {0:?} that this proxy did not create; it is not overwritten."
    )]
    SearchUserConflict(String),
    #[error(
        "The search cluster user {name:?} belongs to {owner} sign-ins; an identity of another kind with that name is refused."
    )]
    SearchUserOtherSource { name: String, owner: &'static str },
    #[error("The search cluster is unreachable: {0}.")]
    SearchUnreachable(String),
    #[error("The search cluster did not answer in time.")]
    SearchTimeout,
    #[error("The search cluster answered badly: {0}.")]
    SearchBadResponse(String),
    #[error("The search cluster rejected the proxy's administrative credentials.")]
    SearchAdminRejected,
    #[error("The request body could not be read: {0}.")]
    InvalidBody(String),
    /// An OIDC callback that does not complete a sign-in this browser started.
    #[error("Sign-in failed ({0}); start again from the application.")]
    SignInFailed(&'static str),
    #[error("The identity provider is unavailable: {0}.")]
    ProviderUnavailable(String),
    /// A forward_auth check from a peer that is not a trusted proxy.
    #[error("Only the configured reverse proxies may ask this authentication check.")]
    UntrustedCaller,
}

/// The Basic challenge every 401 carries.
pub const BASIC_CHALLENGE: &str = "Basic realm=\"authproxy\", charset=\"UTF-8\"";

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Unauthenticated => StatusCode::UNAUTHORIZED,
            Self::SignInRequired { .. } => StatusCode::FOUND,
            Self::TooManyFailures { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::StoreUnavailable(_) | Self::SearchUnreachable(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::SearchUserConflict(_) | Self::SearchUserOtherSource { .. } => {
                StatusCode::CONFLICT
            }
            Self::SearchTimeout => StatusCode::GATEWAY_TIMEOUT,
            Self::SearchBadResponse(_) | Self::SearchAdminRejected => StatusCode::BAD_GATEWAY,
            Self::InvalidBody(_) => StatusCode::BAD_REQUEST,
            Self::SignInFailed(_) => StatusCode::UNAUTHORIZED,
            Self::ProviderUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::UntrustedCaller => StatusCode::FORBIDDEN,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = error_response(self);
        let headers = response.headers_mut();
        match self {
            Self::Unauthenticated => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    header::HeaderValue::from_static(BASIC_CHALLENGE),
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
            Self::SearchUserConflict(_) | Self::SearchUserOtherSource { .. } => {
                "search_user_conflict"
            }
            Self::SearchUnreachable(_) => "search_unreachable",
            Self::SearchTimeout => "search_timeout",
            Self::SearchBadResponse(_) => "search_bad_response",
            Self::SearchAdminRejected => "search_admin_rejected",
            Self::InvalidBody(_) => "invalid_body",
            Self::SignInFailed(_) => "sign_in_failed",
            Self::ProviderUnavailable(_) => "oidc_provider_unavailable",
            Self::UntrustedCaller => "untrusted_caller",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Self::TooManyFailures { retry_after_secs } => Some(*retry_after_secs),
            Self::StoreUnavailable(_)
            | Self::SearchUnreachable(_)
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
