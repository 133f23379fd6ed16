//! The record's wire shape (docs/api/ingress-dash.md): empty parts (`null`, `[]`, `{}`) are left
//! out at every level, except the fields the contract always keeps; reading accepts both shapes.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;

/// A record whose every optional part is empty.
fn bare() -> IngressRecord {
    IngressRecord {
        kind: RecordKind::Ingress,
        uid: "u-1".into(),
        name: "web".into(),
        namespace: "shop".into(),
        ingress_class_name: None,
        hosts: Vec::new(),
        rules: vec![Rule {
            host: None,
            paths: vec![PathRule {
                path: None,
                path_type: "ImplementationSpecific".into(),
                backend: Backend::Resource(ResourceBackend {
                    api_group: None,
                    kind: "Bucket".into(),
                    name: "assets".into(),
                }),
            }],
        }],
        default_backend: None,
        tls: vec![Tls {
            hosts: Vec::new(),
            secret_name: None,
        }],
        addresses: Vec::new(),
        labels: BTreeMap::new(),
        annotations: BTreeMap::new(),
        created_at: String::new(),
        resource_version: "1".into(),
        links: Vec::new(),
        backends: vec![BackendStatus {
            service: "web".into(),
            namespace: "shop".into(),
            port: None,
            state: BackendState::MissingService,
            ready_endpoints: 0,
            total_endpoints: 0,
            error: None,
        }],
        certificates: vec![CertificateStatus {
            secret_name: "web-tls".into(),
            hosts: Vec::new(),
            source: CertificateSource::NotRead,
            subject_names: Vec::new(),
            not_before: None,
            not_after: None,
            issuer: None,
            missing_hosts: Vec::new(),
            error: None,
        }],
        route: Some(RouteDetail {
            parent_refs: vec![ParentRef {
                group: "gateway.networking.k8s.io".into(),
                kind: "Gateway".into(),
                namespace: "shop".into(),
                name: "gw".into(),
                section_name: None,
                port: None,
            }],
            conditions: Vec::new(),
            rules: vec![RouteRule {
                matches: Vec::new(),
                backend_refs: vec![RouteBackendRef {
                    kind: "Service".into(),
                    name: "web".into(),
                    namespace: "shop".into(),
                    port: None,
                    weight: 1,
                }],
            }],
            diagnosis: Vec::new(),
        }),
    }
}

