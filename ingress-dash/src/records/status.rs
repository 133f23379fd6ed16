//! The joined parts of a record (docs/api/ingress-dash.md): the state of each backend Service,
//! each TLS entry's certificate, and an HTTPRoute's detail. Filled by the hub from the Services,
//! EndpointSlices, Secrets, cert-manager Certificates and HTTPRoutes it watches.

use serde::{Deserialize, Serialize};

use super::ServicePort;

/// Which Kubernetes object a record shows.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum RecordKind {
    #[default]
    Ingress,
    #[serde(rename = "HTTPRoute")]
    HttpRoute,
    #[serde(rename = "GRPCRoute")]
    GrpcRoute,
    #[serde(rename = "TLSRoute")]
    TlsRoute,
}

impl RecordKind {
    /// The kind as the API server names it (`Ingress`, `HTTPRoute`, `GRPCRoute`, `TLSRoute`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Ingress => "Ingress",
            Self::HttpRoute => "HTTPRoute",
            Self::GrpcRoute => "GRPCRoute",
            Self::TlsRoute => "TLSRoute",
        }
    }
}

/// One distinct (service namespace, service name, port) a record routes to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct BackendStatus {
    pub service: String,
    pub namespace: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<ServicePort>,
    pub state: BackendState,
    pub ready_endpoints: u32,
    pub total_endpoints: u32,
    /// Why the state is `unknown` (the Services or EndpointSlices cannot be read), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum BackendState {
    /// Every endpoint is ready.
    Ready,
    /// Some but not all endpoints are ready.
    Degraded,
    /// The Service exists but no endpoint is ready (or it has none).
    NoReadyEndpoints,
    /// The Service does not exist.
    MissingService,
    /// Services or EndpointSlices cannot be read (forbidden, failing, not watched yet).
    Unknown,
}

/// The certificate of one TLS entry that names a Secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct CertificateStatus {
    pub secret_name: String,
    /// The entry's `hosts`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    pub source: CertificateSource,
    /// The certificate's DNS subject alternative names (or its common name when it has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subject_names: Vec<String>,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<String>,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// Hosts of the entry or of the record's rules that no subject name covers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_hosts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CertificateSource {
    /// Parsed from the Secret's `tls.crt`.
    Secret,
    /// From the cert-manager Certificate that writes the Secret (its status and dnsNames).
    CertManager,
    /// Secrets are not read and no cert-manager Certificate is known.
    NotRead,
}

/// What an HTTPRoute attaches to, what its parents say of it, and where its rules send traffic.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct RouteDetail {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parent_refs: Vec<ParentRef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<RouteCondition>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RouteRule>,
    /// Why the route does not work, per parent (empty: nothing found wrong).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnosis: Vec<super::RouteFinding>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct ParentRef {
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// A condition a parent (controller) reported for the route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
pub struct RouteCondition {
    /// The parent as `namespace/name` (with `/section` when the reference names one).
    pub parent: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct RouteRule {
    /// Each match in words: "PathPrefix /api GET header x-env=canary".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backend_refs: Vec<RouteBackendRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct RouteBackendRef {
    pub kind: String,
    pub name: String,
    pub namespace: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    pub weight: i32,
}
