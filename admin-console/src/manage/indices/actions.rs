//! Index actions on one index or a selection: one cluster call per index (so each index gets
//! its own result), a few at a time, in the order given.

use futures_util::StreamExt;
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::manage::names::IndexName;

/// The most indices one request may name.
pub(crate) const MAX_INDICES: usize = 1000;
/// Calls in flight at once for a selection: enough to be quick, few enough not to flood the
/// cluster's management thread pool.
const CONCURRENCY: usize = 4;
/// The bound on `maxNumSegments` (one segment is the usual goal; a large number is a typo).
pub(crate) const MAX_SEGMENTS: u64 = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) enum IndexAction {
    Open,
    Close,
    Refresh,
    Flush,
    Forcemerge,
    ClearCache,
    BlockWrite,
    UnblockWrite,
    Delete,
}

impl IndexAction {
    pub(crate) const ALL: [Self; 9] = [
        Self::Open,
        Self::Close,
        Self::Refresh,
        Self::Flush,
        Self::Forcemerge,
        Self::ClearCache,
        Self::BlockWrite,
        Self::UnblockWrite,
        Self::Delete,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Close => "close",
            Self::Refresh => "refresh",
            Self::Flush => "flush",
            Self::Forcemerge => "forcemerge",
            Self::ClearCache => "clear_cache",
            Self::BlockWrite => "block_write",
            Self::UnblockWrite => "unblock_write",
            Self::Delete => "delete",
        }
    }

    pub(crate) fn parse(text: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|action| action.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|a| a.as_str()).collect();
                Error::BadRequest(format!(
                    "The index action \"{}\" does not exist; it is one of {}.",
                    text.chars().take(40).collect::<String>(),
                    names.join(", ")
                ))
            })
    }

    /// Whether the action changes what the index list shows (status, existence).
    pub(crate) fn changes_the_list(self) -> bool {
        matches!(self, Self::Open | Self::Close | Self::Delete)
    }

    /// The documented call for one (checked) index: method, path, body.
    pub(crate) fn call(
        self,
        index: &IndexName,
        max_num_segments: Option<u64>,
    ) -> (Method, String, Option<Value>) {
        let index = index.segment();
        match self {
            Self::Open => (Method::POST, format!("{index}/_open"), None),
            Self::Close => (Method::POST, format!("{index}/_close"), None),
            Self::Refresh => (Method::POST, format!("{index}/_refresh"), None),
            Self::Flush => (Method::POST, format!("{index}/_flush"), None),
            Self::Forcemerge => (
                Method::POST,
                match max_num_segments {
                    Some(segments) => format!("{index}/_forcemerge?max_num_segments={segments}"),
                    None => format!("{index}/_forcemerge"),
                },
                None,
            ),
            Self::ClearCache => (Method::POST, format!("{index}/_cache/clear"), None),
            // The add-block API waits until in-flight writes are done; a block is removed by
            // its dynamic setting (there is no remove-block API in Elasticsearch 8 or
            // OpenSearch 2).
            Self::BlockWrite => (Method::PUT, format!("{index}/_block/write"), None),
            Self::UnblockWrite => (
                Method::PUT,
                format!("{index}/_settings"),
                Some(json!({"index.blocks.write": false})),
            ),
            Self::Delete => (Method::DELETE, index, None),
        }
    }
}

/// `POST /api/clusters/:id/indices/_actions/{action}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct ActionRequest {
    pub(crate) indices: Vec<String>,
    /// Force merge only: merge down to at most this many segments per shard.
    #[cfg_attr(test, ts(optional))]
    pub(crate) max_num_segments: Option<u64>,
    /// Delete only: exactly `delete N indices` (N the number of indices named).
    #[cfg_attr(test, ts(optional))]
    pub(crate) confirm: Option<String>,
}

/// The confirmation text a delete of `count` indices needs.
pub(crate) fn delete_confirmation(count: usize) -> String {
    if count == 1 {
        "delete 1 index".to_owned()
    } else {
        format!("delete {count} indices")
    }
}

/// A checked request: the names (duplicates dropped, order kept) and the force-merge bound.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Checked {
    pub(crate) indices: Vec<IndexName>,
    pub(crate) max_num_segments: Option<u64>,
}

