//! The names a shard operation takes from the caller: one existing index (never a pattern, a
//! list or `_all`) and one node id (never a node selector such as `_local` or `*`).

use crate::error::Error;
use crate::manage::indices::names::{NameKind, check_name};

/// One existing index: the index name rules of `manage::indices::names` (which keep out
/// wildcards, lists, `_all` and path tricks); system (dot) indices allowed.
pub(crate) fn index(name: &str) -> Result<String, Error> {
    check_name(name, NameKind::Index)?;
    Ok(name.to_owned())
}

/// A node id or name naming exactly one node: letters, digits, `-`, `_` and `.`, up to 128,
/// not starting with `_` (`_local`, `_all`, `_master` select nodes rather than name one) unless
/// it is a generated node id: 22 characters of URL-safe base64, which start with `_` one time in
/// 64 (no selector is that long).
pub(crate) fn node(text: &str, field: &str) -> Result<String, Error> {
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
        Ok(text.to_owned())
    } else {
        Err(Error::BadRequest(format!(
            "{field} must be one node id (letters, digits, -, _ and ., up to 128, not starting with _ unless a 22-character node id), not \"{}\".",
            text.escape_debug()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
