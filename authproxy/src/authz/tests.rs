use proptest::prelude::*;

use super::*;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

fn identity(username: &str, email: &str, groups: &[&str]) -> Identity {
    Identity::local(username, email, username, &strings(groups))
}

fn settings(users: &[&str], domains: &[&str], groups: &[&str]) -> AuthorizationSettings {
    AuthorizationSettings {
        allowed_users: strings(users),
        allowed_email_domains: strings(domains),
        allowed_groups: strings(groups),
        hosts: Vec::new(),
        unmatched_hosts: UnmatchedHosts::Refuse,
        request_rules: Vec::new(),
    }
}

/// forward_auth with local Basic users only (a bare `allowed_users` entry means `basic:`).
fn basic_only(settings: &AuthorizationSettings) -> Authorizer {
    Authorizer::new(settings, ServerMode::ForwardAuth, vec![AuthMethod::Basic])
}

fn parsed(host: &str) -> OriginalHost {
    OriginalHost::parse(host).unwrap()
}

fn host(pattern: &str, users: &[&str], domains: &[&str], groups: &[&str]) -> HostRule {
    HostRule {
        host: pattern.to_owned(),
        allowed_users: strings(users),
        allowed_email_domains: strings(domains),
        allowed_groups: strings(groups),
    }
}

const DENIED_USER: Decision = Decision::Denied {
    rule: RuleId::Global,
    reason: DenialReason::NotListed,
};
const DENIED_GROUP: Decision = Decision::Denied {
    rule: RuleId::Global,
    reason: DenialReason::NoGroup,
};
const ALLOWED: Decision = Decision::Allowed(RuleId::Global);

#[test]
fn empty_lists_let_every_identity_in() {
    let authorizer = basic_only(&AuthorizationSettings::default());
    assert_eq!(authorizer.decide(&identity("x", "", &[]), None), ALLOWED);
}

#[test]
fn users_and_domains_are_ored() {
    let authorizer = basic_only(&settings(
        &["carol", "Dave@Partner.io"],
        &["example.com", "*.corp.example"],
        &[],
    ));
    let decide = |id: &Identity| authorizer.decide(id, None);
    assert_eq!(decide(&identity("carol", "", &[])), ALLOWED);
    assert_eq!(decide(&identity("d", "dave@partner.IO", &[])), ALLOWED);
    assert_eq!(decide(&identity("a", "a@EXAMPLE.com", &[])), ALLOWED);
    assert_eq!(decide(&identity("b", "b@eu.corp.example", &[])), ALLOWED);
    // `*.corp.example` is strictly below; look-alike domains are not inside.
    assert_eq!(decide(&identity("b", "b@corp.example", &[])), DENIED_USER);
    assert_eq!(
        decide(&identity("e", "e@evilexample.com", &[])),
        DENIED_USER
    );
    assert_eq!(
        decide(&identity("e", "e@example.com.evil", &[])),
        DENIED_USER
    );
    assert_eq!(decide(&identity("e", "e@x@example.org", &[])), DENIED_USER);
    // User names are exact; an address entry does not match a user name.
    assert_eq!(decide(&identity("Carol", "", &[])), DENIED_USER);
    assert_eq!(decide(&identity("dave@partner.io", "", &[])), DENIED_USER);
    // No email: only the user name can match.
    assert_eq!(decide(&identity("nobody", "", &[])), DENIED_USER);
    assert_eq!(
        decide(&identity("nobody", "@example.com", &[])),
        DENIED_USER
    );
}

#[test]
fn groups_are_anded_on_top_of_users_and_domains() {
    let authorizer = basic_only(&settings(&["carol"], &["example.com"], &["ops", "sre"]));
    let decide = |id: &Identity| authorizer.decide(id, None);
    assert_eq!(decide(&identity("carol", "", &["sre"])), ALLOWED);
    assert_eq!(decide(&identity("carol", "", &["dev"])), DENIED_GROUP);
    assert_eq!(
        decide(&identity("a", "a@example.com", &["x", "ops"])),
        ALLOWED
    );
    assert_eq!(decide(&identity("z", "z@other.org", &["ops"])), DENIED_USER);
    // Group names are exact: no case folding, no prefix, no list splitting.
    assert_eq!(
        decide(&identity("carol", "", &["OPS", "ops,sre"])),
        DENIED_GROUP
    );

    let groups_only = basic_only(&settings(&[], &[], &["ops"]));
    assert_eq!(
        groups_only.decide(&identity("any", "", &["ops"]), None),
        ALLOWED
    );
    assert_eq!(
        groups_only.decide(&identity("any", "", &[]), None),
        DENIED_GROUP
    );
}

#[test]
fn the_star_domain_needs_an_address() {
    let authorizer = basic_only(&settings(&[], &["*"], &[]));
    assert_eq!(
        authorizer.decide(&identity("a", "a@b.c", &[]), None),
        ALLOWED
    );
    assert_eq!(
        authorizer.decide(&identity("a", "", &[]), None),
        DENIED_USER
    );
}

