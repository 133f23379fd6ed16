//! The ids the cluster gives its nodes and tasks, named by the caller: one node id (never a node
//! selector such as `_local` or `*`) and one task id (`<node id>:<number>`).

use super::segment;
use crate::error::Error;

/// A node id or name naming exactly one node: letters, digits, `-`, `_` and `.`, up to 128,
/// not starting with `_` (`_local`, `_all`, `_master` select nodes rather than name one) unless
/// it is a generated node id: 22 characters of URL-safe base64, which start with `_` one time in
/// 64 (no selector is that long).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeId(String);

impl NodeId {
    /// The message names `field`, the parameter the id came in.
    pub(crate) fn parse(text: &str, field: &str) -> Result<Self, Error> {
        let generated_id = text.len() == 22
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
        let valid = !text.is_empty()
            && text.len() <= 128
            && (!text.starts_with('_') || generated_id)
            && text != "."
            && text != ".."
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if valid {
            Ok(Self(text.to_owned()))
        } else {
            Err(Error::BadRequest(format!(
                "{field} must be one node id (letters, digits, -, _ and ., up to 128, not starting with _ unless a 22-character node id), not \"{}\".",
                text.escape_debug()
            )))
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The id percent-encoded as one path segment (its rules leave nothing to encode).
    pub(crate) fn segment(&self) -> String {
        segment(&self.0)
    }
}

/// A task id as the cluster writes it: `<node id>:<number>` (node ids are URL-safe base64 or
/// names of letters, digits, `_`, `-` and `.`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskId(String);

impl TaskId {
    pub(crate) fn parse(id: &str) -> Result<Self, Error> {
        let valid = id.split_once(':').is_some_and(|(node, number)| {
            !node.is_empty()
                && node.len() <= 128
                && node
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                && node != "."
                && node != ".."
                && !number.is_empty()
                && number.len() <= 19
                && number.chars().all(|c| c.is_ascii_digit())
        });
        if valid {
            Ok(Self(id.to_owned()))
        } else {
            Err(Error::BadRequest(format!(
                "The task id \"{}\" is not valid: it is <node id>:<number>, like oTUltX4IQMOUUVeiohTt8A:12345.",
                id.escape_debug()
            )))
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as one path segment: node id and number each encoded (their rules leave nothing
    /// to encode), joined by the `:` a path segment holds as it is (the cluster reads
    /// `<node>:<number>`, not `%3A`).
    pub(crate) fn segment(&self) -> String {
        self.0.split(':').map(segment).collect::<Vec<_>>().join(":")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manage::names::IndexName;

    fn index(name: &str) -> Result<String, Error> {
        IndexName::parse(name).map(|name| name.as_str().to_owned())
    }

    fn node(text: &str, field: &str) -> Result<String, Error> {
        NodeId::parse(text, field).map(|id| id.as_str().to_owned())
    }

    #[test]
    fn one_index_and_one_node_only() {
        for good in ["logs", ".kibana_1", "logs-2026.11.24"] {
            assert_eq!(index(good).unwrap(), good);
        }
        for (bad, why) in [
            ("", "is empty"),
            ("logs-*", "contains \"*\""),
            ("a,b", "contains \",\""),
            ("_all", "must not start with"),
            ("..", "is not a name"),
            ("a/b", "contains \"/\""),
            ("a b", "contains a space"),
        ] {
            let error = index(bad).unwrap_err().to_string();
            assert!(error.contains(why), "{bad}: {error}");
        }
        assert!(index(&"x".repeat(256)).is_err());
        assert_eq!(node("aB3-_x.y", "toNode").unwrap(), "aB3-_x.y");
        for bad in ["", "_local", "*", "a,b", "a/b", "..", "n?x"] {
            let error = node(bad, "toNode").unwrap_err().to_string();
            assert!(error.starts_with("toNode must be one node id"), "{error}");
        }
    }

    /// A real Elasticsearch 8.19 node was `_PxszFIMT8KdgAJmnDTxBg`: node ids are 22 characters
    /// of URL-safe base64, so one in 64 starts with `_` (and as many with `-`).
    #[test]
    fn a_generated_node_id_may_start_with_an_underscore() {
        for id in [
            "_PxszFIMT8KdgAJmnDTxBg",
            "-PxszFIMT8KdgAJmnDTxBg",
            "__________-_________-_",
        ] {
            assert_eq!(node(id, "nodeId").unwrap(), id);
        }
        for selector in [
            "_all",
            "_local",
            "_master",
            "_cluster_manager",
            "_only_master",
            "_PxszFIMT8KdgAJmnDTxB",
            "_PxszFIMT8KdgAJmnDTxBg.",
        ] {
            let error = node(selector, "nodeId").unwrap_err().to_string();
            assert!(error.starts_with("nodeId must be one node id"), "{error}");
        }
    }

    #[test]
    fn task_ids_are_node_and_number() {
        for good in ["oTUltX4IQMOUUVeiohTt8A:12345", "osmem-node:1", "node_1.a:0"] {
            assert!(TaskId::parse(good).is_ok(), "{good}");
            assert_eq!(TaskId::parse(good).unwrap().segment(), good);
        }
        for bad in [
            "", "n", "n:", ":1", "n:1a", "n:-1", "../x:1", "n/1:2", "n:1?x", "n%3A:1", "..:1",
        ] {
            assert!(TaskId::parse(bad).is_err(), "{bad:?}");
        }
    }
}
