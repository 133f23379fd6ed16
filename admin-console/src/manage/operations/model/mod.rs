//! Long operations started as tasks: the requests (parsed names and counts), the preconditions
//! checked against the source index before the cluster is called, the cluster calls, and the
//! answer that names the task to follow.
//!
//! What the real clusters answer (docs/admin-console.md, "Long operations"): OpenSearch 2 and 3
//! run `_shrink`, `_split`, `_clone`, `_forcemerge` and `_reindex` with
//! `wait_for_completion=false` and answer `{"task": "<node>:<n>"}`; Elasticsearch 7.10 refuses
//! the parameter on the resize calls and on `_forcemerge` (`unrecognized parameter`), so there a
//! resize is sent without it (the call returns once the target index exists; its shards copy in
//! the background, which the target's health shows) and a force merge as a task needs
//! Elasticsearch 8, whose `_forcemerge` documents `wait_for_completion`. Elasticsearch's resize
//! calls have no task mode in 8 either.

use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::cluster::dialect::Dialect;
use crate::error::Error;
use crate::manage::indices::actions::MAX_SEGMENTS;
use crate::manage::names::{IndexName, TaskId};

/// The most primary shards a resize may ask for (the clusters' own limit is 1024 per index).
pub(crate) const MAX_SHARDS: u32 = 1024;
/// The most replicas a resize may give the target.
pub(crate) const MAX_REPLICAS: u32 = 16;

/// Which operation was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) enum Operation {
    Shrink,
    Split,
    Clone,
    Forcemerge,
    Reindex,
}

impl Operation {
    fn word(self) -> &'static str {
        match self {
            Self::Shrink => "shrink",
            Self::Split => "split",
            Self::Clone => "clone",
            Self::Forcemerge => "force merge",
            Self::Reindex => "reindex",
        }
    }
}

/// `POST …/indices/{index}/{shrink,split,clone}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct ResizeRequest {
    /// The new index.
    pub(crate) target: String,
    /// Primary shards of the target: a factor of the source's (shrink), a multiple (split);
    /// not given for a clone (it keeps the source's).
    #[cfg_attr(test, ts(optional))]
    pub(crate) shards: Option<u32>,
    /// Replicas of the target (the source's when not given).
    #[cfg_attr(test, ts(optional))]
    pub(crate) replicas: Option<u32>,
}

/// A checked resize: names parsed, counts in range; the source's state still to be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resize {
    pub(crate) operation: Operation,
    pub(crate) source: IndexName,
    pub(crate) target: IndexName,
    pub(crate) shards: Option<u32>,
    pub(crate) replicas: Option<u32>,
}

impl ResizeRequest {
    pub(crate) fn check(
        self,
        operation: Operation,
        source: IndexName,
        dialect: Dialect,
    ) -> Result<Resize, Error> {
        let target = IndexName::parse_new(&self.target, dialect)?;
        if target == source {
            return Err(Error::BadRequest(format!(
                "The target must be a new index, not the source \"{}\" itself.",
                source.as_str()
            )));
        }
        match (operation, self.shards) {
            (Operation::Clone, Some(_)) => {
                return Err(Error::BadRequest(
                    "A clone keeps the source's shard count: leave shards out.".to_owned(),
                ));
            }
            (Operation::Shrink | Operation::Split, None) => {
                return Err(Error::BadRequest(format!(
                    "A {} needs shards: the target's number of primary shards.",
                    operation.word()
                )));
            }
            (_, Some(n)) if !(1..=MAX_SHARDS).contains(&n) => {
                return Err(Error::BadRequest(format!(
                    "shards must be between 1 and {MAX_SHARDS}, not {n}."
                )));
            }
            _ => {}
        }
        if let Some(n) = self.replicas
            && n > MAX_REPLICAS
        {
            return Err(Error::BadRequest(format!(
                "replicas must be between 0 and {MAX_REPLICAS}, not {n}."
            )));
        }
        Ok(Resize {
            operation,
            source,
            target,
            shards: self.shards,
            replicas: self.replicas,
        })
    }
}

/// What the source's settings say, for the preconditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SourceState {
    pub(crate) shards: u32,
    /// `index.blocks.write` or `index.blocks.read_only` is true.
    pub(crate) read_only: bool,
}

impl SourceState {
    /// From `GET <index>/_settings?flat_settings=true`.
    pub(crate) fn from_settings(index: &IndexName, answer: &Value) -> Result<Self, Error> {
        let settings = &answer[index.as_str()]["settings"];
        let shards = settings["index.number_of_shards"]
            .as_str()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| {
                Error::upstream(format!(
                    "The cluster's settings of \"{}\" have no index.number_of_shards.",
                    index.as_str()
                ))
            })?;
        let on = |key: &str| settings[key].as_str() == Some("true");
        Ok(Self {
            shards,
            read_only: on("index.blocks.write") || on("index.blocks.read_only"),
        })
    }
}

