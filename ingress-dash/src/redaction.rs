//! What is redacted in everything served (records, snapshots, stream events, an object's YAML),
//! whatever the kind:
//!
//! - annotation values that often hold credentials (nginx `*-snippet` configuration, basic-auth
//!   or API tokens in custom annotations, headers with `Authorization`): keys are matched against
//!   glob patterns (`annotations.redact`, plus [`DEFAULT_PATTERNS`] unless
//!   `annotations.redact_defaults` is false), case-insensitively; `*` also crosses the `/`
//!   between prefix and name. [`LAST_APPLIED`] is redacted whatever the patterns;
//! - the value of every name/value pair of an object's `spec` whose name is that of a credential
//!   ([`SECRET_NAME_PATTERNS`]: `Authorization`, cookies, `*api-key*`, `*token*`, ...): the
//!   headers an HTTPRoute's (or GRPCRoute's) `RequestHeaderModifier` / `ResponseHeaderModifier`
//!   sets or adds, on a rule or a backendRef, and the values its header and query matches
//!   compare with.
//!
//! Values become [`REDACTED`] before a record is cached, stored or sent; keys and names stay
//! visible, so a reader still sees that the annotation or header is set.

use std::collections::BTreeMap;

use serde_json::Value;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// What a redacted value becomes.
pub const REDACTED: &str = "<redacted>";

/// The built-in patterns. Snippets (ingress-nginx `configuration-snippet`, `server-snippet`,
/// `auth-snippet`, `stream-snippet`, `modsecurity-snippet`; HAProxy `*-config-snippet`) are
/// arbitrary proxy configuration and routinely carry `proxy_set_header Authorization ...`;
/// Traefik v1 `custom-request-headers` carries header values the same way; the rest name the
/// usual words for credentials. Annotations that only name a Secret (ingress-nginx
/// `auth-secret`, `auth-tls-secret`) are redacted too: cheap to lose, and a custom annotation
/// called `*-secret` may hold the secret itself. cert-manager's and Traefik v2's annotations
/// (issuers, router middlewares, entry points) hold references only and stay visible.
pub const DEFAULT_PATTERNS: &[&str] = &[
    "*snippet*",
    "*secret*",
    "*password*",
    "*passwd*",
    "*token*",
    "*credential*",
    "*api-key*",
    "*apikey*",
    "*private-key*",
    "*custom-request-headers*",
    "*last-applied-configuration*",
];

/// Repeats the annotations as they were applied (and the whole spec): redacted whatever the
/// configured patterns.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Names of headers and query parameters whose values are credentials (always applied):
/// HTTP authentication and cookies, and the usual words for keys, tokens, passwords, signatures
/// and sessions.
pub const SECRET_NAME_PATTERNS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "*cookie*",
    "*token*",
    "*secret*",
    "*password*",
    "*passwd*",
    "*credential*",
    "*api-key*",
    "*api_key*",
    "*apikey*",
    "*auth-key*",
    "*private-key*",
    "*signature*",
    "*session*",
];

/// The compiled patterns.
#[derive(Debug, Clone)]
pub struct Redaction {
    patterns: GlobSet,
    secret_names: GlobSet,
}

impl Redaction {
    /// Compiles `patterns`; an error names the first pattern that is not a valid glob.
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, PatternError> {
        Ok(Self {
            patterns: compile_set(patterns)?,
            secret_names: compile_set(SECRET_NAME_PATTERNS.iter().copied())?,
        })
    }

    /// `annotations.redact` (`extra`), after the built-in patterns unless `defaults` is false.
    pub fn configured(defaults: bool, extra: &[String]) -> Result<Self, PatternError> {
        let defaults = DEFAULT_PATTERNS.iter().copied().filter(|_| defaults);
        Self::new(defaults.chain(extra.iter().map(String::as_str)))
    }

    /// No redaction at all (tests of other parts).
    #[cfg(test)]
    pub fn none() -> Self {
        Self {
            patterns: GlobSet::empty(),
            secret_names: GlobSet::empty(),
        }
    }

    pub fn is_redacted(&self, key: &str) -> bool {
        self.patterns.is_match(key)
    }

    /// Whether a header or query parameter called `name` carries a credential.
    pub fn is_secret_name(&self, name: &str) -> bool {
        self.secret_names.is_match(name)
    }

    /// Replaces the value of every annotation whose key matches.
    pub fn apply(&self, annotations: &mut BTreeMap<String, String>) {
        for (key, value) in annotations.iter_mut() {
            if self.is_redacted(key) {
                REDACTED.clone_into(value);
            }
        }
    }

    /// Redacts an object as the API server serves it, of any kind: its annotations (and
    /// [`LAST_APPLIED`]) and the credential-named values in its `spec`.
    pub fn apply_to_object(&self, object: &mut Value) {
        if let Some(annotations) = object
            .pointer_mut("/metadata/annotations")
            .and_then(Value::as_object_mut)
        {
            for (key, value) in annotations.iter_mut() {
                if key == LAST_APPLIED || self.is_redacted(key) {
                    *value = Value::String(REDACTED.to_owned());
                }
            }
        }
        if let Some(spec) = object.get_mut("spec") {
            self.apply_to_named_values(spec);
        }
    }

