//! Index and alias names from the browser, checked by the documented rules before any of them
//! reaches a cluster path (`manage::segment` then encodes them as one path segment).
//!
//! The rules (Elasticsearch 8 "Create index API", OpenSearch 2 "Create index"): lowercase
//! (indices only; aliases may have capitals), none of `\ / * ? " < > | , #`, no space, no `:`
//! (refused since 7.0), not starting with `-`, `_` or `+`, not `.` or `..`, at most 255 bytes.
//! OpenSearch also refuses `+` anywhere in a new index's name. The same rules keep out every
//! multi-index expression (`*`, `a,b`, `_all`) and every path trick (`/`, `..`, `?`, `#`).

use crate::cluster::dialect::Dialect;
use crate::error::Error;

/// What a name names, for the rules and the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameKind {
    Index,
    Alias,
}

impl NameKind {
    fn word(self) -> &'static str {
        match self {
            Self::Index => "index",
            Self::Alias => "alias",
        }
    }
}

/// The longest name the clusters accept, in bytes.
pub(crate) const MAX_NAME_BYTES: usize = 255;

const FORBIDDEN: &[char] = &['\\', '/', '*', '?', '"', '<', '>', '|', ',', '#', ':', ' '];

/// Checks one index or alias name; the message names the rule broken.
pub(crate) fn check_name(name: &str, kind: NameKind) -> Result<(), Error> {
    let word = kind.word();
    let shown: String = name.chars().take(80).collect();
    let bad = |rule: String| {
        Err(Error::BadRequest(format!(
            "The {word} name \"{shown}\" {rule}."
        )))
    };
    if name.is_empty() {
        return Err(Error::BadRequest(format!("The {word} name is empty.")));
    }
    if name.len() > MAX_NAME_BYTES {
        return bad(format!(
            "is {} bytes long; the limit is {MAX_NAME_BYTES}",
            name.len()
        ));
    }
    if name == "." || name == ".." {
        return bad("is not a name".to_owned());
    }
    if name.starts_with(['-', '_', '+']) {
        return bad(
            "must not start with -, _ or + (wildcards, _all and APIs are not names)".to_owned(),
        );
    }
    if let Some(found) = name.chars().find(|c| FORBIDDEN.contains(c)) {
        let shown_char = if found == ' ' {
            "a space".to_owned()
        } else {
            format!("\"{found}\"")
        };
        return bad(format!(
            "contains {shown_char}; names may not contain \\ / * ? \" < > | , # : or spaces (one name, no wildcards or lists)"
        ));
    }
    if name.chars().any(char::is_control) {
        return bad("contains a control character".to_owned());
    }
    if kind == NameKind::Index && name.chars().any(char::is_uppercase) {
        return bad("must be lowercase".to_owned());
    }
    Ok(())
}

/// Checks the name of an index about to be created: the rules above, and OpenSearch's refusal
/// of `+` anywhere.
pub(crate) fn check_new_index_name(name: &str, dialect: Dialect) -> Result<(), Error> {
    check_name(name, NameKind::Index)?;
    if dialect.is_opensearch() && name.contains('+') {
        return Err(Error::BadRequest(format!(
            "The index name \"{name}\" contains \"+\", which OpenSearch does not accept in index names."
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn message(name: &str, kind: NameKind) -> String {
        check_name(name, kind).unwrap_err().to_string()
    }

    #[test]
    fn plain_names_pass() {
        for name in [
            "logs-2026.11.24",
            "a",
            ".kibana_1",
            "é-index",
            "x+y",
            &"a".repeat(255),
        ] {
            check_name(name, NameKind::Index).unwrap();
        }
        check_name("Logs-Read", NameKind::Alias).unwrap();
    }

    #[test]
    fn each_rule_has_its_message() {
        for (name, rule) in [
            ("", "is empty"),
            ("Logs", "must be lowercase"),
            ("_all", "must not start with"),
            ("-x", "must not start with"),
            ("+x", "must not start with"),
            ("*", "contains \"*\""),
            ("logs-*", "contains \"*\""),
            ("a,b", "contains \",\""),
            ("a/b", "contains \"/\""),
            ("../x", "contains \"/\""),
            ("..", "is not a name"),
            (".", "is not a name"),
            ("a?b", "contains \"?\""),
            ("a#b", "contains \"#\""),
            ("remote:logs", "contains \":\""),
            ("a b", "contains a space"),
            ("a\u{7}b", "control character"),
        ] {
            let text = message(name, NameKind::Index);
            assert!(text.contains(rule), "{name:?}: {text}");
        }
        let long = "é".repeat(128);
        assert!(message(&long, NameKind::Index).contains("is 256 bytes long"));
        assert!(message("_x", NameKind::Alias).starts_with("The alias name"));
    }

    #[test]
    fn opensearch_refuses_a_plus_in_a_new_index() {
        let opensearch = Dialect::from_root(
            &json!({"version": {"distribution": "opensearch", "number": "2.19.0"}}),
        );
        let elasticsearch = Dialect::from_root(&json!({"version": {"number": "8.15.0"}}));
        assert!(check_new_index_name("a+b", opensearch).is_err());
        check_new_index_name("a+b", elasticsearch).unwrap();
    }
}
