//! The one error enum of ingress-dash and its mapping to statuses.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use service_kit::http::{ApiError, error_response};

use crate::kube::client::KubeError;
use crate::kube::resilience::CallError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("\"{0}\" is not a valid namespace name (a DNS-1123 label).")]
    InvalidNamespace(String),
    #[error("Namespace \"{0}\" is not among the namespaces this dashboard watches.")]
    NamespaceNotWatched(String),
    #[error("{}", not_found_message(.0))]
    NamespaceNotFound(Vec<String>),
    /// `access.namespaces_by_group` does not let the caller see these.
    #[error("{}", not_visible_message(.0))]
    NamespaceNotVisible(Vec<String>),
    #[error("At most {max} namespaces may be requested at once.")]
    TooManyNamespaces { max: usize },
    #[error("Too many requests from this client; retry in {}s.", .retry_after.as_secs().max(1))]
    RateLimited { retry_after: Duration },
    #[error("Too many open streams; retry later.")]
    TooManyStreams,
    #[error("The dashboard already runs its maximum of {max} Kubernetes watchers; retry later.")]
    TooManyWatchers { max: usize, retry_after: Duration },
    #[error("\"{0}\" is not a kind of object the dashboard shows: use ingresses or httproutes.")]
    UnknownKind(String),
    #[error("\"{0}\" are not routes: a diagnosis is of httproutes, grpcroutes or tlsroutes.")]
    NotARoute(String),
    #[error("\"{0}\" is not a valid object name (a DNS-1123 subdomain).")]
    InvalidObjectName(String),
    #[error("type must be warning, normal or all, not \"{0}\".")]
    InvalidEventType(String),
    #[error("format must be json or csv, not \"{0}\".")]
    InvalidFormat(String),
    #[error("flagged must be true or false, not \"{0}\".")]
    InvalidFlag(String),
    /// Also what a caller gets for a namespace it may not see (`/api/objects/...`).
    #[error("{kind} {namespace}/{name} was not found.")]
    ObjectNotFound {
        kind: &'static str,
        namespace: String,
        name: String,
    },
    /// The API server refused one of the on-demand reads (`/api/objects/...`) with 403.
    #[error(
        "The service account may not {action} in {namespace}: grant it with a Role and RoleBinding in {namespace}."
    )]
    KubernetesForbidden { action: String, namespace: String },
    #[error(transparent)]
    Upstream(#[from] CallError),
    /// The task compressing a snapshot body was cancelled (the server stopping) or failed.
    #[error("The snapshot could not be prepared; retry.")]
    SnapshotEncoding(#[source] tokio::task::JoinError),
}

/// Names at most a few of the missing namespaces, so the message stays one readable sentence.
fn not_found_message(names: &[String]) -> String {
    match quoted(names) {
        (one, None) if names.len() == 1 => format!("Namespace {one} does not exist."),
        (list, None) => format!("Namespaces {list} do not exist."),
        (list, Some(more)) => format!("Namespaces {list} and {more} more do not exist."),
    }
}

fn not_visible_message(names: &[String]) -> String {
    let end = "not among the namespaces your groups may see.";
    match quoted(names) {
        (one, None) if names.len() == 1 => format!("Namespace {one} is {end}"),
        (list, None) => format!("Namespaces {list} are {end}"),
        (list, Some(more)) => format!("Namespaces {list} and {more} more are {end}"),
    }
}

/// The first few names quoted and joined, and how many more there are.
fn quoted(names: &[String]) -> (String, Option<usize>) {
    const SHOWN: usize = 3;
    let shown: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|name| format!("\"{name}\""))
        .collect();
    let more = names.len().saturating_sub(SHOWN);
    (shown.join(", "), (more > 0).then_some(more))
}

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::InvalidNamespace(_) | Self::TooManyNamespaces { .. } => StatusCode::BAD_REQUEST,
            Self::UnknownKind(_)
            | Self::NotARoute(_)
            | Self::InvalidObjectName(_)
            | Self::InvalidEventType(_)
            | Self::InvalidFormat(_)
            | Self::InvalidFlag(_) => StatusCode::BAD_REQUEST,
            Self::ObjectNotFound { .. } => StatusCode::NOT_FOUND,
            Self::KubernetesForbidden { .. } => StatusCode::FORBIDDEN,
            Self::NamespaceNotWatched(_) | Self::NamespaceNotFound(_) => StatusCode::NOT_FOUND,
            Self::NamespaceNotVisible(_) => StatusCode::FORBIDDEN,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::TooManyStreams | Self::TooManyWatchers { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::SnapshotEncoding(error) if error.is_cancelled() => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::SnapshotEncoding(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Upstream(CallError::CircuitOpen { .. }) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Upstream(CallError::Kube(error)) => match error {
                // Permanent errors keep their status (401, 403, 404); others are gateway errors.
                KubeError::Api {
                    status: status @ (401 | 403 | 404),
                    ..
                } => StatusCode::from_u16(*status).unwrap_or(StatusCode::BAD_GATEWAY),
                KubeError::Api { status: 429, .. } => StatusCode::SERVICE_UNAVAILABLE,
                KubeError::Api { status, .. } if *status >= 500 => StatusCode::SERVICE_UNAVAILABLE,
                KubeError::Api { .. } | KubeError::BadAnswer(_) => StatusCode::BAD_GATEWAY,
                KubeError::Unreachable(_) | KubeError::NotConfigured(_) => {
                    StatusCode::SERVICE_UNAVAILABLE
                }
                KubeError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
            },
        }
    }

    fn error_response(&self) -> HttpResponse {
        error_response(self)
    }
}

impl ApiError for Error {
    fn code(&self) -> &'static str {
        match self {
            Self::InvalidNamespace(_) => "invalid_namespace",
            Self::NamespaceNotWatched(_) => "namespace_not_watched",
            Self::NamespaceNotFound(_) => "namespace_not_found",
            Self::NamespaceNotVisible(_) => "forbidden",
            Self::TooManyNamespaces { .. } => "too_many_namespaces",
            Self::RateLimited { .. } => "rate_limited",
            Self::TooManyStreams => "too_many_streams",
            Self::TooManyWatchers { .. } => "too_many_watchers",
            Self::UnknownKind(_) | Self::NotARoute(_) => "invalid_kind",
            Self::InvalidObjectName(_) => "invalid_name",
            Self::InvalidEventType(_) | Self::InvalidFormat(_) | Self::InvalidFlag(_) => {
                "invalid_parameter"
            }
            Self::ObjectNotFound { .. } => "not_found",
            Self::KubernetesForbidden { .. } => "kubernetes_forbidden",
            Self::Upstream(error) => error.code(),
            Self::SnapshotEncoding(_) => "internal",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Self::RateLimited { retry_after } => {
                Some(retry_after.as_secs_f64().ceil().max(1.0) as u64)
            }
            Self::Upstream(CallError::CircuitOpen { retry_after }) => {
                Some(retry_after.as_secs().max(1))
            }
            Self::TooManyStreams => Some(5),
            Self::TooManyWatchers { retry_after, .. } => {
                Some(retry_after.as_secs_f64().ceil().max(1.0) as u64)
            }
            _ => None,
        }
    }
}
