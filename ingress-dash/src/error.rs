//! The one error enum of ingress-dash and its mapping to statuses.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use service_kit::http::{ApiError, error_response};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("\"{0}\" is not a valid namespace name (a DNS-1123 label).")]
    InvalidNamespace(String),
}

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::InvalidNamespace(_) => StatusCode::BAD_REQUEST,
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
        }
    }
}
