//! Names of a cluster's own security entries: users, roles and role mappings (OpenSearch's
//! security plugin and Elasticsearch's native realm).

use super::segment;
use crate::error::Error;

/// A user, role or role mapping name: what both clusters accept (1 to 507 printable
/// characters, no leading or trailing space) minus what must never reach a URL path or a
/// listing unescaped: control characters, `/`, `\`, `.` and `..`; and `,` and `*`, which
/// Elasticsearch reads in `_security/user/<names>` as a list or a wildcard (such an entry could
/// be created and then never be viewed or deleted one by one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecurityName(String);

impl SecurityName {
    pub(crate) fn parse(name: &str) -> Result<Self, Error> {
        let bad = |why: &str| {
            Err(Error::BadRequest(format!(
                "The name \"{}\" is not valid: {why}.",
                name.escape_debug()
            )))
        };
        if name.is_empty() {
            return bad("it is empty");
        }
        if name.chars().count() > 507 {
            return bad("it is longer than 507 characters");
        }
        if name == "." || name == ".." {
            return bad("it cannot be . or ..");
        }
        if name.trim() != name {
            return bad("it must not start or end with a space");
        }
        if let Some(c) = name
            .chars()
            .find(|c| c.is_control() || matches!(c, '/' | '\\' | ',' | '*'))
        {
            return bad(&format!("it must not contain {c:?}"));
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
    fn security_names_are_printable_and_stay_one_path_segment() {
        for good in [
            "alice",
            "kibana_system",
            "ops team",
            "Ålesund-1",
            "a@b.c",
            "_x",
        ] {
            assert!(SecurityName::parse(good).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("", "empty"),
            ("..", ". or .."),
            (" a", "space"),
            ("a/b", "'/'"),
            ("a\\b", "'\\\\'"),
            ("a\nb", "'\\n'"),
            ("a,b", "','"),
            ("ops*", "'*'"),
        ] {
            let message = SecurityName::parse(bad).unwrap_err().to_string();
            assert!(message.contains(why), "{bad:?}: {message}");
        }
        assert!(SecurityName::parse(&"a".repeat(508)).is_err());
        let name = SecurityName::parse("a b?#%").unwrap();
        assert_eq!(name.segment(), "a%20b%3F%23%25");
    }
}
