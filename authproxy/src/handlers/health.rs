//! `GET /_health`.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, web};

use crate::health::HealthReport;
use crate::reused::Reused;
use crate::state::AppState;

/// The report is reused for `observability.health_cache_ttl`; concurrent callers share a check.
pub async fn health(
    state: web::Data<AppState>,
    last: web::Data<Reused<HealthReport>>,
) -> HttpResponse {
    let report = last.get_with(|| HealthReport::check(&state)).await;
    let status = if report.is_healthy() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(&*report)
}
