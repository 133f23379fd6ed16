//! Serde types of the objects read beside ingresses that k8s-openapi has no type for (the two
//! custom resources, after the Gateway API v1 and cert-manager v1 references), and the lean
//! TLS Secret: only what the dashboard reads is deserialised.

use std::borrow::Cow;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Deserializer};

/// Implements `kube::Resource` for a namespaced type with a `metadata: ObjectMeta` field.
macro_rules! namespaced_resource {
    ($type:ty, $kind:literal, $group:literal, $version:literal, $plural:literal) => {
        impl kube::core::Resource for $type {
            type DynamicType = ();
            type Scope = k8s_openapi::NamespaceResourceScope;

            fn kind(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($kind)
            }

            fn group(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($group)
            }

            fn version(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($version)
            }

            fn plural(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($plural)
            }

            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }

            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

/// A `kubernetes.io/tls` Secret as ingress-dash reads it: its name and `tls.crt`. Every other
/// key (`tls.key` above all) and every annotation (`kubectl.kubernetes.io/last-applied-
/// configuration` holds the whole Secret, key included, when it was applied with kubectl) is
/// skipped by the parser, never held in memory as a value.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TlsSecret {
    #[serde(deserialize_with = "lean_metadata")]
    pub metadata: ObjectMeta,
    #[serde(rename = "type", default)]
    pub type_: Option<String>,
    #[serde(default)]
    pub data: TlsData,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct TlsData {
    /// The certificate chain (PEM), leaf first.
    #[serde(rename = "tls.crt", default)]
    pub certificate: Option<ByteString>,
}

namespaced_resource!(TlsSecret, "Secret", "", "v1", "secrets");

/// Only a Secret's identity: its annotations may carry the key (last-applied-configuration).
fn lean_metadata<'de, D: Deserializer<'de>>(deserializer: D) -> Result<ObjectMeta, D::Error> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Lean {
        name: Option<String>,
        namespace: Option<String>,
        uid: Option<String>,
        resource_version: Option<String>,
    }
    let lean = Lean::deserialize(deserializer)?;
    Ok(ObjectMeta {
        name: lean.name,
        namespace: lean.namespace,
        uid: lean.uid,
        resource_version: lean.resource_version,
        ..ObjectMeta::default()
    })
}

/// cert-manager.io/v1 `Certificate`: the fields that say what it issues into which Secret.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CertManagerCertificate {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CertManagerSpec,
    #[serde(default)]
    pub status: Option<CertManagerStatus>,
}

namespaced_resource!(
    CertManagerCertificate,
    "Certificate",
    "cert-manager.io",
    "v1",
    "certificates"
);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CertManagerSpec {
    pub secret_name: String,
    pub common_name: Option<String>,
    pub dns_names: Vec<String>,
    pub issuer_ref: Option<IssuerRef>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IssuerRef {
    pub name: String,
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CertManagerStatus {
    pub not_before: Option<String>,
    pub not_after: Option<String>,
    pub conditions: Vec<Condition>,
}

/// A `metav1.Condition` (and cert-manager's condition, which has the same fields).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: Option<String>,
    pub message: Option<String>,
}

/// gateway.networking.k8s.io/v1 `HTTPRoute`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HttpRoute {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: HttpRouteSpec,
    #[serde(default)]
    pub status: Option<HttpRouteStatus>,
}