impl ActionRequest {
    pub(crate) fn check(self, action: IndexAction) -> Result<Checked, Error> {
        if self.indices.is_empty() {
            return Err(Error::BadRequest(
                "indices is empty: name at least one index.".to_owned(),
            ));
        }
        if self.indices.len() > MAX_INDICES {
            return Err(Error::BadRequest(format!(
                "indices names {} indices; one request may name at most {MAX_INDICES}.",
                self.indices.len()
            )));
        }
        let mut indices: Vec<IndexName> = Vec::with_capacity(self.indices.len());
        for name in self.indices {
            let name = IndexName::parse(&name)?;
            if !indices.contains(&name) {
                indices.push(name);
            }
        }
        match (action, self.max_num_segments) {
            (IndexAction::Forcemerge, Some(n)) if !(1..=MAX_SEGMENTS).contains(&n) => {
                return Err(Error::BadRequest(format!(
                    "maxNumSegments must be between 1 and {MAX_SEGMENTS}, not {n}."
                )));
            }
            (IndexAction::Forcemerge, _) | (_, None) => {}
            (_, Some(_)) => {
                return Err(Error::BadRequest(format!(
                    "maxNumSegments is for forcemerge only, not {}.",
                    action.as_str()
                )));
            }
        }
        match (action, self.confirm.as_deref()) {
            (IndexAction::Delete, confirm) => {
                let expected = delete_confirmation(indices.len());
                if confirm != Some(expected.as_str()) {
                    return Err(Error::BadRequest(format!(
                        "Deleting indices needs confirm to be exactly \"{expected}\"."
                    )));
                }
            }
            (_, None) => {}
            (_, Some(_)) => {
                return Err(Error::BadRequest(format!(
                    "confirm is for delete only, not {}.",
                    action.as_str()
                )));
            }
        }
        Ok(Checked {
            indices,
            max_num_segments: self.max_num_segments,
        })
    }
}

/// What happened to one index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct ActionResult {
    pub(crate) index: String,
    pub(crate) ok: bool,
    pub(crate) message: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct ActionAnswer {
    pub(crate) action: IndexAction,
    pub(crate) results: Vec<ActionResult>,
}

/// Reads a successful answer: broadcast calls (`refresh`, `flush`, `forcemerge`, cache) say how
/// many shards failed; open, close, block and delete say whether they were acknowledged.
pub(crate) fn outcome(action: IndexAction, index: &str, answer: &Value) -> ActionResult {
    let failed = |message: String| ActionResult {
        index: index.to_owned(),
        ok: false,
        message: Some(message),
    };
    if let Some(shards) = answer.get("_shards") {
        let failed_shards = shards["failed"].as_u64().unwrap_or(0);
        if failed_shards > 0 {
            let total = shards["total"].as_u64().unwrap_or(0);
            let reason = shards["failures"][0]["reason"]["reason"]
                .as_str()
                .or_else(|| shards["failures"][0]["reason"].as_str())
                .unwrap_or("no reason given");
            return failed(format!(
                "{failed_shards} of {total} shard copies failed: {reason}"
            ));
        }
    }
    if answer.get("acknowledged").and_then(Value::as_bool) == Some(false) {
        return failed(
            "The cluster did not acknowledge the change in time; it may still apply.".to_owned(),
        );
    }
    if action == IndexAction::Close && answer["indices"][index]["closed"].as_bool() == Some(false) {
        let reason = answer["indices"][index]["failedShards"]
            .as_object()
            .and_then(|shards| shards.values().next())
            .and_then(|failure| failure["reason"]["reason"].as_str())
            .unwrap_or("no reason given");
        return failed(format!("The index was not closed: {reason}"));
    }
    if action == IndexAction::BlockWrite
        && let Some(blocks) = answer["indices"].as_array()
        && let Some(entry) = blocks.iter().find(|entry| entry["name"] == index)
        && entry["blocked"].as_bool() == Some(false)
    {
        return failed("The write block was not added.".to_owned());
    }
    ActionResult {
        index: index.to_owned(),
        ok: true,
        message: None,
    }
}

