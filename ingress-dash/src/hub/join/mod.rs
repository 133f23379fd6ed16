//! One scope's records joined with what is behind them: each record's backends from the
//! Services and EndpointSlices, each TLS entry's certificate from the Secrets or cert-manager
//! Certificates, and HTTPRoutes as records of their own. The watcher task feeds it what its
//! loops report; it answers the records to publish, and only those whose JSON changed.

mod holders;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::access::redaction::Redaction;
use crate::kube::watched_kinds::{Object, WatchedKind};
use crate::records::backends::{self, Availability, BackendIndex, ServiceKey};
use crate::records::certificates::{CertificateIndex, SecretKey, unix_seconds};
use crate::records::{BackendState, IngressRecord, RecordKind, StoredRecord};
use crate::records::{gateway_routes, httproute};
use holders::Holders;

/// A record by kind, namespace and name (the strings its [`StoredRecord`] holds).
pub type RecordKey = (RecordKind, Arc<str>, Arc<str>);

/// The certificate expiries of one ingress: (secret, notAfter in Unix seconds).
pub type Expiries = Vec<(String, i64)>;

struct Entry {
    stored: Arc<StoredRecord>,
    /// The backend Services it routes to (the keys of `by_service`, shared).
    services: Vec<ServiceKey>,
    secrets: Vec<SecretKey>,
    /// The list (a [`Joiner::begin`] number) that last held it.
    listed: u64,
}

/// What changed for clients: records added or changed, records gone.
#[derive(Debug, Default)]
pub struct Changes {
    pub upserts: Vec<Arc<StoredRecord>>,
    pub deletes: Vec<Arc<StoredRecord>>,
    /// Ingresses whose certificate expiries changed: their expiries now (empty: gone).
    pub expiries: Vec<((String, String), Expiries)>,
}

impl Changes {
    fn extend(&mut self, other: Changes) {
        self.upserts.extend(other.upserts);
        self.deletes.extend(other.deletes);
        self.expiries.extend(other.expiries);
    }
}

/// A list of one kind in progress: its pages are applied as they come, and it completes with
/// [`Joiner::finish`].
enum Relist {
    /// Ingresses or HTTPRoutes: records of this list number not held at the end are gone.
    Records(RecordKind, u64),
    /// Services or EndpointSlices, gathered apart and then swapped in.
    Backends(BackendIndex),
    /// Secrets or cert-manager Certificates, the same.
    Certificates(CertificateIndex),
}

pub struct Joiner {
    redaction: Arc<Redaction>,
    records: BTreeMap<RecordKey, Entry>,
    by_service: HashMap<ServiceKey, Holders>,
    by_secret: HashMap<SecretKey, Holders>,
    backends: BackendIndex,
    certificates: CertificateIndex,
    availability: HashMap<WatchedKind, Availability>,
    dirty: BTreeSet<RecordKey>,
    /// Namespace names, shared by every record of the namespace.
    namespaces: HashSet<Arc<str>>,
    /// The lists in progress, by kind.
    relists: HashMap<WatchedKind, Relist>,
    /// Numbers the lists of records.
    list_number: u64,
}

fn record_kind(kind: WatchedKind) -> Option<RecordKind> {
    match kind {
        WatchedKind::Ingresses => Some(RecordKind::Ingress),
        WatchedKind::HttpRoutes => Some(RecordKind::HttpRoute),
        WatchedKind::GrpcRoutes => Some(RecordKind::GrpcRoute),
        WatchedKind::TlsRoutes => Some(RecordKind::TlsRoute),
        _ => None,
    }
}

fn expiries(record: &IngressRecord) -> Expiries {
    record
        .certificates
        .iter()
        .filter_map(|certificate| {
            let not_after = unix_seconds(certificate.not_after.as_deref()?)?;
            Some((certificate.secret_name.clone(), not_after))
        })
        .collect()
}

