//! The object kinds this server holds, named as the API and its discovery documents name them.

/// The kinds this server holds: built-in kinds of Kubernetes 1.33 and custom resources
/// (Gateway API `Gateway`, `HTTPRoute`, `GRPCRoute` and `TLSRoute`, cert-manager `Certificate`), each
/// served only while its CRD is installed (see [`crate::Options`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// core/v1 `Namespace` (cluster-scoped).
    Namespace,
    /// networking.k8s.io/v1 `IngressClass` (cluster-scoped): which controller an Ingress is for.
    IngressClass,
    /// networking.k8s.io/v1 `Ingress`.
    Ingress,
    /// core/v1 `Service`.
    Service,
    /// core/v1 `Secret`.
    Secret,
    /// core/v1 `Event` (the one `kubectl describe` and `kubectl events` read).
    Event,
    /// discovery.k8s.io/v1 `EndpointSlice`.
    EndpointSlice,
    /// gateway.networking.k8s.io/v1 `HTTPRoute` (custom resource).
    HttpRoute,
    /// gateway.networking.k8s.io/v1 `Gateway` (custom resource): the listeners routes attach to.
    Gateway,
    /// gateway.networking.k8s.io/v1 `GRPCRoute` (custom resource).
    GrpcRoute,
    /// gateway.networking.k8s.io/v1 `TLSRoute` (custom resource; v1 in the standard channel
    /// since Gateway API 1.5).
    TlsRoute,
    /// cert-manager.io/v1 `Certificate` (custom resource).
    Certificate,
}

/// Where a custom resource comes from: the CRDs a cluster may or may not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Crd {
    /// The Gateway API standard channel (`gateway.networking.k8s.io`).
    GatewayApi,
    /// cert-manager (`cert-manager.io`).
    CertManager,
}

impl Kind {
    /// Every kind, in the order discovery lists them and `sample::api_objects` gives them to be
    /// written: namespaces first, IngressClasses after the Ingresses (written before them, a
    /// default class would be set on every Ingress without a class).
    pub const ALL: [Kind; 12] = [
        Kind::Namespace,
        Kind::Service,
        Kind::Secret,
        Kind::Event,
        Kind::Ingress,
        Kind::IngressClass,
        Kind::EndpointSlice,
        Kind::Gateway,
        Kind::HttpRoute,
        Kind::GrpcRoute,
        Kind::TlsRoute,
        Kind::Certificate,
    ];

