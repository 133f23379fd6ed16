//! Gateway API HTTPRoutes as records of kind `HTTPRoute` beside ingresses: hostnames, the
//! rules' matches and backendRefs, the parents it attaches to and the conditions they report
//! (gateway.networking.k8s.io/v1, with the documented defaults filled in).

use std::collections::BTreeMap;

use crate::access::redaction::{LAST_APPLIED, REDACTED, Redaction};
use crate::kube::kind_types::{HttpRouteMatch, ParentReference};
use crate::kube::watched_kinds::HttpRoute;
use crate::records::{
    Backend, IngressRecord, Link, ParentRef, PathRule, RecordKind, RouteBackendRef, RouteCondition,
    RouteDetail, RouteRule, Rule, ServicePort, route_diagnosis,
};

const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

fn parent_ref(reference: &ParentReference, namespace: &str) -> ParentRef {
    ParentRef {
        group: reference
            .group
            .clone()
            .unwrap_or_else(|| GATEWAY_GROUP.to_owned()),
        kind: reference
            .kind
            .clone()
            .unwrap_or_else(|| "Gateway".to_owned()),
        namespace: reference
            .namespace
            .clone()
            .unwrap_or_else(|| namespace.to_owned()),
        name: reference.name.clone(),
        section_name: reference.section_name.clone(),
        port: reference.port,
    }
}

/// `namespace/name`, with `/section` when the reference names one.
fn parent_label(parent: &ParentRef) -> String {
    match &parent.section_name {
        Some(section) => format!("{}/{}/{section}", parent.namespace, parent.name),
        None => format!("{}/{}", parent.namespace, parent.name),
    }
}

/// A match in words: "PathPrefix /api GET header x-env=canary query v=2"; the value of a
/// header or parameter named like a credential is `<redacted>`.
fn describe_match(matched: &HttpRouteMatch, redaction: &Redaction) -> String {
    let mut words = Vec::new();
    let path = matched.path.clone().unwrap_or_default();
    words.push(format!(
        "{} {}",
        path.type_.as_deref().unwrap_or("PathPrefix"),
        path.value.as_deref().unwrap_or("/")
    ));
    words.extend(matched.method.clone());
    for header in &matched.headers {
        let regex = if header.type_.as_deref() == Some("RegularExpression") {
            "~"
        } else {
            ""
        };
        let value = shown_value(&header.name, &header.value, redaction);
        words.push(format!("header {}={regex}{value}", header.name));
    }
    for query in &matched.query_params {
        let regex = if query.type_.as_deref() == Some("RegularExpression") {
            "~"
        } else {
            ""
        };
        let value = shown_value(&query.name, &query.value, redaction);
        words.push(format!("query {}={regex}{value}", query.name));
    }
    words.join(" ")
}

pub(crate) fn shown_value<'a>(name: &str, value: &'a str, redaction: &Redaction) -> &'a str {
    if redaction.is_secret_name(name) {
        REDACTED
    } else {
        value
    }
}

/// The first Service among a rule's backendRefs, as the table shows it.
pub(super) fn first_service(backend_refs: &[RouteBackendRef]) -> Option<Backend> {
    backend_refs
        .iter()
        .find(|backend| backend.kind == "Service")
        .map(|backend| Backend::Service {
            name: backend.name.clone(),
            port: ServicePort::Number(backend.port.unwrap_or(0)),
        })
}

/// The table's rules: per hostname (none: `*`), each match to its rule's first Service.
pub(super) fn table_rules(hosts: &[String], paths: Vec<PathRule>) -> Vec<Rule> {
    if hosts.is_empty() {
        return vec![Rule { host: None, paths }];
    }
    hosts
        .iter()
        .map(|host| Rule {
            host: Some(host.clone()),
            paths: paths.clone(),
        })
        .collect()
}

