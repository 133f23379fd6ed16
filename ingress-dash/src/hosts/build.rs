//! What a record claims ([`visit`]: each host it serves, each match with its backends, each
//! TLS entry), and [`HostIndex`], the full entries of the hosts an answer holds, flagged.

use std::collections::{BTreeMap, BTreeSet};

use super::admission;
use super::listeners::{self, Attachment, KnownGateways};
use super::{
    ANY_HOST, Conflict, Duplicate, HostEntry, HostPath, HostTls, PathBackend, ServingObject,
};
use crate::records::{
    Backend, BackendStatus, CertificateSource, IngressRecord, RecordKind, RouteBackendRef,
    ServicePort,
};

/// The full entries of the chosen hosts, gathered from the records that serve them, each
/// route joined to the listeners of the Gateways read.
#[derive(Debug)]
pub(super) struct HostIndex<'a> {
    hosts: BTreeMap<String, Gathered>,
    /// The object of the record being added.
    object: Option<ServingObject>,
    gateways: &'a KnownGateways,
}

#[derive(Debug, Default)]
struct Gathered {
    objects: Vec<ServingObject>,
    paths: Vec<HostPath>,
    tls: Vec<HostTls>,
}

/// The web app's key of a record (web/src/state/describe.ts `recordKey`).
pub(crate) fn record_key(kind: RecordKind, namespace: &str, name: &str) -> String {
    match kind {
        RecordKind::Ingress => format!("{namespace}/{name}"),
        RecordKind::HttpRoute => format!("httproute/{namespace}/{name}"),
        RecordKind::GrpcRoute => format!("grpcroute/{namespace}/{name}"),
        RecordKind::TlsRoute => format!("tlsroute/{namespace}/{name}"),
    }
}

/// A host as the view groups it: trimmed, lower-case, without a trailing dot.
pub(super) fn fold_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('.');
    if host.is_empty() {
        ANY_HOST.to_owned()
    } else {
        host.to_lowercase()
    }
}

/// A match in the words both kinds share: an Ingress's `Prefix` is the Gateway API's
/// `PathPrefix`, and a prefix's trailing `/` is ignored (both APIs match by path element).
pub(crate) fn normalise_match(path_type: &str, path: &str, rest: &str) -> String {
    let path_type = match path_type {
        "Prefix" => "PathPrefix",
        other => other,
    };
    let path = if path_type == "PathPrefix" && path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    let path = if path.is_empty() { "/" } else { path };
    let mut words = format!("{path_type} {path}");
    if !rest.is_empty() {
        words.push(' ');
        words.push_str(rest);
    }
    words
}

/// An HTTPRoute rule's match in words (`records::httproute`), normalised.
fn normalise_route_match(words: &str) -> String {
    let mut parts = words.splitn(3, ' ');
    let path_type = parts.next().unwrap_or("PathPrefix");
    let path = parts.next().unwrap_or("/");
    let rest = parts.next().unwrap_or("");
    normalise_match(path_type, path, rest)
}

/// The state the record knows for a Service backend.
fn service_backend(
    statuses: &[BackendStatus],
    namespace: &str,
    name: &str,
    port: Option<ServicePort>,
    weight: Option<i32>,
) -> PathBackend {
    let status = statuses
        .iter()
        .find(|s| s.namespace == namespace && s.service == name && s.port == port)
        .or_else(|| {
            statuses
                .iter()
                .find(|s| s.namespace == namespace && s.service == name)
        });
    PathBackend {
        kind: "Service".to_owned(),
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        port,
        weight,
        state: status.map(|s| s.state),
        ready_endpoints: status.map_or(0, |s| s.ready_endpoints),
        total_endpoints: status.map_or(0, |s| s.total_endpoints),
    }
}

fn ingress_backend(record: &IngressRecord, backend: &Backend) -> PathBackend {
    match backend {
        Backend::Service { name, port } => service_backend(
            &record.backends,
            &record.namespace,
            name,
            Some(port.clone()),
            None,
        ),
        Backend::Resource(resource) => PathBackend {
            kind: resource.kind.clone(),
            namespace: record.namespace.clone(),
            name: resource.name.clone(),
            port: None,
            weight: None,
            state: None,
            ready_endpoints: 0,
            total_endpoints: 0,
        },
    }
}

fn route_backend(record: &IngressRecord, backend: &RouteBackendRef) -> PathBackend {
    if backend.kind == "Service" {
        return service_backend(
            &record.backends,
            &backend.namespace,
            &backend.name,
            backend.port.map(ServicePort::Number),
            Some(backend.weight),
        );
    }
    PathBackend {
        kind: backend.kind.clone(),
        namespace: backend.namespace.clone(),
        name: backend.name.clone(),
        port: backend.port.map(ServicePort::Number),
        weight: Some(backend.weight),
        state: None,
        ready_endpoints: 0,
        total_endpoints: 0,
    }
}

