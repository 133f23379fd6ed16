//! The defaults of the Gateway API 1.6.3 standard-channel CRDs' `openAPIV3Schema` (the
//! `default:` of each property, applied by the API server on every write where the parent object
//! is present), for the kinds this server stores: `HTTPRoute`, `GRPCRoute`, `TLSRoute` and
//! `Gateway`. Written out from the CRDs (`scripts/install-kube.sh` fetches them) rather than read
//! at run time: `make run` has no CRD files. `tests/api/conformance/` compares them with the real
//! API server's.

use serde_json::{Value, json};

use crate::Kind;

/// The Gateway API group, the default of a parentRef's and an allowed kind's `group`.
const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

/// The CRD defaults of `kind`, if it is a Gateway API kind.
/// Input is hostile: a field of another shape than the schema's is left as it is.
pub(crate) fn default_gateway_api(kind: Kind, object: &mut Value) {
    if kind == Kind::Gateway {
        default_field(object, "status", gateway_status());
    }
    let Some(spec) = object.get_mut("spec").filter(|spec| spec.is_object()) else {
        return;
    };
    match kind {
        Kind::HttpRoute => default_http_route(spec),
        Kind::GrpcRoute => default_grpc_route(spec),
        Kind::TlsRoute => default_route_refs(spec),
        Kind::Gateway => default_gateway(spec),
        _ => {}
    }
}

/// Sets `field` of `object` to `value` where it is absent or null (the API server prunes a
/// null before defaulting).
pub(crate) fn default_field(object: &mut Value, field: &str, value: Value) {
    if let Some(fields) = object.as_object_mut() {
        let slot = fields.entry(field).or_insert(Value::Null);
        if slot.is_null() {
            *slot = value;
        }
    }
}

/// The value at `path` under `object`, when every step is a field of an object.
fn at<'a>(object: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    path.iter()
        .try_fold(object, |value, field| value.get_mut(*field))
}

/// The items of the array `field` of `object` (none when it is absent or not an array).
fn items<'a>(object: &'a mut Value, field: &str) -> impl Iterator<Item = &'a mut Value> {
    object
        .get_mut(field)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

/// A reference to a core `Service` (a backendRef, a mirror's backendRef).
fn default_service_ref(reference: &mut Value) {
    default_service_ref_kind(reference, "Service");
}

/// A reference to a core object of `kind` (a Service, a Secret).
fn default_service_ref_kind(reference: &mut Value, kind: &str) {
    default_field(reference, "group", json!(""));
    default_field(reference, "kind", json!(kind));
}

/// What every route kind's schema defaults: parentRefs to a Gateway, backendRefs to a Service
/// with weight 1; in filters (the rule's and the backendRefs'), a request mirror's backendRef
/// and fraction denominator.
fn default_route_refs(spec: &mut Value) {
    for parent in items(spec, "parentRefs") {
        default_field(parent, "group", json!(GATEWAY_GROUP));
        default_field(parent, "kind", json!("Gateway"));
    }
    for rule in items(spec, "rules") {
        default_mirrors(rule);
        for backend in items(rule, "backendRefs") {
            default_service_ref(backend);
            default_field(backend, "weight", json!(1));
            default_mirrors(backend);
        }
    }
}

fn default_mirrors(holder: &mut Value) {
    for filter in items(holder, "filters") {
        if let Some(reference) = at(filter, &["requestMirror", "backendRef"]) {
            default_service_ref(reference);
        }
        if let Some(fraction) = at(filter, &["requestMirror", "fraction"]) {
            default_field(fraction, "denominator", json!(100));
        }
    }
}

/// HTTPRoute: one rule matching path prefix `/`, match types `PathPrefix`/`Exact`, and the
/// refs of every route.
fn default_http_route(spec: &mut Value) {
    default_route_refs(spec);
    let slash = json!({"path": {"type": "PathPrefix", "value": "/"}});
    default_field(spec, "rules", json!([{"matches": [slash.clone()]}]));
    for rule in items(spec, "rules") {
        default_field(rule, "matches", json!([slash.clone()]));
        for matched in items(rule, "matches") {
            default_field(matched, "path", slash["path"].clone());
            if let Some(path) = matched.get_mut("path") {
                default_field(path, "type", json!("PathPrefix"));
                default_field(path, "value", json!("/"));
            }
            for list in ["headers", "queryParams"] {
                for entry in items(matched, list) {
                    default_field(entry, "type", json!("Exact"));
                }
            }
        }
    }
}

/// GRPCRoute: match types `Exact` (a method's, a header's), and the refs of every route.
fn default_grpc_route(spec: &mut Value) {
    default_route_refs(spec);
    for rule in items(spec, "rules") {
        for matched in items(rule, "matches") {
            if let Some(method) = matched.get_mut("method") {
                default_field(method, "type", json!("Exact"));
            }
            for header in items(matched, "headers") {
                default_field(header, "type", json!("Exact"));
            }
        }
    }
}

