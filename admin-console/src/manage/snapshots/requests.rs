//! Taking and restoring a snapshot: the bodies the web app sends, checked, and the documented
//! bodies of `PUT _snapshot/<repo>/<snap>` and `POST _snapshot/<repo>/<snap>/_restore` built
//! from them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::manage::names::{SnapshotName, index_patterns};

/// `POST /repositories/{repo}/snapshots`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotCreateBody {
    pub name: String,
    /// Index names or patterns (`logs-*`, `-logs-old`); none or empty: every open index.
    #[cfg_attr(test, ts(optional))]
    pub indices: Option<Vec<String>>,
    /// Include the cluster state (templates, persistent settings…); the cluster's default
    /// (true) when absent.
    #[cfg_attr(test, ts(optional))]
    pub include_global_state: Option<bool>,
}

/// A checked request to take a snapshot.
#[derive(Debug)]
pub(crate) struct CreateSnapshot {
    pub(crate) name: SnapshotName,
    body: Value,
}

impl CreateSnapshot {
    pub(crate) fn parse(body: &SnapshotCreateBody) -> Result<Self, Error> {
        let name = SnapshotName::parse_new(body.name.trim())?;
        let mut cluster = Map::new();
        if let Some(indices) = index_patterns(body.indices.as_deref().unwrap_or_default())? {
            cluster.insert("indices".to_owned(), Value::String(indices));
        }
        if let Some(include) = body.include_global_state {
            cluster.insert("include_global_state".to_owned(), Value::Bool(include));
        }
        Ok(Self {
            name,
            body: Value::Object(cluster),
        })
    }

    /// The body of `PUT _snapshot/<repo>/<snap>?wait_for_completion=false`.
    pub(crate) fn cluster_body(&self) -> &Value {
        &self.body
    }
}

/// `POST /repositories/{repo}/snapshots/{snapshot}/restore`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotRestoreBody {
    /// Index names or patterns of the snapshot to restore; none or empty: all of them.
    #[cfg_attr(test, ts(optional))]
    pub indices: Option<Vec<String>>,
    /// A (Java) regular expression over the restored indices' names and the replacement that
    /// renames them (`(.+)` → `restored-$1`); both or neither.
    #[cfg_attr(test, ts(optional))]
    pub rename_pattern: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub rename_replacement: Option<String>,
    /// Restore the cluster state too (the cluster's default, false, when absent).
    #[cfg_attr(test, ts(optional))]
    pub include_global_state: Option<bool>,
}

/// Characters a replacement may not hold (they could not be in an index name); `\` because
/// the cluster would read it as an escape.
const REPLACEMENT_FORBIDDEN: &[char] = &['\\', '/', '*', '?', '"', '<', '>', '|', ',', '#', ':'];

impl SnapshotRestoreBody {
    /// The body of `POST _snapshot/<repo>/<snap>/_restore`.
    pub(crate) fn cluster_body(&self) -> Result<Value, Error> {
        let mut cluster = Map::new();
        if let Some(indices) = index_patterns(self.indices.as_deref().unwrap_or_default())? {
            cluster.insert("indices".to_owned(), Value::String(indices));
        }
        let pattern = self.rename_pattern.as_deref().filter(|p| !p.is_empty());
        let replacement = self.rename_replacement.as_deref().filter(|r| !r.is_empty());
        match (pattern, replacement) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(Error::BadRequest(
                    "A rename pattern needs a rename replacement (e.g. restored-$1).".to_owned(),
                ));
            }
            (None, Some(_)) => {
                return Err(Error::BadRequest(
                    "A rename replacement needs a rename pattern (e.g. (.+)).".to_owned(),
                ));
            }
            (Some(pattern), Some(replacement)) => {
                if pattern.len() > 1000 || pattern.chars().any(char::is_control) {
                    return Err(Error::BadRequest(
                        "The rename pattern must be at most 1000 bytes without control characters."
                            .to_owned(),
                    ));
                }
                if replacement.len() > 255 {
                    return Err(Error::BadRequest(
                        "The rename replacement must be at most 255 bytes.".to_owned(),
                    ));
                }
                if let Some(c) = replacement.chars().find(|c| {
                    c.is_whitespace() || c.is_control() || REPLACEMENT_FORBIDDEN.contains(c)
                }) {
                    return Err(Error::BadRequest(format!(
                        "The rename replacement \"{replacement}\" must not contain {:?}: index names cannot hold it.",
                        c
                    )));
                }
                if replacement.to_lowercase() != replacement {
                    return Err(Error::BadRequest(format!(
                        "The rename replacement \"{replacement}\" must be lowercase, as index names are."
                    )));
                }
                if replacement.starts_with(['_', '-', '+']) {
                    return Err(Error::BadRequest(format!(
                        "The rename replacement \"{replacement}\" must not start with '_', '-' or '+', as index names do not."
                    )));
                }
                cluster.insert("rename_pattern".to_owned(), json!(pattern));
                cluster.insert("rename_replacement".to_owned(), json!(replacement));
            }
        }
        if let Some(include) = self.include_global_state {
            cluster.insert("include_global_state".to_owned(), Value::Bool(include));
        }
        Ok(Value::Object(cluster))
    }
}

