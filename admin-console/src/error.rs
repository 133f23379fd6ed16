//! The one error enum of admin-console and its mapping to statuses.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use service_kit::http::{ApiError, error_response};
use service_kit::relay_client::RelayError;

/// What made a call to an upstream fail, kept as the error's source. Cheap to clone: a failure
/// cached for concurrent callers (the index list, the `internal` measurement) reaches each of
/// them with its cause.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Cause {
    /// A call made with reqwest (cluster views, metrics, the metrics server).
    #[error(transparent)]
    Http(Arc<reqwest::Error>),
    /// A relayed console call, or the body of its answer.
    #[error(transparent)]
    Relay(Arc<RelayError>),
    /// An answer that is not the JSON it should be.
    #[error(transparent)]
    Json(Arc<serde_json::Error>),
    /// A URL that could not be built.
    #[error(transparent)]
    Url(UrlError),
}

type UrlError = <reqwest::Url as std::str::FromStr>::Err;

impl From<serde_json::Error> for Cause {
    fn from(error: serde_json::Error) -> Self {
        Self::Json(Arc::new(error))
    }
}

impl From<reqwest::Error> for Cause {
    fn from(error: reqwest::Error) -> Self {
        Self::Http(Arc::new(error))
    }
}

#[derive(Debug, Clone, thiserror::Error)]
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
    #[error("{message}")]
    Upstream {
        message: String,
        #[source]
        cause: Option<Cause>,
    },
    /// The upstream could not be reached (refused, DNS, TLS).
    #[error("{message}")]
    Unreachable {
        message: String,
        #[source]
        cause: Cause,
    },
    /// The upstream did not answer in time.
    #[error("{message}")]
    Timeout {
        message: String,
        #[source]
        cause: Cause,
    },
    /// The metrics server answered but has no series for this cluster.
    #[error("{0}")]
    NoMetricsData(String),
    /// A state-changing or relayed request that does not come from the console's own pages.
    #[error("{0}")]
    CrossSiteRequest(String),
    /// The caller's role on the cluster is below what the call needs (the message names both).
    #[error("{0}")]
    Forbidden(String),
    /// A state-changing call to a production cluster without a reason (`X-Change-Reason`).
    #[error("{0}")]
    ChangeReasonRequired(String),
    /// An `X-Change-Reason` that cannot be recorded (control characters, too long…); the
    /// message never repeats it.
    #[error("{0}")]
    InvalidChangeReason(String),
    /// The cluster refused a management call with a 4xx (an index that already exists, a
    /// missing one, a setting it does not accept): the same status, the cluster's reason.
    #[error("{message}")]
    RejectedByCluster { status: StatusCode, message: String },
    /// A body or a field above its cap (a saved query's text).
    #[error("{0}")]
    TooLarge(String),
    /// No such thing, or one the caller may not see (a saved query).
    #[error("{0}")]
    NotFound(String),
    /// An edit that started from a version which is no longer the stored one; the answer
    /// carries the current one (`current`) so the caller can merge.
    #[error("The {what} was changed elsewhere since you loaded it (now version {version}).")]
    VersionConflict {
        /// What changed: `saved query`, `console tabs`.
        what: &'static str,
        version: u64,
        current: serde_json::Value,
    },
    /// The saved-query store cannot be used (file, Redis).
    #[error("{0}")]
    StoreUnavailable(String),
    /// A change the console refuses before reaching the cluster because of the target's state:
    /// a reserved (built-in) security entry, a name that already exists on create.
    #[error("{0}")]
    Conflict(String),
}

impl Error {
    /// An upstream answer that is not what was expected (no cause beyond the answer).
    pub fn upstream(message: String) -> Self {
        Self::Upstream {
            message,
            cause: None,
        }
    }

    /// An upstream answer that could not be read, with the reader's error.
    pub fn upstream_because(message: String, cause: impl Into<Cause>) -> Self {
        Self::Upstream {
            message,
            cause: Some(cause.into()),
        }
    }

    /// Classifies a failed call to `target` (e.g. `cluster "prod"`), without its URL's secrets;
    /// the reqwest error is kept as the cause.
    pub fn from_reqwest(target: &str, error: reqwest::Error) -> Self {
        let kind = RelayError::from_reqwest(&error);
        Self::classified(target, &kind, Cause::Http(Arc::new(error)))
    }

