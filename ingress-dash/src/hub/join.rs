//! One scope's records joined with what is behind them: each record's backends from the
//! Services and EndpointSlices, each TLS entry's certificate from the Secrets or cert-manager
//! Certificates, and HTTPRoutes as records of their own. The watcher task feeds it what its
//! loops report; it answers the records to publish, and only those whose JSON changed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use crate::backends::{self, Availability, BackendIndex, ServiceKey};
use crate::certificates::{CertificateIndex, SecretKey, unix_seconds};
use crate::kinds::{Object, WatchedKind};
use crate::records::{IngressRecord, RecordKind, StoredRecord};
use crate::redaction::Redaction;
use crate::routes_gateway;

/// A record by kind, namespace and name.
pub type RecordKey = (RecordKind, String, String);

/// The certificate expiries of one ingress: (secret, notAfter in Unix seconds).
pub type Expiries = Vec<(String, i64)>;

struct Entry {
    stored: Arc<StoredRecord>,
    services: Vec<ServiceKey>,
    secrets: Vec<SecretKey>,
}

/// What changed for clients: records added or changed, records gone.
#[derive(Debug, Default)]
pub struct Changes {
    pub upserts: Vec<Arc<StoredRecord>>,
    pub deletes: Vec<Arc<StoredRecord>>,
    /// Ingresses whose certificate expiries changed: their expiries now (empty: gone).
    pub expiries: Vec<((String, String), Expiries)>,
}

pub struct Joiner {
    redaction: Arc<Redaction>,
    records: BTreeMap<RecordKey, Entry>,
    by_service: HashMap<ServiceKey, BTreeSet<RecordKey>>,
    by_secret: HashMap<SecretKey, BTreeSet<RecordKey>>,
    backends: BackendIndex,
    certificates: CertificateIndex,
    availability: HashMap<WatchedKind, Availability>,
    dirty: BTreeSet<RecordKey>,
}

