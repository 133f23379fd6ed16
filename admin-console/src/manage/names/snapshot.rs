//! The names a snapshot call takes (repositories, snapshots, index patterns) checked by the
//! rules the cluster applies, before they reach a path or a body, and the path segments built
//! from them.

use super::segment;
use crate::error::Error;

/// Characters neither a repository nor a snapshot name may hold: the cluster's invalid file
/// name characters (`\ / * ? " < > |`, space, `,`) and `#`.
const FORBIDDEN: &[char] = &['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',', '#'];

/// Longest name accepted (the cluster's own file-name bound).
const MAX_NAME_BYTES: usize = 255;

/// What a name names, for the rules and the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameKind {
    Repository,
    /// A snapshot to take: lowercase.
    Snapshot,
    /// A snapshot named in a path: it may carry capitals (taken by another tool).
    ExistingSnapshot,
}

impl NameKind {
    fn word(self) -> &'static str {
        match self {
            Self::Repository => "repository",
            Self::Snapshot | Self::ExistingSnapshot => "snapshot",
        }
    }
}

/// A snapshot repository, by the rules of [`parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepositoryName(String);

impl RepositoryName {
    pub(crate) fn parse(text: &str) -> Result<Self, Error> {
        parse(NameKind::Repository, text).map(Self)
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The name percent-encoded as one path segment.
    pub(crate) fn segment(&self) -> String {
        segment(&self.0)
    }
}

/// A snapshot, by the rules of [`parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SnapshotName(String);

impl SnapshotName {
    /// A snapshot to take: lowercase.
    pub(crate) fn parse_new(text: &str) -> Result<Self, Error> {
        parse(NameKind::Snapshot, text).map(Self)
    }