/// What the cluster said to a snapshot or a restore started without waiting for it.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotAccepted {
    pub name: String,
    pub accepted: bool,
}

impl SnapshotAccepted {
    /// `{"accepted": true}` (the documented answer without `wait_for_completion`); a finished
    /// snapshot's `{"snapshot": {...}}` counts as accepted too.
    pub(crate) fn of(name: &SnapshotName, answer: &Value) -> Self {
        Self {
            name: name.as_str().to_owned(),
            accepted: answer["accepted"]
                .as_bool()
                .unwrap_or(answer["snapshot"].is_object()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(value: Value) -> Result<CreateSnapshot, Error> {
        CreateSnapshot::parse(&serde_json::from_value(value).unwrap())
    }

    fn restore(value: Value) -> Result<Value, Error> {
        serde_json::from_value::<SnapshotRestoreBody>(value)
            .unwrap()
            .cluster_body()
    }

    fn refusal(result: Result<impl std::fmt::Debug, Error>) -> String {
        match result {
            Err(Error::BadRequest(message)) => message,
            other => panic!("expected a bad request, got {other:?}"),
        }
    }

    #[test]
    fn a_snapshot_request_names_its_indices_and_global_state() {
        let request = create(json!({
            "name": " nightly-1 ",
            "indices": ["books", "logs-*"],
            "includeGlobalState": false
        }))
        .unwrap();
        assert_eq!(request.name.as_str(), "nightly-1");
        assert_eq!(
            request.cluster_body(),
            &json!({"indices": "books,logs-*", "include_global_state": false})
        );
        assert_eq!(
            create(json!({"name": "all", "indices": []}))
                .unwrap()
                .cluster_body(),
            &json!({})
        );
        assert!(refusal(create(json!({"name": "Nightly"}))).contains("must be lowercase"));
        assert!(refusal(create(json!({"name": "a", "indices": ["a,b"]}))).contains("','"));
        assert!(
            serde_json::from_value::<SnapshotCreateBody>(json!({"name": "a", "partial": true}))
                .is_err()
        );
    }

    #[test]
    fn a_restore_request_renames_with_both_pattern_and_replacement() {
        assert_eq!(
            restore(json!({
                "indices": ["books"],
                "renamePattern": "(.+)",
                "renameReplacement": "restored-$1",
                "includeGlobalState": false
            }))
            .unwrap(),
            json!({
                "indices": "books",
                "rename_pattern": "(.+)",
                "rename_replacement": "restored-$1",
                "include_global_state": false
            })
        );
        assert_eq!(restore(json!({})).unwrap(), json!({}));
        assert_eq!(
            restore(json!({"renamePattern": "", "renameReplacement": ""})).unwrap(),
            json!({})
        );
        for (value, says) in [
            (
                json!({"renamePattern": "(.+)"}),
                "needs a rename replacement",
            ),
            (
                json!({"renameReplacement": "x-$1"}),
                "needs a rename pattern",
            ),
            (
                json!({"renamePattern": "(.+)", "renameReplacement": "Restored-$1"}),
                "must be lowercase",
            ),
            (
                json!({"renamePattern": "(.+)", "renameReplacement": "a b"}),
                "must not contain ' '",
            ),
            (
                json!({"renamePattern": "(.+)", "renameReplacement": "_$1"}),
                "must not start with",
            ),
            (json!({"indices": ["*", "Books"]}), "must be lowercase"),
        ] {
            let message = refusal(restore(value.clone()));
            assert!(message.contains(says), "{value}: {message}");
        }
    }

    #[test]
    fn the_cluster_answer_says_whether_it_was_accepted() {
        let name = SnapshotName::parse_new("s1").unwrap();
        assert!(SnapshotAccepted::of(&name, &json!({"accepted": true})).accepted);
        assert!(SnapshotAccepted::of(&name, &json!({"snapshot": {"snapshot": "s1"}})).accepted);
        assert!(!SnapshotAccepted::of(&name, &json!({})).accepted);
    }
}
