use serde_json::{Value, json};

use super::*;
use crate::records::{RecordKind, ServicePort};

/// A route in `team-a` attached to `gateway-system/public` (section `https`), sending to
/// `web` and to `shared/api`, with `parents` as its status.
fn route(parents: Value) -> HttpRoute {
    serde_json::from_value(json!({
        "metadata": {"name": "checkout", "namespace": "team-a"},
        "spec": {
            "parentRefs": [{"name": "public", "namespace": "gateway-system", "sectionName": "https"}],
            "rules": [{"backendRefs": [{"name": "web", "port": 80},
                                       {"name": "api", "namespace": "shared", "port": 8080}]}],
        },
        "status": {"parents": parents},
    }))
    .unwrap()
}

fn parent_status(conditions: Value) -> Value {
    json!([{
        "parentRef": {"name": "public", "namespace": "gateway-system", "sectionName": "https"},
        "controllerName": "example.com/gateway",
        "conditions": conditions,
    }])
}

fn codes(findings: &[RouteFinding]) -> Vec<FindingCode> {
    findings.iter().map(|finding| finding.code).collect()
}

#[test]
fn an_accepted_and_resolved_route_has_no_finding() {
    let route = route(parent_status(json!([
        {"type": "Accepted", "status": "True", "reason": "Accepted"},
        {"type": "ResolvedRefs", "status": "True", "reason": "ResolvedRefs"},
    ])));
    assert_eq!(diagnose(&route, RecordKind::HttpRoute, None), vec![]);
}

#[test]
fn a_parent_without_a_status_entry_was_never_attached() {
    let route = route(json!([]));
    let findings = diagnose(&route, RecordKind::HttpRoute, None);
    assert_eq!(codes(&findings), [FindingCode::NeverAttached]);
    assert_eq!(
        findings[0].parent.as_deref(),
        Some("gateway-system/public/https")
    );
    assert_eq!(findings[0].severity, FindingSeverity::Error);
    assert!(findings[0].message.starts_with("Never attached"));
}

#[test]
fn a_status_for_another_section_does_not_count_as_attached() {
    let mut parents = parent_status(json!([{"type": "Accepted", "status": "True"}]));
    parents[0]["parentRef"]["sectionName"] = json!("http");
    let findings = diagnose(&route(parents), RecordKind::HttpRoute, None);
    assert_eq!(codes(&findings), [FindingCode::NeverAttached]);
}

#[test]
fn each_not_accepted_reason_is_said_in_words() {
    for (reason, words) in [
        ("NotAllowedByListeners", "allowedRoutes"),
        ("NoMatchingListenerHostname", "hostname matches"),
        ("NoMatchingParent", "no such Gateway or listener"),
        ("UnsupportedValue", "does not support"),
        ("SomethingNew", "did not accept"),
    ] {
        let route = route(parent_status(json!([
            {"type": "Accepted", "status": "False", "reason": reason, "message": "from the controller"},
        ])));
        let findings = diagnose(&route, RecordKind::HttpRoute, None);
        assert_eq!(codes(&findings), [FindingCode::NotAccepted], "{reason}");
        assert_eq!(findings[0].severity, FindingSeverity::Error);
        let message = &findings[0].message;
        assert!(message.contains(words), "{reason}: {message}");
        assert!(message.contains(&format!("(reason {reason})")), "{message}");
        assert!(
            message.ends_with("The controller says: from the controller"),
            "{message}"
        );
    }
}

#[test]
fn pending_is_a_warning() {
    for (status, reason) in [("False", "Pending"), ("Unknown", "Pending")] {
        let route = route(parent_status(json!([
            {"type": "Accepted", "status": status, "reason": reason},
        ])));
        let findings = diagnose(&route, RecordKind::HttpRoute, None);
        assert_eq!(codes(&findings), [FindingCode::NotAccepted]);
        assert_eq!(findings[0].severity, FindingSeverity::Warning);
        assert!(findings[0].message.contains("not decided yet"));
    }
}

#[test]
fn each_unresolved_reason_is_said_in_words() {
    for (reason, words) in [
        ("BackendNotFound", "does not exist"),
        ("RefNotPermitted", "no ReferenceGrant"),
        ("InvalidKind", "group or kind"),
        ("UnsupportedProtocol", "appProtocol"),
        ("", "could not be resolved"),
    ] {
        let route = route(parent_status(json!([
            {"type": "Accepted", "status": "True", "reason": "Accepted"},
            {"type": "ResolvedRefs", "status": "False", "reason": reason},
        ])));
        let findings = diagnose(&route, RecordKind::HttpRoute, None);
        assert_eq!(codes(&findings), [FindingCode::RefsNotResolved], "{reason}");
        assert!(findings[0].message.starts_with("ResolvedRefs: "));
        assert!(findings[0].message.contains(words), "{reason}");
        assert!(!findings[0].message.contains("controller says"));
    }
}

