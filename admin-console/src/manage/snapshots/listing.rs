//! Reading snapshots: the list of a repository (`GET _snapshot/<repo>/_all`), one snapshot
//! (`GET _snapshot/<repo>/<snap>`) and its progress (`GET _snapshot/<repo>/<snap>/_status`), in
//! the documented formats, which Elasticsearch 7/8 and OpenSearch 1/2/3 share for the fields
//! read here.

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;

/// A snapshot's state as the cluster names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum SnapshotState {
    InProgress,
    Success,
    Failed,
    Partial,
    Incompatible,
    /// A state this console does not know (a newer cluster).
    Unknown,
}

impl SnapshotState {
    fn parse(text: Option<&str>) -> Self {
        match text {
            Some("IN_PROGRESS" | "STARTED" | "INIT") => Self::InProgress,
            Some("SUCCESS") => Self::Success,
            Some("FAILED" | "ABORTED") => Self::Failed,
            Some("PARTIAL") => Self::Partial,
            Some("INCOMPATIBLE") => Self::Incompatible,
            _ => Self::Unknown,
        }
    }
}

/// One snapshot of a repository, as a row of the list.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotRow {
    pub name: String,
    pub uuid: Option<String>,
    pub state: SnapshotState,
    /// Start and end, milliseconds since the epoch; no end while in progress.
    #[cfg_attr(test, ts(type = "number | null"))]
    pub start_millis: Option<u64>,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub end_millis: Option<u64>,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub duration_millis: Option<u64>,
    pub index_count: usize,
    pub shards_total: u64,
    pub shards_failed: u64,
    pub shards_successful: u64,
    pub include_global_state: Option<bool>,
    /// Why the snapshot failed or is partial, when the cluster says.
    pub reason: Option<String>,
    /// The version of the cluster that took it.
    pub version: Option<String>,
}

fn number(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| value.as_str()?.parse().ok())
}

impl SnapshotRow {
    /// One entry of the documented `snapshots` array.
    fn of(info: &Value) -> Result<Self, Error> {
        let Some(name) = info["snapshot"].as_str() else {
            return Err(Error::upstream(
                "The cluster described a snapshot without its name.".to_owned(),
            ));
        };
        let state = SnapshotState::parse(info["state"].as_str());
        let start_millis = number(&info["start_time_in_millis"]).filter(|&start| start > 0);
        let end_millis = number(&info["end_time_in_millis"]).filter(|&end| end > 0);
        let duration_millis = match end_millis {
            Some(_) => number(&info["duration_in_millis"])
                .or_else(|| Some(end_millis?.saturating_sub(start_millis?))),
            None => None,
        };
        let shards = &info["shards"];
        Ok(Self {
            name: name.to_owned(),
            uuid: info["uuid"].as_str().map(str::to_owned),
            state,
            start_millis,
            end_millis,
            duration_millis,
            index_count: info["indices"].as_array().map_or(0, Vec::len),
            shards_total: number(&shards["total"]).unwrap_or(0),
            shards_failed: number(&shards["failed"]).unwrap_or(0),
            shards_successful: number(&shards["successful"]).unwrap_or(0),
            include_global_state: info["include_global_state"].as_bool(),
            reason: info["reason"].as_str().map(str::to_owned),
            version: info["version"].as_str().map(str::to_owned),
        })
    }
}

/// `GET /repositories/{repo}/snapshots`: newest first.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotList {
    pub snapshots: Vec<SnapshotRow>,
}

