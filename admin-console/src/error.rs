//! The one error enum of admin-console and its mapping to statuses.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use service_kit::http::{ApiError, error_response};
use service_kit::relay_client::RelayError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("No cluster has the id \"{0}\".")]
    UnknownCluster(String),
    /// Bad input from the caller; the message says which rule was broken.
    #[error("{0}")]
    BadRequest(String),
    /// The console path tried to leave the cluster (`..`, an absolute URL, a scheme).
    #[error("{0}")]
    ForbiddenPath(String),
    /// A console method the relay does not send.
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The upstream (cluster or metrics server) answered, but not with what was expected.
    #[error("{0}")]
    Upstream(String),
    /// The upstream could not be reached (refused, DNS, TLS).
    #[error("{0}")]
    Unreachable(String),
    /// The upstream did not answer in time.
    #[error("{0}")]
    Timeout(String),
    /// The metrics server answered but has no series for this cluster.
    #[error("{0}")]
    NoMetricsData(String),
    /// A state-changing or relayed request that does not come from the console's own pages.
    #[error("{0}")]
    CrossSiteRequest(String),
}

impl Error {
    /// Classifies a failed call to `target` (e.g. `cluster "prod"`), without its URL's secrets.
    pub fn from_reqwest(target: &str, error: &reqwest::Error) -> Self {
        Self::from_relay(target, RelayError::from_reqwest(error))
    }

    /// Classifies a failed call to `target`, relayed or made through [`Self::from_reqwest`].
    pub fn from_relay(target: &str, error: RelayError) -> Self {
        match error {
            RelayError::Timeout => Self::Timeout(format!("{target} did not answer in time.")),
            RelayError::Connect {
                reason,
                untrusted_certificate,
            } => Self::Unreachable(format!(
                "{target} is unreachable: {reason}.{}",
                // The usual cause: a cluster whose certificates come from a private CA the
                // console was not told about.
                if untrusted_certificate {
                    " The server's certificate is not trusted: for a cluster, name the CA that \
                     signed it in the cluster's tls.ca_file."
                } else {
                    ""
                }
            )),
            RelayError::Broken(reason) => {
                Self::Upstream(format!("The call to {target} failed: {reason}."))
            }
        }
    }
}

/// Errors shared through the cache come back as `Arc`s; the copy keeps kind and message.
pub(crate) fn clone_error(error: &Error) -> Error {
    let message = error.to_string();
    match error {
        Error::UnknownCluster(id) => Error::UnknownCluster(id.clone()),
        Error::BadRequest(_) => Error::BadRequest(message),
        Error::ForbiddenPath(_) => Error::ForbiddenPath(message),
        Error::MethodNotAllowed(_) => Error::MethodNotAllowed(message),
        Error::Upstream(_) => Error::Upstream(message),
        Error::Unreachable(_) => Error::Unreachable(message),
        Error::Timeout(_) => Error::Timeout(message),
        Error::NoMetricsData(_) => Error::NoMetricsData(message),
        Error::CrossSiteRequest(_) => Error::CrossSiteRequest(message),
    }
}

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::UnknownCluster(_) => StatusCode::NOT_FOUND,
            Self::BadRequest(_) | Self::ForbiddenPath(_) => StatusCode::BAD_REQUEST,
            Self::Upstream(_) | Self::NoMetricsData(_) => StatusCode::BAD_GATEWAY,
            Self::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            Self::CrossSiteRequest(_) => StatusCode::FORBIDDEN,
            Self::Unreachable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
        }
    }

    fn error_response(&self) -> HttpResponse {
        error_response(self)
    }
}

impl ApiError for Error {
    fn code(&self) -> &'static str {
        match self {
            Self::UnknownCluster(_) => "unknown_cluster",
            Self::BadRequest(_) => "bad_request",
            Self::ForbiddenPath(_) => "forbidden_path",
            Self::MethodNotAllowed(_) => "method_not_allowed",
            Self::Upstream(_) => "upstream_error",
            Self::Unreachable(_) => "upstream_unreachable",
            Self::Timeout(_) => "upstream_timeout",
            Self::NoMetricsData(_) => "no_metrics_data",
            Self::CrossSiteRequest(_) => "cross_site_request",
        }
    }
}