/// Where [`visit`] tells what a record claims, host by host (hosts as written: the sink folds).
pub(super) trait Claims {
    /// The record serves `host`.
    fn serves(&mut self, host: &str);
    /// The record claims `matched` on `host`; `backends` builds its backends when wanted.
    fn path(&mut self, host: &str, matched: String, backends: &dyn Fn() -> Vec<PathBackend>);
    /// A TLS entry of the record lists `host` with a Secret of the record's namespace.
    fn tls(&mut self, host: &str, secret_name: &str, tls: &dyn Fn() -> HostTls);
}

/// A route's Gateway parentRefs: kind `Gateway` in the Gateway API group (the record gives an
/// absent group its default, that group); a `Gateway` of another group is another API's.
fn gateway_parents(record: &IngressRecord) -> impl Iterator<Item = &crate::records::ParentRef> {
    record
        .route
        .iter()
        .flat_map(|route| &route.parent_refs)
        .filter(|parent| parent.kind == "Gateway" && parent.group == admission::GATEWAY_GROUP)
}

/// A route's Gateway parentRefs as attachments, before the Gateways are read.
pub(super) fn gateway_attachments(record: &IngressRecord) -> Vec<Attachment> {
    gateway_parents(record)
        .map(|parent| listeners::attachment(record, parent))
        .collect()
}

/// The hosts a route serves, folded (`*` when it has no hostnames).
pub(super) fn route_hosts(record: &IngressRecord) -> Vec<String> {
    if record.hosts.is_empty() {
        vec![ANY_HOST.to_owned()]
    } else {
        record.hosts.iter().map(|host| fold_host(host)).collect()
    }
}

/// The record's object as a host lists it.
pub(super) fn serving_object(record: &IngressRecord) -> ServingObject {
    let attachments = gateway_attachments(record);
    let listeners = gateway_parents(record)
        .map(|parent| {
            let mut label = format!("{}/{}", parent.namespace, parent.name);
            if let Some(section) = &parent.section_name {
                label = format!("{label}/{section}");
            }
            if let Some(port) = parent.port {
                label = format!("{label}:{port}");
            }
            label
        })
        .collect();
    ServingObject {
        kind: record.kind,
        namespace: record.namespace.clone(),
        name: record.name.clone(),
        key: record_key(record.kind, &record.namespace, &record.name),
        listeners,
        attachments,
    }
}

/// Tells `sink` everything `record` claims.
pub(super) fn visit(record: &IngressRecord, sink: &mut impl Claims) {
    let Some(route) = &record.route else {
        return visit_ingress(record, sink);
    };
    let any = [ANY_HOST.to_owned()];
    let hosts = if record.hosts.is_empty() {
        &any[..]
    } else {
        &record.hosts[..]
    };
    for host in hosts {
        sink.serves(host);
        for rule in &route.rules {
            let backends = || {
                rule.backend_refs
                    .iter()
                    .map(|backend| route_backend(record, backend))
                    .collect()
            };
            for matched in &rule.matches {
                // Only an HTTPRoute's paths are the words an Ingress's are compared in; a
                // GRPCRoute's method and a TLSRoute's SNI match stay as they are.
                let matched = if record.kind == RecordKind::HttpRoute {
                    normalise_route_match(matched)
                } else {
                    matched.clone()
                };
                sink.path(host, matched, &backends);
            }
        }
    }
}

fn visit_ingress(record: &IngressRecord, sink: &mut impl Claims) {
    for rule in &record.rules {
        let host = rule.host.as_deref().unwrap_or(ANY_HOST);
        sink.serves(host);
        for path in &rule.paths {
            let matched = normalise_match(&path.path_type, path.path.as_deref().unwrap_or("/"), "");
            sink.path(host, matched, &|| {
                vec![ingress_backend(record, &path.backend)]
            });
        }
    }
    if let Some(backend) = &record.default_backend {
        sink.serves(ANY_HOST);
        let backends = || vec![ingress_backend(record, backend)];
        sink.path(ANY_HOST, "default backend".to_owned(), &backends);
    }
    for entry in &record.tls {
        let Some(secret_name) = &entry.secret_name else {
            continue;
        };
        let tls = || {
            let certificate = record
                .certificates
                .iter()
                .find(|c| &c.secret_name == secret_name && c.hosts == entry.hosts)
                .or_else(|| {
                    record
                        .certificates
                        .iter()
                        .find(|c| &c.secret_name == secret_name)
                });
            HostTls {
                namespace: record.namespace.clone(),
                secret_name: secret_name.clone(),
                object: record_key(record.kind, &record.namespace, &record.name),
                source: certificate.map_or(CertificateSource::NotRead, |c| c.source),
                not_after: certificate.and_then(|c| c.not_after.clone()),
                // The record knows cert-manager's Ready only where the certificate came from
                // the Certificate: no error then is Ready True, its error says it is not.
                cert_manager_ready: certificate
                    .filter(|c| c.source == CertificateSource::CertManager)
                    .map(|c| c.error.is_none()),
                error: certificate.and_then(|c| c.error.clone()),
                listener: None,
            }
        };
        for host in &entry.hosts {
            sink.serves(host);
            sink.tls(host, secret_name, &tls);
        }
    }
}

