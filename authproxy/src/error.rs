//! The one error enum of authproxy and its mapping to statuses.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use service_kit::http::{ApiError, error_response};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Authentication is required.")]
    Unauthenticated,
}

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Unauthenticated => StatusCode::UNAUTHORIZED,
        }
    }

    fn error_response(&self) -> HttpResponse {
        error_response(self)
    }
}

impl ApiError for Error {
    fn code(&self) -> &'static str {
        match self {
            Self::Unauthenticated => "unauthenticated",
        }
    }
}
