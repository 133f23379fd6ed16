//! What an authenticated caller may do: enter at all (this module), and with which roles on the
//! search cluster ([`roles`]).
//!
//! Who may enter once authenticated (`authorization:`), the same for OIDC sessions and Basic
//! users.
//!
//! The rule that applies: in standalone mode, the global lists (no host is read). In
//! forward_auth without `authorization.hosts`, the global lists; with them, the first entry
//! whose `host` glob matches the original request's host (from the one header contract of
//! `server.front_proxy`, lower case, without port), and when none matches or no host is known,
//! `authorization.unmatched_hosts`: refused (the default, rule `unmatched`) or the global
//! lists. A host rule replaces the global lists entirely, it does not add to them.
//!
//! Within the rule that applies (as oauth2-proxy combines its email and group checks):
//! 1. who: when `allowed_users` or `allowed_email_domains` is set, the identity must be listed
//!    in one of them (OR): an `allowed_users` entry of its own source (`basic:` or `oidc:`, a
//!    bare entry meaning the only configured source) naming its user name (exact) or its email
//!    address (case-insensitive), or the domain of its email address in
//!    `allowed_email_domains`;
//! 2. AND groups: when `allowed_groups` is set, the identity must have at least one of them
//!    (exact names).
//!
//! Empty lists restrict nothing; a rule with every list empty lets every signed-in identity in.
//! OIDC email addresses the provider marks unverified were already dropped (they match no
//! rule).

pub(crate) mod request_rules;
pub(crate) mod roles;

use std::collections::HashSet;
use std::fmt;

use crate::config::ServerMode;
use crate::config::authorization::{AuthorizationSettings, HostRule, UnmatchedHosts, UserEntry};
use crate::config::glob::Glob;
use crate::identity::{AuthMethod, Identity};
use crate::request::forwarded::OriginalHost;

/// Which rule decided; bounded by the configuration (a metric label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleId {
    Global,
    /// `authorization.hosts[index]`.
    Host(usize),
    /// `authorization.hosts` is set and no entry matches the host (or no host is known), with
    /// `unmatched_hosts: refuse`.
    Unmatched,
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Global => f.write_str("global"),
            Self::Host(index) => write!(f, "hosts[{index}]"),
            Self::Unmatched => f.write_str("unmatched"),
        }
    }
}

/// Why an identity was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenialReason {
    /// Neither the user nor the email domain is listed.
    NotListed,
    /// None of the required groups.
    NoGroup,
    /// No host rule applies (`RuleId::Unmatched`).
    NoHostRule,
}

impl DenialReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotListed => "user_not_allowed",
            Self::NoGroup => "group_not_allowed",
            Self::NoHostRule => "no_host_rule",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allowed(RuleId),
    Denied { rule: RuleId, reason: DenialReason },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DomainPattern {
    Any,
    Exact(String),
    /// `*.example.com`: strictly below `example.com`.
    Below(String),
}

impl DomainPattern {
    fn new(entry: &str) -> Self {
        let entry = entry.trim().trim_end_matches('.').to_ascii_lowercase();
        if entry == "*" {
            Self::Any
        } else if let Some(parent) = entry.strip_prefix("*.") {
            Self::Below(parent.to_owned())
        } else {
            Self::Exact(entry)
        }
    }