impl<'a> HostIndex<'a> {
    /// An index of `hosts` (folded) only, its routes joined to `gateways`.
    pub(super) fn of(hosts: impl IntoIterator<Item = String>, gateways: &'a KnownGateways) -> Self {
        Self {
            hosts: hosts
                .into_iter()
                .map(|host| (host, Gathered::default()))
                .collect(),
            object: None,
            gateways,
        }
    }

    /// Adds what `record` serves on the index's hosts: with a route's listeners, and the
    /// Secrets of those that terminate TLS for its hosts among its TLS.
    pub(super) fn add(&mut self, record: &IngressRecord) {
        let mut object = serving_object(record);
        listeners::resolve_all(&mut object.attachments, object.kind, self.gateways);
        if !object.attachments.is_empty() {
            for host in route_hosts(record) {
                let secrets = listeners::listener_secrets(&object.attachments, &host);
                let Some(gathered) = self.hosts.get_mut(&host) else {
                    continue;
                };
                gathered
                    .tls
                    .extend(secrets.into_iter().map(|secret| HostTls {
                        namespace: secret.namespace,
                        secret_name: secret.name,
                        object: object.key.clone(),
                        source: CertificateSource::NotRead,
                        not_after: None,
                        cert_manager_ready: None,
                        error: None,
                        listener: Some(secret.listener),
                    }));
            }
        }
        self.object = Some(object);
        visit(record, self);
    }

    /// The entries, sorted by host, each flagged.
    pub(super) fn entries(self) -> Vec<HostEntry> {
        self.hosts
            .into_iter()
            .map(|(host, gathered)| flag(host, gathered))
            .collect()
    }

    fn gathered(&mut self, host: &str) -> Option<&mut Gathered> {
        self.hosts.get_mut(&fold_host(host))
    }
}

impl Claims for HostIndex<'_> {
    fn serves(&mut self, host: &str) {
        let Some(object) = self.object.clone() else {
            return;
        };
        if let Some(gathered) = self.gathered(host)
            && gathered
                .objects
                .last()
                .is_none_or(|last| last.key != object.key)
        {
            gathered.objects.push(object);
        }
    }

    fn path(&mut self, host: &str, matched: String, backends: &dyn Fn() -> Vec<PathBackend>) {
        let Some(key) = self.object.as_ref().map(|object| object.key.clone()) else {
            return;
        };
        if let Some(gathered) = self.gathered(host) {
            gathered.paths.push(HostPath {
                matched,
                object: key,
                backends: backends(),
            });
        }
    }

    fn tls(&mut self, host: &str, _secret_name: &str, tls: &dyn Fn() -> HostTls) {
        if let Some(gathered) = self.gathered(host) {
            gathered.tls.push(tls());
        }
    }
}

/// The host's entry with its conflicts, duplicates and TLS overlap.
fn flag(host: String, gathered: Gathered) -> HostEntry {
    // match -> object -> how many times it claims it
    let mut claims: BTreeMap<&str, BTreeMap<&str, u32>> = BTreeMap::new();
    for path in &gathered.paths {
        *claims
            .entry(&path.matched)
            .or_default()
            .entry(&path.object)
            .or_default() += 1;
    }
    let mut conflicts = Vec::new();
    let mut duplicates = Vec::new();
    for (matched, by_object) in &claims {
        if by_object.len() > 1 {
            conflicts.push(Conflict {
                matched: (*matched).to_owned(),
                objects: by_object.keys().map(|key| (*key).to_owned()).collect(),
            });
        }
        for (object, times) in by_object {
            if *times > 1 {
                duplicates.push(Duplicate {
                    matched: (*matched).to_owned(),
                    object: (*object).to_owned(),
                    times: *times,
                });
            }
        }
    }
    let secrets: BTreeSet<(&str, &str)> = gathered
        .tls
        .iter()
        .map(|tls| (tls.namespace.as_str(), tls.secret_name.as_str()))
        .collect();
    let tls_overlap = secrets.len() > 1;
    HostEntry {
        host,
        conflict: !conflicts.is_empty(),
        tls_overlap,
        duplicate: !duplicates.is_empty(),
        conflicts,
        duplicates,
        objects: gathered.objects,
        paths: gathered.paths,
        tls: gathered.tls,
    }
}