/// The answer of `GET _snapshot/<repo>/_all`.
pub(crate) fn snapshots_of(answer: &Value) -> Result<SnapshotList, Error> {
    let Some(infos) = answer["snapshots"].as_array() else {
        return Err(Error::upstream(
            "The cluster's snapshot list has no \"snapshots\" array.".to_owned(),
        ));
    };
    let mut snapshots = infos
        .iter()
        .map(SnapshotRow::of)
        .collect::<Result<Vec<_>, _>>()?;
    snapshots.sort_by(|a, b| {
        b.start_millis
            .cmp(&a.start_millis)
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(SnapshotList { snapshots })
}

/// A shard the snapshot could not copy.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotShardFailure {
    pub index: String,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub shard_id: Option<u64>,
    pub node_id: Option<String>,
    pub reason: String,
}

/// How far a snapshot has come, from `_status`.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotProgress {
    pub state: SnapshotState,
    pub shards_done: u64,
    pub shards_total: u64,
    pub shards_failed: u64,
    pub shards_started: u64,
    pub shards_initializing: u64,
    pub shards_finalizing: u64,
    /// Bytes and files copied so far of those this snapshot must copy (what earlier
    /// snapshots in the repository already hold is not copied again).
    #[cfg_attr(test, ts(type = "number"))]
    pub bytes_done: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub bytes_total: u64,
    pub files_done: u64,
    pub files_total: u64,
    /// The size of every file the snapshot refers to, copied now or before.
    #[cfg_attr(test, ts(type = "number"))]
    pub size_in_repository_bytes: u64,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub time_millis: Option<u64>,
}

impl SnapshotProgress {
    /// The first entry of `_status`'s `snapshots`. `stats.incremental` is what this snapshot
    /// copies, `stats.processed` what it has copied (absent once equal), `stats.total` all it
    /// refers to; Elasticsearch 6's flat fields are read when the newer ones are absent.
    pub(crate) fn of(answer: &Value) -> Result<Self, Error> {
        let Some(status) = answer["snapshots"].get(0) else {
            return Err(Error::upstream(
                "The cluster's snapshot status has no \"snapshots\" entry.".to_owned(),
            ));
        };
        let shards = &status["shards_stats"];
        let stats = &status["stats"];
        let count = |value: &Value| number(value).unwrap_or(0);
        let (files_total, bytes_total, files_done, bytes_done) = if stats["incremental"].is_object()
        {
            let incremental = &stats["incremental"];
            let processed = if stats["processed"].is_object() {
                &stats["processed"]
            } else {
                incremental
            };
            (
                count(&incremental["file_count"]),
                count(&incremental["size_in_bytes"]),
                count(&processed["file_count"]),
                count(&processed["size_in_bytes"]),
            )
        } else {
            (
                count(&stats["number_of_files"]),
                count(&stats["total_size_in_bytes"]),
                count(&stats["processed_files"]),
                count(&stats["processed_size_in_bytes"]),
            )
        };
        Ok(Self {
            state: SnapshotState::parse(status["state"].as_str()),
            shards_done: count(&shards["done"]),
            shards_total: count(&shards["total"]),
            shards_failed: count(&shards["failed"]),
            shards_started: count(&shards["started"]),
            shards_initializing: count(&shards["initializing"]),
            shards_finalizing: count(&shards["finalizing"]),
            bytes_done,
            bytes_total,
            files_done,
            files_total,
            size_in_repository_bytes: number(&stats["total"]["size_in_bytes"])
                .unwrap_or(bytes_total),
            time_millis: number(&stats["time_in_millis"]),
        })
    }
}

/// `GET /repositories/{repo}/snapshots/{snapshot}`: the snapshot, its indices and failures, and
/// its progress (or why the cluster could not give it) while it runs or when asked for.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotDetail {
    pub snapshot: SnapshotRow,
    pub indices: Vec<String>,
    pub data_streams: Vec<String>,
    pub failures: Vec<SnapshotShardFailure>,
    pub progress: Option<SnapshotProgress>,
    pub progress_error: Option<String>,
}

impl SnapshotDetail {
    /// The snapshot's entry in the answer of `GET _snapshot/<repo>/<snap>`.
    pub(crate) fn info_of(answer: &Value) -> Result<&Value, Error> {
        answer["snapshots"].get(0).ok_or_else(|| {
            Error::upstream("The cluster's answer has no \"snapshots\" entry.".to_owned())
        })
    }

    /// Whether the snapshot of `GET _snapshot/<repo>/<snap>`'s entry is still running.
    pub(crate) fn running(info: &Value) -> bool {
        SnapshotState::parse(info["state"].as_str()) == SnapshotState::InProgress
    }

