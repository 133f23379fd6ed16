//! `authorization:` — who may enter once authenticated: allowed users, email domains and groups,
//! globally and per host (forward_auth). The decision itself is the `authz` module's.

use serde::Deserialize;
use service_kit::config::ConfigProblems;

use super::{ServerMode, Settings};
use crate::config::glob::Glob;
use crate::identity::AuthMethod;

/// The allow-lists. Empty lists mean "no restriction of that kind"; see
/// the `authz` module for how they combine.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthorizationSettings {
    /// `basic:<name>` (a local Basic user) or `oidc:<name>` (an identity-provider user, by
    /// `oidc.username_claim`); the name is exact, an address (`oidc:ann@example.com`) also
    /// matches that source's email case-insensitively. A bare entry is allowed only when one
    /// source is configured, and means that one.
    pub allowed_users: Vec<String>,
    /// Email domains allowed in: `example.com` (exactly that domain), `*.example.com` (its
    /// subdomains, not the domain itself), `*` (any verified address).
    pub allowed_email_domains: Vec<String>,
    /// Groups (from `oidc.groups_claim`, or a local user's `groups`), one of which is required.
    pub allowed_groups: Vec<String>,
    /// forward_auth: per application host, first match wins, instead of the lists above.
    pub hosts: Vec<HostRule>,
    /// forward_auth with `hosts`: what a request whose host matches no entry (or whose host is
    /// not known) gets: `refuse` (403), or `global` (the lists above).
    pub unmatched_hosts: UnmatchedHosts,
    /// Methods and paths refused per group or mapped search role, before the cluster sees
    /// them (both modes).
    pub request_rules: Vec<super::request_rules::RequestRule>,
}

/// `authorization.unmatched_hosts`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnmatchedHosts {
    /// Refused (403, rule `unmatched`): a host nobody wrote a rule for is closed.
    #[default]
    Refuse,
    /// The global lists apply.
    Global,
}

/// One `allowed_users` entry: a name or address of one identity source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UserEntry<'a> {
    /// `None`: a bare entry, naming no source.
    pub source: Option<AuthMethod>,
    pub name: &'a str,
}

impl<'a> UserEntry<'a> {
    pub(crate) fn parse(entry: &'a str) -> Self {
        let entry = entry.trim();
        for source in [AuthMethod::Basic, AuthMethod::Oidc, AuthMethod::Bearer] {
            if let Some(name) = entry
                .strip_prefix(source.as_str())
                .and_then(|rest| rest.strip_prefix(':'))
            {
                return Self {
                    source: Some(source),
                    name: name.trim(),
                };
            }
        }
        Self {
            source: None,
            name: entry,
        }
    }
}

impl Settings {
    /// The identity sources that can sign anyone in: local Basic users, the identity provider.
    pub(crate) fn identity_sources(&self) -> Vec<AuthMethod> {
        let mut sources = Vec::new();
        if self.basic_auth.enabled && !self.basic_auth.users.is_empty() {
            sources.push(AuthMethod::Basic);
        }
        if self.oidc.enabled {
            sources.push(AuthMethod::Oidc);
        }
        if self.oidc.enabled && self.oidc.bearer.enabled {
            sources.push(AuthMethod::Bearer);
        }
        sources
    }
}

/// One entry of `authorization.hosts`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostRule {
    /// A glob (`*`, `?`, `[a-z]`) matched, case-insensitively, against the original request's
    /// host without its port.
    pub host: String,
    pub allowed_users: Vec<String>,
    pub allowed_email_domains: Vec<String>,
    pub allowed_groups: Vec<String>,
}

impl AuthorizationSettings {
    /// True when nothing is restricted at all (every signed-in identity enters every host).
    pub fn is_open(&self) -> bool {
        self.allowed_users.is_empty()
            && self.allowed_email_domains.is_empty()
            && self.allowed_groups.is_empty()
            && self.hosts.is_empty()
    }
}