    fn matches(&self, domain: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Exact(expected) => domain == expected,
            Self::Below(parent) => domain
                .strip_suffix(parent.as_str())
                .is_some_and(|prefix| prefix.len() > 1 && prefix.ends_with('.')),
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Lists {
    /// `allowed_users` entries by source: the name exactly.
    users: HashSet<(AuthMethod, String)>,
    /// The entries that are addresses, by source, in ASCII lower case.
    emails: HashSet<(AuthMethod, String)>,
    domains: Vec<DomainPattern>,
    groups: HashSet<String>,
    /// `allowed_users` is set, even if none of its entries can match (an entry that names no
    /// usable source must not turn the restriction into none).
    users_listed: bool,
}

impl Lists {
    /// `sole_source`: what a bare `allowed_users` entry means (validation refuses bare entries
    /// when two sources are configured; should one get here, it matches nobody).
    fn new(
        users: &[String],
        domains: &[String],
        groups: &[String],
        sole_source: Option<AuthMethod>,
    ) -> Self {
        let entries: Vec<(AuthMethod, &str)> = users
            .iter()
            .map(|user| UserEntry::parse(user))
            .filter_map(|entry| Some((entry.source.or(sole_source)?, entry.name)))
            .collect();
        Self {
            users: entries
                .iter()
                .map(|(source, name)| (*source, (*name).to_owned()))
                .collect(),
            emails: entries
                .iter()
                .filter(|(_, name)| name.contains('@'))
                .map(|(source, name)| (*source, name.to_ascii_lowercase()))
                .collect(),
            domains: domains.iter().map(|d| DomainPattern::new(d)).collect(),
            groups: groups.iter().cloned().collect(),
            users_listed: !users.is_empty(),
        }
    }

    fn decide(&self, identity: &Identity) -> Result<(), DenialReason> {
        if self.users_listed || !self.domains.is_empty() {
            let email = identity.email.trim().to_ascii_lowercase();
            let domain = email
                .rsplit_once('@')
                .map(|(local, domain)| (local, domain.trim_end_matches('.')))
                .filter(|(local, domain)| !local.is_empty() && !domain.is_empty())
                .map(|(_, domain)| domain);
            let source = identity.method;
            let listed = self.users.contains(&(source, identity.username.clone()))
                || (!email.is_empty() && self.emails.contains(&(source, email.clone())))
                || domain.is_some_and(|domain| self.domains.iter().any(|p| p.matches(domain)));
            if !listed {
                return Err(DenialReason::NotListed);
            }
        }
        if !self.groups.is_empty()
            && !identity
                .groups
                .iter()
                .any(|group| self.groups.contains(group))
        {
            return Err(DenialReason::NoGroup);
        }
        Ok(())
    }
}

/// The configured rules, compiled once.
#[derive(Debug, Clone, Default)]
pub struct Authorizer {
    global: Lists,
    /// Empty in standalone mode, which reads no host.
    hosts: Vec<(Glob, Lists)>,
    /// The `host` pattern of each host rule, for log records.
    patterns: Vec<String>,
    unmatched: UnmatchedHosts,
    /// `request_rules`, both modes.
    request_rules: request_rules::RequestRules,
}

impl Authorizer {
    /// From validated settings (an invalid host pattern was refused at start); `sources` are
    /// the configured identity sources (what a bare `allowed_users` entry means when there is
    /// one).
    pub fn new(
        settings: &AuthorizationSettings,
        mode: ServerMode,
        sources: Vec<AuthMethod>,
    ) -> Self {
        let sole_source = match sources.as_slice() {
            [only] => Some(*only),
            _ => None,
        };
        let lists = |users: &[String], domains: &[String], groups: &[String]| {
            Lists::new(users, domains, groups, sole_source)
        };
        let mut hosts = Vec::new();
        let mut patterns = Vec::new();
        let host_rules: &[HostRule] = match mode {
            ServerMode::ForwardAuth => &settings.hosts,
            ServerMode::Standalone => &[],
        };
        for rule in host_rules {
            let pattern = rule.host.trim().to_ascii_lowercase();
            // Validation refuses an invalid pattern before this is built; should one get
            // here, it matches no host.
            let glob = Glob::new(&pattern).unwrap_or_else(|_| unreachable_glob());
            hosts.push((
                glob,
                lists(
                    &rule.allowed_users,
                    &rule.allowed_email_domains,
                    &rule.allowed_groups,
                ),
            ));
            patterns.push(pattern);
        }
        Self {
            global: lists(
                &settings.allowed_users,
                &settings.allowed_email_domains,
                &settings.allowed_groups,
            ),
            hosts,
            patterns,
            unmatched: settings.unmatched_hosts,
            request_rules: request_rules::RequestRules::new(&settings.request_rules),
        }
    }

    /// The methods and paths refused per group or mapped role (`request_rules`).
    pub fn request_rules(&self) -> &request_rules::RequestRules {
        &self.request_rules
    }

    /// The rule for the original request's host (`None`: not known).
    pub fn rule_for(&self, host: Option<&OriginalHost>) -> RuleId {
        if self.hosts.is_empty() {
            return RuleId::Global;
        }
        let matched = host.and_then(|host| {
            self.hosts
                .iter()
                .position(|(glob, _)| glob.matches(host.name()))
        });
        match (matched, self.unmatched) {
            (Some(index), _) => RuleId::Host(index),
            (None, UnmatchedHosts::Global) => RuleId::Global,
            (None, UnmatchedHosts::Refuse) => RuleId::Unmatched,
        }
    }

    pub fn decide(&self, identity: &Identity, host: Option<&OriginalHost>) -> Decision {
        let rule = self.rule_for(host);
        let lists = match rule {
            RuleId::Global => &self.global,
            RuleId::Host(index) => &self.hosts[index].1,
            RuleId::Unmatched => {
                return Decision::Denied {
                    rule,
                    reason: DenialReason::NoHostRule,
                };
            }
        };
        match lists.decide(identity) {
            Ok(()) => Decision::Allowed(rule),
            Err(reason) => Decision::Denied { rule, reason },
        }
    }

    /// `global`, `hosts[0] (*.example.com)` or `no hosts[] entry`, for log records.
    pub fn describe(&self, rule: RuleId) -> String {
        match rule {
            RuleId::Global => "global".to_owned(),
            RuleId::Host(index) => format!(
                "hosts[{index}] ({})",
                self.patterns.get(index).map_or("", String::as_str)
            ),
            RuleId::Unmatched => "no hosts[] entry (unmatched_hosts: refuse)".to_owned(),
        }
    }
}

/// A glob that matches no host name (a host never contains a NUL).
fn unreachable_glob() -> Glob {
    Glob::new("\0").expect("a literal glob")
}

#[cfg(test)]
mod tests;
