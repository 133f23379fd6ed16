//! One entry per host, conflicts, duplicates, TLS overlaps, search and the flagged filter.

use super::*;

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