/// The record of `route`, its annotations redacted like an ingress's and the values of its
/// credential-named header and query matches redacted.
pub fn record_of(route: &HttpRoute, redaction: &Redaction) -> IngressRecord {
    let metadata = &route.metadata;
    let namespace = metadata.namespace.clone().unwrap_or_default();
    let spec = &route.spec;
    let parent_refs: Vec<ParentRef> = spec
        .parent_refs
        .iter()
        .map(|reference| parent_ref(reference, &namespace))
        .collect();
    let mut conditions = Vec::new();
    for parent in route.status.iter().flat_map(|status| &status.parents) {
        let label = parent_label(&parent_ref(&parent.parent_ref, &namespace));
        for condition in &parent.conditions {
            conditions.push(RouteCondition {
                parent: label.clone(),
                type_: condition.type_.clone(),
                status: condition.status.clone(),
                reason: condition.reason.clone().unwrap_or_default(),
                message: condition.message.clone().unwrap_or_default(),
            });
        }
    }
    let rules: Vec<RouteRule> = spec
        .rules
        .iter()
        .map(|rule| RouteRule {
            matches: if rule.matches.is_empty() {
                vec!["PathPrefix /".to_owned()]
            } else {
                rule.matches
                    .iter()
                    .map(|matched| describe_match(matched, redaction))
                    .collect()
            },
            backend_refs: rule
                .backend_refs
                .iter()
                .map(|backend| RouteBackendRef {
                    kind: backend.kind.clone().unwrap_or_else(|| "Service".to_owned()),
                    name: backend.name.clone(),
                    namespace: backend
                        .namespace
                        .clone()
                        .unwrap_or_else(|| namespace.clone()),
                    port: backend.port,
                    weight: backend.weight.unwrap_or(1),
                })
                .collect(),
        })
        .collect();
    // The table's rules: each match of each rule to its first Service backend, per hostname.
    let hosts: Vec<String> = spec.hostnames.clone();
    let path_rules: Vec<PathRule> = spec
        .rules
        .iter()
        .zip(&rules)
        .flat_map(|(rule, detail)| {
            let backend = first_service(&detail.backend_refs);
            let matches: Vec<(Option<String>, String)> = if rule.matches.is_empty() {
                vec![(Some("/".to_owned()), "PathPrefix".to_owned())]
            } else {
                rule.matches
                    .iter()
                    .map(|matched| {
                        let path = matched.path.clone().unwrap_or_default();
                        (
                            Some(path.value.unwrap_or_else(|| "/".to_owned())),
                            path.type_.unwrap_or_else(|| "PathPrefix".to_owned()),
                        )
                    })
                    .collect()
            };
            matches.into_iter().filter_map(move |(path, path_type)| {
                backend.clone().map(|backend| PathRule {
                    path,
                    path_type,
                    backend,
                })
            })
        })
        .collect();
    let table_rules = table_rules(&hosts, path_rules);
    let mut annotations: BTreeMap<String, String> = metadata
        .annotations
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter(|(key, _)| key != LAST_APPLIED)
        .collect();
    redaction.apply(&mut annotations);
    let links = hosts
        .iter()
        .filter(|host| !host.contains('*'))
        .map(|host| Link {
            host: host.clone(),
            url: format!("http://{host}/"),
        })
        .collect();
    IngressRecord {
        kind: RecordKind::HttpRoute,
        uid: metadata.uid.clone().unwrap_or_default(),
        name: metadata.name.clone().unwrap_or_default(),
        namespace,
        ingress_class_name: None,
        hosts,
        rules: table_rules,
        default_backend: None,
        tls: Vec::new(),
        addresses: Vec::new(),
        labels: metadata.labels.clone().unwrap_or_default(),
        annotations,
        created_at: metadata
            .creation_timestamp
            .as_ref()
            .map(|time| time.0.to_string())
            .unwrap_or_default(),
        resource_version: metadata.resource_version.clone().unwrap_or_default(),
        links,
        backends: Vec::new(),
        certificates: Vec::new(),
        route: Some(RouteDetail {
            parent_refs,
            conditions,
            rules,
            diagnosis: route_diagnosis::diagnose(route, RecordKind::HttpRoute, None),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_route_becomes_a_record_with_its_detail() {
        let route: HttpRoute = serde_json::from_value(json!({
            "metadata": {"name": "checkout", "namespace": "team-a", "uid": "r-1", "resourceVersion": "9"},
            "spec": {
                "parentRefs": [{"name": "public", "namespace": "gateway-system", "sectionName": "https"}],
                "hostnames": ["shop.example.com"],
                "rules": [{
                    "matches": [{"path": {"type": "PathPrefix", "value": "/pay"}, "method": "POST",
                                 "headers": [{"name": "x-env", "value": "canary"}]}],
                    "backendRefs": [{"name": "checkout-v2", "port": 8080, "weight": 90},
                                    {"name": "checkout-v1", "port": 8080, "weight": 10}],
                }, {"backendRefs": [{"name": "web", "port": 80}]}],
            },
            "status": {"parents": [{
                "parentRef": {"name": "public", "namespace": "gateway-system", "sectionName": "https"},
                "controllerName": "example.com/gateway",
                "conditions": [
                    {"type": "Accepted", "status": "True", "reason": "Accepted", "message": ""},
                    {"type": "ResolvedRefs", "status": "False", "reason": "BackendNotFound", "message": "checkout-v2 not found"},
                ],
            }]},
        }))
        .unwrap();
        let record = serde_json::to_value(record_of(&route, &Redaction::none())).unwrap();
        assert_eq!(record["kind"], "HTTPRoute");
        assert_eq!(record["hosts"], json!(["shop.example.com"]));
        assert_eq!(record.get("ingressClassName"), None);
        assert_eq!(
            record["route"]["parentRefs"],
            json!([{"group": "gateway.networking.k8s.io", "kind": "Gateway", "namespace": "gateway-system",
                    "name": "public", "sectionName": "https"}]),
            "no port: left out (docs/api/ingress-dash.md, Absent fields)"
        );
        assert_eq!(
            record["route"]["conditions"][1],
            json!({"parent": "gateway-system/public/https", "type": "ResolvedRefs", "status": "False",
                   "reason": "BackendNotFound", "message": "checkout-v2 not found"})
        );
        assert_eq!(
            record["route"]["rules"][0]["matches"],
            json!(["PathPrefix /pay POST header x-env=canary"])
        );
        assert_eq!(
            record["route"]["rules"][0]["backendRefs"][0],
            json!({"kind": "Service", "name": "checkout-v2", "namespace": "team-a", "port": 8080, "weight": 90})
        );
        assert_eq!(
            record["route"]["rules"][1]["matches"],
            json!(["PathPrefix /"])
        );
        assert_eq!(
            record["rules"][0]["paths"][1],
            json!({"path": "/", "pathType": "PathPrefix", "backend": {"service": {"name": "web", "port": 80}}})
        );
    }
}
