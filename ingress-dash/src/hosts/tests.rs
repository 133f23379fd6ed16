//! The Hosts view's grouping and flags, from records written as the API serves them.

use serde_json::{Value, json};

use super::*;
use crate::records::CertificateSource;

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

#[test]
fn one_entry_per_host_case_folded_with_wildcards_and_hostless_rules_apart() {
    let report = all(&[ingress(
        "shop",
        "web",
        json!([
            {"host": "Shop.Example.com", "paths": [prefix("/", "web")]},
            {"host": "shop.example.com.", "paths": [prefix("/api/", "api")]},
            {"host": "*.example.com", "paths": [prefix("/", "web")]},
            {"paths": [prefix("/", "fallback")]},
        ]),
        json!([]),
    )]);
    let names: Vec<&str> = report.hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(names, ["*", "*.example.com", "shop.example.com"]);
    let shop = host(&report, "shop.example.com");
    assert_eq!(shop.objects.len(), 1);
    assert_eq!(shop.objects[0].key, "shop/web");
    let matches: Vec<&str> = shop.paths.iter().map(|p| p.matched.as_str()).collect();
    assert_eq!(matches, ["PathPrefix /", "PathPrefix /api"]);
    assert!(!flagged(shop));
    assert_eq!(report.counts.hosts, 3);
}

#[test]
fn an_ingress_and_an_httproute_on_the_same_host_and_prefix_conflict() {
    let report = all(&[
        ingress(
            "shop",
            "web",
            json!([{"host": "shop.example.com", "paths": [prefix("/api", "api"), prefix("/", "web")]}]),
            json!([]),
        ),
        route(
            "shop",
            "web-v2",
            json!(["shop.example.com"]),
            json!([
                {"matches": ["PathPrefix /api/"], "backendRefs": [{"kind": "Service", "name": "api-v2", "namespace": "shop", "port": 8080, "weight": 1}]},
                {"matches": ["PathPrefix /v2 GET"], "backendRefs": []},
            ]),
        ),
    ]);
    let shop = host(&report, "shop.example.com");
    assert_eq!(shop.objects.len(), 2);
    assert_eq!(shop.objects[1].listeners, ["gateway-system/public/https"]);
    assert!(shop.conflict);
    assert_eq!(
        shop.conflicts,
        [Conflict {
            matched: "PathPrefix /api".to_owned(),
            objects: vec!["httproute/shop/web-v2".to_owned(), "shop/web".to_owned()],
        }]
    );
    assert_eq!(report.counts.conflicts, 1);
}

#[test]
fn a_different_match_or_path_type_is_no_conflict() {
    let report = all(&[
        ingress(
            "a",
            "one",
            json!([{"host": "x.example.com", "paths": [prefix("/", "one")]}]),
            json!([]),
        ),
        ingress(
            "a",
            "two",
            json!([{"host": "x.example.com", "paths": [
                {"path": "/", "pathType": "Exact", "backend": {"service": {"name": "two", "port": 80}}},
            ]}]),
            json!([]),
        ),
        route(
            "a",
            "three",
            json!(["x.example.com"]),
            json!([{"matches": ["PathPrefix / header x-env=canary"], "backendRefs": []}]),
        ),
    ]);
    let entry = host(&report, "x.example.com");
    assert_eq!(entry.objects.len(), 3);
    assert!(!flagged(entry), "{entry:#?}");
}

#[test]
fn the_same_rule_twice_in_one_object_is_a_duplicate_not_a_conflict() {
    let report = all(&[ingress(
        "a",
        "twice",
        json!([
            {"host": "x.example.com", "paths": [prefix("/", "one")]},
            {"host": "X.example.com", "paths": [prefix("/", "two")]},
        ]),
        json!([]),
    )]);
    let entry = host(&report, "x.example.com");
    assert!(entry.duplicate && !entry.conflict);
    assert_eq!(
        entry.duplicates,
        [Duplicate {
            matched: "PathPrefix /".to_owned(),
            object: "a/twice".to_owned(),
            times: 2
        }]
    );
}

#[test]
fn two_secrets_for_one_host_overlap_one_secret_twice_does_not() {
    let tls = |secret: &str| json!([{"hosts": ["*.example.com"], "secretName": secret}]);
    let rules = json!([{"host": "*.example.com", "paths": [prefix("/", "web")]}]);
    let overlapping = all(&[
        ingress("a", "one", rules.clone(), tls("wildcard-tls")),
        ingress("a", "two", rules.clone(), tls("wildcard-old-tls")),
    ]);
    let entry = host(&overlapping, "*.example.com");
    assert!(entry.tls_overlap);
    assert_eq!(entry.tls.len(), 2);
    let shared = all(&[
        ingress("a", "one", json!([]), tls("wildcard-tls")),
        ingress("a", "two", json!([]), tls("wildcard-tls")),
    ]);
    assert!(!host(&shared, "*.example.com").tls_overlap);
    // The same name in two namespaces is two Secrets.
    let apart = all(&[
        ingress("a", "one", json!([]), tls("wildcard-tls")),
        ingress("b", "two", json!([]), tls("wildcard-tls")),
    ]);
    assert!(host(&apart, "*.example.com").tls_overlap);
}

