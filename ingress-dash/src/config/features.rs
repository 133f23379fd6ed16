//! `backends:`, `certificates:` and `gateway_api:`: what ingress-dash reads beside ingresses.

use serde::Deserialize;
use service_kit::config::ConfigProblems;

/// `backends:`: the state of each backend Service (Services and EndpointSlices are watched).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BackendSettings {
    pub enabled: bool,
}

impl Default for BackendSettings {
    fn default() -> Self {
        Self { enabled: true }
    }
}

/// `certificates:`: the certificate of each TLS entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CertificateSettings {
    /// Read `kubernetes.io/tls` Secrets (their `tls.crt`; the key is never kept). Needs get,
    /// list and watch on secrets; off, cert-manager Certificates are read where installed.
    pub read_secrets: bool,
    /// Read cert-manager `Certificate`s where cert-manager is installed (detected at start-up):
    /// the certificate of a TLS entry whose Secret is not read. Needs get, list and watch on
    /// certificates.cert-manager.io.
    pub cert_manager: bool,
    /// The web app's default for "certificate expires within N days".
    pub expiry_warning_days: u32,
}

impl Default for CertificateSettings {
    fn default() -> Self {
        Self {
            read_secrets: false,
            cert_manager: true,
            expiry_warning_days: 14,
        }
    }
}

/// `gateway_api:`: HTTPRoutes beside ingresses when the Gateway API is installed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatewayApiSettings {
    /// Detect gateway.networking.k8s.io/v1 HTTPRoutes at start-up and show them; false never
    /// asks.
    pub enabled: bool,
}

impl Default for GatewayApiSettings {
    fn default() -> Self {
        Self { enabled: true }
    }
}

impl CertificateSettings {
    pub fn validate(&self, problems: &mut ConfigProblems) {
        problems.check(
            (1..=3650).contains(&self.expiry_warning_days),
            "certificates.expiry_warning_days",
            "must be between 1 and 3650",
        );
    }
}