impl Joiner {
    /// `watched`: the kinds beside ingresses that are watched (the others are `Off`).
    pub fn new(redaction: Arc<Redaction>, watched: &[WatchedKind]) -> Self {
        let mut joiner = Self {
            redaction,
            records: BTreeMap::new(),
            by_service: HashMap::new(),
            by_secret: HashMap::new(),
            backends: BackendIndex::default(),
            certificates: CertificateIndex::default(),
            availability: HashMap::new(),
            dirty: BTreeSet::new(),
            namespaces: HashSet::new(),
            relists: HashMap::new(),
            list_number: 0,
        };
        for kind in watched {
            joiner.availability.insert(*kind, Availability::Pending);
        }
        joiner
    }

    fn availability(&self, kind: WatchedKind) -> &Availability {
        self.availability.get(&kind).unwrap_or(&Availability::Off)
    }

    /// Whether `kind` is watched now.
    pub fn is_watched(&self, kind: WatchedKind) -> bool {
        self.availability.contains_key(&kind)
    }

    /// The shared string of a namespace name.
    fn namespace(&mut self, namespace: &str) -> Arc<str> {
        if let Some(shared) = self.namespaces.get(namespace) {
            return shared.clone();
        }
        let shared: Arc<str> = crate::alloc::long_lived(|| Arc::from(namespace));
        self.namespaces.insert(shared.clone());
        shared
    }

    /// The key of `record`, with shared strings (the stored record's own when it is held).
    fn key_of(&mut self, record: &IngressRecord) -> RecordKey {
        let namespace = self.namespace(&record.namespace);
        let probe = (
            record.kind,
            namespace,
            crate::alloc::long_lived(|| Arc::<str>::from(record.name.as_str())),
        );
        match self.records.get_key_value(&probe) {
            Some((key, _)) => key.clone(),
            None => probe,
        }
    }

    /// Starts or stops using `kind` (a CRD installed or removed); every record is re-joined.
    pub fn set_watched(&mut self, kind: WatchedKind, watched: bool) {
        if watched {
            self.availability.insert(kind, Availability::Pending);
        } else {
            self.availability.remove(&kind);
        }
        self.mark_all();
    }

    /// Fills `record`'s backends and certificates from what is known now.
    pub fn join(&self, mut record: IngressRecord) -> IngressRecord {
        let services = self.availability(WatchedKind::Services);
        let slices = self.availability(WatchedKind::EndpointSlices);
        record.backends = if *services == Availability::Off {
            Vec::new()
        } else {
            backends::references(&record)
                .iter()
                .map(|reference| {
                    let mut status = self.backends.status(reference, services, slices);
                    // A Service of another namespace that this scope knows nothing of (an
                    // HTTPRoute's cross-namespace backendRef, namespace not watched here):
                    // not known to be missing.
                    let namespace = reference.0.as_str();
                    if status.state == BackendState::MissingService
                        && namespace != record.namespace
                        && !self.namespaces.contains(namespace)
                        && !self.backends.holds_namespace(namespace)
                    {
                        status.state = BackendState::Unknown;
                        status.error = Some(format!(
                            "The Services of namespace {namespace} are not watched with this one."
                        ));
                    }
                    status
                })
                .collect()
        };
        if let Some(route) = record.route.as_mut() {
            crate::records::route_diagnosis::set_missing_services(
                &mut route.diagnosis,
                &record.backends,
            );
        }
        let secrets = self.availability(WatchedKind::Secrets);
        let managed = self.availability(WatchedKind::Certificates);
        // Rule hosts no TLS entry lists are served over HTTPS with whichever certificate
        // answers: every entry's certificate is expected to cover them too.
        let rule_hosts: Vec<String> = record
            .hosts
            .iter()
            .filter(|host| !record.tls.iter().any(|entry| entry.hosts.contains(host)))
            .cloned()
            .collect();
        record.certificates = record
            .tls
            .iter()
            .filter_map(|entry| {
                let secret = entry.secret_name.as_deref()?;
                Some(self.certificates.status(
                    &record.namespace,
                    entry,
                    secret,
                    &rule_hosts,
                    secrets,
                    managed,
                ))
            })
            .collect();
        record
    }