namespaced_resource!(
    HttpRoute,
    "HTTPRoute",
    "gateway.networking.k8s.io",
    "v1",
    "httproutes"
);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HttpRouteSpec {
    pub parent_refs: Vec<ParentReference>,
    pub hostnames: Vec<String>,
    pub rules: Vec<HttpRouteRule>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParentReference {
    pub group: Option<String>,
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: String,
    pub section_name: Option<String>,
    pub port: Option<i32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HttpRouteRule {
    pub matches: Vec<HttpRouteMatch>,
    pub backend_refs: Vec<HttpBackendRef>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HttpRouteMatch {
    pub path: Option<HttpPathMatch>,
    pub headers: Vec<HttpValueMatch>,
    pub query_params: Vec<HttpValueMatch>,
    pub method: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HttpPathMatch {
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub value: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HttpValueMatch {
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HttpBackendRef {
    pub group: Option<String>,
    pub kind: Option<String>,
    pub name: String,
    pub namespace: Option<String>,
    pub port: Option<i32>,
    pub weight: Option<i32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HttpRouteStatus {
    pub parents: Vec<RouteParentStatus>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RouteParentStatus {
    pub parent_ref: ParentReference,
    pub controller_name: String,
    pub conditions: Vec<Condition>,
}

/// A Gateway API route of another kind than HTTPRoute (GRPCRoute, TLSRoute): the fields the
/// kinds share, with the kind's own rules.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GatewayRoute<R> {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default = "GatewayRouteSpec::default")]
    pub spec: GatewayRouteSpec<R>,
    #[serde(default)]
    pub status: Option<HttpRouteStatus>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GatewayRouteSpec<R> {
    pub parent_refs: Vec<ParentReference>,
    pub hostnames: Vec<String>,
    pub rules: Vec<R>,
}

impl<R> Default for GatewayRouteSpec<R> {
    fn default() -> Self {
        Self {
            parent_refs: Vec::new(),
            hostnames: Vec::new(),
            rules: Vec::new(),
        }
    }
}

/// A rule's backendRefs, whatever else the kind's rule holds.
pub trait RouteRuleBackends {
    fn backend_refs(&self) -> &[HttpBackendRef];
}

impl<R: RouteRuleBackends> GatewayRoute<R> {
    /// Its parents, hostnames, rules' backendRefs and status in HTTPRoute's shape (no
    /// matches): what `records::httproute` builds the shared part of a record from.
    pub fn shared_shape(&self) -> HttpRoute {
        HttpRoute {
            metadata: self.metadata.clone(),
            spec: HttpRouteSpec {
                parent_refs: self.spec.parent_refs.clone(),
                hostnames: self.spec.hostnames.clone(),
                rules: self
                    .spec
                    .rules
                    .iter()
                    .map(|rule| HttpRouteRule {
                        matches: Vec::new(),
                        backend_refs: rule.backend_refs().to_vec(),
                    })
                    .collect(),
            },
            status: self.status.clone(),
        }
    }
}

/// gateway.networking.k8s.io/v1 `GRPCRoute`: rules of method and header matches.
pub type GrpcRoute = GatewayRoute<GrpcRouteRule>;

namespaced_resource!(
    GrpcRoute,
    "GRPCRoute",
    "gateway.networking.k8s.io",
    "v1",
    "grpcroutes"
);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GrpcRouteRule {
    pub matches: Vec<GrpcRouteMatch>,
    pub backend_refs: Vec<HttpBackendRef>,
}

impl RouteRuleBackends for GrpcRouteRule {
    fn backend_refs(&self) -> &[HttpBackendRef] {
        &self.backend_refs
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GrpcRouteMatch {
    pub method: Option<GrpcMethodMatch>,
    pub headers: Vec<HttpValueMatch>,
}

/// `type` defaults to `Exact`; either `service` or `method` may be left out (any).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GrpcMethodMatch {
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub service: Option<String>,
    pub method: Option<String>,
}

/// gateway.networking.k8s.io/v1 `TLSRoute` (served at v1 by the standard channel since Gateway
/// API 1.5): SNI hostnames and backendRefs, no matches.
pub type TlsRoute = GatewayRoute<TlsRouteRule>;

namespaced_resource!(
    TlsRoute,
    "TLSRoute",
    "gateway.networking.k8s.io",
    "v1",
    "tlsroutes"
);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TlsRouteRule {
    pub backend_refs: Vec<HttpBackendRef>,
}

impl RouteRuleBackends for TlsRouteRule {
    fn backend_refs(&self) -> &[HttpBackendRef] {
        &self.backend_refs
    }
}

/// gateway.networking.k8s.io/v1 `Gateway`, reduced to its listeners: read on demand by the Hosts
/// view to join each route's parentRefs to the listeners they attach to.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Gateway {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: GatewaySpec,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GatewaySpec {
    pub listeners: Vec<GatewayListener>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GatewayListener {
    pub name: String,
    pub hostname: Option<String>,
    pub port: i32,
    pub protocol: String,
    pub tls: Option<ListenerTls>,
    /// Absent: the CRD's default, routes of every kind the protocol takes from the Gateway's
    /// own namespace.
    pub allowed_routes: Option<AllowedRoutes>,
}

/// A listener's `allowedRoutes`: which kinds of route, from which namespaces.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AllowedRoutes {
    /// Empty: the kinds the listener's protocol takes.
    pub kinds: Vec<RouteGroupKind>,
    pub namespaces: Option<RouteNamespaces>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RouteGroupKind {
    /// Absent: `gateway.networking.k8s.io`.
    pub group: Option<String>,
    pub kind: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RouteNamespaces {
    /// `Same` (absent too), `All` or `Selector` (a label selector on the route's namespace,
    /// which the dashboard does not read: namespace labels are not among what it watches).
    pub from: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListenerTls {
    /// `Terminate` (the default) or `Passthrough`.
    pub mode: Option<String>,
    pub certificate_refs: Vec<SecretObjectReference>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SecretObjectReference {
    pub kind: Option<String>,
    pub name: String,
    pub namespace: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tls_secret_keeps_neither_the_key_nor_the_annotations() {
        let secret: TlsSecret = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web-tls", "namespace": "shop", "resourceVersion": "4",
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"tls.key\":\"S0VZ\"}}"}},
            "type": "kubernetes.io/tls",
            "data": {"tls.crt": "Q0VSVA==", "tls.key": "S0VZ"},
        }))
        .unwrap();
        assert_eq!(secret.data.certificate.unwrap().0, b"CERT");
        assert_eq!(secret.metadata.annotations, None);
        assert_eq!(secret.metadata.name.as_deref(), Some("web-tls"));
        assert_eq!(secret.metadata.resource_version.as_deref(), Some("4"));
    }
}
