//! GRPCRoutes and TLSRoutes on their hosts, and the certificates of the Gateway listeners that
//! accept a route counted in its host's TLS overlap.

use super::*;

/// The record the service builds of a GRPCRoute or TLSRoute (`kind`) written as the API has it.
fn gateway_route(kind: &str, namespace: &str, name: &str, spec: Value) -> Value {
    use crate::records::gateway_routes::{grpc_record_of, tls_record_of};
    let object = json!({"metadata": {"name": name, "namespace": namespace}, "spec": spec});
    let redaction = crate::access::redaction::Redaction::none();
    let record = match kind {
        "GRPCRoute" => grpc_record_of(&serde_json::from_value(object).unwrap(), &redaction),
        _ => tls_record_of(&serde_json::from_value(object).unwrap(), &redaction),
    };
    serde_json::to_value(record).unwrap()
}

#[test]
fn grpc_and_tls_routes_serve_their_hosts_with_their_listeners() {
    let grpc = gateway_route(
        "GRPCRoute",
        "shop",
        "cart",
        json!({"parentRefs": [{"name": "public", "namespace": "infra", "sectionName": "grpc"}],
               "hostnames": ["api.example.com"],
               "rules": [{"matches": [{"method": {"service": "shop.Cart", "method": "Add"}}],
                          "backendRefs": [{"name": "cart", "port": 9000}]}]}),
    );
    let tls = gateway_route(
        "TLSRoute",
        "data",
        "db",
        json!({"parentRefs": [{"name": "edge", "namespace": "infra", "port": 443}],
               "hostnames": ["DB.example.com"],
               "rules": [{"backendRefs": [{"name": "postgres", "port": 5432}]}]}),
    );
    let http = route(
        "shop",
        "cart",
        json!(["api.example.com"]),
        json!([{"matches": ["PathPrefix /"], "backendRefs": []}]),
    );
    let report = all(&[grpc, tls, http]);
    let api = host(&report, "api.example.com");
    let keys: Vec<&str> = api.objects.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["grpcroute/shop/cart", "httproute/shop/cart"]);
    assert_eq!(api.objects[0].listeners, ["infra/public/grpc"]);
    assert_eq!(api.paths[0].matched, "gRPC shop.Cart/Add");
    assert_eq!(api.paths[0].backends[0].name, "cart");
    assert!(
        !api.conflict,
        "a gRPC method and an HTTP path do not conflict"
    );
    let db = host(&report, "db.example.com");
    assert_eq!(db.objects[0].key, "tlsroute/data/db");
    assert_eq!(db.objects[0].listeners, ["infra/edge:443"]);
    assert_eq!(db.paths[0].matched, "SNI");
    assert_eq!(
        db.paths[0].backends[0].port,
        Some(ServicePort::Number(5432))
    );
}

#[test]
fn two_tls_routes_on_one_sni_host_and_two_grpc_routes_on_one_method_conflict() {
    let tls = |name: &str| {
        gateway_route(
            "TLSRoute",
            "data",
            name,
            json!({"parentRefs": [{"name": "edge"}], "hostnames": ["db.example.com"],
                   "rules": [{"backendRefs": [{"name": name, "port": 5432}]}]}),
        )
    };
    let grpc = |name: &str, method: &str| {
        gateway_route(
            "GRPCRoute",
            "shop",
            name,
            json!({"parentRefs": [{"name": "public"}], "hostnames": ["api.example.com"],
                   "rules": [{"matches": [{"method": {"service": "shop.Cart", "method": method}}],
                              "backendRefs": [{"name": name, "port": 9000}]}]}),
        )
    };
    let report = all(&[
        tls("primary"),
        tls("replica"),
        grpc("cart", "Add"),
        grpc("cart-v2", "Add"),
        grpc("cart-v3", "Remove"),
    ]);
    let db = host(&report, "db.example.com");
    assert_eq!(
        db.conflicts,
        [Conflict {
            matched: "SNI".to_owned(),
            objects: vec![
                "tlsroute/data/primary".into(),
                "tlsroute/data/replica".into()
            ],
        }]
    );
    let api = host(&report, "api.example.com");
    assert_eq!(
        api.conflicts,
        [Conflict {
            matched: "gRPC shop.Cart/Add".to_owned(),
            objects: vec![
                "grpcroute/shop/cart".into(),
                "grpcroute/shop/cart-v2".into()
            ],
        }]
    );
}

/// `gateway-system/public`: listener `https` terminating TLS for `*.example.com` with
/// `shop-tls`, `other` for `*.example.org` with `org-tls`, `passthrough` (no certificate).
fn public_gateway() -> KnownGateways {
    let mut known = KnownGateways::default();
    let gateways = known.decode(
        "gateway-system",
        vec![json!({
            "metadata": {"name": "public", "namespace": "gateway-system"},
            "spec": {"listeners": [
                {"name": "https", "port": 443, "protocol": "HTTPS", "hostname": "*.example.com",
                 "allowedRoutes": {"namespaces": {"from": "All"}},
                 "tls": {"certificateRefs": [{"name": "shop-tls"}]}},
                {"name": "other", "port": 443, "protocol": "HTTPS", "hostname": "*.example.org",
                 "allowedRoutes": {"namespaces": {"from": "All"}},
                 "tls": {"certificateRefs": [{"kind": "Secret", "name": "org-tls"}]}},
                {"name": "passthrough", "port": 8443, "protocol": "TLS",
                 "allowedRoutes": {"namespaces": {"from": "All"}},
                 "tls": {"mode": "Passthrough", "certificateRefs": [{"name": "ignored"}]}},
            ]},
        })],
    );
    known.insert("gateway-system".into(), Ok(gateways));
    known
}