/// A request the cluster's present state rules out (409, `rejected_by_cluster`): checked here
/// so that the reason is said in words before the cluster is called.
fn conflict(message: String) -> Error {
    Error::RejectedByCluster {
        status: StatusCode::CONFLICT,
        message,
    }
}

/// A resize whose target name is taken by an index or an alias.
pub(crate) fn target_exists(target: &IndexName) -> Error {
    conflict(format!(
        "An index or alias named \"{}\" exists already: a resize makes a new index.",
        target.as_str()
    ))
}

/// The factors of `n` below it, for the message of a bad shrink.
fn factors_below(n: u32) -> Vec<String> {
    (1..n)
        .filter(|k| n.is_multiple_of(*k))
        .map(|k| k.to_string())
        .collect()
}

impl Resize {
    /// The preconditions the clusters document, checked before calling one: the source is
    /// read-only (409 otherwise: the state must change first), the target's shard count a factor
    /// (shrink) or a multiple (split) of the source's (400).
    pub(crate) fn preconditions(&self, source: SourceState) -> Result<(), Error> {
        let name = self.source.as_str();
        let from = source.shards;
        match (self.operation, self.shards) {
            (Operation::Shrink, Some(to)) if to >= from || !from.is_multiple_of(to) => {
                return Err(Error::BadRequest(format!(
                    "A shrink of \"{name}\" ({from} primary shards) needs a target shard count \
                     that divides {from} and is smaller: {}.",
                    match factors_below(from).as_slice() {
                        [] => "none, a one-shard index cannot shrink".to_owned(),
                        factors => format!("one of {}", factors.join(", ")),
                    }
                )));
            }
            (Operation::Split, Some(to)) if to <= from || !to.is_multiple_of(from) => {
                return Err(Error::BadRequest(format!(
                    "A split of \"{name}\" ({from} primary shards) needs a target shard count \
                     that is a larger multiple of {from}, such as {}.",
                    from.saturating_mul(2)
                )));
            }
            _ => {}
        }
        if !source.read_only {
            return Err(conflict(format!(
                "\"{name}\" must be read-only before a {}: add its write block first (Block \
                 writes), so that nothing is written while it is copied.",
                self.operation.word()
            )));
        }
        Ok(())
    }

    /// The resize call: path and body. The target gets the shard and replica counts asked for
    /// and is writable (the source's write block is copied otherwise); a shrink's target also
    /// drops the allocation filter that gathered the source's copies on one node.
    pub(crate) fn call(&self, dialect: Dialect) -> (String, Value) {
        let endpoint = match self.operation {
            Operation::Shrink => "_shrink",
            Operation::Split => "_split",
            _ => "_clone",
        };
        let mut settings = Map::new();
        if let Some(shards) = self.shards {
            settings.insert("index.number_of_shards".to_owned(), json!(shards));
        }
        if let Some(replicas) = self.replicas {
            settings.insert("index.number_of_replicas".to_owned(), json!(replicas));
        }
        settings.insert("index.blocks.write".to_owned(), Value::Null);
        if self.operation == Operation::Shrink {
            settings.insert(
                "index.routing.allocation.require._name".to_owned(),
                Value::Null,
            );
        }
        let path = format!(
            "{}/{endpoint}/{}{}",
            self.source.segment(),
            self.target.segment(),
            if dialect.is_opensearch() {
                "?wait_for_completion=false"
            } else {
                ""
            }
        );
        (path, json!({"settings": settings}))
    }
}

/// `POST …/indices/{index}/forcemerge`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct ForcemergeRequest {
    #[cfg_attr(test, ts(optional))]
    pub(crate) max_num_segments: Option<u64>,
    #[cfg_attr(test, ts(optional))]
    pub(crate) only_expunge_deletes: Option<bool>,
}

