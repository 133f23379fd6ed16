//! Gateway API GRPCRoutes and TLSRoutes as records of kinds `GRPCRoute` and `TLSRoute` beside
//! ingresses and HTTPRoutes: what the kinds share with HTTPRoute (parents, hostnames,
//! backendRefs, conditions, the diagnosis) is built by [`httproute::record_of`] from the route
//! in HTTPRoute's shape; the matches are the kind's own: a GRPCRoute's service/method and
//! header matches, a TLSRoute's none (it serves its SNI hostnames whole).

use crate::access::redaction::Redaction;
use crate::kube::kind_types::{GrpcRouteMatch, GrpcRouteRule};
use crate::kube::watched_kinds::{GrpcRoute, TlsRoute};
use crate::records::{Backend, IngressRecord, PathRule, RecordKind, httproute};

/// The match a TLSRoute's rule stands for in the table and the Hosts view: the SNI hostname.
pub const TLS_MATCH: &str = "SNI";

/// A gRPC match: its method path, and in words `gRPC shop.Cart/AddItem`, `gRPC ~shop\..*/Get.*`
/// for a regular expression, `*` for a left-out service or method, then `header name=value` (a
/// value named like a credential `<redacted>`).
fn describe_grpc_match(matched: &GrpcRouteMatch, redaction: &Redaction) -> GrpcMatch {
    let method = matched.method.clone().unwrap_or_default();
    let regex = if method.type_.as_deref() == Some("RegularExpression") {
        "~"
    } else {
        ""
    };
    let path = format!(
        "{regex}{}/{}",
        method.service.as_deref().unwrap_or("*"),
        method.method.as_deref().unwrap_or("*")
    );
    let mut words = vec![format!("gRPC {path}")];
    for header in &matched.headers {
        let regex = if header.type_.as_deref() == Some("RegularExpression") {
            "~"
        } else {
            ""
        };
        let value = httproute::shown_value(&header.name, &header.value, redaction);
        words.push(format!("header {}={regex}{value}", header.name));
    }
    GrpcMatch {
        path,
        words: words.join(" "),
    }
}

/// One gRPC match: the method path the table and the conflict check read (headers left out,
/// as an HTTPRoute's path leaves them out), and the whole match in words.
struct GrpcMatch {
    path: String,
    words: String,
}

/// A rule's matches (no match: every method, `gRPC */*`).
fn grpc_matches(rule: &GrpcRouteRule, redaction: &Redaction) -> Vec<GrpcMatch> {
    if rule.matches.is_empty() {
        return vec![GrpcMatch {
            path: "*/*".to_owned(),
            words: "gRPC */*".to_owned(),
        }];
    }
    rule.matches
        .iter()
        .map(|matched| describe_grpc_match(matched, redaction))
        .collect()
}

/// The first Service backend of each rule of `record` (built from the shared shape).
fn first_services(record: &IngressRecord) -> Vec<Option<Backend>> {
    record
        .route
        .iter()
        .flat_map(|route| &route.rules)
        .map(|rule| httproute::first_service(&rule.backend_refs))
        .collect()
}

/// The record of a GRPCRoute.
pub fn grpc_record_of(route: &GrpcRoute, redaction: &Redaction) -> IngressRecord {
    let mut record = httproute::record_of(&route.shared_shape(), redaction);
    record.kind = RecordKind::GrpcRoute;
    // gRPC is not browsed: no links.
    record.links = Vec::new();
    let matches: Vec<Vec<GrpcMatch>> = route
        .spec
        .rules
        .iter()
        .map(|rule| grpc_matches(rule, redaction))
        .collect();
    let services = first_services(&record);
    let paths = matches
        .iter()
        .zip(&services)
        .flat_map(|(words, backend)| {
            words.iter().filter_map(move |matched| {
                backend.clone().map(|backend| PathRule {
                    path: Some(matched.path.clone()),
                    path_type: "gRPC".to_owned(),
                    backend,
                })
            })
        })
        .collect();
    record.rules = httproute::table_rules(&record.hosts, paths);
    if let Some(detail) = record.route.as_mut() {
        for (rule, matched) in detail.rules.iter_mut().zip(matches) {
            rule.matches = matched.into_iter().map(|matched| matched.words).collect();
        }
    }
    record
}