/// The same record with every optional part filled.
fn full() -> IngressRecord {
    let mut record = bare();
    record.ingress_class_name = Some("nginx".into());
    record.hosts = vec!["shop.example.com".into()];
    record.rules[0].host = Some("shop.example.com".into());
    record.rules[0].paths[0].path = Some("/".into());
    record.rules[0].paths.push(PathRule {
        path: Some("/api".into()),
        path_type: "Prefix".into(),
        backend: Backend::Service {
            name: "api".into(),
            port: ServicePort::Number(80),
        },
    });
    if let Backend::Resource(resource) = &mut record.rules[0].paths[0].backend {
        resource.api_group = Some("k8s.example.com".into());
    }
    record.default_backend = Some(Backend::Service {
        name: "fallback".into(),
        port: ServicePort::Name("http".into()),
    });
    record.tls[0].hosts = vec!["shop.example.com".into()];
    record.tls[0].secret_name = Some("web-tls".into());
    record.addresses = vec!["10.0.0.1".into()];
    record.labels.insert("app".into(), "web".into());
    record.annotations.insert("team".into(), "payments".into());
    record.links = vec![Link {
        host: "shop.example.com".into(),
        url: "https://shop.example.com/".into(),
    }];
    let backend = &mut record.backends[0];
    backend.port = Some(ServicePort::Number(80));
    backend.state = BackendState::Unknown;
    backend.error = Some("not read yet".into());
    let certificate = &mut record.certificates[0];
    certificate.hosts = vec!["shop.example.com".into()];
    certificate.subject_names = vec!["shop.example.com".into()];
    certificate.not_before = Some("2026-01-01T00:00:00Z".into());
    certificate.not_after = Some("2027-01-01T00:00:00Z".into());
    certificate.issuer = Some("CN=ca".into());
    certificate.missing_hosts = vec!["*.shop.example.com".into()];
    certificate.error = Some("expired".into());
    let route = record.route.as_mut().unwrap();
    route.parent_refs[0].section_name = Some("https".into());
    route.parent_refs[0].port = Some(443);
    route.conditions.push(RouteCondition {
        parent: "shop/gw".into(),
        type_: "Accepted".into(),
        status: "True".into(),
        reason: "Accepted".into(),
        message: String::new(),
    });
    route.rules[0].matches = vec!["PathPrefix /".into()];
    route.rules[0].backend_refs[0].port = Some(8080);
    record
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn empty_parts_are_left_out_at_every_level() {
    let value = serde_json::to_value(bare()).unwrap();
    // What the contract always keeps, even empty.
    assert_eq!(
        keys(&value),
        [
            "backends",
            "certificates",
            "createdAt",
            "hosts",
            "kind",
            "links",
            "name",
            "namespace",
            "resourceVersion",
            "route",
            "rules",
            "tls",
            "uid"
        ]
    );
    assert_eq!(value["hosts"], json!([]));
    assert_eq!(value["links"], json!([]));
    assert_eq!(
        value["rules"],
        json!([{"paths": [{"pathType": "ImplementationSpecific", "backend": {"resource": {"kind": "Bucket", "name": "assets"}}}]}])
    );
    assert_eq!(value["tls"], json!([{}]));
    assert_eq!(
        value["backends"],
        json!([{"service": "web", "namespace": "shop", "state": "missing_service", "readyEndpoints": 0, "totalEndpoints": 0}])
    );
    assert_eq!(
        value["certificates"],
        json!([{"secretName": "web-tls", "source": "not_read"}])
    );
    assert_eq!(
        value["route"],
        json!({
            "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "namespace": "shop", "name": "gw"}],
            "rules": [{"backendRefs": [{"kind": "Service", "name": "web", "namespace": "shop", "weight": 1}]}],
        })
    );
    // No null, [] or {} anywhere but in the fields always kept.
    let text = value.to_string();
    assert!(!text.contains("null"), "{text}");
    let mut without_route = bare();
    without_route.route = None;
    without_route.certificates.clear();
    let value = serde_json::to_value(&without_route).unwrap();
    assert!(value.get("route").is_none() && value.get("certificates").is_none());
}

#[test]
fn filled_parts_are_kept() {
    let value = serde_json::to_value(full()).unwrap();
    assert_eq!(
        keys(&value),
        [
            "addresses",
            "annotations",
            "backends",
            "certificates",
            "createdAt",
            "defaultBackend",
            "hosts",
            "ingressClassName",
            "kind",
            "labels",
            "links",
            "name",
            "namespace",
            "resourceVersion",
            "route",
            "rules",
            "tls",
            "uid"
        ]
    );
    assert_eq!(
        keys(&value["backends"][0]),
        [
            "error",
            "namespace",
            "port",
            "readyEndpoints",
            "service",
            "state",
            "totalEndpoints"
        ]
    );
    assert_eq!(
        keys(&value["certificates"][0]),
        [
            "error",
            "hosts",
            "issuer",
            "missingHosts",
            "notAfter",
            "notBefore",
            "secretName",
            "source",
            "subjectNames"
        ]
    );
    assert_eq!(keys(&value["route"]), ["conditions", "parentRefs", "rules"]);
    assert_eq!(
        keys(&value["route"]["parentRefs"][0]),
        ["group", "kind", "name", "namespace", "port", "sectionName"]
    );
    assert_eq!(
        keys(&value["route"]["rules"][0]),
        ["backendRefs", "matches"]
    );
    assert_eq!(value["route"]["rules"][0]["backendRefs"][0]["port"], 8080);
    assert_eq!(keys(&value["rules"][0]), ["host", "paths"]);
    assert_eq!(
        value["rules"][0]["paths"][0],
        json!({"path": "/", "pathType": "ImplementationSpecific", "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "Bucket", "name": "assets"}}})
    );
    assert_eq!(
        value["tls"],
        json!([{"hosts": ["shop.example.com"], "secretName": "web-tls"}])
    );
    // A condition's empty message is a string, not an empty part: kept.
    assert_eq!(value["route"]["conditions"][0]["message"], "");
}

#[test]
fn both_shapes_read_back_to_the_same_record() {
    for record in [bare(), full()] {
        let short = serde_json::to_string(&record).unwrap();
        assert_eq!(
            serde_json::from_str::<IngressRecord>(&short).unwrap(),
            record
        );
    }
    // The earlier shape, every empty part written out, still reads.
    let long = json!({
        "kind": "Ingress", "uid": "u-1", "name": "web", "namespace": "shop",
        "ingressClassName": null, "hosts": [],
        "rules": [{"host": null, "paths": [{"path": null, "pathType": "ImplementationSpecific",
            "backend": {"resource": {"apiGroup": null, "kind": "Bucket", "name": "assets"}}}]}],
        "defaultBackend": null, "tls": [{"hosts": [], "secretName": null}], "addresses": [],
        "labels": {}, "annotations": {}, "createdAt": "", "resourceVersion": "1", "links": [],
        "backends": [{"service": "web", "namespace": "shop", "port": null, "state": "missing_service",
            "readyEndpoints": 0, "totalEndpoints": 0, "error": null}],
        "certificates": [{"secretName": "web-tls", "hosts": [], "source": "not_read", "subjectNames": [],
            "notBefore": null, "notAfter": null, "issuer": null, "missingHosts": [], "error": null}],
        "route": {"parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
            "namespace": "shop", "name": "gw", "sectionName": null, "port": null}],
            "conditions": [], "rules": [{"matches": [], "backendRefs": [{"kind": "Service",
            "name": "web", "namespace": "shop", "port": null, "weight": 1}]}]},
    });
    assert_eq!(
        serde_json::from_value::<IngressRecord>(long).unwrap(),
        bare()
    );
}