impl ForcemergeRequest {
    /// The force-merge call as a task, or why this cluster cannot run one.
    pub(crate) fn call(&self, index: &IndexName, dialect: Dialect) -> Result<String, Error> {
        if !dialect.is_opensearch() && dialect.major < 8 {
            return Err(conflict(format!(
                "Elasticsearch {} cannot run a force merge as a task (it refuses \
                 wait_for_completion there); use the index action Force merge, which waits.",
                dialect.major
            )));
        }
        let mut path = format!("{}/_forcemerge?wait_for_completion=false", index.segment());
        match (self.max_num_segments, self.only_expunge_deletes) {
            (Some(_), Some(true)) => {
                return Err(Error::BadRequest(
                    "maxNumSegments and onlyExpungeDeletes do not go together.".to_owned(),
                ));
            }
            (Some(n), _) if !(1..=MAX_SEGMENTS).contains(&n) => {
                return Err(Error::BadRequest(format!(
                    "maxNumSegments must be between 1 and {MAX_SEGMENTS}, not {n}."
                )));
            }
            (Some(n), _) => path.push_str(&format!("&max_num_segments={n}")),
            (None, Some(true)) => path.push_str("&only_expunge_deletes=true"),
            (None, _) => {}
        }
        Ok(path)
    }
}

/// The most documents a second a reindex may be throttled to (unthrottled when not given).
pub(crate) const MAX_REQUESTS_PER_SECOND: u32 = 1_000_000;

/// `POST …/reindex`: copy one index into another, on the same cluster only.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct ReindexRequest {
    pub(crate) source: String,
    pub(crate) dest: String,
    /// Documents a second (the cluster's `requests_per_second`); unthrottled when left out.
    #[cfg_attr(test, ts(optional))]
    pub(crate) requests_per_second: Option<u32>,
    /// Refused whatever it holds: reindex from a remote cluster is off in the console.
    #[cfg_attr(test, ts(optional, type = "unknown"))]
    pub(crate) remote: Option<Value>,
}

/// A checked reindex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reindex {
    pub(crate) source: IndexName,
    pub(crate) dest: IndexName,
    pub(crate) requests_per_second: Option<u32>,
}

impl ReindexRequest {
    pub(crate) fn check(self, dialect: Dialect) -> Result<Reindex, Error> {
        if self.remote.is_some() {
            return Err(Error::BadRequest(
                "Reindex from a remote cluster is off in the console: source and dest are \
                 indices of this cluster."
                    .to_owned(),
            ));
        }
        let source = IndexName::parse(&self.source)?;
        let dest = IndexName::parse_new(&self.dest, dialect)?;
        if source == dest {
            return Err(Error::BadRequest(format!(
                "source and dest are both \"{}\": a reindex copies into another index.",
                source.as_str()
            )));
        }
        if let Some(n) = self.requests_per_second
            && !(1..=MAX_REQUESTS_PER_SECOND).contains(&n)
        {
            return Err(Error::BadRequest(format!(
                "requestsPerSecond must be between 1 and {MAX_REQUESTS_PER_SECOND}, not {n}."
            )));
        }
        Ok(Reindex {
            source,
            dest,
            requests_per_second: self.requests_per_second,
        })
    }
}

impl Reindex {
    /// The `_reindex` call as a task: path and body (the names only reach the body, as JSON
    /// strings).
    pub(crate) fn call(&self) -> (String, Value) {
        let path = match self.requests_per_second {
            Some(n) => format!("_reindex?wait_for_completion=false&requests_per_second={n}"),
            None => "_reindex?wait_for_completion=false".to_owned(),
        };
        (
            path,
            json!({
                "source": {"index": self.source.as_str()},
                "dest": {"index": self.dest.as_str()},
            }),
        )
    }
}

/// A cluster without the reindex module answers `POST /_reindex` 405 ("Incorrect HTTP method",
/// the index-named routes answering instead): said in words, the cluster's text kept.
pub(crate) fn reindex_refused(error: Error) -> Error {
    match error {
        Error::RejectedByCluster { status, message }
            if status == StatusCode::METHOD_NOT_ALLOWED =>
        {
            Error::RejectedByCluster {
                status,
                message: format!(
                    "This cluster has no reindex API (its reindex module is not installed). {message}"
                ),
            }
        }
        other => other,
    }
}

/// The answer of a started operation (202): the task to follow in the Tasks view, or none when
/// the cluster ran it without one (an Elasticsearch resize: follow the target's health).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct Started {
    pub(crate) operation: Operation,
    pub(crate) source: String,
    pub(crate) target: Option<String>,
    pub(crate) task_id: Option<String>,
}

/// The task id of a `wait_for_completion=false` answer (`{"task": "<node>:<n>"}`), checked.
pub(crate) fn task_of(answer: &Value) -> Result<String, Error> {
    let id = answer["task"].as_str().ok_or_else(|| {
        Error::upstream("The cluster started the operation but named no task.".to_owned())
    })?;
    Ok(TaskId::parse(id)
        .map_err(|_| Error::upstream("The cluster named a task id that is not valid.".to_owned()))?
        .as_str()
        .to_owned())
}

#[cfg(test)]
mod tests;
