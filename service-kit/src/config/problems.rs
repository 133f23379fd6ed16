//! Collecting every configuration problem before reporting, so one `--validate-config` run shows
//! all of them.

use std::fmt;

/// One problem with one key. Displays as `<key>: <message>`; the message never quotes the value,
/// because the value may be a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

/// Every problem found in one configuration, in the order found. Displays one per line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigProblems(Vec<ConfigProblem>);

impl ConfigProblems {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.0.push(ConfigProblem {
            key: key.into(),
            message: message.into(),
        });
    }

    pub fn push_problem(&mut self, problem: ConfigProblem) {
        self.0.push(problem);
    }

    /// Records `message` for `key` unless `ok` holds.
    pub fn check(&mut self, ok: bool, key: &str, message: impl Into<String>) {
        if !ok {
            self.push(key, message);
        }
    }

    /// Orders by key so output is stable (the YAML tables are hash maps).
    pub fn sort_by_key(&mut self) {
        self.0.sort_by(|a, b| a.key.cmp(&b.key));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &ConfigProblem> {
        self.0.iter()
    }

    pub fn extend(&mut self, other: ConfigProblems) {
        self.0.extend(other.0);
    }

    /// `Ok(value)` when nothing was found, the problems otherwise.
    pub fn into_result<T>(self, value: T) -> Result<T, ConfigProblems> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for ConfigProblems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigProblems {}

/// Turns a `config` crate error into one problem naming the key, without the offending value.
///
/// serde's messages quote the value (`invalid type: string "hunter2", expected u16`); the value
/// may be a secret, so only its kind is kept.
pub(crate) fn problem_from_config_error(error: &config::ConfigError) -> ConfigProblem {
    use config::ConfigError;
    match error {
        ConfigError::Type {
            unexpected,
            expected,
            key,
            ..
        } => {
            let found = kind_without_value(&unexpected.to_string());
            let message = if is_number(&found) && is_number(expected) {
                format!("is out of range for {expected}")
            } else {
                format!("expected {}, found {found}", explain_expected(expected))
            };
            ConfigProblem {
                key: normalize_key(key.as_deref().unwrap_or_default()),
                message,
            }
        }
        ConfigError::At { error, key, .. } => {
            if let (ConfigError::Message(message), Some(parent)) = (error.as_ref(), key)
                && let Some(problem) = unknown_field_problem(parent, message)
            {
                return problem;
            }
            let inner = problem_from_config_error(error);
            let key = match (key.as_deref(), inner.key.as_str()) {
                (Some(outer), "") => outer.to_owned(),
                (Some(outer), inner_key) => format!("{outer}.{inner_key}"),
                (None, inner_key) => inner_key.to_owned(),
            };
            match inner.message.strip_prefix("missing field `") {
                // serde names a missing field at its parent; name the field itself.
                Some(rest) => ConfigProblem {
                    key: super::expand::join_key(
                        &normalize_key(&key),
                        rest.split('`').next().unwrap_or_default(),
                    ),
                    message: super::REQUIRED.to_owned(),
                },
                None => ConfigProblem {
                    key: normalize_key(&key),
                    message: inner.message,
                },
            }
        }
        ConfigError::NotFound(key) => ConfigProblem {
            key: normalize_key(key),
            message: super::REQUIRED.to_owned(),
        },
        ConfigError::FileParse { cause, .. } => ConfigProblem {
            key: String::new(),
            message: format!("the file is not valid YAML: {cause}"),
        },
        other => unknown_field_problem("", &other.to_string()).unwrap_or_else(|| ConfigProblem {
            key: String::new(),
            message: redact_serde_message(&other.to_string()),
        }),
    }
}

/// The message of a value that is not one of an enumeration's names, until the loader finds
/// which names the key accepts (`config` writes `enum Mode does not have variant constructor
/// <value>`, with the value and without the names).
pub(crate) const NOT_A_VARIANT: &str = "is not one of the values this key accepts";

/// `config`'s message for a value that names no variant of an enum.
fn is_unknown_variant(message: &str) -> bool {
    message.starts_with("enum ") && message.contains(" does not have variant constructor ")
}

/// The message of a value `accepted` lists the names for.
pub(crate) fn one_of(accepted: &[String]) -> String {
    match accepted {
        [] => NOT_A_VARIANT.to_owned(),
        [only] => format!("must be {only}"),
        [first, second] => format!("must be {first} or {second}"),
        [first @ .., last] => format!("must be one of {}, or {last}", first.join(", ")),
    }
}

/// The names serde's "unknown variant" message lists after `expected` (`` `a` ``, `` `a` or
/// `b` ``, `` one of `a`, `b`, `c` ``).
pub(crate) fn variants_of_serde_message(message: &str) -> Option<Vec<String>> {
    // The value comes first and may hold anything; the names hold no `, expected `.
    let (_, expected) = message.rsplit_once(", expected ")?;
    let names: Vec<String> = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    (!names.is_empty()).then_some(names)
}

/// The forms accepted where serde's `expected` names a kind users cannot guess.
fn explain_expected(expected: &str) -> String {
    if expected == "a duration" {
        "a duration: a number and a unit such as 500ms, 30s, 5m, 2h or 7d (units: ms, s, m, h, \
         d, w; combine them as in 1h30m; no sign)"
            .to_owned()
    } else {
        expected.to_owned()
    }
}

/// `config` writes `items[1]weight`; the documented form is `items[1].weight`.
fn normalize_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    let mut previous = None;
    for c in key.chars() {
        if previous == Some(']') && c != '[' && c != '.' {
            out.push('.');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

fn is_number(kind: &str) -> bool {
    kind.contains("integer") || kind.contains("floating")
}

/// serde reports `unknown field `prot`, expected ...` at the parent's key; name the key itself.
fn unknown_field_problem(parent: &str, message: &str) -> Option<ConfigProblem> {
    let rest = message.strip_prefix("unknown field `")?;
    // The key may hold a backtick itself: cut at the last separator serde writes.
    let (field, expected) = match rest.rsplit_once("`, expected ") {
        Some((field, expected)) => (field, format!("expected {expected}")),
        None => {
            let (field, expected) = rest.rsplit_once('`')?;
            (field, expected.trim_start_matches(", ").to_owned())
        }
    };
    Some(ConfigProblem {
        key: super::expand::join_key(&normalize_key(parent), field),
        message: format!("is not a known key ({expected})"),
    })
}

/// `string "abc"` → `a string`; `integer 64 bit `5`` → `an integer 64 bit`.
fn kind_without_value(unexpected: &str) -> String {
    let kind = unexpected
        .split(['"', '`'])
        .next()
        .unwrap_or(unexpected)
        .trim();
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

/// Removes the quoted value from serde's `invalid value: <kind> <value>, expected <what>` and
/// `invalid type: ...` messages; other messages (unknown field, missing field) name keys only.
pub(crate) fn redact_serde_message(message: &str) -> String {
    for prefix in ["invalid value: ", "invalid type: ", "invalid length "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((unexpected, expected)) = rest.split_once(", expected ")
        {
            let what = prefix.trim_end_matches([' ', ':']);
            return format!(
                "{what}: expected {}, found {}",
                explain_expected(expected),
                kind_without_value(unexpected)
            );
        }
    }
    if is_unknown_variant(message) {
        return NOT_A_VARIANT.to_owned();
    }
    message.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_values_are_redacted() {
        assert_eq!(
            redact_serde_message("invalid value: string \"hunter2\", expected a socket address"),
            "invalid value: expected a socket address, found a string"
        );
        assert_eq!(
            redact_serde_message("invalid value: integer `70000`, expected u16"),
            "invalid value: expected u16, found an integer"
        );
        assert_eq!(
            redact_serde_message("unknown field `prot`, expected `port`"),
            "unknown field `prot`, expected `port`"
        );
    }

    #[test]
    fn durations_show_the_accepted_forms() {
        let message =
            redact_serde_message("invalid value: string \"5 parsecs\", expected a duration");
        assert!(
            message.starts_with("invalid value: expected a duration: "),
            "{message}"
        );
        assert!(message.contains("30s, 5m"), "{message}");
        assert!(message.ends_with("found a string"), "{message}");
        assert!(!message.contains("parsecs"), "{message}");
    }

    #[test]
    fn unknown_variants_never_repeat_the_value() {
        assert_eq!(
            redact_serde_message("enum Mode does not have variant constructor hunter2"),
            NOT_A_VARIANT
        );
        assert_eq!(
            variants_of_serde_message(
                "unknown variant `hunter2`, expected one of `open`, `trusted_headers`"
            )
            .unwrap(),
            ["open", "trusted_headers"]
        );
        assert_eq!(
            variants_of_serde_message("unknown variant `x`, expected `a` or `b`").unwrap(),
            ["a", "b"]
        );
        assert_eq!(
            one_of(&["a".to_owned(), "b".to_owned(), "c".to_owned()]),
            "must be one of a, b, or c"
        );
        assert_eq!(one_of(&["a".to_owned()]), "must be a");
        assert_eq!(one_of(&["a".to_owned(), "b".to_owned()]), "must be a or b");
        assert_eq!(
            variants_of_serde_message("unknown variant `, expected `evil``, expected `a`").unwrap(),
            ["a"]
        );
    }

    #[test]
    fn problems_display_one_per_line() {
        let mut problems = ConfigProblems::new();
        problems.push("server.port", "must be between 1 and 65535");
        problems.push("", "the file is empty");
        assert_eq!(
            problems.to_string(),
            "server.port: must be between 1 and 65535\nthe file is empty"
        );
    }
}
