//! [`HostIndex`]: records in, [`HostsReport`] out. Each record adds its claims (host, match,
//! backends) and TLS entries; [`HostIndex::finish`] flags each host, filters and bounds.

use std::collections::{BTreeMap, BTreeSet};

use super::{
    ANY_HOST, Conflict, Duplicate, HostCounts, HostEntry, HostPath, HostTls, HostsReport,
    MAX_HOSTS, PathBackend, ServingObject,
};
use crate::hub::NamespaceError;
use crate::records::{
    Backend, BackendStatus, CertificateSource, IngressRecord, RecordKind, RouteBackendRef,
    ServicePort,
};

/// Hosts being gathered from records.
#[derive(Debug, Default)]
pub(crate) struct HostIndex {
    hosts: BTreeMap<String, Gathered>,
}

#[derive(Debug, Default)]
struct Gathered {
    objects: Vec<ServingObject>,
    paths: Vec<HostPath>,
    tls: Vec<HostTls>,
}

/// What to answer: a lower-case search term, and whether only flagged hosts.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostQuery {
    pub search: Option<String>,
    pub flagged_only: bool,
}

/// The web app's key of a record (web/src/state/describe.ts `recordKey`).
pub(crate) fn record_key(kind: RecordKind, namespace: &str, name: &str) -> String {
    match kind {
        RecordKind::Ingress => format!("{namespace}/{name}"),
        RecordKind::HttpRoute => format!("httproute/{namespace}/{name}"),
    }
}

/// A host as the view groups it: trimmed, lower-case, without a trailing dot.
fn fold_host(host: &str) -> String {
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

impl HostIndex {
    /// The host's entry, with `object` listed once.
    fn host(&mut self, host: &str, object: &ServingObject) -> &mut Gathered {
        let gathered = self.hosts.entry(fold_host(host)).or_default();
        if gathered
            .objects
            .last()
            .is_none_or(|last| last.key != object.key)
        {
            gathered.objects.push(object.clone());
        }
        gathered
    }

    fn claim(
        &mut self,
        host: &str,
        object: &ServingObject,
        matched: String,
        backends: Vec<PathBackend>,
    ) {
        self.host(host, object).paths.push(HostPath {
            matched,
            object: object.key.clone(),
            backends,
        });
    }

    /// Adds what `record` serves.
    pub(crate) fn add(&mut self, record: &IngressRecord) {
        let key = record_key(record.kind, &record.namespace, &record.name);
        let listeners = record
            .route
            .iter()
            .flat_map(|route| &route.parent_refs)
            .filter(|parent| parent.kind == "Gateway")
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
        let object = ServingObject {
            kind: record.kind,
            namespace: record.namespace.clone(),
            name: record.name.clone(),
            key,
            listeners,
        };
        match &record.route {
            Some(route) => {
                let any = [ANY_HOST.to_owned()];
                let hosts = if record.hosts.is_empty() {
                    &any[..]
                } else {
                    &record.hosts[..]
                };
                for host in hosts {
                    self.host(host, &object);
                    for rule in &route.rules {
                        let backends: Vec<PathBackend> = rule
                            .backend_refs
                            .iter()
                            .map(|backend| route_backend(record, backend))
                            .collect();
                        for matched in &rule.matches {
                            let matched = normalise_route_match(matched);
                            self.claim(host, &object, matched, backends.clone());
                        }
                    }
                }
            }
            None => self.add_ingress(record, &object),
        }
    }

    fn add_ingress(&mut self, record: &IngressRecord, object: &ServingObject) {
        for rule in &record.rules {
            let host = rule.host.as_deref().unwrap_or(ANY_HOST);
            self.host(host, object);
            for path in &rule.paths {
                let matched =
                    normalise_match(&path.path_type, path.path.as_deref().unwrap_or("/"), "");
                let backends = vec![ingress_backend(record, &path.backend)];
                self.claim(host, object, matched, backends);
            }
        }
        if let Some(backend) = &record.default_backend {
            let backends = vec![ingress_backend(record, backend)];
            self.claim(ANY_HOST, object, "default backend".to_owned(), backends);
        }
        for entry in &record.tls {
            let Some(secret_name) = &entry.secret_name else {
                continue;
            };
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
            let tls = HostTls {
                namespace: record.namespace.clone(),
                secret_name: secret_name.clone(),
                object: object.key.clone(),
                source: certificate.map_or(CertificateSource::NotRead, |c| c.source),
                not_after: certificate.and_then(|c| c.not_after.clone()),
                // The record knows cert-manager's Ready only where the certificate came from
                // the Certificate: no error then is Ready True, its error says it is not.
                cert_manager_ready: certificate
                    .filter(|c| c.source == CertificateSource::CertManager)
                    .map(|c| c.error.is_none()),
                error: certificate.and_then(|c| c.error.clone()),
            };
            for host in &entry.hosts {
                self.host(host, object).tls.push(tls.clone());
            }
        }
    }

    /// The answer: each host flagged, those matching `query`, at most [`MAX_HOSTS`].
    pub(crate) fn finish(self, query: &HostQuery, errors: Vec<NamespaceError>) -> HostsReport {
        let mut counts = HostCounts::default();
        let mut hosts = Vec::new();
        let mut truncated = false;
        for (host, gathered) in self.hosts {
            let entry = flag(host, gathered);
            if query.flagged_only && !entry.flagged() {
                continue;
            }
            if let Some(term) = &query.search
                && !entry.matches(term)
            {
                continue;
            }
            counts.hosts += 1;
            counts.conflicts += u64::from(entry.conflict);
            counts.tls_overlaps += u64::from(entry.tls_overlap);
            counts.duplicates += u64::from(entry.duplicate);
            if hosts.len() < MAX_HOSTS {
                hosts.push(entry);
            } else {
                truncated = true;
            }
        }
        HostsReport {
            hosts,
            counts,
            truncated,
            errors,
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
