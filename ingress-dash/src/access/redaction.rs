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
//! visible, so a reader still sees that the annotation or header is set. What an object's
//! redaction hides is hidden in the messages of its Kubernetes events too ([`SecretTexts`]):
//! controllers quote the configuration they refuse.

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
    /// `annotations.redact` (`extra`, compiled when the configuration was read), after the
    /// built-in patterns unless `defaults` is false.
    pub fn configured(defaults: bool, extra: &[RedactPattern]) -> Result<Self, PatternError> {
        let mut set = GlobSetBuilder::new();
        for pattern in DEFAULT_PATTERNS.iter().filter(|_| defaults) {
            set.add(compile(pattern)?);
        }
        for RedactPattern(glob) in extra {
            set.add(glob.clone());
        }
        Ok(Self {
            patterns: build(set)?,
            secret_names: compile_set(SECRET_NAME_PATTERNS.iter().copied())?,
        })
    }

    /// No redaction at all (tests of other parts, and the sample records of the packing
    /// dictionary).
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
        self.visit_secrets(object, &mut |value| {
            *value = Value::String(REDACTED.to_owned());
        });
    }

    /// The texts [`Redaction::apply_to_object`] hides in `object`, to hide them wherever the
    /// API server repeats them.
    pub fn secret_texts(&self, object: &Value) -> SecretTexts {
        let mut copy = object.clone();
        let mut values = Vec::new();
        self.visit_secrets(&mut copy, &mut |value| {
            if let Value::String(text) = value {
                values.push(std::mem::take(text));
            }
        });
        SecretTexts::new(&values)
    }

    /// Calls `hide` with every value of `object` that carries a credential.
    fn visit_secrets(&self, object: &mut Value, hide: &mut dyn FnMut(&mut Value)) {
        if let Some(annotations) = object
            .pointer_mut("/metadata/annotations")
            .and_then(Value::as_object_mut)
        {
            for (key, value) in annotations.iter_mut() {
                if key == LAST_APPLIED || self.is_redacted(key) {
                    hide(value);
                }
            }
        }
        if let Some(spec) = object.get_mut("spec") {
            self.visit_named_values(spec, hide);
        }
    }

    /// Every `{"name": …, "value": "…"}` at any depth whose name is a credential's: header
    /// filters' `set` and `add`, header and query matches. (The JSON parser bounds the depth.)
    fn visit_named_values(&self, value: &mut Value, hide: &mut dyn FnMut(&mut Value)) {
        match value {
            Value::Array(items) => {
                for item in items {
                    self.visit_named_values(item, hide);
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
                    hide(text);
                }
                for field in fields.values_mut() {
                    self.visit_named_values(field, hide);
                }
            }
            _ => {}
        }
    }
}

/// Shorter texts are not looked for in free text: they would hide common words.
const MIN_QUOTED_CHARS: usize = 6;

/// The secret values of one object, and each line of a value of several lines (a controller
/// quotes the line of a snippet it refuses), longest first.
#[derive(Debug, Clone, Default)]
pub struct SecretTexts(Vec<String>);

impl SecretTexts {
    fn new(values: &[String]) -> Self {
        let mut texts: Vec<String> = values
            .iter()
            .flat_map(|value| std::iter::once(value.as_str()).chain(value.lines().map(str::trim)))
            .filter(|text| text.chars().count() >= MIN_QUOTED_CHARS)
            .map(str::to_owned)
            .collect();
        texts.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        texts.dedup();
        Self(texts)
    }

    /// `text` with every secret text in it replaced by [`REDACTED`].
    pub fn hide_in(&self, text: String) -> String {
        self.0.iter().fold(text, |text, secret| {
            if text.contains(secret.as_str()) {
                text.replace(secret.as_str(), REDACTED)
            } else {
                text
            }
        })
    }
}

/// A pattern of `annotations.redact` that is not a valid glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{pattern}\" is not a valid glob: {reason}")]
pub struct PatternError {
    pub pattern: String,
    pub reason: String,
}

/// One entry of `annotations.redact`, compiled as the configuration is read: a pattern that is
/// not a valid glob is a configuration problem named `annotations.redact[<index>]`.
#[derive(Debug, Clone)]
pub struct RedactPattern(globset::Glob);

impl RedactPattern {
    pub fn parse(pattern: &str) -> Result<Self, PatternError> {
        compile(pattern).map(Self)
    }
}

impl<'de> serde::Deserialize<'de> for RedactPattern {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let pattern = String::deserialize(deserializer)?;
        Self::parse(&pattern).map_err(|error| {
            serde::de::Error::custom(format!("is not a valid glob pattern ({})", error.reason))
        })
    }
}

fn compile_set<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<GlobSet, PatternError> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        set.add(compile(pattern)?);
    }
    build(set)
}

fn build(set: GlobSetBuilder) -> Result<GlobSet, PatternError> {
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
        let redaction =
            Redaction::configured(false, &[RedactPattern::parse("example.com/*").unwrap()])
                .unwrap();
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
    fn an_objects_secret_values_and_their_lines_are_hidden_in_free_text() {
        let object = serde_json::json!({
            "metadata": {"annotations": {
                "example.com/configuration-snippet": "more_set_headers \"X: y\";\n  proxy_set_header Authorization \"Basic c2Vj\";\n",
                "example.com/db-password": "abc",
                "team": "shop",
            }},
            "spec": {"filters": [{"set": [{"name": "X-Api-Key", "value": "k3y-abc123"}]}]},
        });
        let secrets = defaults().secret_texts(&object);
        assert_eq!(
            secrets.hide_in(
                "refused: proxy_set_header Authorization \"Basic c2Vj\"; key k3y-abc123; team shop; abc"
                    .to_owned()
            ),
            "refused: <redacted> key <redacted>; team shop; abc",
            "too short a value (abc) is not looked for"
        );
        assert_eq!(SecretTexts::default().hide_in("x".to_owned()), "x");
    }

    #[test]
    fn invalid_patterns_are_named() {
        assert!(RedactPattern::parse("ok-*").is_ok());
        let error = RedactPattern::parse("bad-[a").unwrap_err();
        assert_eq!(error.pattern, "bad-[a");
        assert!(RedactPattern::parse(" ").is_err());
    }
}