#[test]
fn hostile_reasons_and_messages_are_bounded_and_lose_control_characters() {
    let route = route(parent_status(json!([{
        "type": "ResolvedRefs", "status": "False",
        "reason": "R".repeat(1000),
        "message": format!("<script>alert(1)</script>\u{1b}[31m\n{}", "m".repeat(10_000)),
    }])));
    let findings = diagnose(&route, RecordKind::HttpRoute, None);
    let message = &findings[0].message;
    assert!(message.chars().count() < 500, "{}", message.len());
    assert!(!message.chars().any(char::is_control));
    assert!(message.contains(&format!("(reason {}…)", "R".repeat(64))));
    // Quoted as text: escaping is the renderer's (JSON here, text in the web app).
    assert!(message.contains("<script>alert(1)</script>[31m"));
    assert!(message.ends_with('…'));
}

#[test]
fn a_cross_namespace_backend_needs_a_reference_grant_when_grants_are_known() {
    let route = route(parent_status(
        json!([{"type": "Accepted", "status": "True"}]),
    ));
    let grant = |from_namespace: &str, to_name: Option<&str>| ReferenceGrant {
        namespace: "shared".into(),
        from: vec![GrantPeer {
            group: GATEWAY_GROUP.into(),
            kind: "HTTPRoute".into(),
            namespace: Some(from_namespace.into()),
            name: None,
        }],
        to: vec![GrantPeer {
            group: String::new(),
            kind: "Service".into(),
            namespace: None,
            name: to_name.map(Into::into),
        }],
    };
    assert_eq!(
        diagnose(&route, RecordKind::HttpRoute, None),
        vec![],
        "grants not known: no finding"
    );
    let known = |grants: Vec<ReferenceGrant>| KnownGrants {
        namespaces: ["shared".to_owned()].into(),
        grants,
    };
    let unread = KnownGrants::default();
    assert_eq!(
        diagnose(&route, RecordKind::HttpRoute, Some(&unread)),
        vec![],
        "shared not read"
    );
    assert_eq!(backend_namespaces(&route), ["shared".to_owned()].into());
    let findings = diagnose(&route, RecordKind::HttpRoute, Some(&known(vec![])));
    assert_eq!(codes(&findings), [FindingCode::CrossNamespaceWithoutGrant]);
    assert_eq!(
        findings[0].message,
        "Service shared/api is in another namespace and no ReferenceGrant in shared allows \
         HTTPRoutes from team-a to refer to it"
    );
    for allowing in [grant("team-a", None), grant("team-a", Some("api"))] {
        assert_eq!(
            diagnose(&route, RecordKind::HttpRoute, Some(&known(vec![allowing]))),
            vec![]
        );
    }
    for refusing in [grant("team-b", None), grant("team-a", Some("other"))] {
        assert_eq!(
            codes(&diagnose(
                &route,
                RecordKind::HttpRoute,
                Some(&known(vec![refusing]))
            )),
            [FindingCode::CrossNamespaceWithoutGrant]
        );
    }
}

#[test]
fn a_grant_allows_only_the_route_kind_it_names_from() {
    let route = route(parent_status(
        json!([{"type": "Accepted", "status": "True"}]),
    ));
    let from = |kind: &str| ReferenceGrant {
        namespace: "shared".into(),
        from: vec![GrantPeer {
            group: GATEWAY_GROUP.into(),
            kind: kind.into(),
            namespace: Some("team-a".into()),
            name: None,
        }],
        to: vec![GrantPeer {
            group: String::new(),
            kind: "Service".into(),
            namespace: None,
            name: None,
        }],
    };
    let known = |kind: &str| KnownGrants {
        namespaces: ["shared".to_owned()].into(),
        grants: vec![from(kind)],
    };
    for route_kind in [RecordKind::GrpcRoute, RecordKind::TlsRoute] {
        let findings = diagnose(&route, route_kind, Some(&known("HTTPRoute")));
        assert_eq!(
            codes(&findings),
            [FindingCode::CrossNamespaceWithoutGrant],
            "a grant from HTTPRoute does not cover a {route_kind:?}"
        );
        assert_eq!(
            findings[0].message,
            format!(
                "Service shared/api is in another namespace and no ReferenceGrant in shared \
                 allows {}s from team-a to refer to it",
                route_kind.as_str()
            )
        );
        assert_eq!(
            diagnose(&route, route_kind, Some(&known(route_kind.as_str()))),
            vec![]
        );
    }
    assert_eq!(
        codes(&diagnose(
            &route,
            RecordKind::HttpRoute,
            Some(&known("GRPCRoute"))
        )),
        [FindingCode::CrossNamespaceWithoutGrant]
    );
}

#[test]
fn missing_services_are_replaced_on_each_join() {
    let backend = |name: &str, state| BackendStatus {
        service: name.into(),
        namespace: "team-a".into(),
        port: Some(ServicePort::Number(80)),
        state,
        ready_endpoints: 0,
        total_endpoints: 0,
        error: None,
    };
    let mut findings = diagnose(&route(json!([])), RecordKind::HttpRoute, None);
    set_missing_services(
        &mut findings,
        &[
            backend("web", BackendState::MissingService),
            backend("ok", BackendState::Ready),
        ],
    );
    assert_eq!(
        codes(&findings),
        [FindingCode::NeverAttached, FindingCode::ServiceMissing]
    );
    assert_eq!(
        findings[1].message,
        "Service team-a/web does not exist: requests routed to it fail"
    );
    set_missing_services(&mut findings, &[backend("web", BackendState::Ready)]);
    assert_eq!(codes(&findings), [FindingCode::NeverAttached]);
}
