//! Joining a route's parentRefs to the listeners of the Gateways read.

use serde_json::json;

use super::*;

fn gateways() -> KnownGateways {
    let gateway: Gateway = serde_json::from_value(json!({
        "metadata": {"name": "public", "namespace": "infra"},
        "spec": {"listeners": [
            {"name": "http", "port": 80, "protocol": "HTTP"},
            {"name": "https", "port": 443, "protocol": "HTTPS", "hostname": "*.example.com",
             "tls": {"certificateRefs": [{"name": "wildcard-tls"}]}},
            {"name": "tls", "port": 8443, "protocol": "TLS", "tls": {"mode": "Passthrough"}},
        ]},
    }))
    .unwrap();
    let mut known = KnownGateways::default();
    known.insert("infra".into(), Ok(vec![gateway]));
    known.insert(
        "edge".into(),
        Err("not a namespace this dashboard shows you".into()),
    );
    known
}

fn resolved(
    kind: RecordKind,
    namespace: &str,
    section: Option<&str>,
    port: Option<i32>,
) -> Attachment {
    resolved_from(kind, "infra", &[], namespace, "public", section, port)
}

/// A route of `kind` in `route_namespace` with `hostnames` and its parentRef to Gateway
/// `namespace/name`, resolved.
fn resolved_from(
    kind: RecordKind,
    route_namespace: &str,
    hostnames: &[&str],
    namespace: &str,
    name: &str,
    section: Option<&str>,
    port: Option<i32>,
) -> Attachment {
    let mut attachment = Attachment {
        gateway_namespace: namespace.into(),
        gateway: name.into(),
        section_name: section.map(str::to_owned),
        port,
        listeners: Vec::new(),
        problem: None,
        route_namespace: route_namespace.into(),
        route_hostnames: hostnames.iter().map(|host| (*host).to_owned()).collect(),
    };
    resolve(&mut attachment, kind, &gateways());
    attachment
}

/// A route of HTTPRoute kind in `namespace` without hostnames and its parentRef to Gateway
/// `namespace/name`, resolved against `known`.
fn resolved_in(known: &KnownGateways, namespace: &str, name: &str) -> Attachment {
    let mut attachment = Attachment {
        gateway_namespace: namespace.into(),
        gateway: name.into(),
        section_name: None,
        port: None,
        listeners: Vec::new(),
        problem: None,
        route_namespace: namespace.into(),
        route_hostnames: Vec::new(),
    };
    resolve(&mut attachment, RecordKind::HttpRoute, known);
    attachment
}

fn names(attachment: &Attachment) -> Vec<&str> {
    attachment
        .listeners
        .iter()
        .map(|l| l.name.as_str())
        .collect()
}

#[test]
fn a_section_name_or_port_selects_the_listener_with_its_tls() {
    let https = resolved(RecordKind::HttpRoute, "infra", Some("https"), None);
    assert_eq!(https.problem, None);
    assert_eq!(
        https.listeners,
        [AttachedListener {
            name: "https".into(),
            hostname: Some("*.example.com".into()),
            port: 443,
            protocol: "HTTPS".into(),
            tls_mode: Some("Terminate".into()),
            certificate_refs: vec!["infra/wildcard-tls".into()],
            note: None,
            secrets: vec![("infra".into(), "wildcard-tls".into())],
        }]
    );
    assert_eq!(
        names(&resolved(RecordKind::TlsRoute, "infra", None, Some(8443))),
        ["tls"]
    );
    assert_eq!(
        resolved(RecordKind::TlsRoute, "infra", Some("tls"), None).listeners[0].tls_mode,
        Some("Passthrough".into())
    );
}

#[test]
fn without_section_or_port_a_route_attaches_to_the_listeners_of_its_protocol() {
    assert_eq!(
        names(&resolved(RecordKind::GrpcRoute, "infra", None, None)),
        ["http", "https"]
    );
    assert_eq!(
        names(&resolved(RecordKind::TlsRoute, "infra", None, None)),
        ["tls"]
    );
}

