//! The kinds a namespace's watcher lists and watches beside its ingresses (Services,
//! EndpointSlices, TLS Secrets, cert-manager Certificates, Gateway API HTTP/GRPC/TLSRoutes), as one
//! [`Object`] type the list+watch loop carries, and what to tell people when a kind cannot be
//! read.

use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::networking::v1::Ingress;
use kube::core::Resource;

pub use super::kind_types::{CertManagerCertificate, GrpcRoute, HttpRoute, TlsRoute, TlsSecret};

use crate::kube::resilience::CallError;

/// The group/version that serves HTTPRoutes.
pub const GATEWAY_API_VERSION: &str = "gateway.networking.k8s.io/v1";
/// The group/version that serves cert-manager Certificates.
pub const CERT_MANAGER_VERSION: &str = "cert-manager.io/v1";

/// A kind a watcher lists and watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WatchedKind {
    Ingresses,
    Services,
    EndpointSlices,
    /// `kubernetes.io/tls` Secrets only (a field selector), and of them only `tls.crt`.
    Secrets,
    /// cert-manager.io/v1 Certificates.
    Certificates,
    /// gateway.networking.k8s.io/v1 HTTPRoutes.
    HttpRoutes,
    /// gateway.networking.k8s.io/v1 GRPCRoutes.
    GrpcRoutes,
    /// gateway.networking.k8s.io/v1 TLSRoutes (only while the API server serves them).
    TlsRoutes,
}

impl WatchedKind {
    /// The resource as RBAC rules name it.
    pub fn resource(self) -> &'static str {
        match self {
            WatchedKind::Ingresses => "ingresses.networking.k8s.io",
            WatchedKind::Services => "services",
            WatchedKind::EndpointSlices => "endpointslices.discovery.k8s.io",
            WatchedKind::Secrets => "secrets",
            WatchedKind::Certificates => "certificates.cert-manager.io",
            WatchedKind::HttpRoutes => "httproutes.gateway.networking.k8s.io",
            WatchedKind::GrpcRoutes => "grpcroutes.gateway.networking.k8s.io",
            WatchedKind::TlsRoutes => "tlsroutes.gateway.networking.k8s.io",
        }
    }

    /// The `call` label of the retry metric for a list of this kind.
    pub fn list_call(self) -> &'static str {
        match self {
            WatchedKind::Ingresses => "list_ingresses",
            WatchedKind::Services => "list_services",
            WatchedKind::EndpointSlices => "list_endpointslices",
            WatchedKind::Secrets => "list_secrets",
            WatchedKind::Certificates => "list_certificates",
            WatchedKind::HttpRoutes => "list_httproutes",
            WatchedKind::GrpcRoutes => "list_grpcroutes",
            WatchedKind::TlsRoutes => "list_tlsroutes",
        }
    }

    /// The `call` label of the retry metric for a watch of this kind.
    pub fn watch_call(self) -> &'static str {
        match self {
            WatchedKind::Ingresses => "watch_ingresses",
            WatchedKind::Services => "watch_services",
            WatchedKind::EndpointSlices => "watch_endpointslices",
            WatchedKind::Secrets => "watch_secrets",
            WatchedKind::Certificates => "watch_certificates",
            WatchedKind::HttpRoutes => "watch_httproutes",
            WatchedKind::GrpcRoutes => "watch_grpcroutes",
            WatchedKind::TlsRoutes => "watch_tlsroutes",
        }
    }

    /// What a person should know when this kind (not ingresses) cannot be read in `place`
    /// ("in team-a", "cluster-wide"): the error, and for a refusal the grant it needs.
    pub fn failure_message(self, place: &str, error: &CallError) -> String {
        let status = match error {
            CallError::Kube(kube) => kube.status(),
            CallError::CircuitOpen { .. } => None,
        };
        let resource = self.resource();
        match status {
            Some(401 | 403) => format!(
                "ingress-dash may not list or watch {resource} {place}: grant get, list and watch \
                 on {resource} ({error})"
            ),
            Some(404) => format!("The API server does not serve {resource} {place} ({error})"),
            _ => format!("{resource} could not be read {place}: {error}"),
        }
    }
}

/// One object of a watched kind, reduced on arrival where the whole is not needed.
#[derive(Debug, Clone)]
pub enum Object {
    Ingress(Box<Ingress>),
    Service(Box<Service>),
    EndpointSlice(Box<EndpointSlice>),
    Secret(Box<TlsSecret>),
    Certificate(Box<CertManagerCertificate>),
    HttpRoute(Box<HttpRoute>),
    GrpcRoute(Box<GrpcRoute>),
    TlsRoute(Box<TlsRoute>),
}

impl Object {
    #[cfg(test)]
    pub fn name(&self) -> &str {
        let name = match self {
            Object::Ingress(object) => &object.metadata.name,
            Object::Service(object) => &object.metadata.name,
            Object::EndpointSlice(object) => &object.metadata.name,
            Object::Secret(object) => &object.metadata.name,
            Object::Certificate(object) => &object.metadata.name,
            Object::HttpRoute(object) => &object.metadata.name,
            Object::GrpcRoute(object) => &object.metadata.name,
            Object::TlsRoute(object) => &object.metadata.name,
        };
        name.as_deref().unwrap_or_default()
    }

    pub fn resource_version(&self) -> Option<&str> {
        match self {
            Object::Ingress(object) => object.meta().resource_version.as_deref(),
            Object::Service(object) => object.meta().resource_version.as_deref(),
            Object::EndpointSlice(object) => object.meta().resource_version.as_deref(),
            Object::Secret(object) => object.metadata.resource_version.as_deref(),
            Object::Certificate(object) => object.metadata.resource_version.as_deref(),
            Object::HttpRoute(object) => object.metadata.resource_version.as_deref(),
            Object::GrpcRoute(object) => object.metadata.resource_version.as_deref(),
            Object::TlsRoute(object) => object.metadata.resource_version.as_deref(),
        }
    }
}