    /// Every `{"name": …, "value": "…"}` at any depth whose name is a credential's: header
    /// filters' `set` and `add`, header and query matches. (The JSON parser bounds the depth.)
    fn apply_to_named_values(&self, value: &mut Value) {
        match value {
            Value::Array(items) => {
                for item in items {
                    self.apply_to_named_values(item);
                }
            }
            Value::Object(fields) => {
                let secret = fields
                    .get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|name| self.is_secret_name(name));
                if let Some(text @ Value::String(_)) = fields.get_mut("value")
                    && secret
                {
                    *text = Value::String(REDACTED.to_owned());
                }
                for field in fields.values_mut() {
                    self.apply_to_named_values(field);
                }
            }
            _ => {}
        }
    }
}

/// A pattern of `annotations.redact` that is not a valid glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{pattern}\" is not a valid glob: {reason}")]
pub struct PatternError {
    pub pattern: String,
    pub reason: String,
}

fn compile_set<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<GlobSet, PatternError> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        set.add(compile(pattern)?);
    }
    set.build().map_err(|error| PatternError {
        pattern: String::new(),
        reason: error.kind().to_string(),
    })
}

fn compile(pattern: &str) -> Result<globset::Glob, PatternError> {
    let error = |reason: String| PatternError {
        pattern: pattern.to_owned(),
        reason,
    };
    if pattern.trim().is_empty() {
        return Err(error("it is empty".to_owned()));
    }
    GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(false)
        .build()
        .map_err(|glob_error| error(glob_error.kind().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Redaction {
        Redaction::configured(true, &[]).unwrap()
    }

    #[test]
    fn credentials_in_common_controllers_annotations_are_redacted() {
        let redaction = defaults();
        for key in [
            "nginx.ingress.kubernetes.io/configuration-snippet",
            "nginx.ingress.kubernetes.io/server-snippet",
            "nginx.ingress.kubernetes.io/auth-snippet",
            "nginx.ingress.kubernetes.io/stream-snippet",
            "nginx.ingress.kubernetes.io/auth-secret",
            "haproxy.org/backend-config-snippet",
            "ingress.kubernetes.io/custom-request-headers",
            "example.com/API-Token",
            "example.com/db-password",
            "example.com/apikey",
            "kubectl.kubernetes.io/last-applied-configuration",
        ] {
            assert!(redaction.is_redacted(key), "{key}");
        }
        for key in [
            "nginx.ingress.kubernetes.io/proxy-body-size",
            "nginx.ingress.kubernetes.io/rewrite-target",
            "nginx.ingress.kubernetes.io/auth-url",
            "kubernetes.io/ingress.class",
            "cert-manager.io/cluster-issuer",
            "traefik.ingress.kubernetes.io/router.middlewares",
            "traefik.ingress.kubernetes.io/router.entrypoints",
            "team",
        ] {
            assert!(!redaction.is_redacted(key), "{key}");
        }
    }

    #[test]
    fn values_are_replaced_and_keys_kept() {
        let redaction = Redaction::configured(false, &["example.com/*".to_owned()]).unwrap();
        let mut annotations = BTreeMap::from([
            ("example.com/anything".to_owned(), "x".to_owned()),
            (
                "nginx.ingress.kubernetes.io/server-snippet".to_owned(),
                "y".to_owned(),
            ),
        ]);
        redaction.apply(&mut annotations);
        assert_eq!(annotations["example.com/anything"], REDACTED);
        assert_eq!(
            annotations["nginx.ingress.kubernetes.io/server-snippet"],
            "y"
        );
    }

    #[test]
    fn credential_named_values_in_a_spec_are_redacted_at_any_depth() {
        let mut route = serde_json::json!({
            "metadata": {"annotations": {LAST_APPLIED: "{}", "team": "shop"}},
            "spec": {"rules": [{
                "filters": [{"requestHeaderModifier": {
                    "set": [{"name": "Authorization", "value": "Basic x"}, {"name": "X-Env", "value": "prod"}],
                    "add": [{"name": "X-API-KEY", "value": "k"}, {"name": "Cookie", "value": "c"}],
                    "remove": ["Authorization"]}}],
                "matches": [{"queryParams": [{"name": "access_token", "value": "t"}]}],
                "backendRefs": [{"name": "session-store", "port": 80}],
            }]},
            "status": {"name": "token", "value": "kept: status is not configuration"},
        });
        defaults().apply_to_object(&mut route);
        let rule = &route["spec"]["rules"][0];
        let modifier = &rule["filters"][0]["requestHeaderModifier"];
        assert_eq!(modifier["set"][0]["value"], REDACTED);
        assert_eq!(modifier["set"][1]["value"], "prod");
        assert_eq!(modifier["add"][0]["value"], REDACTED);
        assert_eq!(modifier["add"][1]["value"], REDACTED);
        assert_eq!(modifier["remove"][0], "Authorization");
        assert_eq!(rule["matches"][0]["queryParams"][0]["value"], REDACTED);
        assert_eq!(rule["backendRefs"][0]["name"], "session-store");
        assert_eq!(route["metadata"]["annotations"][LAST_APPLIED], REDACTED);
        assert_eq!(route["metadata"]["annotations"]["team"], "shop");
        assert_eq!(
            route["status"]["value"],
            "kept: status is not configuration"
        );
    }

    #[test]
    fn invalid_patterns_are_named() {
        let error = Redaction::new(["ok-*", "bad-[a"]).unwrap_err();
        assert_eq!(error.pattern, "bad-[a");
        assert!(Redaction::new([" "]).is_err());
    }
}
