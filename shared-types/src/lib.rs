//! Wire types shared by the three services.
//!
//! Only types that appear on the wire of more than one service live here; the runtime plumbing the
//! services share (configuration loading, logging, metrics endpoint) is in `service-kit`.

use serde::{Deserialize, Serialize};

/// The one error body every JSON endpoint of every service answers with:
/// `{"error": {"code": "<snake_case>", "message": "<one human sentence>"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ErrorDetail {
    /// Stable machine-readable code in snake_case, e.g. `unknown_cluster`.
    pub code: String,
    /// One human sentence; never a stack trace or a secret.
    pub message: String,
}

impl ErrorBody {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            error: ErrorDetail {
                code: code.into(),
                message: message.into(),
            },
        }
    }
}

/// Body of a liveness endpoint: it depends on the process alone, so it is always `healthy`
/// while the process can answer at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LivenessBody {
    pub status: String,
    pub version: String,
}

impl LivenessBody {
    pub fn healthy(version: &str) -> Self {
        Self {
            status: "healthy".to_owned(),
            version: version.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_body_has_the_decided_shape() {
        let body = ErrorBody::new("unknown_cluster", "No cluster has the id \"x\".");
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"error": {"code": "unknown_cluster", "message": "No cluster has the id \"x\"."}})
        );
    }

    #[test]
    fn liveness_body_reports_healthy_and_version() {
        let body = LivenessBody::healthy("1.2.3");
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"status": "healthy", "version": "1.2.3"})
        );
    }
}
