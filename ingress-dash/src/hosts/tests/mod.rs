//! The Hosts view's grouping and flags, from records written as the API serves them: the
//! shared builders here, the grouping and flags in `flags`, the Gateway routes and their
//! listeners in `listeners`.

use serde_json::{Value, json};

use super::*;
use crate::records::CertificateSource;

mod flags;
mod listeners;

fn record(value: Value) -> crate::records::IngressRecord {
    serde_json::from_value(value).expect("a record")
}

fn ingress(namespace: &str, name: &str, rules: Value, tls: Value) -> Value {
    json!({
        "kind": "Ingress", "uid": name, "name": name, "namespace": namespace,
        "hosts": [], "rules": rules, "tls": tls, "createdAt": "", "resourceVersion": "1",
        "links": [], "backends": [],
    })
}

fn prefix(path: &str, service: &str) -> Value {
    json!({"path": path, "pathType": "Prefix", "backend": {"service": {"name": service, "port": 80}}})
}

fn route(namespace: &str, name: &str, hostnames: Value, rules: Value) -> Value {
    json!({
        "kind": "HTTPRoute", "uid": name, "name": name, "namespace": namespace,
        "hosts": hostnames, "rules": [], "tls": [], "createdAt": "", "resourceVersion": "1",
        "links": [], "backends": [],
        "route": {
            "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                "namespace": "gateway-system", "name": "public", "sectionName": "https"}],
            "rules": rules,
        },
    })
}

fn report(records: &[Value], query: &HostQuery) -> HostsReport {
    report_with(records, query, &KnownGateways::default())
}

/// The answer with `gateways` read between the scan and the flags.
fn report_with(records: &[Value], query: &HostQuery, gateways: &KnownGateways) -> HostsReport {
    let read = |value: &Value| Some(record(value.clone()));
    let scanned = super::scan(records, read, query);
    let report = super::finish(scanned, records, read, query, gateways, Vec::new());
    // Every entry as the scan chose and counted it.
    let count = |flag: fn(&HostEntry) -> bool| report.hosts.iter().filter(|e| flag(e)).count();
    if !report.truncated {
        assert_eq!(
            report.counts.conflicts,
            count(|e| e.conflict) as u64,
            "{report:#?}"
        );
        assert_eq!(report.counts.tls_overlaps, count(|e| e.tls_overlap) as u64);
        assert_eq!(report.counts.hosts, report.hosts.len() as u64);
    }
    report
}

fn flagged(entry: &HostEntry) -> bool {
    entry.conflict || entry.tls_overlap || entry.duplicate
}

fn all(records: &[Value]) -> HostsReport {
    report(records, &HostQuery::default())
}

fn host<'a>(report: &'a HostsReport, name: &str) -> &'a HostEntry {
    report
        .hosts
        .iter()
        .find(|entry| entry.host == name)
        .unwrap_or_else(|| panic!("no host {name} in {report:#?}"))
}