/// Why an email-domain entry is not usable, `None` when it is.
pub(crate) fn email_domain_problem(entry: &str) -> Option<&'static str> {
    if entry == "*" {
        return None;
    }
    let domain = entry.strip_prefix("*.").unwrap_or(entry);
    if domain.is_empty() {
        return Some("must not be empty (use * for any verified address)");
    }
    if domain.contains('@') {
        return Some(
            "must be a domain such as example.com, without '@' (list addresses in allowed_users)",
        );
    }
    if !crate::request::forwarded::is_dns_name(domain) {
        return Some(
            "must be a domain name such as example.com or *.example.com (letters, digits, '-', \
             dots; a '*' only as the whole entry or as a leading '*.')",
        );
    }
    None
}

fn validate_lists(
    prefix: &str,
    (users, domains, groups): (&[String], &[String], &[String]),
    sources: &[AuthMethod],
    problems: &mut ConfigProblems,
) {
    for (index, user) in users.iter().enumerate() {
        let key = format!("{prefix}allowed_users[{index}]");
        let entry = UserEntry::parse(user);
        if entry.name.is_empty() || user.chars().any(char::is_control) {
            problems.push(
                key,
                "must be basic:<name>, oidc:<name> or bearer:<name> (a user name or an email \
                 address; not empty, no control characters)",
            );
        } else if entry.source.is_none() && sources.len() > 1 {
            problems.push(key, ambiguous_entry(entry.name, sources));
        }
    }
    for (index, domain) in domains.iter().enumerate() {
        if let Some(message) = email_domain_problem(domain) {
            problems.push(format!("{prefix}allowed_email_domains[{index}]"), message);
        }
    }
    for (index, group) in groups.iter().enumerate() {
        problems.check(
            !group.is_empty() && !group.chars().any(char::is_control),
            &format!("{prefix}allowed_groups[{index}]"),
            "must be a group name (not empty, no control characters)",
        );
    }
}

/// The problem of a bare `allowed_users` entry when two or more sources are configured.
fn ambiguous_entry(name: &str, sources: &[AuthMethod]) -> String {
    let spelled: Vec<String> = sources
        .iter()
        .map(|source| format!("{source}:{name}"))
        .collect();
    let choices = match spelled.split_last() {
        Some((last, others)) if !others.is_empty() => format!("{} or {last}", others.join(", ")),
        _ => spelled.concat(),
    };
    let names: Vec<&str> = sources.iter().map(|source| source.as_str()).collect();
    format!(
        "names no source, and {} are configured: write {choices} (a bare name would let an \
         identity of one source in under another's entry)",
        names.join(", ")
    )
}

pub(super) fn validate(settings: &Settings, problems: &mut ConfigProblems) {
    let authorization = &settings.authorization;
    let sources = settings.identity_sources();
    validate_lists(
        "authorization.",
        (
            &authorization.allowed_users,
            &authorization.allowed_email_domains,
            &authorization.allowed_groups,
        ),
        &sources,
        problems,
    );
    for (index, rule) in authorization.hosts.iter().enumerate() {
        let prefix = format!("authorization.hosts[{index}].");
        match Glob::new(rule.host.trim()) {
            Err(error) => problems.push(format!("{prefix}host"), format!("{error}")),
            Ok(_) => problems.check(
                !rule.host.contains([':', '/', ' ']),
                &format!("{prefix}host"),
                "must be a host name pattern such as app.example.com or *.example.com, \
                 without scheme, port or path",
            ),
        }
        validate_lists(
            &prefix,
            (
                &rule.allowed_users,
                &rule.allowed_email_domains,
                &rule.allowed_groups,
            ),
            &sources,
            problems,
        );
    }
    super::request_rules::validate(settings, problems);
}

