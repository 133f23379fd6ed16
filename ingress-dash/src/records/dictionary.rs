//! The dictionary the stored records are packed against ([`super::packed`]), made from records
//! this service builds and serialises itself: a sample HTTPRoute and a sample Ingress go through
//! the same code as the cluster's objects, their backends and certificates through the indexes'
//! own status code in each state, so the dictionary holds the wire's field names, enum values
//! and messages as they are today, and follows them when they change. Only the compression ratio
//! depends on it, never the result.

use serde::Serialize;
use serde_json::json;

use crate::access::redaction::Redaction;
use crate::kube::watched_kinds::HttpRoute;
use crate::records::backends::{Availability, BackendIndex};
use crate::records::certificates::CertificateIndex;
use crate::records::{
    BackendState, BackendStatus, CertificateSource, CertificateStatus, IngressRecord, ServicePort,
    httproute,
};

/// The dictionary's bytes: the rarer record kind first and the most common (an Ingress's
/// record) last, nearest the data, where LZ4 finds its matches cheapest.
pub(super) fn build() -> Vec<u8> {
    let redaction = Redaction::none();
    let mut dictionary = Vec::new();
    let mut add = |value: &dyn erased::Json| dictionary.extend_from_slice(&value.json());
    add(&sample_route(&redaction));
    for status in backend_statuses() {
        add(&status);
    }
    for status in certificate_statuses() {
        add(&status);
    }
    add(&sample_ingress(&redaction));
    dictionary
}

/// Serialising the samples of different types into one buffer.
mod erased {
    pub(super) trait Json {
        fn json(&self) -> Vec<u8>;
    }

    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> Vec<u8> {
            serde_json::to_vec(self).expect("a record serialises")
        }
    }
}

fn sample_route(redaction: &Redaction) -> IngressRecord {
    let route: HttpRoute = serde_json::from_value(json!({
        "metadata": {"name": "web", "namespace": "team", "uid": "", "resourceVersion": "",
                     "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {
            "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                            "name": "public", "namespace": "gateway", "sectionName": "https",
                            "port": 443}],
            "hostnames": ["web.example.com"],
            "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                       "backendRefs": [{"kind": "Service", "name": "web", "port": 8080,
                                        "weight": 1}]}],
        },
        "status": {"parents": [{
            "parentRef": {"name": "public", "namespace": "gateway", "sectionName": "https"},
            "controllerName": "example.com/gateway",
            "conditions": [
                {"type": "Accepted", "status": "True", "reason": "Accepted", "message": ""},
                {"type": "ResolvedRefs", "status": "False", "reason": "BackendNotFound",
                 "message": ""},
            ],
        }]},
    }))
    .expect("the sample HTTPRoute decodes");
    let mut record = httproute::record_of(&route, redaction);
    // A route's findings are rare, their words long: they would push the shared parts of
    // every record out of the dictionary's reach.
    if let Some(detail) = record.route.as_mut() {
        detail.diagnosis.clear();
    }
    record
}

/// One backend in each state, the `unknown` one with the index's own message.
fn backend_statuses() -> Vec<BackendStatus> {
    let reference = (
        String::new(),
        String::new(),
        Some(ServicePort::Name("http".to_owned())),
    );
    let unknown =
        BackendIndex::default().status(&reference, &Availability::Pending, &Availability::Pending);
    let counted = |state, ready, total| BackendStatus {
        state,
        ready_endpoints: ready,
        total_endpoints: total,
        error: None,
        port: Some(ServicePort::Number(80)),
        ..unknown.clone()
    };
    vec![
        unknown.clone(),
        counted(BackendState::MissingService, 0, 0),
        counted(BackendState::NoReadyEndpoints, 0, 1),
        counted(BackendState::Degraded, 1, 3),
    ]
}

