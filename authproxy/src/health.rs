//! The readiness report: the session store, the identity provider and the search backend, each
//! `ok` (or `disabled`) or a short explanation; `healthy` only when none is failing. `/_health`
//! needs no credentials, so the handler reuses a report (`crate::reused`) for
//! `observability.health_cache_ttl`: a flood of requests reaches Redis, the identity provider
//! and the cluster at most once per interval.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

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