/// Valid settings that probably do not do what was meant.
pub(super) fn warnings(settings: &Settings, warnings: &mut ConfigProblems) {
    front_proxy_warnings(settings, warnings);
    let authorization = &settings.authorization;
    let combined = |prefix: &str, users: &[String], domains: &[String], groups: &[String]| {
        let listed = !(users.is_empty() && domains.is_empty());
        (listed && !groups.is_empty()).then(|| {
            (
                format!("{prefix}allowed_groups"),
                "is set together with allowed_users/allowed_email_domains: a listed user or \
                 domain also needs one of these groups (the lists are AND'ed, not OR'ed)"
                    .to_owned(),
            )
        })
    };
    if let Some((key, message)) = combined(
        "authorization.",
        &authorization.allowed_users,
        &authorization.allowed_email_domains,
        &authorization.allowed_groups,
    ) {
        warnings.push(key, message);
    }
    let groups_in_use = !authorization.allowed_groups.is_empty()
        || authorization
            .hosts
            .iter()
            .any(|rule| !rule.allowed_groups.is_empty());
    if groups_in_use && settings.oidc.enabled && settings.oidc.groups_claim.trim().is_empty() {
        warnings.push(
            "oidc.groups_claim",
            "is empty while authorization lists groups: no OIDC user has a group, so no OIDC \
             user passes a group rule",
        );
    }
    if authorization.hosts.is_empty() {
        return;
    }
    let unmatched = match authorization.unmatched_hosts {
        UnmatchedHosts::Refuse => {
            "every request is refused (authorization.unmatched_hosts: refuse)"
        }
        UnmatchedHosts::Global => "the global lists always apply",
    };
    if settings.server.mode == ServerMode::Standalone {
        warnings.push(
            "authorization.hosts",
            "is only used in forward_auth mode; standalone mode applies the global lists",
        );
    } else if settings.server.trusted_proxies.is_empty() {
        warnings.push(
            "authorization.hosts",
            format!(
                "needs the original host from a trusted reverse proxy, but \
                 server.trusted_proxies is empty: {unmatched}"
            ),
        );
    } else if authorization.unmatched_hosts == UnmatchedHosts::Refuse
        && !(authorization.allowed_users.is_empty()
            && authorization.allowed_email_domains.is_empty()
            && authorization.allowed_groups.is_empty())
    {
        warnings.push(
            "authorization.unmatched_hosts",
            "is refuse (the default): a host no hosts[] entry matches is refused, so the global \
             lists apply to no forward_auth check; set unmatched_hosts: global to apply them to \
             other hosts (as before), or add a catch-all {host: \"*\"} entry",
        );
    }
    let mut seen = Vec::new();
    for (index, rule) in authorization.hosts.iter().enumerate() {
        let prefix = format!("authorization.hosts[{index}].");
        let host = rule.host.trim().to_ascii_lowercase();
        if seen.contains(&host) {
            warnings.push(
                format!("{prefix}host"),
                "repeats an earlier pattern: this rule never applies (the first match wins)",
            );
        }
        seen.push(host);
        if rule.allowed_users.is_empty()
            && rule.allowed_email_domains.is_empty()
            && rule.allowed_groups.is_empty()
        {
            warnings.push(
                format!("{prefix}host"),
                "has no allowed_users, allowed_email_domains or allowed_groups: every signed-in \
                 identity may enter the hosts it matches, whatever the global lists say",
            );
        }
        if let Some((key, message)) = combined(
            &prefix,
            &rule.allowed_users,
            &rule.allowed_email_domains,
            &rule.allowed_groups,
        ) {
            warnings.push(key, message);
        }
    }
}

