//! The first pass of an answer: every host of every record in a few words (which records serve
//! it, which match each claims, which Secrets cover it, whether the search finds it), enough to
//! flag, filter, count and choose the hosts the answer holds, whose full entries the second
//! pass builds from the records that serve them. At 50,000 records this keeps the answer's
//! memory to that of the hosts it sends, not of every host.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::build::{Claims, fold_host, gateway_attachments, route_hosts};
use super::listeners::{self, Attachment, KnownGateways};
use super::{HostCounts, HostTls, MAX_HOSTS, PathBackend};
use crate::records::{IngressRecord, RecordKind};

/// Hosts in short, as the records are scanned.
#[derive(Debug, Default)]
pub(super) struct HostScan {
    /// Lower-case.
    term: Option<String>,
    hosts: BTreeMap<String, Brief>,
    /// Each distinct match, numbered.
    matches: HashMap<String, u32>,
    /// Each distinct Secret (namespace, name), numbered.
    secrets: HashMap<(String, String), u32>,
    /// The record being scanned: its number, namespace, and whether its name or namespace
    /// holds the search term.
    record: u32,
    namespace: String,
    record_found: bool,
    /// The routes with Gateway parentRefs, whose listeners' certificates are added once the
    /// Gateways are read.
    routes: Vec<ScannedRoute>,
}

/// A route's Gateway parentRefs and the hosts it serves (folded).
#[derive(Debug)]
struct ScannedRoute {
    kind: RecordKind,
    hosts: Vec<String>,
    attachments: Vec<Attachment>,
}

#[derive(Debug, Default)]
struct Brief {
    records: Vec<u32>,
    /// (match, record)
    claims: Vec<(u32, u32)>,
    secrets: Vec<u32>,
    found: bool,
}

/// The hosts an answer holds and the records that serve them.
#[derive(Debug, Default)]
pub(super) struct Chosen {
    pub hosts: Vec<String>,
    /// Sorted, each once.
    pub records: Vec<u32>,
    pub counts: HostCounts,
    pub truncated: bool,
}

impl Brief {
    /// (conflict, TLS overlap, duplicate), as `build::flag` finds them.
    fn flags(&self) -> (bool, bool, bool) {
        let mut claims = self.claims.clone();
        claims.sort_unstable();
        let duplicate = claims.windows(2).any(|pair| pair[0] == pair[1]);
        claims.dedup();
        let conflict = claims.windows(2).any(|pair| pair[0].0 == pair[1].0);
        let secrets: BTreeSet<u32> = self.secrets.iter().copied().collect();
        (conflict, secrets.len() > 1, duplicate)
    }
}

impl HostScan {
    pub(super) fn new(term: Option<String>) -> Self {
        Self {
            term,
            ..Self::default()
        }
    }

    /// Scans record number `number`.
    pub(super) fn add(&mut self, number: u32, record: &IngressRecord) {
        self.record = number;
        self.namespace.clone_from(&record.namespace);
        self.record_found = self
            .term
            .as_deref()
            .is_some_and(|term| record.name.contains(term) || record.namespace.contains(term));
        super::build::visit(record, self);
        if record.route.is_some() {
            let attachments = gateway_attachments(record);
            if !attachments.is_empty() {
                self.routes.push(ScannedRoute {
                    kind: record.kind,
                    hosts: route_hosts(record),
                    attachments,
                });
            }
        }
    }

    /// The namespaces of the Gateways the routes name that serve a host the search finds
    /// (every host without a search).
    pub(super) fn gateway_namespaces(&self) -> BTreeSet<String> {
        let found = |route: &&ScannedRoute| {
            self.term.is_none()
                || route
                    .hosts
                    .iter()
                    .any(|host| self.hosts.get(host).is_some_and(|brief| brief.found))
        };
        listeners::gateway_namespaces(
            self.routes
                .iter()
                .filter(found)
                .flat_map(|route| &route.attachments),
        )
    }

    /// Joins the routes to `gateways`' listeners: the Secrets of those that terminate TLS
    /// count for the routes' hosts as an Ingress's TLS Secrets do.
    pub(super) fn add_listener_certificates(&mut self, gateways: &KnownGateways) {
        for mut route in std::mem::take(&mut self.routes) {
            listeners::resolve_all(&mut route.attachments, route.kind, gateways);
            for host in &route.hosts {
                for secret in listeners::listener_secrets(&route.attachments, host) {
                    let id = self.secret_id(secret.namespace, secret.name);
                    self.brief(host).secrets.push(id);
                }
            }
        }
    }

    /// The number of Secret `namespace/name`.
    fn secret_id(&mut self, namespace: String, name: String) -> u32 {
        let next = u32::try_from(self.secrets.len()).unwrap_or(u32::MAX);
        *self.secrets.entry((namespace, name)).or_insert(next)
    }

    fn brief(&mut self, host: &str) -> &mut Brief {
        let folded = fold_host(host);
        // Looked up before it is inserted: most hosts are seen more than once.
        if !self.hosts.contains_key(&folded) {
            let found = self
                .term
                .as_deref()
                .is_some_and(|term| folded.contains(term));
            self.hosts.insert(
                folded.clone(),
                Brief {
                    found,
                    ..Brief::default()
                },
            );
        }
        self.hosts.get_mut(&folded).expect("inserted above")
    }

    /// Flags each host, keeps those `flagged_only` and the search leave, counts them and
    /// chooses the first [`MAX_HOSTS`].
    pub(super) fn choose(self, flagged_only: bool) -> Chosen {
        let mut chosen = Chosen::default();
        let mut records = BTreeSet::new();
        let searching = self.term.is_some();
        for (host, brief) in self.hosts {
            let (conflict, tls_overlap, duplicate) = brief.flags();
            if flagged_only && !(conflict || tls_overlap || duplicate) {
                continue;
            }
            if searching && !brief.found {
                continue;
            }
            chosen.counts.hosts += 1;
            chosen.counts.conflicts += u64::from(conflict);
            chosen.counts.tls_overlaps += u64::from(tls_overlap);
            chosen.counts.duplicates += u64::from(duplicate);
            if chosen.hosts.len() < MAX_HOSTS {
                chosen.hosts.push(host);
                records.extend(brief.records);
            } else {
                chosen.truncated = true;
            }
        }
        chosen.records = records.into_iter().collect();
        chosen
    }
}

impl Claims for HostScan {
    fn serves(&mut self, host: &str) {
        let (record, found) = (self.record, self.record_found);
        let brief = self.brief(host);
        if brief.records.last() != Some(&record) {
            brief.records.push(record);
        }
        brief.found |= found;
    }

    fn path(&mut self, host: &str, matched: String, backends: &dyn Fn() -> Vec<PathBackend>) {
        let next = u32::try_from(self.matches.len()).unwrap_or(u32::MAX);
        let id = *self.matches.entry(matched).or_insert(next);
        let found = match &self.term {
            Some(term) => backends()
                .iter()
                .any(|backend| backend.name.to_lowercase().contains(term.as_str())),
            None => false,
        };
        let record = self.record;
        let brief = self.brief(host);
        brief.claims.push((id, record));
        brief.found |= found;
    }

    fn tls(&mut self, host: &str, secret_name: &str, _tls: &dyn Fn() -> HostTls) {
        let id = self.secret_id(self.namespace.clone(), secret_name.to_owned());
        self.brief(host).secrets.push(id);
    }
}
