//! The browser's view of an Ingress (`IngressRecord` in docs/api/ingress-dash.md): only the
//! fields the dashboard shows, never managedFields or the raw object.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::networking::v1::{Ingress, IngressBackend};
use serde::{Deserialize, Serialize};

use crate::access::redaction::Redaction;

pub(crate) mod backends;
pub(crate) mod certificates;
mod dictionary;
pub(crate) mod gateway_routes;
pub(crate) mod httproute;
mod packed;
pub(crate) mod route_diagnosis;
mod status;
#[cfg(test)]
mod wire_tests;

use packed::PackedJson;

pub use route_diagnosis::RouteFinding;
pub use status::{
    BackendState, BackendStatus, CertificateSource, CertificateStatus, ParentRef, RecordKind,
    RouteBackendRef, RouteCondition, RouteDetail, RouteRule,
};

/// Annotations that are tooling noise, not configuration a reader wants to see.
const NOISE_ANNOTATIONS: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    "deployment.kubernetes.io/revision",
    "meta.helm.sh/release-name",
    "meta.helm.sh/release-namespace",
];

const LEGACY_CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

/// On the wire a field whose value is `null`, `[]` or `{}` is left out (at every level of the
/// record), except `kind`, `uid`, `name`, `namespace`, `resourceVersion`, `createdAt`, `hosts`,
/// `rules`, `tls`, `links`, `backends`, and a backend's `service`, `namespace`, `state`,
/// `readyEndpoints`, `totalEndpoints` (docs/api/ingress-dash.md). Reading accepts both shapes.
/// The web app's type is the full shape: `decodeRecord` (web/src/api/decode.ts) fills the
/// omitted fields back in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct IngressRecord {
    pub kind: RecordKind,
    pub uid: String,
    pub name: String,
    pub namespace: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress_class_name: Option<String>,
    pub hosts: Vec<String>,
    pub rules: Vec<Rule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_backend: Option<Backend>,
    pub tls: Vec<Tls>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    pub created_at: String,
    pub resource_version: String,
    pub links: Vec<Link>,
    /// One per distinct (service namespace, name, port) the record routes to.
    pub backends: Vec<BackendStatus>,
    /// One per TLS entry that names a Secret (ingresses only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub certificates: Vec<CertificateStatus>,
    /// Gateway API routes (HTTPRoute, GRPCRoute, TLSRoute) only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<RouteDetail>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PathRule>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct PathRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub path_type: String,
    pub backend: Backend,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Backend {
    Service { name: String, port: ServicePort },
    Resource(ResourceBackend),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum ServicePort {
    Number(i32),
    Name(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct ResourceBackend {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_group: Option<String>,
    pub kind: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct Tls {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Link {
    pub host: String,
    pub url: String,
}

impl IngressRecord {
    /// The record of `ingress`, its annotation values redacted by `redaction`.
    pub fn from_ingress(ingress: &Ingress, redaction: &Redaction) -> Self {
        let metadata = &ingress.metadata;
        let spec = ingress.spec.clone().unwrap_or_default();
        let annotations = metadata.annotations.clone().unwrap_or_default();
        let ingress_class_name = spec
            .ingress_class_name
            .clone()
            .or_else(|| annotations.get(LEGACY_CLASS_ANNOTATION).cloned());
        let rules: Vec<Rule> = spec
            .rules
            .unwrap_or_default()
            .into_iter()
            .map(|rule| Rule {
                host: rule.host,
                paths: rule
                    .http
                    .map(|http| http.paths)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|path| PathRule {
                        path: path.path,
                        path_type: path.path_type,
                        backend: Backend::from(path.backend),
                    })
                    .collect(),
            })
            .collect();
        let mut hosts: Vec<String> = Vec::new();
        for host in rules.iter().filter_map(|rule| rule.host.as_ref()) {
            if !hosts.contains(host) {
                hosts.push(host.clone());
            }
        }
        let tls: Vec<Tls> = spec
            .tls
            .unwrap_or_default()
            .into_iter()
            .map(|tls| Tls {
                hosts: tls.hosts.unwrap_or_default(),
                secret_name: tls.secret_name,
            })
            .collect();
        let mut annotations_shown: BTreeMap<String, String> = annotations
            .iter()
            .filter(|(key, _)| !NOISE_ANNOTATIONS.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        redaction.apply(&mut annotations_shown);
        let links = hosts
            .iter()
            .filter(|host| !host.contains('*'))
            .map(|host| {
                let secure = tls
                    .iter()
                    .any(|entry| entry.hosts.iter().any(|h| h == host));
                let scheme = if secure { "https" } else { "http" };
                Link {
                    host: host.clone(),
                    url: format!("{scheme}://{host}/"),
                }
            })
            .collect();
        let addresses = ingress
            .status
            .as_ref()
            .and_then(|status| status.load_balancer.as_ref())
            .and_then(|lb| lb.ingress.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ip.clone().or_else(|| entry.hostname.clone()))
            .collect();
        Self {
            kind: RecordKind::Ingress,
            uid: metadata.uid.clone().unwrap_or_default(),
            name: metadata.name.clone().unwrap_or_default(),
            namespace: metadata.namespace.clone().unwrap_or_default(),
            ingress_class_name,
            hosts,
            rules,
            default_backend: spec.default_backend.map(Backend::from),
            tls,
            addresses,
            labels: metadata.labels.clone().unwrap_or_default(),
            annotations: annotations_shown,
            created_at: metadata
                .creation_timestamp
                .as_ref()
                .map(|time| time.0.to_string())
                .unwrap_or_default(),
            resource_version: metadata.resource_version.clone().unwrap_or_default(),
            links,
            backends: Vec::new(),
            certificates: Vec::new(),
            route: None,
        }
    }

    /// The fields a search looks in: the name, namespace, hosts, class, addresses, and each
    /// path's backend service and path.
    fn search_fields(&self) -> impl Iterator<Item = &str> {
        let paths = self.rules.iter().flat_map(|rule| &rule.paths);
        [self.name.as_str(), self.namespace.as_str()]
            .into_iter()
            .chain(self.hosts.iter().map(String::as_str))
            .chain(self.ingress_class_name.as_deref())
            .chain(self.addresses.iter().map(String::as_str))
            .chain(paths.flat_map(|path| {
                let service = match &path.backend {
                    Backend::Service { name, .. } => Some(name.as_str()),
                    Backend::Resource(_) => None,
                };
                service.into_iter().chain(path.path.as_deref())
            }))
    }
}

/// A record as the hub keeps it: its JSON (serialised once, for every snapshot and event) and
/// the few fields the hub and search need. Far smaller than the typed record.
#[derive(Debug)]
pub struct StoredRecord {
    pub kind: RecordKind,
    /// Shared with the hub's keys and every other record of the namespace.
    pub namespace: Arc<str>,
    pub name: Arc<str>,
    /// Lower-case text of [`IngressRecord::search_fields`], one field per line, without the
    /// name and namespace when they are lower-case already (Kubernetes names always are):
    /// those are searched in place.
    search: Box<str>,
    json: PackedJson,
}

thread_local! {
    /// Where a record's JSON is written before it is packed.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl StoredRecord {
    pub fn new(record: &IngressRecord) -> Self {
        Self::with_names(
            record,
            Arc::from(record.namespace.as_str()),
            Arc::from(record.name.as_str()),
        )
    }

    /// The stored `record`, holding the given (shared) copies of its namespace and name.
    pub fn with_names(record: &IngressRecord, namespace: Arc<str>, name: Arc<str>) -> Self {
        let lower = |text: &str| !text.chars().any(char::is_uppercase);
        let fields: Vec<&str> = record
            .search_fields()
            .enumerate()
            .filter(|(index, field)| *index >= 2 || !lower(field))
            .map(|(_, field)| field)
            .collect();
        // Written into a reused buffer, then packed at its exact size.
        let json = SCRATCH.with_borrow_mut(|buffer| {
            buffer.clear();
            serde_json::to_writer(&mut *buffer, record).expect("records serialise");
            PackedJson::pack(buffer)
        });
        debug_assert_eq!((&*namespace, &*name), (&*record.namespace, &*record.name));
        Self {
            kind: record.kind,
            namespace,
            name,
            search: {
                let search = fields.join("\n").to_lowercase();
                crate::alloc::long_lived(|| Box::from(search.as_str()))
            },
            json,
        }
    }

    /// Whether `term` (already lower-case) occurs in one of the searched fields.
    pub fn matches(&self, term: &str) -> bool {
        self.name.contains(term)
            || self.namespace.contains(term)
            || self.search.split('\n').any(|field| field.contains(term))
    }

    /// The record's JSON (unpacked: see [`StoredRecord::write_json`] to append it).
    pub fn json(&self) -> String {
        self.json.unpack()
    }

    /// Appends the record's JSON to `out`.
    pub fn write_json(&self, out: &mut actix_web::web::BytesMut) {
        self.json.write_to(out);
    }

    /// The record's JSON at its exact size (an event's data).
    pub fn json_bytes(&self) -> actix_web::web::Bytes {
        let mut out = actix_web::web::BytesMut::with_capacity(self.json.len());
        self.json.write_to(&mut out);
        out.freeze()
    }

    /// Whether both records have the same JSON (compared packed).
    pub fn same_json(&self, other: &StoredRecord) -> bool {
        self.json == other.json
    }

    /// The bytes the record's JSON is kept in (tests: where they were allocated).
    #[cfg(test)]
    pub fn packed_json(&self) -> &[u8] {
        self.json.bytes()
    }
}

/// As its JSON (the service writes records with [`StoredRecord::write_json`] and
/// [`StoredRecord::json_bytes`], which neither copy nor re-check it; this is for `Snapshot`'s
/// derived serialisation).
impl Serialize for StoredRecord {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let json = serde_json::value::RawValue::from_string(self.json())
            .map_err(serde::ser::Error::custom)?;
        json.serialize(serializer)
    }
}

/// Reads a stored record back from its JSON, which must be an [`IngressRecord`]'s (tests only:
/// they parse the hand-written snapshot bodies; the service never reads one back).
#[cfg(test)]
impl<'de> Deserialize<'de> for StoredRecord {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IngressRecord::deserialize(deserializer).map(|record| Self::new(&record))
    }
}

impl From<IngressBackend> for Backend {
    fn from(backend: IngressBackend) -> Self {
        if let Some(service) = backend.service {
            let port = service.port.unwrap_or_default();
            let port = match (port.number, port.name) {
                (Some(number), _) => ServicePort::Number(number),
                (None, Some(name)) => ServicePort::Name(name),
                (None, None) => ServicePort::Number(0),
            };
            return Backend::Service {
                name: service.name,
                port,
            };
        }
        let resource = backend.resource.unwrap_or_default();
        Backend::Resource(ResourceBackend {
            api_group: resource.api_group,
            kind: resource.kind,
            name: resource.name,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(value: serde_json::Value) -> serde_json::Value {
        let ingress: Ingress = serde_json::from_value(value).unwrap();
        serde_json::to_value(IngressRecord::from_ingress(&ingress, &Redaction::none())).unwrap()
    }

    #[test]
    fn record_has_the_contract_fields_and_drops_noise() {
        let value = record(json!({
            "metadata": {
                "name": "web", "namespace": "shop", "uid": "u-1", "resourceVersion": "7",
                "creationTimestamp": "2026-01-02T03:04:05Z",
                "labels": {"app": "web"},
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{}",
                    "kubernetes.io/ingress.class": "nginx",
                    "team": "payments",
                },
                "managedFields": [{"manager": "kubectl"}],
            },
            "spec": {
                "rules": [
                    {"host": "shop.example.com", "http": {"paths": [
                        {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
                        {"pathType": "ImplementationSpecific", "backend": {"service": {"name": "api", "port": {"name": "http"}}}},
                    ]}},
                    {"host": "shop.example.com"},
                    {"host": "*.cdn.example.com", "http": {"paths": [
                        {"path": "/", "pathType": "Prefix", "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "Bucket", "name": "assets"}}},
                    ]}},
                    {"host": "plain.example.com"},
                ],
                "defaultBackend": {"service": {"name": "fallback", "port": {"number": 8080}}},
                "tls": [{"hosts": ["shop.example.com"], "secretName": "shop-tls"}, {"hosts": ["x.example.com"]}],
            },
            "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}, {"hostname": "lb.example.com"}]}},
        }));
        assert_eq!(
            value,
            json!({
                "kind": "Ingress",
                "uid": "u-1", "name": "web", "namespace": "shop",
                "ingressClassName": "nginx",
                "hosts": ["shop.example.com", "*.cdn.example.com", "plain.example.com"],
                "rules": [
                    {"host": "shop.example.com", "paths": [
                        {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": 80}}},
                        {"pathType": "ImplementationSpecific", "backend": {"service": {"name": "api", "port": "http"}}},
                    ]},
                    {"host": "shop.example.com"},
                    {"host": "*.cdn.example.com", "paths": [
                        {"path": "/", "pathType": "Prefix", "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "Bucket", "name": "assets"}}},
                    ]},
                    {"host": "plain.example.com"},
                ],
                "defaultBackend": {"service": {"name": "fallback", "port": 8080}},
                "tls": [{"hosts": ["shop.example.com"], "secretName": "shop-tls"}, {"hosts": ["x.example.com"]}],
                "addresses": ["10.0.0.1", "lb.example.com"],
                "labels": {"app": "web"},
                "annotations": {"kubernetes.io/ingress.class": "nginx", "team": "payments"},
                "createdAt": "2026-01-02T03:04:05Z",
                "resourceVersion": "7",
                "links": [
                    {"host": "shop.example.com", "url": "https://shop.example.com/"},
                    {"host": "plain.example.com", "url": "http://plain.example.com/"},
                ],
                "backends": [],
            })
        );
    }

    #[test]
    fn stored_records_serialise_and_search_like_records() {
        let ingress: Ingress = serde_json::from_value(json!({
            "metadata": {"name": "Web", "namespace": "shop", "resourceVersion": "3"},
            "spec": {"rules": [{"host": "shop.example.com", "http": {"paths": [
                {"path": "/api", "pathType": "Prefix", "backend": {"service": {"name": "payments", "port": {"number": 80}}}},
            ]}}]},
        }))
        .unwrap();
        let record = IngressRecord::from_ingress(&ingress, &Redaction::none());
        let stored = StoredRecord::new(&record);
        assert_eq!(
            serde_json::to_value(&stored).unwrap(),
            serde_json::to_value(&record).unwrap()
        );
        assert_eq!(stored.json_bytes(), serde_json::to_vec(&record).unwrap());
        assert_eq!(
            stored.json().as_bytes(),
            serde_json::to_vec(&record).unwrap()
        );
        for term in ["web", "shop.ex", "payments", "/api"] {
            assert!(stored.matches(term), "{term}");
        }
        assert!(!stored.matches("nothing"));
    }

    #[test]
    fn class_field_wins_over_the_legacy_annotation() {
        let value = record(json!({
            "metadata": {"name": "a", "annotations": {"kubernetes.io/ingress.class": "old"}},
            "spec": {"ingressClassName": "new"},
        }));
        assert_eq!(value["ingressClassName"], "new");
        assert_eq!(value.get("defaultBackend"), None);
    }
}
