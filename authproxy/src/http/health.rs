//! `GET /_health`, the readiness report: the session store, the identity provider and the
//! search backend, each `ok` (or `disabled`) or a short explanation; `healthy` only when none is
//! failing. `/_health` needs no credentials, so the handler reuses a report ([`LastReport`]) for
//! `observability.health_cache_ttl`: a flood of requests reaches Redis, the identity provider
//! and the cluster at most once per interval.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde::Serialize;
use service_kit::single_flight::SingleFlight;

use crate::state::AppState;

/// Longest one check may take; the three run concurrently.
const CHECK_TIMEOUT: Duration = Duration::from_secs(3);

pub const OK: &str = "ok";
pub const DISABLED: &str = "disabled";

#[derive(Debug, Serialize)]
pub struct HealthReport {
    pub status: &'static str,
    pub checks: BTreeMap<&'static str, String>,
}

impl HealthReport {
    pub async fn check(state: &AppState) -> Self {
        let (store, oidc, search) = futures_util::join!(
            bounded(async {
                state
                    .store
                    .ping()
                    .await
                    .map_err(|_| "unreachable".to_owned())
            }),
            check_oidc(state),
            bounded(async {
                state
                    .cluster
                    .health()
                    .await
                    .map_err(|error| format!("unhealthy: {error}"))
            }),
        );
        let checks = BTreeMap::from([
            ("session_store", store),
            ("oidc_provider", oidc),
            ("search_backend", search),
        ]);
        let healthy = checks
            .values()
            .all(|value| value == OK || value == DISABLED);
        Self {
            status: if healthy { "healthy" } else { "unhealthy" },
            checks,
        }
    }

    pub fn is_healthy(&self) -> bool {
        self.status == "healthy"
    }
}

async fn bounded(check: impl Future<Output = Result<(), String>>) -> String {
    match tokio::time::timeout(CHECK_TIMEOUT, check).await {
        Ok(Ok(())) => OK.to_owned(),
        Ok(Err(message)) => message,
        Err(_) => "timeout".to_owned(),
    }
}

/// The provider is healthy when its discovery document answers.
async fn check_oidc(state: &AppState) -> String {
    let Some(oidc) = &state.oidc else {
        return DISABLED.to_owned();
    };
    let url = format!("{}/.well-known/openid-configuration", oidc.issuer);
    bounded(async {
        let response = state
            .http
            .get(url)
            .send()
            .await
            .map_err(|_| "unreachable".to_owned())?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(format!(
                "unhealthy: discovery answered {}",
                response.status()
            ))
        }
    })
    .await
}

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