/// The record of a TLSRoute: its rules match the SNI hostname only.
pub fn tls_record_of(route: &TlsRoute, redaction: &Redaction) -> IngressRecord {
    let mut record = httproute::record_of(&route.shared_shape(), redaction);
    record.kind = RecordKind::TlsRoute;
    for link in &mut record.links {
        link.url = format!("https://{}/", link.host);
    }
    let paths = first_services(&record)
        .into_iter()
        .flatten()
        .map(|backend| PathRule {
            path: None,
            path_type: TLS_MATCH.to_owned(),
            backend,
        })
        .collect();
    record.rules = httproute::table_rules(&record.hosts, paths);
    if let Some(detail) = record.route.as_mut() {
        for rule in &mut detail.rules {
            rule.matches = vec![TLS_MATCH.to_owned()];
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_grpc_route_becomes_a_record_with_its_method_matches() {
        let route: GrpcRoute = serde_json::from_value(json!({
            "metadata": {"name": "cart", "namespace": "shop", "uid": "g-1", "resourceVersion": "3"},
            "spec": {
                "parentRefs": [{"name": "public", "namespace": "infra", "sectionName": "grpc"}],
                "hostnames": ["api.shop.example"],
                "rules": [{
                    "matches": [{"method": {"service": "shop.Cart", "method": "Add"},
                                 "headers": [{"name": "authorization", "value": "Bearer x"}]}],
                    "backendRefs": [{"name": "cart", "port": 9000}],
                }, {"backendRefs": [{"name": "fallback", "port": 9000}]}],
            },
            "status": {"parents": [{
                "parentRef": {"name": "public", "namespace": "infra", "sectionName": "grpc"},
                "controllerName": "example.com/gateway",
                "conditions": [{"type": "Accepted", "status": "False", "reason": "NotAllowedByListeners"}],
            }]},
        }))
        .unwrap();
        let redaction = Redaction::configured(true, &[]).unwrap();
        let record = serde_json::to_value(grpc_record_of(&route, &redaction)).unwrap();
        assert_eq!(record["kind"], "GRPCRoute");
        assert_eq!(record["hosts"], json!(["api.shop.example"]));
        assert_eq!(record["links"], json!([]));
        assert_eq!(
            record["route"]["rules"][0]["matches"],
            json!(["gRPC shop.Cart/Add header authorization=<redacted>"])
        );
        assert_eq!(record["route"]["rules"][1]["matches"], json!(["gRPC */*"]));
        assert_eq!(
            record["rules"][0]["paths"][1],
            json!({"path": "*/*", "pathType": "gRPC", "backend": {"service": {"name": "fallback", "port": 9000}}})
        );
        assert_eq!(record["route"]["diagnosis"][0]["code"], "not_accepted");
    }

    #[test]
    fn a_tls_route_serves_its_sni_hostnames_without_paths() {
        let route: TlsRoute = serde_json::from_value(json!({
            "metadata": {"name": "db", "namespace": "data"},
            "spec": {
                "parentRefs": [{"name": "edge", "namespace": "infra"}],
                "hostnames": ["db.example.com"],
                "rules": [{"backendRefs": [{"name": "postgres", "port": 5432}]}],
            },
        }))
        .unwrap();
        let record = serde_json::to_value(tls_record_of(&route, &Redaction::none())).unwrap();
        assert_eq!(record["kind"], "TLSRoute");
        assert_eq!(
            record["links"],
            json!([{"host": "db.example.com", "url": "https://db.example.com/"}])
        );
        assert_eq!(
            record["rules"],
            json!([{"host": "db.example.com", "paths": [{"pathType": "SNI",
                "backend": {"service": {"name": "postgres", "port": 5432}}}]}])
        );
        assert_eq!(record["route"]["rules"][0]["matches"], json!(["SNI"]));
        assert_eq!(
            record["route"]["diagnosis"][0]["code"], "never_attached",
            "no controller reported on infra/edge"
        );
    }
}