    /// A snapshot named in a path: the rules of a new name, except case (a snapshot taken by
    /// another tool may carry capitals and must still be reachable).
    pub(crate) fn parse(text: &str) -> Result<Self, Error> {
        parse(NameKind::ExistingSnapshot, text).map(Self)
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The name percent-encoded as one path segment.
    pub(crate) fn segment(&self) -> String {
        segment(&self.0)
    }
}

/// A repository or snapshot name that passes the cluster's rules (Elasticsearch and OpenSearch
/// share them): not empty, no whitespace, none of `\ / * ? " < > | , #`, not starting with `_`,
/// not `.` or `..`; a new snapshot's name is also lowercase. It is safe as one path segment once
/// encoded.
fn parse(kind: NameKind, text: &str) -> Result<String, Error> {
    let word = kind.word();
    let bad = |rule: &str| {
        Err(Error::BadRequest(format!(
            "The {word} name \"{}\" {rule}.",
            shown(text)
        )))
    };
    if text.is_empty() {
        return Err(Error::BadRequest(format!(
            "The {word} name must not be empty."
        )));
    }
    if text.len() > MAX_NAME_BYTES {
        return bad(&format!("is longer than {MAX_NAME_BYTES} bytes"));
    }
    if text.chars().any(char::is_whitespace) {
        return bad("must not contain whitespace");
    }
    if let Some(c) = text.chars().find(|c| FORBIDDEN.contains(c)) {
        return bad(&format!(
            "must not contain '{c}' (nor any of \\ / * ? \" < > | , #)"
        ));
    }
    if text.chars().any(char::is_control) {
        return bad("must not contain control characters");
    }
    if text.starts_with('_') {
        return bad("must not start with '_'");
    }
    if text == "." || text == ".." {
        return bad("must not be '.' or '..'");
    }
    if kind == NameKind::Snapshot && text.to_lowercase() != text {
        return bad("must be lowercase");
    }
    Ok(text.to_owned())
}

/// A name as shown in a message: at most 80 characters, control characters escaped.
fn shown(text: &str) -> String {
    let short: String = text.chars().take(80).collect();
    let short = short.escape_debug().to_string();
    if text.chars().count() > 80 {
        format!("{short}…")
    } else {
        short
    }
}

/// Index names or patterns for a snapshot or a restore (`logs-*`, `-logs-old`), joined by commas
/// for the cluster. Each is checked by the index name rules, `*` allowed and a leading `-`
/// (exclusion) allowed; an empty list means every index.
pub(crate) fn index_patterns(patterns: &[String]) -> Result<Option<String>, Error> {
    const MAX_PATTERNS: usize = 1000;
    if patterns.len() > MAX_PATTERNS {
        return Err(Error::BadRequest(format!(
            "At most {MAX_PATTERNS} index names or patterns are accepted; {} were given.",
            patterns.len()
        )));
    }
    let mut checked = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        let pattern = pattern.trim();
        let bad = |rule: &str| {
            Err(Error::BadRequest(format!(
                "The index pattern \"{}\" {rule}.",
                shown(pattern)
            )))
        };
        let body = pattern.strip_prefix('-').unwrap_or(pattern);
        if body.is_empty() {
            return Err(Error::BadRequest(
                "An index name or pattern must not be empty.".to_owned(),
            ));
        }
        if pattern.len() > MAX_NAME_BYTES {
            return bad(&format!("is longer than {MAX_NAME_BYTES} bytes"));
        }
        if pattern.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return bad("must not contain whitespace");
        }
        if let Some(c) = pattern
            .chars()
            .find(|c| ['\\', '/', '?', '"', '<', '>', '|', ',', '#', ':'].contains(c))
        {
            return bad(&format!(
                "must not contain '{c}' (nor any of \\ / ? \" < > | , # :)"
            ));
        }
        if body.starts_with('_') || body.starts_with('+') {
            return bad("must not start with '_' or '+'");
        }
        if body == "." || body == ".." {
            return bad("must not be '.' or '..'");
        }
        if pattern.to_lowercase() != pattern {
            return bad("must be lowercase");
        }
        checked.push(pattern.to_owned());
    }
    Ok((!checked.is_empty()).then(|| checked.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<impl std::fmt::Debug, Error>) -> String {
        match result {
            Err(Error::BadRequest(message)) => message,
            other => panic!("expected a bad request, got {other:?}"),
        }
    }

    #[test]
    fn names_follow_the_cluster_rules() {
        for good in ["backups", "nightly-2026.11.24", "Repo_1", "a.b"] {
            assert!(parse(NameKind::Repository, good).is_ok(), "{good}");
        }
        assert!(parse(NameKind::Snapshot, "snapshot-2026.11.24-0423").is_ok());
        assert!(parse(NameKind::ExistingSnapshot, "Weekly-1").is_ok());
        for (kind, bad, says) in [
            (NameKind::Repository, "", "must not be empty"),
            (NameKind::Repository, "a b", "must not contain whitespace"),
            (NameKind::Repository, "a/b", "must not contain '/'"),
            (NameKind::Repository, "a,b", "must not contain ','"),
            (NameKind::Repository, "a#b", "must not contain '#'"),
            (NameKind::Repository, "a*", "must not contain '*'"),
            (NameKind::Repository, "a?b", "must not contain '?'"),
            (NameKind::Repository, "_all", "must not start with '_'"),
            (NameKind::Repository, "..", "must not be '.' or '..'"),
            (NameKind::Repository, "a\u{7}", "control characters"),
            (NameKind::Snapshot, "Nightly", "must be lowercase"),
            (NameKind::Snapshot, "_status", "must not start with '_'"),
            (
                NameKind::ExistingSnapshot,
                "a/b",
                "snapshot name \"a/b\" must not contain '/'",
            ),
            (
                NameKind::ExistingSnapshot,
                "_all",
                "must not start with '_'",
            ),
        ] {
            let text = message(parse(kind, bad));
            assert!(text.contains(says), "{bad:?}: {text}");
        }
        let long = "a".repeat(256);
        assert!(message(parse(NameKind::Snapshot, &long)).contains("longer than 255"));
    }

    #[test]
    fn a_segment_cannot_leave_its_place_in_the_path() {
        let name = RepositoryName::parse("é%2F.x").unwrap();
        assert_eq!(name.segment(), "%C3%A9%252F.x");
    }

    #[test]
    fn index_patterns_are_checked_and_joined() {
        assert_eq!(index_patterns(&[]).unwrap(), None);
        assert_eq!(
            index_patterns(&["logs-*".into(), " -logs-old ".into(), "books".into()]).unwrap(),
            Some("logs-*,-logs-old,books".to_owned())
        );
        for (bad, says) in [
            ("", "must not be empty"),
            ("-", "must not be empty"),
            ("a,b", "must not contain ','"),
            ("a b", "must not contain whitespace"),
            ("Logs", "must be lowercase"),
            ("_all", "must not start with '_'"),
            ("remote:logs", "must not contain ':'"),
            ("..", "must not be '.' or '..'"),
        ] {
            let text = message(index_patterns(&[bad.to_owned()]));
            assert!(text.contains(says), "{bad:?}: {text}");
        }
        let many = vec!["a".to_owned(); 1001];
        assert!(message(index_patterns(&many)).contains("At most 1000"));
    }
}
