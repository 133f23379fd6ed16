//! One scope's records joined with what is behind them: each record's backends from the
//! Services and EndpointSlices, each TLS entry's certificate from the Secrets or cert-manager
//! Certificates, and HTTPRoutes as records of their own. The watcher task feeds it what its
//! loops report; it answers the records to publish, and only those whose JSON changed.

mod fill;
mod holders;
mod lists;
mod store;
mod updates;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::access::redaction::Redaction;
use crate::kube::watched_kinds::WatchedKind;
use crate::records::backends::{Availability, BackendIndex, ServiceKey};
use crate::records::certificates::{CertificateIndex, SecretKey};
use crate::records::{RecordKind, StoredRecord};
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

    /// Starts or stops using `kind` (a CRD installed or removed); every record is re-joined.
    pub fn set_watched(&mut self, kind: WatchedKind, watched: bool) {
        if watched {
            self.availability.insert(kind, Availability::Pending);
        } else {
            self.availability.remove(&kind);
        }
        self.mark_all();
    }

    /// Every record (ingresses and routes), for a (re-)list of the scope.
    pub fn all(&self) -> Vec<Arc<StoredRecord>> {
        self.records
            .values()
            .map(|entry| entry.stored.clone())
            .collect()
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

    fn mark_all(&mut self) {
        self.dirty.extend(self.records.keys().cloned());
    }

    /// Whether some records wait for [`Joiner::flush`].
    pub fn has_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }
}

#[cfg(test)]
mod tests;
