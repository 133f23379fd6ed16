//! `GET /_health`.

use std::convert::Infallible;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, web};

use service_kit::single_flight::SingleFlight;

use crate::health::HealthReport;
use crate::state::AppState;

/// `/_health`'s last report: concurrent callers share one check, and its report is reused for
/// `observability.health_cache_ttl`, so anonymous requests cannot fan out to Redis, the
/// identity provider and the cluster.
pub type LastReport = SingleFlight<(), Arc<HealthReport>, Infallible>;

/// The report is reused for `observability.health_cache_ttl`; concurrent callers share a check.
pub async fn health(state: web::Data<AppState>, last: web::Data<LastReport>) -> HttpResponse {
    let Ok(report) = last
        .run((), || async {
            Ok(Arc::new(HealthReport::check(&state).await))
        })
        .await;
    let status = if report.is_healthy() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(&*report)
}
