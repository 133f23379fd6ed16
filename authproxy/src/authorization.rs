//! Who may enter once authenticated (`authorization:`), the same for OIDC sessions and Basic
//! users.
//!
//! The rule that applies: in forward_auth, the first `authorization.hosts[]` entry whose `host`
//! glob matches the original request's host (lower case, without port); otherwise (no entry
//! matches, no trusted original host, standalone mode) the global lists. A host rule replaces
//! the global lists entirely, it does not add to them.
//!
//! Within the rule that applies (as oauth2-proxy combines its email and group checks):
//! 1. who: when `allowed_users` or `allowed_email_domains` is set, the identity must be listed
//!    in one of them (OR): its user name (exact) or its email address (case-insensitive) in
//!    `allowed_users`, or the domain of its email address in `allowed_email_domains`;
//! 2. AND groups: when `allowed_groups` is set, the identity must have at least one of them
//!    (exact names).
//!
//! Empty lists restrict nothing; a rule with every list empty lets every signed-in identity in.
//! OIDC email addresses the provider marks unverified were already dropped (they match no
//! rule).

use std::collections::HashSet;
use std::fmt;

use crate::config::authorization::{AuthorizationSettings, HostRule};
use crate::glob::Glob;
use crate::identity::Identity;

/// Which rule decided; bounded by the configuration (a metric label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleId {
    Global,
    /// `authorization.hosts[index]`.
    Host(usize),
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Global => f.write_str("global"),
            Self::Host(index) => write!(f, "hosts[{index}]"),
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
}

impl DenialReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotListed => "user_not_allowed",
            Self::NoGroup => "group_not_allowed",
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
    users: HashSet<String>,
    /// `allowed_users` entries in ASCII lower case, for email addresses.
    emails: HashSet<String>,
    domains: Vec<DomainPattern>,
    groups: HashSet<String>,
}

impl Lists {
    fn new(users: &[String], domains: &[String], groups: &[String]) -> Self {
        Self {
            users: users.iter().map(|user| user.trim().to_owned()).collect(),
            emails: users
                .iter()
                .filter(|user| user.contains('@'))
                .map(|user| user.trim().to_ascii_lowercase())
                .collect(),
            domains: domains.iter().map(|d| DomainPattern::new(d)).collect(),
            groups: groups.iter().cloned().collect(),
        }
    }

    fn decide(&self, identity: &Identity) -> Result<(), DenialReason> {
        if !(self.users.is_empty() && self.domains.is_empty()) {
            let email = identity.email.trim().to_ascii_lowercase();
            let domain = email
                .rsplit_once('@')
                .map(|(local, domain)| (local, domain.trim_end_matches('.')))
                .filter(|(local, domain)| !local.is_empty() && !domain.is_empty())
                .map(|(_, domain)| domain);
            let listed = self.users.contains(&identity.username)
                || (!email.is_empty() && self.emails.contains(&email))
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
    hosts: Vec<(Glob, Lists)>,
    /// The `host` pattern of each host rule, for log records.
    patterns: Vec<String>,
}

impl Authorizer {
    /// From validated settings (an invalid host pattern was refused at start).
    pub fn new(settings: &AuthorizationSettings) -> Self {
        let lists = |rule: &HostRule| {
            Lists::new(
                &rule.allowed_users,
                &rule.allowed_email_domains,
                &rule.allowed_groups,
            )
        };
        let mut hosts = Vec::new();
        let mut patterns = Vec::new();
        for rule in &settings.hosts {
            let pattern = rule.host.trim().to_ascii_lowercase();
            // Validation refuses an invalid pattern before this is built; should one get
            // here, it matches no host.
            let glob = Glob::new(&pattern).unwrap_or_else(|_| unreachable_glob());
            hosts.push((glob, lists(rule)));
            patterns.push(pattern);
        }
        Self {
            global: Lists::new(
                &settings.allowed_users,
                &settings.allowed_email_domains,
                &settings.allowed_groups,
            ),
            hosts,
            patterns,
        }
    }

    /// The rule for the original request's `host` (`None`: the global lists).
    pub fn rule_for(&self, host: Option<&str>) -> RuleId {
        let Some(host) = host.map(normalize_host).filter(|host| !host.is_empty()) else {
            return RuleId::Global;
        };
        self.hosts
            .iter()
            .position(|(glob, _)| glob.matches(&host))
            .map_or(RuleId::Global, RuleId::Host)
    }

    pub fn decide(&self, identity: &Identity, host: Option<&str>) -> Decision {
        let rule = self.rule_for(host);
        let lists = match rule {
            RuleId::Global => &self.global,
            RuleId::Host(index) => &self.hosts[index].1,
        };
        match lists.decide(identity) {
            Ok(()) => Decision::Allowed(rule),
            Err(reason) => Decision::Denied { rule, reason },
        }
    }

    /// `global`, or `hosts[0] (*.example.com)`, for log records.
    pub fn describe(&self, rule: RuleId) -> String {
        match rule {
            RuleId::Global => "global".to_owned(),
            RuleId::Host(index) => format!(
                "hosts[{index}] ({})",
                self.patterns.get(index).map_or("", String::as_str)
            ),
        }
    }
}

/// A glob that matches no host name (a host never contains a NUL).
fn unreachable_glob() -> Glob {
    Glob::new("\0").expect("a literal glob")
}

/// A `Host`/`X-Forwarded-Host` value as the patterns see it: lower case, without port, without
/// a trailing dot; `[v6]` keeps its brackets off.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':')
            .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
            .map_or(host, |(name, _)| name)
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

#[cfg(test)]
mod tests;