/// A certificate of each source, those not read with the index's own messages (the most common
/// last).
fn certificate_statuses() -> Vec<CertificateStatus> {
    let index = CertificateIndex::default();
    let entry = crate::records::Tls {
        hosts: vec![String::new()],
        secret_name: Some(String::new()),
    };
    let status = |secrets, certificates| index.status("", &entry, "", &[], secrets, certificates);
    let read = CertificateStatus {
        source: CertificateSource::Secret,
        subject_names: vec!["*.".to_owned()],
        not_before: Some(String::new()),
        not_after: Some(String::new()),
        issuer: Some("CN=".to_owned()),
        missing_hosts: vec![String::new()],
        error: None,
        ..status(&Availability::Off, &Availability::Off)
    };
    let managed = CertificateStatus {
        source: CertificateSource::CertManager,
        issuer: Some("ClusterIssuer/".to_owned()),
        ..read.clone()
    };
    vec![
        status(&Availability::Pending, &Availability::Pending),
        status(&Availability::Off, &Availability::Off),
        status(&Availability::Ready, &Availability::Ready),
        managed,
        read,
        status(&Availability::Off, &Availability::Ready),
    ]
}

/// An Ingress with every part a record shows: rules with each path type and backend form, a
/// default backend, TLS, addresses, labels and annotations; its backends ready. Its names and
/// hosts are empty: they differ in every record, and without them the field names around them
/// form longer matches (25.2% of a typical record's bytes against 26.9% with sample names).
fn sample_ingress(redaction: &Redaction) -> impl Serialize {
    let ingress = serde_json::from_value(json!({
        "metadata": {
            "name": "", "namespace": "", "uid": "", "resourceVersion": "",
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"app.kubernetes.io/name": "", "app.kubernetes.io/part-of": "",
                       "app.kubernetes.io/instance": ""},
            "annotations": {"nginx.ingress.kubernetes.io/": ""},
        },
        "spec": {
            "ingressClassName": "nginx",
            "defaultBackend": {"service": {"name": "", "port": {"number": 8080}}},
            "tls": [{"hosts": [""], "secretName": ""}],
            "rules": [{"host": "", "http": {"paths": [
                {"path": "/", "pathType": "Prefix",
                 "backend": {"service": {"name": "", "port": {"number": 80}}}},
                {"path": "/", "pathType": "Exact",
                 "backend": {"service": {"name": "", "port": {"name": "http"}}}},
                {"path": "/", "pathType": "ImplementationSpecific",
                 "backend": {"resource": {"apiGroup": "", "kind": "", "name": ""}}},
            ]}}],
        },
        "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}]}},
    }))
    .expect("the sample Ingress decodes");
    let mut record = IngressRecord::from_ingress(&ingress, redaction);
    let ready = |port| BackendStatus {
        service: String::new(),
        namespace: String::new(),
        port: Some(port),
        state: BackendState::Ready,
        ready_endpoints: 2,
        total_endpoints: 2,
        error: None,
    };
    record.backends = vec![
        ready(ServicePort::Name("http".to_owned())),
        ready(ServicePort::Number(80)),
    ];
    record.certificates = certificate_statuses().into_iter().rev().take(1).collect();
    record
}

#[cfg(test)]
mod tests {
    use super::build;

    #[test]
    fn holds_the_wire_names_values_and_messages() {
        let dictionary = String::from_utf8(build()).unwrap();
        for expected in [
            r#""kind":"HTTPRoute""#,
            r#""kind":"Ingress""#,
            r#""ingressClassName":"nginx""#,
            r#""pathType":"ImplementationSpecific""#,
            r#""state":"missing_service""#,
            r#""source":"cert_manager""#,
            "Services and EndpointSlices have not been read yet.",
            "Secrets are not read (certificates.read_secrets is false), and no cert-manager \
             Certificate writes this Secret.",
        ] {
            assert!(dictionary.contains(expected), "{expected} in {dictionary}");
        }
        // The most common record's shape comes last, nearest the data.
        assert!(dictionary.ends_with('}'));
        assert!(
            dictionary.rfind(r#""kind":"Ingress""#) > dictionary.rfind(r#""kind":"HTTPRoute""#)
        );
    }
}