/// A Gateway's status before a controller writes one: `Accepted` and `Programmed` Unknown,
/// `Pending`.
fn gateway_status() -> Value {
    let pending = |kind: &str| {
        json!({"lastTransitionTime": "1970-01-01T00:00:00Z", "message": "Waiting for controller",
               "reason": "Pending", "status": "Unknown", "type": kind})
    };
    json!({"conditions": [pending("Accepted"), pending("Programmed")]})
}

/// Gateway: each listener's `allowedRoutes` (routes of its own namespace; an allowed kind's
/// group), its TLS mode `Terminate` and certificate refs to core Secrets; an address's type
/// `IPAddress`; `allowedListeners` from no namespace; the TLS validation modes.
fn default_gateway(spec: &mut Value) {
    for address in items(spec, "addresses") {
        default_field(address, "type", json!("IPAddress"));
    }
    if let Some(allowed) = spec.get_mut("allowedListeners") {
        default_field(allowed, "namespaces", json!({"from": "None"}));
        if let Some(namespaces) = allowed.get_mut("namespaces") {
            default_field(namespaces, "from", json!("None"));
        }
    }
    for listener in items(spec, "listeners") {
        default_field(
            listener,
            "allowedRoutes",
            json!({"namespaces": {"from": "Same"}}),
        );
        if let Some(allowed) = listener.get_mut("allowedRoutes") {
            default_field(allowed, "namespaces", json!({"from": "Same"}));
            if let Some(namespaces) = allowed.get_mut("namespaces") {
                default_field(namespaces, "from", json!("Same"));
            }
            for kind in items(allowed, "kinds") {
                default_field(kind, "group", json!(GATEWAY_GROUP));
            }
        }
        if let Some(tls) = listener.get_mut("tls") {
            default_field(tls, "mode", json!("Terminate"));
            for reference in items(tls, "certificateRefs") {
                default_service_ref_kind(reference, "Secret");
            }
        }
    }
    if let Some(reference) = at(spec, &["tls", "backend", "clientCertificateRef"]) {
        default_service_ref_kind(reference, "Secret");
    }
    if let Some(validation) = at(spec, &["tls", "frontend", "default", "validation"]) {
        default_field(validation, "mode", json!("AllowValidOnly"));
    }
    if let Some(frontend) = at(spec, &["tls", "frontend"]) {
        for port in items(frontend, "perPort") {
            if let Some(validation) = at(port, &["tls", "validation"]) {
                default_field(validation, "mode", json!("AllowValidOnly"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gateway_listener_gets_routes_of_its_namespace_and_tls_terminate() {
        let mut gateway = json!({"spec": {"listeners": [
            {"name": "https", "port": 443, "protocol": "HTTPS",
             "tls": {"certificateRefs": [{"name": "web-tls"}]}},
            {"name": "http", "port": 80, "protocol": "HTTP",
             "allowedRoutes": {"kinds": [{"kind": "HTTPRoute"}]}},
        ]}});
        default_gateway_api(Kind::Gateway, &mut gateway);
        assert_eq!(
            gateway["spec"]["listeners"],
            json!([
                {"name": "https", "port": 443, "protocol": "HTTPS",
                 "allowedRoutes": {"namespaces": {"from": "Same"}},
                 "tls": {"mode": "Terminate",
                         "certificateRefs": [{"group": "", "kind": "Secret", "name": "web-tls"}]}},
                {"name": "http", "port": 80, "protocol": "HTTP",
                 "allowedRoutes": {"namespaces": {"from": "Same"},
                                   "kinds": [{"group": GATEWAY_GROUP, "kind": "HTTPRoute"}]}},
            ])
        );
    }

    #[test]
    fn grpc_and_tls_routes_get_their_refs_and_match_types() {
        let mut grpc = json!({"spec": {"parentRefs": [{"name": "public"}], "rules": [{
            "matches": [{"method": {"service": "shop.Cart"}, "headers": [{"name": "x", "value": "1"}]}],
            "backendRefs": [{"name": "cart", "port": 9000}],
        }]}});
        default_gateway_api(Kind::GrpcRoute, &mut grpc);
        assert_eq!(
            grpc["spec"],
            json!({"parentRefs": [{"group": GATEWAY_GROUP, "kind": "Gateway", "name": "public"}],
                   "rules": [{
                "matches": [{"method": {"type": "Exact", "service": "shop.Cart"},
                             "headers": [{"type": "Exact", "name": "x", "value": "1"}]}],
                "backendRefs": [{"group": "", "kind": "Service", "name": "cart", "port": 9000, "weight": 1}],
            }]})
        );
        let mut tls = json!({"spec": {"parentRefs": [{"name": "public"}],
            "rules": [{"backendRefs": [{"name": "db", "port": 5432}]}]}});
        default_gateway_api(Kind::TlsRoute, &mut tls);
        assert_eq!(
            tls["spec"]["rules"][0]["backendRefs"][0],
            json!({"group": "", "kind": "Service", "name": "db", "port": 5432, "weight": 1})
        );
        assert_eq!(tls["spec"]["parentRefs"][0]["kind"], "Gateway");
    }
}