#[test]
fn the_first_matching_host_rule_replaces_the_global_lists() {
    let mut config = settings(&[], &[], &["staff"]);
    config.hosts = vec![
        host("grafana.example.com", &[], &[], &["ops"]),
        host("*.example.com", &["carol"], &[], &[]),
        host("open.example.org", &[], &[], &[]),
    ];
    let authorizer = basic_only(&config);
    let ops = identity("olga", "", &["ops"]);
    let staff = identity("sam", "", &["staff"]);
    let carol = identity("carol", "", &[]);
    let at = |id: &Identity, host: &str| authorizer.decide(id, Some(&parsed(host)));

    assert_eq!(
        at(&ops, "Grafana.Example.COM:8443"),
        Decision::Allowed(RuleId::Host(0))
    );
    // The first match wins even though hosts[1] would let carol in.
    assert_eq!(
        at(&carol, "grafana.example.com"),
        Decision::Denied {
            rule: RuleId::Host(0),
            reason: DenialReason::NoGroup
        }
    );
    assert_eq!(
        at(&carol, "kibana.example.com"),
        Decision::Allowed(RuleId::Host(1))
    );
    // A host rule is not merged with the global lists.
    assert_eq!(
        at(&staff, "kibana.example.com"),
        Decision::Denied {
            rule: RuleId::Host(1),
            reason: DenialReason::NotListed
        }
    );
    // Every signed-in identity on an open host; the global lists elsewhere.
    assert_eq!(
        at(&carol, "open.example.org."),
        Decision::Allowed(RuleId::Host(2))
    );
    // No entry matches, or no host is known: refused (unmatched_hosts: refuse, the default).
    let unmatched = Decision::Denied {
        rule: RuleId::Unmatched,
        reason: DenialReason::NoHostRule,
    };
    assert_eq!(at(&staff, "other.test"), unmatched);
    assert_eq!(authorizer.decide(&staff, None), unmatched);
    // `*.example.com` is a glob on the whole host: the apex is not below itself.
    assert_eq!(
        authorizer.rule_for(Some(&parsed("example.com"))),
        RuleId::Unmatched
    );
    assert_eq!(
        authorizer.rule_for(Some(&parsed("example.com.evil.test"))),
        RuleId::Unmatched
    );
    // unmatched_hosts: global keeps the global lists for them.
    config.unmatched_hosts = UnmatchedHosts::Global;
    let global = basic_only(&config);
    assert_eq!(global.decide(&staff, Some(&parsed("other.test"))), ALLOWED);
    assert_eq!(global.decide(&carol, None), DENIED_GROUP);
    // Standalone reads no host: the global lists, whatever hosts says.
    let standalone = Authorizer::new(&config, ServerMode::Standalone, vec![AuthMethod::Basic]);
    assert_eq!(
        standalone.decide(&carol, Some(&parsed("kibana.example.com"))),
        DENIED_GROUP
    );
    assert_eq!(
        authorizer.describe(RuleId::Host(1)),
        "hosts[1] (*.example.com)"
    );
}

#[test]
fn allowed_users_match_only_identities_of_their_source() {
    let mut oidc_bob = identity("bob", "bob@example.org", &[]);
    oidc_bob.method = AuthMethod::Oidc;
    let basic_bob = identity("bob", "bob@example.org", &[]);
    let both = vec![AuthMethod::Basic, AuthMethod::Oidc];
    let at = |users: &[&str], sources: Vec<AuthMethod>, id: &Identity| {
        Authorizer::new(&settings(users, &[], &[]), ServerMode::ForwardAuth, sources)
            .decide(id, None)
    };
    assert_eq!(at(&["basic:bob"], both.clone(), &basic_bob), ALLOWED);
    assert_eq!(at(&["basic:bob"], both.clone(), &oidc_bob), DENIED_USER);
    assert_eq!(at(&["oidc:bob"], both.clone(), &oidc_bob), ALLOWED);
    assert_eq!(at(&["oidc:bob"], both.clone(), &basic_bob), DENIED_USER);
    // Addresses too, case-insensitively, within their source.
    assert_eq!(
        at(&["oidc:Bob@Example.org"], both.clone(), &oidc_bob),
        ALLOWED
    );
    assert_eq!(
        at(&["oidc:bob@example.org"], both.clone(), &basic_bob),
        DENIED_USER
    );
    // A bare entry means the only configured source; with two it names nobody (validation
    // refuses it), and never opens the list.
    assert_eq!(at(&["bob"], vec![AuthMethod::Oidc], &oidc_bob), ALLOWED);
    assert_eq!(
        at(&["bob"], vec![AuthMethod::Oidc], &basic_bob),
        DENIED_USER
    );
    assert_eq!(at(&["bob"], both.clone(), &basic_bob), DENIED_USER);
    assert_eq!(at(&["bob"], both, &oidc_bob), DENIED_USER);
}

proptest! {
    /// With any list set, an identity that has none of the listed values is refused, whatever
    /// its other attributes; with every list empty, every identity is let in.
    #[test]
    fn only_listed_values_open_the_door(
        username in "[a-z]{1,8}",
        local in "[a-z]{1,8}",
        domain in "[a-z]{1,8}\\.(com|org)",
        groups in proptest::collection::vec("[a-z,\\r\\n ]{0,8}", 0..6),
        listed_user in "[A-Z]{1,8}",
        listed_group in "[A-Z]{1,8}",
        host in "[a-z]{1,8}(\\.[a-z]{1,8}){0,2}(:[0-9]{1,4})?",
    ) {
        let groups: Vec<&str> = groups.iter().map(String::as_str).collect();
        let host = parsed(&host);
        let id = identity(&username, &format!("{local}@{domain}"), &groups);
        let open = basic_only(&AuthorizationSettings::default());
        prop_assert_eq!(open.decide(&id, Some(&host)), ALLOWED);
        let users = basic_only(&settings(&[&listed_user], &["example.net"], &[]));
        prop_assert_eq!(users.decide(&id, Some(&host)), DENIED_USER);
        let groups_rule = basic_only(&settings(&[], &[], &[&listed_group]));
        prop_assert_eq!(groups_rule.decide(&id, Some(&host)), DENIED_GROUP);
        let both = basic_only(&settings(&[&username], &[], &[&listed_group]));
        prop_assert_eq!(both.decide(&id, None), DENIED_GROUP);
    }
}