    /// Classifies a failed relayed call to `target`, keeping the relay's error as the cause.
    pub fn from_relay(target: &str, error: RelayError) -> Self {
        let error = Arc::new(error);
        Self::classified(target, &error, Cause::Relay(error.clone()))
    }

    /// The status and message by the kind of failure, the same for relayed and other calls.
    fn classified(target: &str, kind: &RelayError, cause: Cause) -> Self {
        match kind {
            RelayError::Timeout => Self::Timeout {
                message: format!("{target} did not answer in time."),
                cause,
            },
            RelayError::Connect {
                reason,
                untrusted_certificate,
            } => Self::Unreachable {
                message: format!(
                    "{target} is unreachable: {reason}.{}",
                    // The usual cause: a cluster whose certificates come from a private CA the
                    // console was not told about.
                    if *untrusted_certificate {
                        " The server's certificate is not trusted: for a cluster, name the CA \
                         that signed it in the cluster's tls.ca_file."
                    } else {
                        ""
                    }
                ),
                cause,
            },
            RelayError::Broken(reason) => Self::Upstream {
                message: format!("The call to {target} failed: {reason}."),
                cause: Some(cause),
            },
        }
    }
}

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::UnknownCluster(_) => StatusCode::NOT_FOUND,
            Self::BadRequest(_) | Self::ForbiddenPath(_) | Self::InvalidChangeReason(_) => {
                StatusCode::BAD_REQUEST
            }
            Self::ChangeReasonRequired(_) => StatusCode::PRECONDITION_REQUIRED,
            Self::Upstream { .. } | Self::NoMetricsData(_) => StatusCode::BAD_GATEWAY,
            Self::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            Self::CrossSiteRequest(_) | Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::Unreachable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            Self::RejectedByCluster { status, .. } => *status,
            Self::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::VersionConflict { .. } => StatusCode::CONFLICT,
            Self::StoreUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Conflict(_) => StatusCode::CONFLICT,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::VersionConflict { current, .. } = self {
            // The common body plus the query as it is now.
            let body = serde_json::json!({
                "error": {"code": self.code(), "message": self.to_string()},
                "current": current,
            });
            return HttpResponse::Conflict()
                .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
                .json(body);
        }
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
            Self::Upstream { .. } => "upstream_error",
            Self::Unreachable { .. } => "upstream_unreachable",
            Self::Timeout { .. } => "upstream_timeout",
            Self::NoMetricsData(_) => "no_metrics_data",
            Self::CrossSiteRequest(_) => "cross_site_request",
            Self::Forbidden(_) => "forbidden",
            Self::ChangeReasonRequired(_) => "change_reason_required",
            Self::InvalidChangeReason(_) => "invalid_change_reason",
            Self::RejectedByCluster { .. } => "rejected_by_cluster",
            Self::TooLarge(_) => "too_large",
            Self::NotFound(_) => "not_found",
            Self::VersionConflict { .. } => "version_conflict",
            Self::StoreUnavailable(_) => "store_unavailable",
            Self::Conflict(_) => "conflict",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn upstream_failures_keep_their_typed_cause_through_a_clone() {
        let broken = RelayError::Broken("connection reset".to_owned());
        for (error, status, code, message) in [
            (
                RelayError::Timeout,
                StatusCode::GATEWAY_TIMEOUT,
                "upstream_timeout",
                "cluster \"c\" did not answer in time.",
            ),
            (
                broken,
                StatusCode::BAD_GATEWAY,
                "upstream_error",
                "The call to cluster \"c\" failed: connection reset.",
            ),
        ] {
            let expected = format!("{error:?}");
            // What a cache hands to a second caller.
            let copy = Error::from_relay("cluster \"c\"", error).clone();
            assert_eq!(copy.status_code(), status);
            assert_eq!(copy.code(), code);
            assert_eq!(copy.to_string(), message);
            let cause = copy
                .source()
                .and_then(|cause| cause.downcast_ref::<Cause>());
            assert!(
                matches!(cause, Some(Cause::Relay(relay)) if format!("{relay:?}") == expected),
                "{cause:?}"
            );
        }
        let json = serde_json::from_slice::<serde_json::Value>(b"{").unwrap_err();
        let bad_json = Error::upstream_because("bad".to_owned(), json);
        assert!(matches!(
            bad_json
                .source()
                .and_then(|cause| cause.downcast_ref::<Cause>()),
            Some(Cause::Json(_))
        ));
    }
}
