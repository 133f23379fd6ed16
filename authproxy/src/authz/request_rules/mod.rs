//! `authorization.request_rules`: methods and paths refused per group or mapped search role,
//! before the search cluster sees the request (standalone: the forwarded request; forward_auth:
//! the original request the front proxy names).
//!
//! A rule applies to an identity holding one of its `groups` or one of its `search_roles` (as
//! `user_management.role_mappings` map them). Every rule that applies is checked; a request is
//! refused when it matches a `deny` entry of any of them (methods AND paths, a missing list
//! meaning any). Refusals only: the cluster's own role privileges still decide everything the
//! rules let through.
//!
//! When a rule applies, a request that cannot be read unambiguously is refused too: a path
//! `request::path` calls ambiguous, an unknown method (forward_auth without the original
//! method or path), or a method override header (`X-HTTP-Method-Override`, `X-HTTP-Method`,
//! `X-Method-Override`: neither Elasticsearch nor OpenSearch honours them, standalone does not
//! pass them on, but a proxy or plugin between might). Bodies are out of scope: the operations
//! inside `_bulk`, `_msearch` or `_mget` bodies are not looked at (deny those paths to refuse
//! them).

use crate::config::path_pattern::{MethodName, PathPattern};
use crate::config::request_rules::RequestRule;
use crate::identity::Identity;
use crate::request::path;

/// The request headers that name another method for some servers.
pub const METHOD_OVERRIDE_HEADERS: [&str; 3] = [
    "x-http-method-override",
    "x-http-method",
    "x-method-override",
];

/// The configured rules, compiled (the patterns already were, as the file was read).
#[derive(Debug, Clone, Default)]
pub struct RequestRules {
    rules: Vec<RequestRule>,
}

/// What the request rules decide for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleOutcome {
    /// No rule applies to the identity.
    NoRule,
    /// The rules at these indexes apply and none refuses.
    Allowed(Vec<usize>),
    Denied {
        /// `authorization.request_rules[<rule>]`.
        rule: usize,
        why: DenialCause,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DenialCause {
    /// The request matches `deny[<entry>]`.
    Entry(usize),
    /// The request cannot be read unambiguously (the reason, for the log).
    Ambiguous(&'static str),
}

impl DenialCause {
    /// A bounded metric label.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Entry(_) => "denied",
            Self::Ambiguous(_) => "ambiguous_request",
        }
    }
}

/// The request as the rules see it.
#[derive(Debug, Clone, Copy)]
pub struct RuleRequest<'a> {
    /// `None`: not known (forward_auth without the original method).
    pub method: Option<&'a str>,
    /// The raw path, possibly with the query; `None`: not known.
    pub uri: Option<&'a str>,
    /// A method override header is present.
    pub method_override: bool,
}

impl RequestRules {
    pub fn new(rules: &[RequestRule]) -> Self {
        Self {
            rules: rules.to_vec(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether any rule needs the identity's mapped search roles.
    pub fn uses_roles(&self) -> bool {
        self.rules.iter().any(|rule| !rule.search_roles.is_empty())
    }

    /// The indexes of the rules that apply to an identity with these mapped `roles`.
    pub fn applying(&self, identity: &Identity, roles: &[String]) -> Vec<usize> {
        self.rules
            .iter()
            .enumerate()
            .filter(|(_, rule)| {
                rule.groups
                    .iter()
                    .any(|group| identity.groups.contains(group))
                    || rule.search_roles.iter().any(|role| roles.contains(role))
            })
            .map(|(index, _)| index)
            .collect()
    }

    pub fn decide(
        &self,
        identity: &Identity,
        roles: &[String],
        request: RuleRequest<'_>,
    ) -> RuleOutcome {
        let applying = self.applying(identity, roles);
        let Some(&first) = applying.first() else {
            return RuleOutcome::NoRule;
        };
        let ambiguous = |why| RuleOutcome::Denied {
            rule: first,
            why: DenialCause::Ambiguous(why),
        };
        if request.method_override {
            return ambiguous("a method override header");
        }
        let Some(method) = request.method else {
            return ambiguous("the method is not known");
        };
        let Some(uri) = request.uri else {
            return ambiguous("the path is not known");
        };
        let segments = match path::normalise(uri) {
            Ok(segments) => segments,
            Err(path::Ambiguous(why)) => return ambiguous(why),
        };
        for &index in &applying {
            if let Some(entry) = self.rules[index].deny.iter().position(|entry| {
                method_matches(&entry.methods, method) && path_matches(&entry.paths, &segments)
            }) {
                return RuleOutcome::Denied {
                    rule: index,
                    why: DenialCause::Entry(entry),
                };
            }
        }
        RuleOutcome::Allowed(applying)
    }

    /// `request_rules[0]: groups [viewers], search_roles [viewer]; deny DELETE; deny
    /// /_security/**` for `/auth/explain`: the rule as configured, no request data.
    pub fn describe(&self, index: usize) -> String {
        let Some(rule) = self.rules.get(index) else {
            return String::new();
        };
        let mut text = format!("request_rules[{index}]:");
        if !rule.groups.is_empty() {
            text.push_str(&format!(" groups {:?}", rule.groups));
        }
        if !rule.search_roles.is_empty() {
            text.push_str(&format!(" search_roles {:?}", rule.search_roles));
        }
        for entry in &rule.deny {
            text.push_str("; deny");
            let methods: Vec<&str> = entry.methods.iter().map(|m| m.as_str()).collect();
            let paths: Vec<&str> = entry.paths.iter().map(PathPattern::as_str).collect();
            if methods.is_empty() {
                text.push_str(" any method");
            } else {
                text.push(' ');
                text.push_str(&methods.join("|"));
            }
            if !paths.is_empty() {
                text.push_str(" on ");
                text.push_str(&paths.join(" "));
            }
        }
        text
    }
}

fn method_matches(methods: &[MethodName], method: &str) -> bool {
    methods.is_empty() || methods.iter().any(|m| m.covers(method))
}

fn path_matches(paths: &[PathPattern], segments: &[String]) -> bool {
    paths.is_empty() || paths.iter().any(|pattern| pattern.matches(segments))
}

#[cfg(test)]
mod tests;
