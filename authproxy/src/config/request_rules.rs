//! `authorization.request_rules`: per group or mapped search role, the methods and paths refused
//! before the cluster sees them. Patterns and methods are compiled as the file is read
//! ([`PathPattern`], [`MethodName`]); this module checks what spans several keys. The decision
//! is `authz::request_rules`'.

use serde::Deserialize;
use service_kit::config::ConfigProblems;

use super::Settings;
use super::path_pattern::{MethodName, PathPattern};

/// One rule: it applies to an identity holding one of `groups` or one of the `search_roles`
/// that `user_management.role_mappings` give it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RequestRule {
    /// Groups (from `oidc.groups_claim`, or a local user's `groups`).
    pub groups: Vec<String>,
    /// Mapped search-cluster roles (alias `es_roles`).
    #[serde(alias = "es_roles")]
    pub search_roles: Vec<String>,
    /// What is refused: a request matching any entry.
    pub deny: Vec<DenyEntry>,
}

/// A request is refused when its method is one of `methods` (none: any method) and its path
/// matches one of `paths` (none: any path).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DenyEntry {
    pub methods: Vec<MethodName>,
    pub paths: Vec<PathPattern>,
}

pub(super) fn validate(settings: &Settings, problems: &mut ConfigProblems) {
    for (index, rule) in settings.authorization.request_rules.iter().enumerate() {
        let prefix = format!("authorization.request_rules[{index}]");
        if rule.groups.is_empty() && rule.search_roles.is_empty() {
            problems.push(
                format!("{prefix}.groups"),
                "a rule needs groups or search_roles: it applies to identities holding one of \
                 them",
            );
        }
        if !rule.search_roles.is_empty() && !settings.user_management.enabled {
            problems.push(
                format!("{prefix}.search_roles"),
                "needs user_management.enabled: without it no identity has mapped search roles",
            );
        }
        for (list, entries) in [
            ("groups", &rule.groups),
            ("search_roles", &rule.search_roles),
        ] {
            for (at, entry) in entries.iter().enumerate() {
                problems.check(
                    !entry.trim().is_empty(),
                    &format!("{prefix}.{list}[{at}]"),
                    "must not be empty",
                );
            }
        }
        problems.check(
            !rule.deny.is_empty(),
            &format!("{prefix}.deny"),
            "must list at least one entry ({methods: [...]}, {paths: [...]} or both)",
        );
        for (at, entry) in rule.deny.iter().enumerate() {
            problems.check(
                !(entry.methods.is_empty() && entry.paths.is_empty()),
                &format!("{prefix}.deny[{at}]"),
                "needs methods, paths or both (an empty entry would refuse every request)",
            );
        }
    }
}