#[test]
fn tls_carries_the_certificate_expiry_and_cert_manager_ready() {
    let mut value = ingress(
        "a",
        "web",
        json!([{"host": "x.example.com", "paths": [prefix("/", "web")]}]),
        json!([{"hosts": ["x.example.com"], "secretName": "x-tls"}]),
    );
    value["certificates"] = json!([{
        "secretName": "x-tls", "hosts": ["x.example.com"], "source": "cert_manager",
        "notAfter": "2030-01-01T00:00:00Z",
    }]);
    value["backends"] = json!([{
        "service": "web", "namespace": "a", "port": 80, "state": "degraded",
        "readyEndpoints": 1, "totalEndpoints": 3,
    }]);
    let report = all(&[value.clone()]);
    let entry = host(&report, "x.example.com");
    assert_eq!(
        entry.tls[0].not_after.as_deref(),
        Some("2030-01-01T00:00:00Z")
    );
    assert_eq!(entry.tls[0].cert_manager_ready, Some(true));
    let backend = &entry.paths[0].backends[0];
    assert_eq!(
        (
            backend.state,
            backend.ready_endpoints,
            backend.total_endpoints
        ),
        (Some(crate::records::BackendState::Degraded), 1, 3)
    );
    value["certificates"][0]["error"] = json!("cert-manager Certificate a/x is not Ready: no");
    let report = all(&[value]);
    assert_eq!(
        host(&report, "x.example.com").tls[0].cert_manager_ready,
        Some(false)
    );
}

#[test]
fn a_default_backend_and_a_route_without_hostnames_serve_any_host() {
    let mut value = ingress("a", "web", json!([]), json!([]));
    value["defaultBackend"] = json!({"service": {"name": "fallback", "port": 8080}});
    let report = all(&[
        value,
        route(
            "a",
            "catch-all",
            json!([]),
            json!([{"matches": ["PathPrefix /"], "backendRefs": []}]),
        ),
    ]);
    let any = host(&report, ANY_HOST);
    let matches: Vec<&str> = any.paths.iter().map(|p| p.matched.as_str()).collect();
    assert_eq!(matches, ["default backend", "PathPrefix /"]);
    assert!(!any.conflict);
}

#[test]
fn search_and_flagged_filter_hosts_and_the_answer_is_bounded() {
    let rules = |host: &str| json!([{"host": host, "paths": [prefix("/", "web")]}]);
    let mut records: Vec<Value> = (0..MAX_HOSTS + 5)
        .map(|i| {
            ingress(
                "a",
                &format!("app-{i}"),
                rules(&format!("h{i}.example.com")),
                json!([]),
            )
        })
        .collect();
    records.push(ingress("b", "copy", rules("h1.example.com"), json!([])));
    let bounded = all(&records);
    assert_eq!(bounded.hosts.len(), MAX_HOSTS);
    assert!(bounded.truncated);
    assert_eq!(bounded.counts.hosts, (MAX_HOSTS + 5) as u64);
    let flagged = report(
        &records,
        &HostQuery {
            search: None,
            flagged_only: true,
        },
    );
    let names: Vec<&str> = flagged.hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(names, ["h1.example.com"]);
    let searched = report(
        &records,
        &HostQuery {
            search: Some("copy".to_owned()),
            flagged_only: false,
        },
    );
    assert_eq!(searched.hosts.len(), 1);
    assert!(!searched.truncated);
}

#[test]
fn search_finds_a_host_by_a_backend_of_a_path_on_it() {
    let records = [
        ingress(
            "a",
            "web",
            json!([
                {"host": "one.example.com", "paths": [prefix("/", "payments")]},
                {"host": "two.example.com", "paths": [prefix("/", "web")]},
            ]),
            json!([]),
        ),
        ingress(
            "b",
            "other",
            json!([{"host": "three.example.com"}]),
            json!([]),
        ),
    ];
    let search = |term: &str| -> Vec<String> {
        let query = HostQuery {
            search: Some(term.to_owned()),
            flagged_only: false,
        };
        report(&records, &query)
            .hosts
            .into_iter()
            .map(|entry| entry.host)
            .collect()
    };
    assert_eq!(search("paym"), ["one.example.com"]);
    assert_eq!(search("web"), ["one.example.com", "two.example.com"]);
    assert_eq!(search("three"), ["three.example.com"]);
    assert!(search("nothing").is_empty());
}

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
    known
        .namespaces
        .insert("gateway-system".into(), Ok(gateways));
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
