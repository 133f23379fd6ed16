//! Template names (index, component and legacy templates share the rules).

use super::segment;
use crate::error::Error;

/// A template name by the rules the cluster applies when one is created (no spaces, commas,
/// `#`, `*`, no leading `_`, lower case), plus what must never reach a URL path: `/`, `\`, `?`,
/// `%`, quotes, control characters, `.` and `..`, more than 255 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TemplateName(String);

impl TemplateName {
    pub(crate) fn parse(name: &str) -> Result<Self, Error> {
        let bad = |why: &str| {
            Err(Error::BadRequest(format!(
                "The template name \"{}\" is not valid: {why}.",
                name.escape_debug()
            )))
        };
        if name.is_empty() {
            return bad("it is empty");
        }
        if name.len() > 255 {
            return bad("it is longer than 255 bytes");
        }
        if name == "." || name == ".." {
            return bad("it cannot be . or ..");
        }
        if name.starts_with('_') {
            return bad("it must not start with _");
        }
        if let Some(c) = name.chars().find(|c| {
            c.is_control()
                || c.is_whitespace()
                || matches!(
                    c,
                    ',' | '#' | '*' | '/' | '\\' | '?' | '%' | '"' | '<' | '>' | '|'
                )
        }) {
            return bad(&format!("it must not contain {c:?}"));
        }
        if name.to_lowercase() != name {
            return bad("it must be lower case");
        }
        Ok(Self(name.to_owned()))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The name percent-encoded as one path segment.
    pub(crate) fn segment(&self) -> String {
        segment(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_names_follow_the_cluster_rules_and_stay_one_path_segment() {
        for good in ["logs", "logs-2026", ".internal", "logs@mappings", "a_b"] {
            assert!(TemplateName::parse(good).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("", "empty"),
            ("_x", "start with _"),
            ("Logs", "lower case"),
            ("a b", "' '"),
            ("a,b", "','"),
            ("a*", "'*'"),
            ("a/b", "'/'"),
            ("..", ". or .."),
            ("a?b", "'?'"),
            ("a%2f", "'%'"),
            ("a#b", "'#'"),
            ("a\nb", "'\\n'"),
        ] {
            let message = TemplateName::parse(bad).unwrap_err().to_string();
            assert!(message.contains(why), "{bad:?}: {message}");
        }
        assert!(TemplateName::parse(&"a".repeat(256)).is_err());
    }
}