    /// Joins and stores `record`, replacing the one of the same key; `listed`: the list that
    /// holds it (`None`: keep the stored one's).
    fn insert(
        &mut self,
        record: IngressRecord,
        listed: Option<u64>,
        changes: &mut Changes,
    ) -> Arc<StoredRecord> {
        let record = self.join(record);
        let key = self.key_of(&record);
        let old = self.unindex(&key);
        let listed = listed.unwrap_or_else(|| old.map_or(self.list_number, |old| old.listed));
        // Held for the record's lifetime: at their exact size (a collect in place would keep
        // the references' larger allocation, a growing Vec room for four).
        let references = backends::references(&record);
        let mut services: Vec<ServiceKey> = Vec::with_capacity(references.len());
        for (namespace, name, _) in references {
            services.push(self.service_key(&namespace, &name));
        }
        let mut secrets: Vec<SecretKey> = record
            .tls
            .iter()
            .filter_map(|entry| entry.secret_name.clone())
            .map(|secret| (record.namespace.clone(), secret))
            .collect();
        secrets.shrink_to_fit();
        for service in &services {
            match self.by_service.get_mut(service) {
                Some(holders) => holders.insert(&key),
                None => {
                    self.by_service
                        .insert(service.clone(), Holders::One(key.clone()));
                }
            }
        }
        for secret in &secrets {
            match self.by_secret.get_mut(secret) {
                Some(holders) => holders.insert(&key),
                None => {
                    self.by_secret
                        .insert(secret.clone(), Holders::One(key.clone()));
                }
            }
        }
        if record.kind == RecordKind::Ingress {
            changes.expiries.push((
                (record.namespace.clone(), record.name.clone()),
                expiries(&record),
            ));
        }
        let stored = StoredRecord::with_names(&record, key.1.clone(), key.2.clone());
        let stored = crate::alloc::long_lived(|| Arc::new(stored));
        self.records.insert(
            key,
            Entry {
                stored: stored.clone(),
                services,
                secrets,
                listed,
            },
        );
        stored
    }

    /// The key of a backend Service, sharing the strings the joiner already holds.
    fn service_key(&mut self, namespace: &str, name: &str) -> ServiceKey {
        let (known_namespace, name) = self.backends.service_key(namespace, name);
        let namespace = match self.namespaces.get(namespace) {
            Some(shared) => shared.clone(),
            None => known_namespace,
        };
        let probe = (namespace, name);
        match self.by_service.get_key_value(&probe) {
            Some((key, _)) => key.clone(),
            None => probe,
        }
    }

    fn unindex(&mut self, key: &RecordKey) -> Option<Entry> {
        let entry = self.records.remove(key)?;
        for service in &entry.services {
            if let Some(holders) = self.by_service.get_mut(service)
                && holders.remove(key)
            {
                self.by_service.remove(service);
            }
        }
        for secret in &entry.secrets {
            if let Some(holders) = self.by_secret.get_mut(secret)
                && holders.remove(key)
            {
                self.by_secret.remove(secret);
            }
        }
        Some(entry)
    }

    fn remove(&mut self, key: &RecordKey, changes: &mut Changes) -> Option<Arc<StoredRecord>> {
        let entry = self.unindex(key)?;
        if key.0 == RecordKind::Ingress {
            changes
                .expiries
                .push(((key.1.to_string(), key.2.to_string()), Vec::new()));
        }
        Some(entry.stored)
    }

    /// Every record (ingresses and routes), for a (re-)list of the scope.
    pub fn all(&self) -> Vec<Arc<StoredRecord>> {
        self.records
            .values()
            .map(|entry| entry.stored.clone())
            .collect()
    }

    fn record_of(&self, object: &Object) -> Option<IngressRecord> {
        match object {
            Object::Ingress(ingress) => Some(IngressRecord::from_ingress(ingress, &self.redaction)),
            Object::HttpRoute(route) => Some(httproute::record_of(route, &self.redaction)),
            Object::GrpcRoute(route) => {
                Some(gateway_routes::grpc_record_of(route, &self.redaction))
            }
            Object::TlsRoute(route) => Some(gateway_routes::tls_record_of(route, &self.redaction)),
            _ => None,
        }
    }

