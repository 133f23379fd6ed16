//! Annotation values that often hold credentials (nginx `*-snippet` configuration, basic-auth
//! or API tokens in custom annotations, headers with `Authorization`) are replaced by
//! [`REDACTED`] before a record is cached, stored or sent: the key stays visible, so a reader
//! still sees that the annotation is set. Keys are matched against glob patterns
//! (`annotations.redact`, plus [`DEFAULT_PATTERNS`] unless `annotations.redact_defaults` is
//! false), case-insensitively; `*` also crosses the `/` between prefix and name.

use std::collections::BTreeMap;

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

/// The compiled patterns.
#[derive(Debug, Clone)]
pub struct Redaction {
    patterns: GlobSet,
}

impl Redaction {
    /// Compiles `patterns`; an error names the first pattern that is not a valid glob.
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, PatternError> {
        let mut set = GlobSetBuilder::new();
        for pattern in patterns {
            set.add(compile(pattern)?);
        }
        let patterns = set.build().map_err(|error| PatternError {
            pattern: String::new(),
            reason: error.kind().to_string(),
        })?;
        Ok(Self { patterns })
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
        }
    }

    pub fn is_redacted(&self, key: &str) -> bool {
        self.patterns.is_match(key)
    }

    /// Replaces the value of every annotation whose key matches.
    pub fn apply(&self, annotations: &mut BTreeMap<String, String>) {
        for (key, value) in annotations.iter_mut() {
            if self.is_redacted(key) {
                REDACTED.clone_into(value);
            }
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
    fn invalid_patterns_are_named() {
        let error = Redaction::new(["ok-*", "bad-[a"]).unwrap_err();
        assert_eq!(error.pattern, "bad-[a");
        assert!(Redaction::new([" "]).is_err());
    }
}
