use service_kit::config::ConfigLoader;

use super::*;
use crate::config::Settings;

fn rules(yaml: &str) -> RequestRules {
    let settings: Settings = ConfigLoader::new("AUTHPROXY_TEST")
        .load_str(yaml)
        .unwrap_or_else(|problems| panic!("{problems:?}"));
    RequestRules::new(&settings.authorization.request_rules)
}

const VIEWERS: &str = "authorization:\n  request_rules:\n    - groups: [viewers]\n      \
                       search_roles: [viewer]\n      deny:\n        - {methods: [DELETE]}\n        \
                       - {paths: [\"/_security/**\", \"/_plugins/_security/**\"]}\n        \
                       - {methods: [PUT, POST], paths: [\"/_cluster/settings\"]}\n";

fn viewer() -> Identity {
    Identity::local("vic", "vic@example.com", "Vic", &["viewers".to_owned()])
}

fn request<'a>(method: &'a str, uri: &'a str) -> RuleRequest<'a> {
    RuleRequest {
        method: Some(method),
        uri: Some(uri),
        method_override: false,
    }
}

fn decide(rules: &RequestRules, method: &str, uri: &str) -> RuleOutcome {
    rules.decide(&viewer(), &[], request(method, uri))
}

#[test]
fn a_viewer_is_refused_what_the_rule_denies() {
    let rules = rules(VIEWERS);
    for (method, uri, entry) in [
        ("DELETE", "/logs", 0),
        ("delete", "/logs/_doc/1", 0),
        ("GET", "/_security/user", 1),
        ("GET", "/_security", 1),
        ("HEAD", "/_plugins/_security/api/internalusers", 1),
        ("PUT", "/_cluster/settings", 2),
        ("POST", "/_cluster/settings?flat_settings", 2),
        // Encodings and case the clusters read as the same path.
        ("GET", "/%5Fsecurity/user", 1),
        ("GET", "/%5fsecurity/_authenticate", 1),
        ("GET", "/_SECURITY/user", 1),
        ("PUT", "/_cluster/settings/", 2),
        ("PUT", "/_cluster/%73ettings", 2),
    ] {
        assert_eq!(
            decide(&rules, method, uri),
            RuleOutcome::Denied {
                rule: 0,
                why: DenialCause::Entry(entry)
            },
            "{method} {uri}"
        );
    }
}

#[test]
fn what_no_entry_denies_passes() {
    let rules = rules(VIEWERS);
    for (method, uri) in [
        ("GET", "/logs/_search"),
        ("POST", "/logs/_search?q=_security"),
        ("GET", "/_cluster/settings"),
        ("GET", "/_cluster/health"),
        ("GET", "/logs/_doc/_security"),
        ("PUT", "/_cluster/settingsx"),
    ] {
        assert_eq!(
            decide(&rules, method, uri),
            RuleOutcome::Allowed(vec![0]),
            "{method} {uri}"
        );
    }
}

#[test]
fn path_tricks_are_refused_as_ambiguous() {
    let rules = rules(VIEWERS);
    for uri in [
        "//_security/user",
        "/./_security/user",
        "/x/../_security/user",
        "/x/%2e%2e/_security/user",
        "/x%2F..%2F_security/user",
        "/%255Fsecurity/user",
        "/_security;jsessionid=1/user",
        "/x\\..\\_security",
        "/%zz",
        "http://cluster/_security/user",
    ] {
        match decide(&rules, "GET", uri) {
            RuleOutcome::Denied {
                rule: 0,
                why: DenialCause::Ambiguous(_),
            } => {}
            other => panic!("{uri}: {other:?}"),
        }
    }
    let unknown = |method, uri, method_override| {
        rules.decide(
            &viewer(),
            &[],
            RuleRequest {
                method,
                uri,
                method_override,
            },
        )
    };
    for outcome in [
        unknown(None, Some("/logs/_search"), false),
        unknown(Some("GET"), None, false),
        unknown(Some("GET"), Some("/logs/_search"), true),
    ] {
        assert!(
            matches!(
                outcome,
                RuleOutcome::Denied {
                    why: DenialCause::Ambiguous(_),
                    ..
                }
            ),
            "{outcome:?}"
        );
    }
}