#[test]
fn no_such_gateway_or_listener_and_unread_namespaces_are_said_in_words() {
    let missing = resolved_from(
        RecordKind::HttpRoute,
        "infra",
        &[],
        "infra",
        "private",
        None,
        None,
    );
    assert_eq!(
        missing.problem.as_deref(),
        Some("no such Gateway: infra/private does not exist")
    );
    assert_eq!(
        resolved(RecordKind::HttpRoute, "infra", Some("grpc"), None)
            .problem
            .as_deref(),
        Some("no such listener: Gateway infra/public has no listener named grpc")
    );
    assert_eq!(
        resolved(RecordKind::HttpRoute, "infra", Some("https"), Some(80))
            .problem
            .as_deref(),
        Some("no such listener: Gateway infra/public has no listener named https on port 80")
    );
    let unread = resolved(RecordKind::HttpRoute, "edge", Some("https"), None);
    assert_eq!(
        unread.problem.as_deref(),
        Some("the Gateways of edge were not read: not a namespace this dashboard shows you")
    );
    assert!(unread.listeners.is_empty());
}

#[test]
fn a_listener_that_does_not_accept_the_route_says_why() {
    let grpc = resolved(RecordKind::GrpcRoute, "infra", Some("tls"), None);
    assert!(grpc.listeners.is_empty());
    assert_eq!(
        grpc.problem.as_deref(),
        Some("listener tls does not allow GRPCRoute")
    );
    let elsewhere = resolved_from(
        RecordKind::HttpRoute,
        "shop",
        &[],
        "infra",
        "public",
        None,
        None,
    );
    let problem = elsewhere.problem.unwrap_or_default();
    assert!(
        problem.starts_with("listener http: namespace not allowed")
            && problem.contains("; listener https: namespace not allowed"),
        "{problem}"
    );
    let other_host = resolved_from(
        RecordKind::HttpRoute,
        "infra",
        &["shop.example.org"],
        "infra",
        "public",
        None,
        None,
    );
    assert_eq!(names(&other_host), ["http"], "http has no hostname");
    let only_https = resolved_from(
        RecordKind::HttpRoute,
        "infra",
        &["shop.example.org"],
        "infra",
        "public",
        Some("https"),
        None,
    );
    assert_eq!(
        only_https.problem.as_deref(),
        Some(
            "not accepted by listener https: hostname (no hostname of the route matches \
             *.example.com)"
        )
    );
}

#[test]
fn a_gateway_that_does_not_decode_is_said_so_not_missing() {
    let mut known = gateways();
    let read = known.decode(
        "broken",
        vec![json!({"metadata": {"name": "public"}, "spec": {"listeners": "none"}})],
    );
    assert!(read.is_empty());
    known.insert("broken".into(), Ok(read));
    let attachment = resolved_in(&known, "broken", "public");
    let problem = attachment.problem.unwrap_or_default();
    assert!(
        problem.starts_with("Gateway broken/public could not be read: it does not decode ("),
        "{problem}"
    );
}

#[test]
fn a_gateway_past_those_read_is_not_said_missing() {
    let mut known = gateways();
    known.not_all_read("infra");
    let attachment = resolved_in(&known, "infra", "private");
    assert_eq!(
        attachment.problem.as_deref(),
        Some(
            "more than 10,000 Gateways in infra: not all read, and infra/private is not \
             among those read"
        )
    );
    let read = resolved_in(&known, "infra", "public");
    assert_eq!(read.problem, None);
    assert_eq!(names(&read), ["http", "https"]);
}

#[test]
fn a_gateway_is_found_by_its_namespace_and_name_the_first_of_a_name_kept() {
    let gateway = |namespace: &str, listener: &str| -> Gateway {
        serde_json::from_value(json!({
            "metadata": {"name": "public", "namespace": namespace},
            "spec": {"listeners": [{"name": listener, "port": 80, "protocol": "HTTP"}]},
        }))
        .unwrap()
    };
    let mut known = gateways();
    known.insert(
        "shop".into(),
        Ok(vec![gateway("shop", "first"), gateway("shop", "second")]),
    );
    assert_eq!(names(&resolved_in(&known, "shop", "public")), ["first"]);
    assert_eq!(
        names(&resolved(RecordKind::HttpRoute, "infra", None, None)),
        ["http", "https"],
        "infra/public is another Gateway"
    );
}