    /// A complete list of `kind` at once (a list of one page).
    pub fn listed(&mut self, kind: WatchedKind, objects: &[Object]) -> Changes {
        self.begin(kind);
        let mut changes = self.page(kind, objects);
        changes.extend(self.finish(kind));
        changes
    }

    /// A list of `kind` starts (an unfinished earlier one is void).
    pub fn begin(&mut self, kind: WatchedKind) {
        let relist = match record_kind(kind) {
            Some(record_kind) => {
                self.list_number += 1;
                Relist::Records(record_kind, self.list_number)
            }
            None if matches!(kind, WatchedKind::Services | WatchedKind::EndpointSlices) => {
                Relist::Backends(BackendIndex::default())
            }
            None => Relist::Certificates(CertificateIndex::default()),
        };
        self.relists.insert(kind, relist);
    }

    /// One page of the list of `kind` in progress: records are joined and stored as they come
    /// (those whose JSON changed are answered); the other kinds are gathered apart until the
    /// list completes. The objects can be dropped afterwards.
    pub fn page(&mut self, kind: WatchedKind, objects: &[Object]) -> Changes {
        let mut changes = Changes::default();
        let Some(relist) = self.relists.get_mut(&kind) else {
            return changes;
        };
        match relist {
            Relist::Records(_, number) => {
                let number = *number;
                for object in objects {
                    let Some(record) = self.record_of(object) else {
                        continue;
                    };
                    let key = self.key_of(&record);
                    let old = self.records.get(&key).map(|entry| entry.stored.clone());
                    let stored = self.insert(record, Some(number), &mut changes);
                    if old.is_none_or(|old| !old.same_json(&stored)) {
                        changes.upserts.push(stored);
                    }
                }
            }
            Relist::Backends(listed) => {
                for object in objects {
                    match object {
                        Object::Service(service) => {
                            listed.apply_service(service);
                        }
                        Object::EndpointSlice(slice) => {
                            listed.apply_slice(slice);
                        }
                        _ => {}
                    }
                }
            }
            Relist::Certificates(listed) => {
                for object in objects {
                    match object {
                        Object::Secret(secret) => {
                            listed.apply_secret(secret);
                        }
                        Object::Certificate(certificate) => {
                            listed.apply_certificate(certificate);
                        }
                        _ => {}
                    }
                }
            }
        }
        changes
    }

    /// The list of `kind` in progress is complete: records it did not hold are removed (and
    /// answered as deletions); the other kinds take the gathered objects in place of theirs.
    pub fn finish(&mut self, kind: WatchedKind) -> Changes {
        let mut changes = Changes::default();
        let Some(relist) = self.relists.remove(&kind) else {
            return changes;
        };
        match relist {
            Relist::Records(record_kind, number) => {
                let gone: Vec<RecordKey> = self
                    .records
                    .iter()
                    .filter(|(key, entry)| key.0 == record_kind && entry.listed != number)
                    .map(|(key, _)| key.clone())
                    .collect();
                for key in gone {
                    self.dirty.remove(&key);
                    if let Some(stored) = self.remove(&key, &mut changes) {
                        changes.deletes.push(stored);
                    }
                }
                return changes;
            }
            Relist::Backends(listed) => {
                let affected = if kind == WatchedKind::Services {
                    self.backends.take_services(listed)
                } else {
                    self.backends.take_slices(listed)
                };
                self.mark_services(affected);
            }
            Relist::Certificates(listed) => {
                let affected = if kind == WatchedKind::Secrets {
                    self.certificates.take_secrets(listed)
                } else {
                    self.certificates.take_certificates(listed)
                };
                self.mark_secrets(affected);
            }
        }
        if self.availability.get(&kind) != Some(&Availability::Ready) {
            self.availability.insert(kind, Availability::Ready);
            self.mark_all();
        }
        changes
    }