/// Runs `action` on every checked index, a few at a time, results in the order given. A failure
/// of one index (refused, missing, time-out) is its result, not the request's.
pub(crate) async fn run(
    cluster: &impl ClusterApi,
    action: IndexAction,
    checked: &Checked,
) -> Vec<ActionResult> {
    futures_util::stream::iter(checked.indices.iter())
        .map(|index| async move {
            let (method, path, body) = action.call(index, checked.max_num_segments);
            match cluster.call(method, &path, body.as_ref()).await {
                Ok(answer) => outcome(action, index.as_str(), &answer),
                Err(error) => ActionResult {
                    index: index.as_str().to_owned(),
                    ok: false,
                    message: Some(error.to_string()),
                },
            }
        })
        .buffered(CONCURRENCY)
        .collect()
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(name: &str) -> IndexName {
        IndexName::parse(name).unwrap()
    }

    fn request(indices: &[&str], segments: Option<u64>, confirm: Option<&str>) -> ActionRequest {
        ActionRequest {
            indices: indices.iter().map(|s| (*s).to_owned()).collect(),
            max_num_segments: segments,
            confirm: confirm.map(str::to_owned),
        }
    }

    #[test]
    fn each_action_is_its_documented_call() {
        let cases = [
            (IndexAction::Open, "POST", "logs/_open", None),
            (IndexAction::Close, "POST", "logs/_close", None),
            (IndexAction::Refresh, "POST", "logs/_refresh", None),
            (IndexAction::Flush, "POST", "logs/_flush", None),
            (IndexAction::Forcemerge, "POST", "logs/_forcemerge", None),
            (IndexAction::ClearCache, "POST", "logs/_cache/clear", None),
            (IndexAction::BlockWrite, "PUT", "logs/_block/write", None),
            (
                IndexAction::UnblockWrite,
                "PUT",
                "logs/_settings",
                Some(json!({"index.blocks.write": false})),
            ),
            (IndexAction::Delete, "DELETE", "logs", None),
        ];
        for (action, method, path, body) in cases {
            assert_eq!(
                action.call(&index("logs"), None),
                (
                    Method::from_bytes(method.as_bytes()).unwrap(),
                    path.to_owned(),
                    body
                ),
                "{action:?}"
            );
            assert_eq!(IndexAction::parse(action.as_str()).unwrap(), action);
        }
        assert_eq!(
            IndexAction::Forcemerge.call(&index("a+b"), Some(1)).1,
            "a%2Bb/_forcemerge?max_num_segments=1"
        );
        let unknown = IndexAction::parse("shrink").unwrap_err().to_string();
        assert!(unknown.contains("one of open, close"), "{unknown}");
    }

    #[test]
    fn requests_are_checked_whole() {
        let checked = request(&["a", "b", "a"], Some(1), None)
            .check(IndexAction::Forcemerge)
            .unwrap();
        assert_eq!(checked.indices, [index("a"), index("b")]);
        assert_eq!(checked.max_num_segments, Some(1));
        for (req, action, expected) in [
            (
                request(&[], None, None),
                IndexAction::Close,
                "indices is empty",
            ),
            (
                request(&["logs-*"], None, None),
                IndexAction::Close,
                "contains \"*\"",
            ),
            (
                request(&["_all"], None, None),
                IndexAction::Close,
                "must not start with",
            ),
            (
                request(&["a,b"], None, None),
                IndexAction::Refresh,
                "contains \",\"",
            ),
            (
                request(&["a"], Some(0), None),
                IndexAction::Forcemerge,
                "between 1 and 1024",
            ),
            (
                request(&["a"], Some(1), None),
                IndexAction::Flush,
                "forcemerge only",
            ),
            (
                request(&["a"], None, Some("x")),
                IndexAction::Open,
                "delete only",
            ),
            (
                request(&["a", "b"], None, None),
                IndexAction::Delete,
                "exactly \"delete 2 indices\"",
            ),
            (
                request(&["a", "b"], None, Some("delete 3 indices")),
                IndexAction::Delete,
                "exactly",
            ),
            (
                request(&["a"], None, Some("delete 1 indices")),
                IndexAction::Delete,
                "\"delete 1 index\"",
            ),
        ] {
            let message = req.check(action).unwrap_err().to_string();
            assert!(message.contains(expected), "{message}");
        }
        let many: Vec<String> = (0..=MAX_INDICES).map(|n| format!("i{n}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(request(&refs, None, None).check(IndexAction::Open).is_err());
        request(&["a", "b"], None, Some("delete 2 indices"))
            .check(IndexAction::Delete)
            .unwrap();
    }

    #[test]
    fn answers_become_results() {
        let ok = |action, answer: Value| outcome(action, "logs", &answer);
        assert!(
            ok(
                IndexAction::Refresh,
                json!({"_shards": {"total": 2, "successful": 2, "failed": 0}})
            )
            .ok
        );
        let partial = ok(
            IndexAction::Flush,
            json!({"_shards": {"total": 2, "successful": 1, "failed": 1,
                "failures": [{"shard": 0, "index": "logs", "status": "INTERNAL_SERVER_ERROR",
                              "reason": {"type": "x", "reason": "disk full"}}]}}),
        );
        assert_eq!(
            partial.message.as_deref(),
            Some("1 of 2 shard copies failed: disk full")
        );
        assert!(
            ok(
                IndexAction::Close,
                json!({"acknowledged": true, "shards_acknowledged": true,
            "indices": {"logs": {"closed": true}}})
            )
            .ok
        );
        let not_closed = ok(
            IndexAction::Close,
            json!({"acknowledged": false, "shards_acknowledged": false,
                   "indices": {"logs": {"closed": false, "failedShards": {"0": {"reason": {"reason": "busy"}}}}}}),
        );
        assert!(!not_closed.ok);
        let unacked = ok(IndexAction::Delete, json!({"acknowledged": false}));
        assert!(unacked.message.unwrap().contains("did not acknowledge"));
        assert!(
            ok(
                IndexAction::BlockWrite,
                json!({"acknowledged": true, "shards_acknowledged": true,
            "indices": [{"name": "logs", "blocked": true}]})
            )
            .ok
        );
        assert!(
            !ok(
                IndexAction::BlockWrite,
                json!({"acknowledged": true, "shards_acknowledged": true,
            "indices": [{"name": "logs", "blocked": false}]})
            )
            .ok
        );
    }
}