#[test]
fn rules_apply_by_group_or_mapped_role_only() {
    let rules = rules(VIEWERS);
    let admin = Identity::local("ada", "ada@example.com", "Ada", &["admins".to_owned()]);
    // Nobody else is judged, not even on an ambiguous path.
    assert_eq!(
        rules.decide(
            &admin,
            &["superuser".to_owned()],
            request("DELETE", "//x/../y")
        ),
        RuleOutcome::NoRule
    );
    assert!(matches!(
        rules.decide(&admin, &["viewer".to_owned()], request("DELETE", "/logs")),
        RuleOutcome::Denied { rule: 0, .. }
    ));
    // Several rules: any refusal wins.
    let two = rules_two();
    assert!(matches!(
        two.decide(
            &viewer(),
            &["auditor".to_owned()],
            request("GET", "/logs/_search")
        ),
        RuleOutcome::Denied {
            rule: 1,
            why: DenialCause::Entry(0)
        }
    ));
    assert_eq!(
        two.decide(&viewer(), &[], request("GET", "/logs/_search")),
        RuleOutcome::Allowed(vec![0])
    );
}

fn rules_two() -> RequestRules {
    rules(&format!(
        "{VIEWERS}    - search_roles: [auditor]\n      deny: [{{paths: [\"/logs*/**\"]}}]\n"
    ))
}

#[test]
fn explain_describes_the_rule_as_configured() {
    let rules = rules(VIEWERS);
    assert_eq!(
        rules.describe(0),
        "request_rules[0]: groups [\"viewers\"] search_roles [\"viewer\"]; deny DELETE; deny \
         any method on /_security/** /_plugins/_security/**; deny PUT|POST on /_cluster/settings"
    );
}

/// Asserts that loading `yaml` fails with each of `expected` among its `key: message` problems.
fn assert_problems(yaml: &str, expected: &[&str]) {
    let text: Vec<String> = ConfigLoader::new("AUTHPROXY_TEST")
        .load_str::<Settings>(yaml)
        .unwrap_err()
        .iter()
        .map(|p| format!("{}: {}", p.key, p.message))
        .collect();
    let text = text.join("\n");
    for expected in expected {
        assert!(text.contains(expected), "{expected} missing:\n{text}");
    }
}

#[test]
fn bad_rules_are_named_by_key_and_index() {
    assert_problems(
        "user_management: {enabled: false}\nauthorization:\n  request_rules:\n    \
         - groups: [viewers]\n      deny:\n        - {methods: [DELETE, FETCH]}\n        \
         - {paths: [\"/ok/**\", \"_security/**\", \"/a/../b\"]}\n        - {}\n    \
         - search_roles: [viewer]\n      deny: []\n",
        &[
            "authorization.request_rules[0].deny[0].methods[1]: must be one of GET",
            "authorization.request_rules[0].deny[1].paths[1]: must start with '/'",
            "authorization.request_rules[0].deny[1].paths[2]: has a dot segment",
        ],
    );
    assert_problems(
        "user_management: {enabled: false}\nauthorization:\n  request_rules:\n    \
         - groups: [viewers]\n      deny: [{}]\n    - search_roles: [viewer]\n      deny: []\n",
        &[
            "authorization.request_rules[0].deny[0]: needs methods, paths or both",
            "authorization.request_rules[1].search_roles: needs user_management.enabled",
            "authorization.request_rules[1].deny: must list at least one entry",
        ],
    );
}

mod property {
    use proptest::prelude::*;

    use super::*;

    /// `segments` written with each byte percent-encoded where `encode` says so, in random
    /// hex case: the same path to the cluster.
    fn written(segments: &[String], encode: &[bool]) -> String {
        let mut flags = encode.iter().cycle();
        let mut out = String::new();
        for segment in segments {
            out.push('/');
            for byte in segment.bytes() {
                match flags.next() {
                    Some(true) if byte.is_ascii_alphabetic() => {
                        out.push_str(&format!("%{byte:02x}"))
                    }
                    Some(true) => out.push_str(&format!("%{byte:02X}")),
                    _ => out.push(byte as char),
                }
            }
        }
        if out.is_empty() { "/".to_owned() } else { out }
    }

    proptest! {
        /// However a path is percent-encoded or cased, the decision is the decision on the
        /// plain path.
        #[test]
        fn encoding_and_case_never_change_the_decision(
            segments in prop::collection::vec(
                prop_oneof![
                    Just("_security".to_owned()),
                    Just("_plugins".to_owned()),
                    Just("_cluster".to_owned()),
                    Just("settings".to_owned()),
                    "[a-z_]{1,8}",
                ],
                0..5,
            ),
            encode in prop::collection::vec(any::<bool>(), 1..16),
            upper in any::<bool>(),
            method in prop_oneof![Just("GET"), Just("PUT"), Just("DELETE"), Just("POST")],
        ) {
            let rules = rules(VIEWERS);
            let plain = written(&segments, &[false]);
            let mut tricked = written(&segments, &encode);
            if upper {
                tricked = tricked.to_ascii_uppercase();
            }
            prop_assert_eq!(decide(&rules, method, &tricked), decide(&rules, method, &plain));
        }
    }
}
