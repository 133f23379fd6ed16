//! The common error body on the wire, and the extractor settings that make actix's own
//! rejections (bad JSON, bad query strings, unknown routes) use it too.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use shared_types::ErrorBody;

/// Implemented by each crate's one error enum, next to its `ResponseError::status_code`, which
/// is the single place that maps errors to statuses.
pub trait ApiError: ResponseError {
    /// Stable snake_case code for the body, e.g. `unknown_cluster`.
    fn code(&self) -> &'static str;

    /// Seconds for `Retry-After` on 429 and 503 answers.
    fn retry_after_secs(&self) -> Option<u64> {
        None
    }
}

/// The response for any [`ApiError`]: its status, the common body with its `Display` as the
/// message, and `Retry-After` when it has one. Call it from `ResponseError::error_response`.
pub fn error_response<E: ApiError + ?Sized>(error: &E) -> HttpResponse {
    let mut response = HttpResponse::build(error.status_code());
    if let Some(seconds) = error.retry_after_secs() {
        response.insert_header((header::RETRY_AFTER, HeaderValue::from(seconds)));
    }
    response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(ErrorBody::new(error.code(), error.to_string()))
}

/// A rejection made before a handler ran (by an extractor), in the common body.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl Rejection {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }
}

impl ResponseError for Rejection {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        error_response(self)
    }
}

impl ApiError for Rejection {
    fn code(&self) -> &'static str {
        self.code
    }
}

/// Registers extractor error handlers so malformed JSON bodies, query strings and path
/// parameters answer 400 with the common body instead of actix's plain-text default.
pub fn configure_extractors(config: &mut web::ServiceConfig) {
    config
        .app_data(web::JsonConfig::default().error_handler(|error, _| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                "invalid_body",
                format!("The request body is not valid: {error}."),
            )
            .into()
        }))
        .app_data(web::QueryConfig::default().error_handler(|error, _| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                "invalid_query",
                format!("The query string is not valid: {error}."),
            )
            .into()
        }))
        .app_data(web::PathConfig::default().error_handler(|error, _| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                "invalid_path",
                format!("The path is not valid: {error}."),
            )
            .into()
        }));
}

/// Default service for unknown routes: 404 in the common body.
pub async fn route_not_found(request: HttpRequest) -> HttpResponse {
    error_response(&Rejection::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "No endpoint answers {} {}.",
            request.method(),
            request.path()
        ),
    ))
}

/// `GET` liveness: depends on the process alone.
pub async fn liveness(version: web::Data<ServiceVersion>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(shared_types::LivenessBody::healthy(version.0))
}

/// The service's semantic version, as app data for [`liveness`].
#[derive(Debug, Clone, Copy)]
pub struct ServiceVersion(pub &'static str);
