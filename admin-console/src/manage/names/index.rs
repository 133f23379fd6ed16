//! Index, alias and data stream names from the browser, parsed by the documented rules before
//! any of them reaches a cluster path or body ([`IndexName::segment`] and
//! [`DataStreamName::segment`] encode one as one path segment; aliases reach bodies, and a
//! rollover's path through [`AliasName::segment`]).
//!
//! The rules (Elasticsearch 8 "Create index API", OpenSearch 2 "Create index"): lowercase
//! (indices only; aliases may have capitals), none of `\ / * ? " < > | , #`, no space, no `:`
//! (refused since 7.0), not starting with `-`, `_` or `+`, not `.` or `..`, at most 255 bytes.
//! OpenSearch also refuses `+` anywhere in a new index's name. The same rules keep out every
//! multi-index expression (`*`, `a,b`, `_all`) and every path trick (`/`, `..`, `?`, `#`).

use super::segment;
use crate::cluster::dialect::Dialect;
use crate::error::Error;

/// One index, named exactly (never a pattern, a list or `_all`); system (dot) indices allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexName(String);

impl IndexName {
    /// An existing index (or one a simulation names): the rules above.
    pub(crate) fn parse(text: &str) -> Result<Self, Error> {
        check(text, NameKind::Index)?;
        Ok(Self(text.to_owned()))
    }

    /// The name of an index about to be created: the rules above, and OpenSearch's refusal of
    /// `+` anywhere.
    pub(crate) fn parse_new(text: &str, dialect: Dialect) -> Result<Self, Error> {
        let name = Self::parse(text)?;
        if dialect.is_opensearch() && text.contains('+') {
            return Err(Error::BadRequest(format!(
                "The index name \"{text}\" contains \"+\", which OpenSearch does not accept in index names."
            )));
        }
        Ok(name)
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The name percent-encoded as one path segment.
    pub(crate) fn segment(&self) -> String {
        segment(&self.0)
    }
}

/// One alias, named exactly: the index rules, capitals allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AliasName(String);

impl AliasName {
    pub(crate) fn parse(text: &str) -> Result<Self, Error> {
        check(text, NameKind::Alias)?;
        Ok(Self(text.to_owned()))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The name percent-encoded as one path segment (a rollover's path).
    pub(crate) fn segment(&self) -> String {
        segment(&self.0)
    }
}

/// One data stream, named exactly: the index rules, and not `.ds-…` (its backing indices' prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DataStreamName(String);

impl DataStreamName {
    pub(crate) fn parse(text: &str) -> Result<Self, Error> {
        check(text, NameKind::DataStream)?;
        if text.starts_with(".ds-") {
            return Err(Error::BadRequest(format!(
                "The data stream name \"{text}\" must not start with .ds- (the prefix of backing indices)."
            )));
        }
        Ok(Self(text.to_owned()))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The name percent-encoded as one path segment.
    pub(crate) fn segment(&self) -> String {
        segment(&self.0)
    }
}

/// What a name names, for the rules and the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameKind {
    Index,
    Alias,
    DataStream,
}

impl NameKind {
    fn word(self) -> &'static str {
        match self {
            Self::Index => "index",
            Self::Alias => "alias",
            Self::DataStream => "data stream",
        }
    }
}

/// The longest name the clusters accept, in bytes.
const MAX_NAME_BYTES: usize = 255;

const FORBIDDEN: &[char] = &['\\', '/', '*', '?', '"', '<', '>', '|', ',', '#', ':', ' '];

/// Checks one index or alias name; the message names the rule broken.
fn check(name: &str, kind: NameKind) -> Result<(), Error> {
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
    if kind != NameKind::Alias && name.chars().any(char::is_uppercase) {
        return bad("must be lowercase".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn message(name: &str, kind: NameKind) -> String {
        check(name, kind).unwrap_err().to_string()
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
            IndexName::parse(name).unwrap();
        }
        AliasName::parse("Logs-Read").unwrap();
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
    fn data_stream_names_are_index_names_that_are_not_backing_indices() {
        DataStreamName::parse("logs-app-default").unwrap();
        for (name, rule) in [
            ("Logs", "must be lowercase"),
            ("logs-*", "contains \"*\""),
            ("_all", "must not start with"),
            (".ds-logs-000001", "must not start with .ds-"),
        ] {
            let text = DataStreamName::parse(name).unwrap_err().to_string();
            assert!(text.starts_with("The data stream name"), "{text}");
            assert!(text.contains(rule), "{name:?}: {text}");
        }
    }

    #[test]
    fn opensearch_refuses_a_plus_in_a_new_index() {
        let opensearch = Dialect::from_root(
            &json!({"version": {"distribution": "opensearch", "number": "2.19.0"}}),
        );
        let elasticsearch = Dialect::from_root(&json!({"version": {"number": "8.15.0"}}));
        assert!(IndexName::parse_new("a+b", opensearch).is_err());
        IndexName::parse_new("a+b", elasticsearch).unwrap();
    }
}