    /// `v1`, `networking.k8s.io/v1`, ...
    pub fn api_version(self) -> &'static str {
        match self {
            Kind::Namespace | Kind::Service | Kind::Secret | Kind::Event => "v1",
            Kind::Ingress | Kind::IngressClass => "networking.k8s.io/v1",
            Kind::EndpointSlice => "discovery.k8s.io/v1",
            Kind::Gateway | Kind::HttpRoute | Kind::GrpcRoute | Kind::TlsRoute => {
                "gateway.networking.k8s.io/v1"
            }
            Kind::Certificate => "cert-manager.io/v1",
        }
    }

    /// The `kind` field: `Ingress`, `HTTPRoute`, ...
    pub fn name(self) -> &'static str {
        match self {
            Kind::Namespace => "Namespace",
            Kind::Ingress => "Ingress",
            Kind::IngressClass => "IngressClass",
            Kind::Service => "Service",
            Kind::Secret => "Secret",
            Kind::Event => "Event",
            Kind::EndpointSlice => "EndpointSlice",
            Kind::Gateway => "Gateway",
            Kind::HttpRoute => "HTTPRoute",
            Kind::GrpcRoute => "GRPCRoute",
            Kind::TlsRoute => "TLSRoute",
            Kind::Certificate => "Certificate",
        }
    }

    /// The API group (`""` for the core group).
    pub fn group(self) -> &'static str {
        match self.api_version().rsplit_once('/') {
            Some((group, _)) => group,
            None => "",
        }
    }

    /// The version within the group: `v1` for every kind here.
    pub fn version(self) -> &'static str {
        match self.api_version().rsplit_once('/') {
            Some((_, version)) => version,
            None => self.api_version(),
        }
    }

    /// The resource as error messages name it: `namespaces`, `ingresses.networking.k8s.io`.
    pub fn qualified_resource(self) -> String {
        match self.group() {
            "" => self.plural().to_owned(),
            group => format!("{}.{group}", self.plural()),
        }
    }

    /// The resource name in URLs: `ingresses`, `endpointslices`, `httproutes`.
    pub fn plural(self) -> &'static str {
        match self {
            Kind::Namespace => "namespaces",
            Kind::Ingress => "ingresses",
            Kind::IngressClass => "ingressclasses",
            Kind::Service => "services",
            Kind::Secret => "secrets",
            Kind::Event => "events",
            Kind::EndpointSlice => "endpointslices",
            Kind::Gateway => "gateways",
            Kind::HttpRoute => "httproutes",
            Kind::GrpcRoute => "grpcroutes",
            Kind::TlsRoute => "tlsroutes",
            Kind::Certificate => "certificates",
        }
    }

    /// The singular name as discovery gives it.
    pub fn singular(self) -> &'static str {
        match self {
            Kind::Namespace => "namespace",
            Kind::Ingress => "ingress",
            Kind::IngressClass => "ingressclass",
            Kind::Service => "service",
            Kind::Secret => "secret",
            Kind::Event => "event",
            Kind::EndpointSlice => "endpointslice",
            Kind::Gateway => "gateway",
            Kind::HttpRoute => "httproute",
            Kind::GrpcRoute => "grpcroute",
            Kind::TlsRoute => "tlsroute",
            Kind::Certificate => "certificate",
        }
    }

    /// Short names, as the real API server and the CRDs declare them.
    pub fn short_names(self) -> &'static [&'static str] {
        match self {
            Kind::Namespace => &["ns"],
            Kind::Ingress => &["ing"],
            Kind::Service => &["svc"],
            Kind::Event => &["ev"],
            Kind::Certificate => &["cert", "certs"],
            Kind::Gateway => &["gtw"],
            Kind::Secret
            | Kind::EndpointSlice
            | Kind::HttpRoute
            | Kind::GrpcRoute
            | Kind::TlsRoute
            | Kind::IngressClass => &[],
        }
    }

    /// Discovery categories (`kubectl get all` uses `all`).
    pub fn categories(self) -> &'static [&'static str] {
        match self {
            Kind::Service => &["all"],
            Kind::Gateway | Kind::HttpRoute | Kind::GrpcRoute | Kind::TlsRoute => &["gateway-api"],
            Kind::Certificate => &["cert-manager"],
            _ => &[],
        }
    }

    pub fn namespaced(self) -> bool {
        !matches!(self, Kind::Namespace | Kind::IngressClass)
    }

    /// The CRD that serves this kind, for custom resources.
    pub fn crd(self) -> Option<Crd> {
        match self {
            Kind::Gateway | Kind::HttpRoute | Kind::GrpcRoute | Kind::TlsRoute => {
                Some(Crd::GatewayApi)
            }
            Kind::Certificate => Some(Crd::CertManager),
            _ => None,
        }
    }

    /// Whether a write through the API keeps `status` (a status subresource: only controllers
    /// write it) rather than taking it from the body.
    pub(crate) fn has_status(self) -> bool {
        matches!(
            self,
            Kind::Namespace
                | Kind::Ingress
                | Kind::Service
                | Kind::Gateway
                | Kind::HttpRoute
                | Kind::GrpcRoute
                | Kind::TlsRoute
                | Kind::Certificate
        )
    }

    /// Whether the API server keeps `metadata.generation` for the kind.
    pub(crate) fn has_generation(self) -> bool {
        !matches!(
            self,
            Kind::Namespace | Kind::Service | Kind::Secret | Kind::Event
        )
    }

    /// The kind served at `/api/v1/<plural>` (group `""`) or `/apis/<group>/<version>/<plural>`.
    pub fn from_path(group: &str, version: &str, plural: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| {
            kind.group() == group && kind.version() == version && kind.plural() == plural
        })
    }
}

/// What a resource path names: a kind the server serves, and a namespace and object name
/// where the path has them.
pub(crate) struct Target {
    pub kind: Kind,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_resolve_from_paths() {
        assert_eq!(
            Kind::from_path("gateway.networking.k8s.io", "v1", "httproutes"),
            Some(Kind::HttpRoute)
        );
        assert_eq!(Kind::from_path("", "v1", "events"), Some(Kind::Event));
        assert_eq!(Kind::from_path("", "v1", "ingresses"), None);
        assert_eq!(
            Kind::from_path("networking.k8s.io", "v1", "ingressclasses"),
            Some(Kind::IngressClass)
        );
        assert!(!Kind::IngressClass.namespaced());
        assert_eq!(Kind::EndpointSlice.group(), "discovery.k8s.io");
        assert_eq!(Kind::Secret.group(), "");
        assert_eq!(Kind::Secret.version(), "v1");
    }
}