/// `server.front_proxy` decides whose headers name the host the rules judge.
fn front_proxy_warnings(settings: &Settings, warnings: &mut ConfigProblems) {
    let server = &settings.server;
    match (server.mode, server.front_proxy) {
        (ServerMode::Standalone, Some(_)) => warnings.push(
            "server.front_proxy",
            "is only used in forward_auth mode; standalone mode reads no reverse-proxy header \
             (X-Original-URL, X-Forwarded-Host/-Uri/-Proto/-Method)",
        ),
        (ServerMode::ForwardAuth, None) if !server.trusted_proxies.is_empty() => warnings.push(
            "server.front_proxy",
            "is not set: the check reads Traefik's X-Forwarded-Method/-Proto/-Host/-Uri and \
             ignores X-Original-URL/-Method; behind nginx or ingress-nginx set \
             front_proxy: nginx",
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use service_kit::config::{ConfigLoader, ConfigProblems, Validate};

    use super::super::Settings;

    fn load(yaml: &str) -> Result<Settings, ConfigProblems> {
        ConfigLoader::new("AUTHPROXY_TEST").load_str(yaml)
    }

    fn messages(problems: &ConfigProblems) -> Vec<String> {
        problems
            .iter()
            .map(|p| format!("{}: {}", p.key, p.message))
            .collect()
    }

    #[test]
    fn the_section_loads_and_bad_entries_are_named() {
        let settings = load(
            "authorization:\n  allowed_users: [carol, dave@example.com]\n  \
             allowed_email_domains: [example.com, \"*.corp.example\", \"*\"]\n  \
             allowed_groups: [ops]\n  hosts:\n    - {host: \"*.example.com\", allowed_groups: [sre]}\n",
        )
        .unwrap();
        assert_eq!(settings.authorization.hosts[0].host, "*.example.com");
        assert_eq!(settings.authorization.allowed_users.len(), 2);

        let problems = load(
            "authorization:\n  allowed_users: [\"\"]\n  \
             allowed_email_domains: [\"@example.com\", \"ex ample.com\", \"*example.com\", \"\"]\n  \
             allowed_groups: [\"\"]\n  hosts:\n    - {host: \"\"}\n    - {host: \"[abc\"}\n    \
             - {host: \"https://app.example.com\"}\n    - {host: \"app.example.com:443\"}\n    \
             - {host: ok.example.com, allowed_email_domains: [\"a..b\"]}\n",
        )
        .unwrap_err();
        let keys: Vec<String> = problems.iter().map(|p| p.key.clone()).collect();
        for key in [
            "authorization.allowed_users[0]",
            "authorization.allowed_email_domains[0]",
            "authorization.allowed_email_domains[1]",
            "authorization.allowed_email_domains[2]",
            "authorization.allowed_email_domains[3]",
            "authorization.allowed_groups[0]",
            "authorization.hosts[0].host",
            "authorization.hosts[1].host",
            "authorization.hosts[2].host",
            "authorization.hosts[3].host",
            "authorization.hosts[4].allowed_email_domains[0]",
        ] {
            assert!(keys.iter().any(|k| k == key), "{key} missing: {keys:?}");
        }
        let text = messages(&problems).join("\n");
        assert!(
            text.contains("authorization.hosts[0].host: must not be empty"),
            "{text}"
        );
        assert!(
            text.contains("'[' at character 1 is never closed"),
            "{text}"
        );
        assert!(text.contains("without '@'"), "{text}");
    }

    #[test]
    fn surprising_combinations_are_warned_about() {
        let settings = load(
            "server: {mode: standalone}\nauthorization:\n  allowed_users: [carol]\n  \
             allowed_groups: [ops]\n  hosts:\n    - {host: a.example.com}\n    \
             - {host: A.example.com, allowed_groups: [x]}\n",
        )
        .unwrap();
        let mut warnings = ConfigProblems::default();
        settings.warnings(&mut warnings);
        let text = messages(&warnings).join("\n");
        assert!(
            text.contains("authorization.allowed_groups: is set together with allowed_users"),
            "{text}"
        );
        assert!(
            text.contains("authorization.hosts: is only used in forward_auth mode"),
            "{text}"
        );
        assert!(
            text.contains("authorization.hosts[0].host: has no allowed_users"),
            "{text}"
        );
        assert!(
            text.contains("authorization.hosts[1].host: repeats an earlier pattern"),
            "{text}"
        );

        let forward =
            load("authorization:\n  hosts:\n    - {host: a.example.com, allowed_groups: [x]}\n")
                .unwrap();
        let mut warnings = ConfigProblems::default();
        forward.warnings(&mut warnings);
        let text = messages(&warnings).join("\n");
        assert!(text.contains("server.trusted_proxies is empty"), "{text}");

        // Global lists beside host rules apply to no check unless unmatched_hosts says so; an
        // unset front_proxy is named.
        let yaml = "server: {trusted_proxies: [10.0.0.0/8]}\nauthorization:\n  \
                    allowed_groups: [ops]\n  hosts: [{host: a.example.com, allowed_groups: [x]}]\n";
        let mut warnings = ConfigProblems::default();
        load(yaml).unwrap().warnings(&mut warnings);
        let text = messages(&warnings).join("\n");
        assert!(
            text.contains("authorization.unmatched_hosts: is refuse"),
            "{text}"
        );
        assert!(text.contains("server.front_proxy: is not set"), "{text}");
        let yaml = yaml.replace("10.0.0.0/8]", "10.0.0.0/8], front_proxy: nginx")
            + "  unmatched_hosts: global\n";
        let mut warnings = ConfigProblems::default();
        load(&yaml).unwrap().warnings(&mut warnings);
        assert!(warnings.is_empty(), "{}", messages(&warnings).join("\n"));
    }
}
