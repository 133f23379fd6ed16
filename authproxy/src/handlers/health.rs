//! `GET /_health`.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, web};

use crate::health::HealthReport;
use crate::state::AppState;

pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let report = HealthReport::check(&state).await;
    let status = if report.is_healthy() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(report)
}
