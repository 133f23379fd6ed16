//! The Hosts view (`GET /api/hosts`): the records a caller may see regrouped by hostname, one
//! entry per host (case-folded; a wildcard is a host of its own; a rule without a host, an
//! Gateway API route without hostnames and an Ingress's default backend are under `*`), with every
//! object that serves it, each path with its backends and their ready/total endpoints, the TLS
//! Secrets that cover it with their leaf certificate's expiry and cert-manager's Ready status
//! (an Ingress's TLS entries, and the certificateRefs of the Gateway listeners that terminate
//! TLS for a route's host), and three flags: `conflict` (two objects claim the same host and
//! match), `tls_overlap` (two different Secrets for the host) and `duplicate` (one object claims
//! the same match twice).
//!
//! Computed on request from the hub's records (nothing kept between requests): plain types and
//! functions, called by `http::hosts` and by the unit tests.

mod admission;
mod build;
pub(crate) mod listeners;
mod scan;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::hub::NamespaceError;
use crate::records::{BackendState, CertificateSource, IngressRecord, RecordKind, ServicePort};

use build::HostIndex;
use listeners::{Attachment, KnownGateways};
use scan::HostScan;

/// At most this many hosts in one answer (then `truncated`); a search narrows the rest.
pub(crate) const MAX_HOSTS: usize = 2_000;

/// The host a rule without one (and an Ingress's default backend) serves: every host.
pub(crate) const ANY_HOST: &str = "*";

/// The body of `GET /api/hosts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostsReport {
    /// Sorted by host, at most [`MAX_HOSTS`].
    pub hosts: Vec<HostEntry>,
    /// Counts over every host that matched, also those past the limit.
    pub counts: HostCounts,
    /// More hosts matched than were sent.
    pub truncated: bool,
    /// Namespaces whose records could not be read (left out).
    pub errors: Vec<NamespaceError>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostCounts {
    pub hosts: u64,
    pub conflicts: u64,
    pub tls_overlaps: u64,
    pub duplicates: u64,
}

/// One hostname and everything that serves it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostEntry {
    /// Lower-case; `*` for the rules without a host.
    pub host: String,
    pub objects: Vec<ServingObject>,
    pub paths: Vec<HostPath>,
    pub tls: Vec<HostTls>,
    pub conflict: bool,
    pub tls_overlap: bool,
    pub duplicate: bool,
    /// Each match that two or more objects claim, with which.
    pub conflicts: Vec<Conflict>,
    /// Each match one object claims more than once.
    pub duplicates: Vec<Duplicate>,
}

/// An Ingress, HTTPRoute, GRPCRoute or TLSRoute that serves the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ServingObject {
    pub kind: RecordKind,
    pub namespace: String,
    pub name: String,
    /// The web app's key of the record (`namespace/name`, `httproute/namespace/name`,
    /// `grpcroute/…`, `tlsroute/…`).
    pub key: String,
    /// A route's Gateway listeners: `namespace/gateway` with `/section` when its parentRef
    /// names one (and `:port` when it names a port).
    pub listeners: Vec<String>,
    /// Each Gateway parentRef of a route with the listeners it attaches to (read from the
    /// Gateways for each answer), or why none.
    pub attachments: Vec<Attachment>,
}

/// One match of one object on the host and where it sends traffic.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostPath {
    /// The match in words, path type first: `PathPrefix /api`, `Exact /login GET`,
    /// `ImplementationSpecific /`, `default backend`.
    pub matched: String,
    /// The [`ServingObject::key`] of the object that claims it.
    pub object: String,
    pub backends: Vec<PathBackend>,
}

/// A backend of one path: a Service with its state and endpoint counts, or a resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct PathBackend {
    /// `Service`, or the kind of a resource backend.
    pub kind: String,
    pub namespace: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<ServicePort>,
    /// An HTTPRoute backendRef's weight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
    /// Services only, as the record says (absent while not known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<BackendState>,
    pub ready_endpoints: u32,
    pub total_endpoints: u32,
}

/// A TLS Secret that covers the host: an Ingress's TLS entry listing it, or a certificateRef of
/// a Gateway listener that terminates TLS for a route serving it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct HostTls {
    pub namespace: String,
    pub secret_name: String,
    /// The [`ServingObject::key`] of the object whose TLS entry names it (a route: whose
    /// listener does).
    pub object: String,
    pub source: CertificateSource,
    /// The leaf certificate's notAfter (RFC 3339), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_after: Option<String>,
    /// cert-manager's `Ready` condition, when the certificate is known from its Certificate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cert_manager_ready: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The listener whose certificateRefs name it, `namespace/gateway/listener` (its
    /// certificate is not read: `source` is `not_read`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listener: Option<String>,
}

/// A match claimed by two or more objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Conflict {
    pub matched: String,
    /// The keys of the objects that claim it.
    pub objects: Vec<String>,
}

/// A match one object claims more than once on the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Duplicate {
    pub matched: String,
    pub object: String,
    pub times: u32,
}

/// What to answer: a lower-case search term, and whether only flagged hosts.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostQuery {
    pub search: Option<String>,
    pub flagged_only: bool,
}

/// The first pass of an answer over `items` (each read into its record by `read`): enough to
/// know which Gateways to read ([`Scanned::gateway_namespaces`]) before [`finish`] flags.
pub(crate) fn scan<T>(
    items: &[T],
    read: impl Fn(&T) -> Option<IngressRecord>,
    query: &HostQuery,
) -> Scanned {
    let mut scan = HostScan::new(query.search.clone());
    for (number, item) in items.iter().enumerate() {
        if let (Ok(number), Some(record)) = (u32::try_from(number), read(item)) {
            scan.add(number, &record);
        }
    }
    Scanned(scan)
}

/// An answer scanned, its Gateways not yet read.
#[derive(Debug)]
pub(crate) struct Scanned(HostScan);

impl Scanned {
    /// The namespaces of the Gateways the routes serving a host the search finds name (those
    /// whose listeners' certificates can flag a host the answer may hold).
    pub(crate) fn gateway_namespaces(&self) -> std::collections::BTreeSet<String> {
        self.0.gateway_namespaces()
    }
}

/// The answer for `query` over `items` (the same `items` and `read` as [`scan`]'s): the routes
/// joined to `gateways`' listeners, whose certificates count in the TLS overlap before the
/// hosts are flagged, filtered and counted, so that flags, filter and counts agree.
pub(crate) fn finish<T>(
    scanned: Scanned,
    items: &[T],
    read: impl Fn(&T) -> Option<IngressRecord>,
    query: &HostQuery,
    gateways: &KnownGateways,
    errors: Vec<NamespaceError>,
) -> HostsReport {
    let mut scan = scanned.0;
    scan.add_listener_certificates(gateways);
    let chosen = scan.choose(query.flagged_only);
    let mut index = HostIndex::of(chosen.hosts, gateways);
    for number in chosen.records {
        if let Some(record) = items.get(number as usize).and_then(&read) {
            index.add(&record);
        }
    }
    HostsReport {
        hosts: index.entries(),
        counts: chosen.counts,
        truncated: chosen.truncated,
        errors,
    }
}