    /// From the entry of `GET _snapshot/<repo>/<snap>` ([`SnapshotDetail::info_of`]) and, when
    /// it was asked for, the answer of its `_status`.
    pub(crate) fn of(info: &Value, status: Option<Result<Value, Error>>) -> Result<Self, Error> {
        let strings = |value: &Value| -> Vec<String> {
            let mut names: Vec<String> = value
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|item| item.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            names
        };
        let failures = info["failures"]
            .as_array()
            .map(|failures| {
                failures
                    .iter()
                    .map(|failure| SnapshotShardFailure {
                        index: failure["index"].as_str().unwrap_or_default().to_owned(),
                        shard_id: number(&failure["shard_id"]),
                        node_id: failure["node_id"].as_str().map(str::to_owned),
                        reason: failure["reason"].as_str().unwrap_or_default().to_owned(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let (progress, progress_error) =
            match status.map(|status| status.and_then(|status| SnapshotProgress::of(&status))) {
                None => (None, None),
                Some(Ok(progress)) => (Some(progress), None),
                Some(Err(error)) => (None, Some(error.to_string())),
            };
        Ok(Self {
            snapshot: SnapshotRow::of(info)?,
            indices: strings(&info["indices"]),
            data_streams: strings(&info["data_streams"]),
            failures,
            progress,
            progress_error,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The documented example of `GET _snapshot/my_repository/snapshot_*` (Elasticsearch 8),
    /// with an OpenSearch 2 entry (no `repository`, `remote_store_index_shallow_copy`) and one
    /// in progress.
    fn listing() -> Value {
        json!({
          "snapshots": [
            {
              "snapshot": "snapshot_1",
              "uuid": "dKb54xw67gvdRctLCxSket",
              "repository": "my_repository",
              "version_id": 8_150_099,
              "version": "8.15.0",
              "indices": [],
              "data_streams": [],
              "feature_states": [],
              "include_global_state": true,
              "state": "SUCCESS",
              "start_time": "2020-07-06T21:55:18.129Z",
              "start_time_in_millis": 1_593_093_628_850_u64,
              "end_time": "2020-07-06T21:55:18.129Z",
              "end_time_in_millis": 1_593_094_752_018_u64,
              "duration_in_millis": 0,
              "failures": [],
              "shards": {"total": 0, "failed": 0, "successful": 0}
            },
            {
              "snapshot": "nightly-2",
              "uuid": "x9",
              "version_id": 136_337_827,
              "version": "2.17.0",
              "remote_store_index_shallow_copy": false,
              "indices": ["books", "logs-1"],
              "data_streams": [],
              "include_global_state": false,
              "state": "PARTIAL",
              "reason": "one shard failed",
              "start_time_in_millis": 1_700_000_000_000_u64,
              "end_time_in_millis": 1_700_000_002_500_u64,
              "duration_in_millis": 2500,
              "failures": [{"index": "logs-1", "index_uuid": "u", "shard_id": 0,
                            "reason": "IndexShardSnapshotFailedException[boom]",
                            "node_id": "n1", "status": "INTERNAL_SERVER_ERROR"}],
              "shards": {"total": 2, "failed": 1, "successful": 1}
            },
            {
              "snapshot": "running",
              "uuid": "r1",
              "indices": ["books"],
              "state": "IN_PROGRESS",
              "start_time_in_millis": 1_800_000_000_000_u64,
              "end_time_in_millis": 0,
              "duration_in_millis": 0,
              "failures": [],
              "shards": {"total": 0, "failed": 0, "successful": 0}
            }
          ],
          "total": 3,
          "remaining": 0
        })
    }

    #[test]
    fn the_list_is_newest_first_with_counts_and_durations() {
        let list = snapshots_of(&listing()).unwrap();
        let names: Vec<&str> = list.snapshots.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["running", "nightly-2", "snapshot_1"]);
        let running = &list.snapshots[0];
        assert_eq!(running.state, SnapshotState::InProgress);
        assert_eq!((running.end_millis, running.duration_millis), (None, None));
        let partial = &list.snapshots[1];
        assert_eq!(partial.state, SnapshotState::Partial);
        assert_eq!(partial.index_count, 2);
        assert_eq!(
            (
                partial.shards_total,
                partial.shards_failed,
                partial.shards_successful
            ),
            (2, 1, 1)
        );
        assert_eq!(partial.duration_millis, Some(2500));
        assert_eq!(partial.include_global_state, Some(false));
        assert_eq!(partial.reason.as_deref(), Some("one shard failed"));
        assert_eq!(list.snapshots[2].version.as_deref(), Some("8.15.0"));
        assert!(snapshots_of(&json!({})).is_err());
        assert!(snapshots_of(&json!({"snapshots": [{"state": "SUCCESS"}]})).is_err());
        let odd = snapshots_of(&json!({"snapshots": [{"snapshot": "x", "state": "NEW"}]}));
        assert_eq!(odd.unwrap().snapshots[0].state, SnapshotState::Unknown);
    }

    /// The documented example of `GET _snapshot/my_repository/snapshot_2/_status`.
    fn status(processed: Option<Value>, state: &str) -> Value {
        let mut stats = json!({
            "incremental": {"file_count": 3, "size_in_bytes": 5969},
            "total": {"file_count": 4, "size_in_bytes": 6024},
            "start_time_in_millis": 1_594_829_326_691_u64,
            "time_in_millis": 205
        });
        if let Some(processed) = processed {
            stats["processed"] = processed;
        }
        json!({"snapshots": [{
            "snapshot": "snapshot_2",
            "repository": "my_repository",
            "uuid": "lNeQD1SvTQCqqJUMQSwmGg",
            "state": state,
            "include_global_state": false,
            "shards_stats": {"initializing": 0, "started": 1, "finalizing": 0, "done": 2,
                             "failed": 0, "total": 3},
            "stats": stats,
            "indices": {}
        }]})
    }

    #[test]
    fn progress_counts_what_this_snapshot_copies() {
        let running = SnapshotProgress::of(&status(
            Some(json!({"file_count": 1, "size_in_bytes": 1000})),
            "STARTED",
        ))
        .unwrap();
        assert_eq!(running.state, SnapshotState::InProgress);
        assert_eq!(
            (
                running.shards_done,
                running.shards_total,
                running.shards_started
            ),
            (2, 3, 1)
        );
        assert_eq!((running.bytes_done, running.bytes_total), (1000, 5969));
        assert_eq!((running.files_done, running.files_total), (1, 3));
        assert_eq!(running.size_in_repository_bytes, 6024);
        let done = SnapshotProgress::of(&status(None, "SUCCESS")).unwrap();
        assert_eq!((done.bytes_done, done.bytes_total), (5969, 5969));
        assert_eq!(done.time_millis, Some(205));
        let old = SnapshotProgress::of(&json!({"snapshots": [{"state": "SUCCESS", "stats": {
            "number_of_files": 8, "processed_files": 8,
            "total_size_in_bytes": 4000, "processed_size_in_bytes": 4000}}]}))
        .unwrap();
        assert_eq!((old.bytes_done, old.files_total), (4000, 8));
        assert!(SnapshotProgress::of(&json!({"snapshots": []})).is_err());
    }

    #[test]
    fn the_detail_has_indices_failures_and_progress_or_its_error() {
        let answer = json!({"snapshots": [listing()["snapshots"][1].clone()]});
        let info = SnapshotDetail::info_of(&answer).unwrap();
        assert!(!SnapshotDetail::running(info));
        assert!(SnapshotDetail::running(&listing()["snapshots"][2]));
        let detail = SnapshotDetail::of(info, Some(Ok(status(None, "SUCCESS")))).unwrap();
        assert_eq!(detail.indices, ["books", "logs-1"]);
        assert_eq!(
            detail.failures,
            [SnapshotShardFailure {
                index: "logs-1".into(),
                shard_id: Some(0),
                node_id: Some("n1".into()),
                reason: "IndexShardSnapshotFailedException[boom]".into()
            }]
        );
        assert!(detail.progress.is_some());
        let without = SnapshotDetail::of(
            info,
            Some(Err(Error::upstream("The cluster answered 500".to_owned()))),
        )
        .unwrap();
        assert!(without.progress.is_none());
        assert_eq!(
            without.progress_error.as_deref(),
            Some("The cluster answered 500")
        );
        let not_asked = SnapshotDetail::of(info, None).unwrap();
        assert_eq!((not_asked.progress, not_asked.progress_error), (None, None));
        assert!(SnapshotDetail::info_of(&json!({"snapshots": []})).is_err());
    }
}