    /// An object added or changed (`deleted`: removed). Ingresses and routes answer their
    /// change at once; the other kinds mark the records they affect for [`Joiner::flush`].
    pub fn changed(&mut self, object: &Object, deleted: bool) -> Changes {
        let mut changes = Changes::default();
        match object {
            Object::Ingress(_)
            | Object::HttpRoute(_)
            | Object::GrpcRoute(_)
            | Object::TlsRoute(_) => {
                let Some(record) = self.record_of(object) else {
                    return changes;
                };
                if deleted {
                    let key = self.key_of(&record);
                    if let Some(stored) = self.remove(&key, &mut changes) {
                        changes.deletes.push(stored);
                    }
                } else {
                    let stored = self.insert(record, None, &mut changes);
                    changes.upserts.push(stored);
                }
            }
            Object::Service(service) => {
                let affected = if deleted {
                    self.backends.delete_service(service)
                } else {
                    self.backends.apply_service(service)
                };
                self.mark_services(affected);
            }
            Object::EndpointSlice(slice) => {
                let affected = if deleted {
                    self.backends.delete_slice(slice)
                } else {
                    self.backends.apply_slice(slice)
                };
                self.mark_services(affected);
            }
            Object::Secret(secret) => {
                let affected = if deleted {
                    self.certificates.delete_secret(secret)
                } else {
                    self.certificates.apply_secret(secret)
                };
                self.mark_secrets(affected);
            }
            Object::Certificate(certificate) => {
                let affected = if deleted {
                    self.certificates.delete_certificate(certificate)
                } else {
                    self.certificates.apply_certificate(certificate)
                };
                self.mark_secrets(affected);
            }
        }
        changes
    }

    /// `kind` (not ingresses) cannot be read now: what it tells becomes unknown, with `error`.
    /// A kind already failing with the same code keeps its first message: a message that
    /// changes with every report (the breaker's "paused for N s") would otherwise re-join and
    /// re-send every record each time.
    pub fn failed(&mut self, kind: WatchedKind, code: String, message: String) {
        if matches!(self.availability.get(&kind), Some(Availability::Failed { code: previous, .. }) if *previous == code)
        {
            return;
        }
        self.availability
            .insert(kind, Availability::Failed { code, message });
        self.mark_all();
    }

    fn mark_services(&mut self, services: BTreeSet<ServiceKey>) {
        for service in services {
            if let Some(holders) = self.by_service.get(&service) {
                self.dirty.extend(holders.keys().iter().cloned());
            }
        }
    }

    fn mark_secrets(&mut self, secrets: BTreeSet<SecretKey>) {
        for secret in secrets {
            if let Some(holders) = self.by_secret.get(&secret) {
                self.dirty.extend(holders.keys().iter().cloned());
            }
        }
    }

    /// Whether a list of records of `kind` is in progress.
    fn relisting(&self, kind: RecordKind) -> bool {
        self.relists
            .values()
            .any(|relist| matches!(relist, Relist::Records(listing, _) if *listing == kind))
    }

    fn mark_all(&mut self) {
        self.dirty.extend(self.records.keys().cloned());
    }

    /// Whether some records wait for [`Joiner::flush`].
    pub fn has_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Re-joins the marked records; those whose JSON changed. Records of a kind whose list is
    /// in progress stay marked until it completes, so nothing of an unfinished list is sent.
    pub fn flush(&mut self) -> Changes {
        let mut changes = Changes::default();
        let held: Vec<RecordKind> = [
            RecordKind::Ingress,
            RecordKind::HttpRoute,
            RecordKind::GrpcRoute,
            RecordKind::TlsRoute,
        ]
        .into_iter()
        .filter(|kind| self.relisting(*kind))
        .collect();
        for key in std::mem::take(&mut self.dirty) {
            if held.contains(&key.0) {
                self.dirty.insert(key);
                continue;
            }
            let Some(entry) = self.records.get(&key) else {
                continue;
            };
            let old = entry.stored.clone();
            let Ok(record) = serde_json::from_str::<IngressRecord>(&old.json()) else {
                continue;
            };
            let mut expiry_changes = Changes::default();
            let stored = self.insert(record, None, &mut expiry_changes);
            if !stored.same_json(&old) {
                changes.upserts.push(stored);
                changes.expiries.extend(expiry_changes.expiries);
            }
        }
        changes
    }
}

#[cfg(test)]
mod tests;