fn key_of(record: &IngressRecord) -> RecordKey {
    (record.kind, record.namespace.clone(), record.name.clone())
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
                .map(|reference| self.backends.status(reference, services, slices))
                .collect()
        };
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

    /// Joins and stores `record`, replacing the one of the same key.
    fn insert(&mut self, record: IngressRecord, changes: &mut Changes) -> Arc<StoredRecord> {
        let record = self.join(record);
        let key = key_of(&record);
        self.unindex(&key);
        let services: Vec<ServiceKey> = backends::references(&record)
            .into_iter()
            .map(|(namespace, name, _)| (namespace, name))
            .collect();
        let secrets: Vec<SecretKey> = record
            .tls
            .iter()
            .filter_map(|entry| entry.secret_name.clone())
            .map(|secret| (record.namespace.clone(), secret))
            .collect();
        for service in &services {
            self.by_service
                .entry(service.clone())
                .or_default()
                .insert(key.clone());
        }
        for secret in &secrets {
            self.by_secret
                .entry(secret.clone())
                .or_default()
                .insert(key.clone());
        }
        if record.kind == RecordKind::Ingress {
            changes.expiries.push((
                (record.namespace.clone(), record.name.clone()),
                expiries(&record),
            ));
        }
        let stored = Arc::new(StoredRecord::new(&record));
        self.records.insert(
            key,
            Entry {
                stored: stored.clone(),
                services,
                secrets,
            },
        );
        stored
    }

    fn unindex(&mut self, key: &RecordKey) -> Option<Entry> {
        let entry = self.records.remove(key)?;
        for service in &entry.services {
            if let Some(keys) = self.by_service.get_mut(service) {
                keys.remove(key);
                if keys.is_empty() {
                    self.by_service.remove(service);
                }
            }
        }
        for secret in &entry.secrets {
            if let Some(keys) = self.by_secret.get_mut(secret) {
                keys.remove(key);
                if keys.is_empty() {
                    self.by_secret.remove(secret);
                }
            }
        }
        Some(entry)
    }

    fn remove(&mut self, key: &RecordKey, changes: &mut Changes) -> Option<Arc<StoredRecord>> {
        let entry = self.unindex(key)?;
        if key.0 == RecordKind::Ingress {
            changes
                .expiries
                .push(((key.1.clone(), key.2.clone()), Vec::new()));
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

    /// A complete list of ingresses or HTTPRoutes: records no longer listed are removed.
    fn relist(&mut self, kind: RecordKind, records: Vec<IngressRecord>) -> Changes {
        let mut changes = Changes::default();
        let listed: BTreeSet<RecordKey> = records.iter().map(key_of).collect();
        let gone: Vec<RecordKey> = self
            .records
            .keys()
            .filter(|key| key.0 == kind && !listed.contains(key))
            .cloned()
            .collect();
        for key in gone {
            if let Some(stored) = self.remove(&key, &mut changes) {
                changes.deletes.push(stored);
            }
        }
        for record in records {
            let key = key_of(&record);
            let old = self.records.get(&key).map(|entry| entry.stored.clone());
            let stored = self.insert(record, &mut changes);
            if old.is_none_or(|old| old.json() != stored.json()) {
                changes.upserts.push(stored);
            }
        }
        changes
    }

    fn record_of(&self, object: &Object) -> Option<IngressRecord> {
        match object {
            Object::Ingress(ingress) => Some(IngressRecord::from_ingress(ingress, &self.redaction)),
            Object::HttpRoute(route) => Some(routes_gateway::record_of(route, &self.redaction)),
            _ => None,
        }
    }

    /// A complete list of `kind`.
    pub fn listed(&mut self, kind: WatchedKind, objects: &[Object]) -> Changes {
        match kind {
            WatchedKind::Ingresses | WatchedKind::HttpRoutes => {
                let records = objects
                    .iter()
                    .filter_map(|object| self.record_of(object))
                    .collect();
                let kind = if kind == WatchedKind::Ingresses {
                    RecordKind::Ingress
                } else {
                    RecordKind::HttpRoute
                };
                return self.relist(kind, records);
            }
            WatchedKind::Services => {
                let services: Vec<_> = objects.iter().filter_map(as_service).collect();
                let affected = self.backends.replace_services(&services);
                self.mark_services(affected);
            }
            WatchedKind::EndpointSlices => {
                let slices: Vec<_> = objects.iter().filter_map(as_slice).collect();
                let affected = self.backends.replace_slices(&slices);
                self.mark_services(affected);
            }
            WatchedKind::Secrets => {
                let secrets: Vec<_> = objects.iter().filter_map(as_secret).collect();
                let affected = self.certificates.replace_secrets(&secrets);
                self.mark_secrets(affected);
            }
            WatchedKind::Certificates => {
                let certificates: Vec<_> = objects.iter().filter_map(as_certificate).collect();
                let affected = self.certificates.replace_certificates(&certificates);
                self.mark_secrets(affected);
            }
        }
        if self.availability.get(&kind) != Some(&Availability::Ready) {
            self.availability.insert(kind, Availability::Ready);
            self.mark_all();
        }
        Changes::default()
    }

    /// An object added or changed (`deleted`: removed). Ingresses and routes answer their
    /// change at once; the other kinds mark the records they affect for [`Joiner::flush`].
    pub fn changed(&mut self, object: &Object, deleted: bool) -> Changes {
        let mut changes = Changes::default();
        match object {
            Object::Ingress(_) | Object::HttpRoute(_) => {
                let Some(record) = self.record_of(object) else {
                    return changes;
                };
                if deleted {
                    if let Some(stored) = self.remove(&key_of(&record), &mut changes) {
                        changes.deletes.push(stored);
                    }
                } else {
                    let stored = self.insert(record, &mut changes);
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
    pub fn failed(&mut self, kind: WatchedKind, error: String) {
        let failed = Availability::Failed(error);
        if self.availability.get(&kind) != Some(&failed) {
            self.availability.insert(kind, failed);
            self.mark_all();
        }
    }

    fn mark_services(&mut self, services: BTreeSet<ServiceKey>) {
        for service in services {
            if let Some(keys) = self.by_service.get(&service) {
                self.dirty.extend(keys.iter().cloned());
            }
        }
    }

    fn mark_secrets(&mut self, secrets: BTreeSet<SecretKey>) {
        for secret in secrets {
            if let Some(keys) = self.by_secret.get(&secret) {
                self.dirty.extend(keys.iter().cloned());
            }
        }
    }

    fn mark_all(&mut self) {
        self.dirty.extend(self.records.keys().cloned());
    }

    /// Whether some records wait for [`Joiner::flush`].
    pub fn has_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Re-joins the marked records; those whose JSON changed.
    pub fn flush(&mut self) -> Changes {
        let mut changes = Changes::default();
        for key in std::mem::take(&mut self.dirty) {
            let Some(entry) = self.records.get(&key) else {
                continue;
            };
            let old = entry.stored.clone();
            let Ok(record) = serde_json::from_str::<IngressRecord>(old.json()) else {
                continue;
            };
            let mut expiry_changes = Changes::default();
            let stored = self.insert(record, &mut expiry_changes);
            if stored.json() != old.json() {
                changes.upserts.push(stored);
                changes.expiries.extend(expiry_changes.expiries);
            }
        }
        changes
    }
}

fn as_service(object: &Object) -> Option<&k8s_openapi::api::core::v1::Service> {
    match object {
        Object::Service(service) => Some(service),
        _ => None,
    }
}

fn as_slice(object: &Object) -> Option<&k8s_openapi::api::discovery::v1::EndpointSlice> {
    match object {
        Object::EndpointSlice(slice) => Some(slice),
        _ => None,
    }
}

fn as_secret(object: &Object) -> Option<&crate::kinds::TlsSecret> {
    match object {
        Object::Secret(secret) => Some(secret),
        _ => None,
    }
}

fn as_certificate(object: &Object) -> Option<&crate::kinds::CertManagerCertificate> {
    match object {
        Object::Certificate(certificate) => Some(certificate),
        _ => None,
    }
}