#[test]
fn a_listener_certificate_counts_in_the_tls_overlap_before_the_flags() {
    let host_rules = json!([{"host": "shop.example.com", "paths": [prefix("/", "web")]}]);
    let tls = |secret: &str| json!([{"hosts": ["shop.example.com"], "secretName": secret}]);
    let https_route = route(
        "shop",
        "checkout",
        json!(["shop.example.com"]),
        json!([{"matches": ["PathPrefix /pay"], "backendRefs": []}]),
    );
    let records = [
        ingress("shop", "web", host_rules.clone(), tls("web-tls")),
        https_route.clone(),
    ];
    let flagged_only = HostQuery {
        search: None,
        flagged_only: true,
    };
    // Without the Gateway read, one Secret: nothing flagged.
    assert!(report(&records, &flagged_only).hosts.is_empty());

    let gateways = public_gateway();
    let answer = report_with(&records, &flagged_only, &gateways);
    assert_eq!(answer.counts.tls_overlaps, 1, "{answer:#?}");
    let entry = host(&answer, "shop.example.com");
    assert!(entry.tls_overlap);
    let secrets: Vec<(&str, &str, Option<&str>)> = entry
        .tls
        .iter()
        .map(|t| {
            (
                t.namespace.as_str(),
                t.secret_name.as_str(),
                t.listener.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        secrets,
        [
            ("shop", "web-tls", None),
            (
                "gateway-system",
                "shop-tls",
                Some("gateway-system/public/https")
            ),
        ]
    );
    assert_eq!(entry.tls[1].object, "httproute/shop/checkout");
    assert_eq!(entry.tls[1].source, CertificateSource::NotRead);
    assert_eq!(
        entry.objects[1].attachments[0].listeners[0].certificate_refs,
        ["gateway-system/shop-tls"]
    );

    // The same Secret on both sides is one Secret.
    let same = [
        ingress("gateway-system", "web", host_rules.clone(), tls("shop-tls")),
        https_route,
    ];
    let answer = report_with(&same, &HostQuery::default(), &gateways);
    assert!(!host(&answer, "shop.example.com").tls_overlap);
    assert_eq!(answer.counts.tls_overlaps, 0);
}

#[test]
fn only_a_terminating_listener_whose_hostname_covers_the_host_brings_its_certificate() {
    let on = |kind: &str, name: &str, section: &str| {
        let mut value = route(
            "shop",
            name,
            json!(["shop.example.com", "shop.example.org"]),
            json!([{"matches": [format!("PathPrefix /{name}")], "backendRefs": []}]),
        );
        value["kind"] = json!(kind);
        value["route"]["parentRefs"][0]["sectionName"] = json!(section);
        value
    };
    let records = [
        ingress(
            "shop",
            "web",
            json!([]),
            json!([{"hosts": ["shop.example.com"], "secretName": "web-tls"}]),
        ),
        // Accepted for shop.example.org only: *.example.org does not cover shop.example.com.
        on("HTTPRoute", "org", "other"),
        // TLS passthrough: the backend holds the certificate.
        on("TLSRoute", "raw", "passthrough"),
    ];
    let answer = report_with(&records, &HostQuery::default(), &public_gateway());
    let entry = host(&answer, "shop.example.com");
    assert!(!entry.tls_overlap, "{entry:#?}");
    assert_eq!(entry.tls.len(), 1);
    let org = host(&answer, "shop.example.org");
    let secrets: Vec<&str> = org.tls.iter().map(|t| t.secret_name.as_str()).collect();
    assert_eq!(secrets, ["org-tls"], "{org:#?}");
    let raw = &org.objects[1];
    assert_eq!(raw.key, "tlsroute/shop/raw");
    assert_eq!(raw.attachments[0].listeners[0].name, "passthrough");
}

#[test]
fn only_a_gateway_of_the_gateway_api_group_is_a_gateway_parent() {
    let parents = json!([
        {"name": "public", "namespace": "infra", "sectionName": "grpc"},
        {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "edge",
         "namespace": "infra"},
        {"group": "example.com", "kind": "Gateway", "name": "other", "namespace": "infra"},
    ]);
    let grpc = gateway_route(
        "GRPCRoute",
        "shop",
        "cart",
        json!({"parentRefs": parents, "hostnames": ["api.example.com"],
               "rules": [{"backendRefs": [{"name": "cart", "port": 9000}]}]}),
    );
    let report = all(&[grpc]);
    let object = &host(&report, "api.example.com").objects[0];
    assert_eq!(object.listeners, ["infra/public/grpc", "infra/edge"]);
    let gateways: Vec<&str> = object
        .attachments
        .iter()
        .map(|attachment| attachment.gateway.as_str())
        .collect();
    assert_eq!(
        gateways,
        ["public", "edge"],
        "example.com's Gateway is none"
    );
}
