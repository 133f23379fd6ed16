//! `GET /api/health` (specification section 4): lists namespaces with a 5 s time-out.

use std::time::{Duration, Instant};

use k8s_openapi::jiff::Timestamp;
use serde::Serialize;

use crate::kube::client::{KubeApi, KubeError};
use crate::kube::resilience::BreakerState;

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HealthBody {
    pub status: &'static str,
    pub timestamp: String,
    pub checks: Checks,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Checks {
    pub kubernetes: KubernetesCheck,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct KubernetesCheck {
    /// `"status": "up"`, or `"status": "down"` with its `"error"`.
    #[serde(flatten)]
    pub reached: Reached,
    /// Milliseconds.
    pub latency: u64,
    /// The breaker's state, beside the specified fields (DECISIONS: visible in health).
    pub circuit_breaker: &'static str,
}

/// Whether the Kubernetes API answered; only a failed check has an error.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Reached {
    Up,
    Down { error: String },
}

impl HealthBody {
    pub fn is_healthy(&self) -> bool {
        matches!(self.checks.kubernetes.reached, Reached::Up)
    }
}

fn now_iso8601() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64);
    Timestamp::from_millisecond(millis)
        .unwrap_or(Timestamp::UNIX_EPOCH)
        .to_string()
}

/// Checks connectivity: lists namespaces (one is enough), or with a configured namespace list
/// (no cluster-wide permission), the ingresses of the first configured namespace.
pub async fn check(
    api: &dyn KubeApi,
    namespaces: &[String],
    timeout: Duration,
    breaker: BreakerState,
) -> HealthBody {
    let started = Instant::now();
    let call = async {
        match namespaces.first() {
            Some(namespace) => api
                .list_ingresses(Some(namespace.clone()))
                .await
                .map(|_| ()),
            None => api.list_namespaces(Some(1)).await.map(|_| ()),
        }
    };
    let result = match tokio::time::timeout(timeout, call).await {
        Ok(result) => result,
        Err(_) => Err(KubeError::Timeout(timeout)),
    };
    let latency = started.elapsed().as_millis() as u64;
    let (status, reached) = match result {
        Ok(()) => ("healthy", Reached::Up),
        Err(error) => (
            "unhealthy",
            Reached::Down {
                error: error.to_string(),
            },
        ),
    };
    HealthBody {
        status,
        timestamp: now_iso8601(),
        checks: Checks {
            kubernetes: KubernetesCheck {
                reached,
                latency,
                circuit_breaker: breaker.as_str(),
            },
        },
    }
}
