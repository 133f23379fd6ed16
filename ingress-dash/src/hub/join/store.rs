//! The joiner's store of records: shared key strings, and the reverse indexes from each
//! backend Service and TLS Secret to the records that hang on it, kept with every insert and
//! removal.

use std::sync::Arc;

use super::holders::Holders;
use super::{Changes, Entry, Expiries, Joiner, RecordKey};
use crate::kube::watched_kinds::Object;
use crate::records::backends::{self, ServiceKey};
use crate::records::certificates::{SecretKey, unix_seconds};
use crate::records::{IngressRecord, RecordKind, StoredRecord};
use crate::records::{gateway_routes, httproute};

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
    pub(super) fn key_of(&mut self, record: &IngressRecord) -> RecordKey {
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
    /// Joins and stores `record`, replacing the one of the same key; `listed`: the list that
    /// holds it (`None`: keep the stored one's).
    pub(super) fn insert(
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

    pub(super) fn remove(
        &mut self,
        key: &RecordKey,
        changes: &mut Changes,
    ) -> Option<Arc<StoredRecord>> {
        let entry = self.unindex(key)?;
        if key.0 == RecordKind::Ingress {
            changes
                .expiries
                .push(((key.1.to_string(), key.2.to_string()), Vec::new()));
        }
        Some(entry.stored)
    }
    pub(super) fn record_of(&self, object: &Object) -> Option<IngressRecord> {
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
}
