//! The shards that are recovering, read from `_recovery?active_only=true` (all indices or one).
//!
//! OpenSearch 2 and Elasticsearch 7/8 answer the same shape: an object by index name, each with
//! `shards`, a list of one entry per recovering copy (`id`, `type`, `stage`, `primary`,
//! `total_time_in_millis`, `source`/`target` nodes, `index.size`, `index.files`, `translog`);
//! checked on the real OpenSearch 2.19 and Elasticsearch 7.10 three-node clusters (a drain's
//! peer recovery). Documented differences: a snapshot recovery's `source` names a repository
//! and snapshot, not a node; an existing-store or empty-store recovery has no source node;
//! Elasticsearch 8 adds `index.size.recovered_from_snapshot_in_bytes` (not read); a translog
//! total is `-1` while unknown. The answer is the cluster's and is treated as hostile: an entry
//! without a whole shard number is skipped, a missing or odd number counts as zero, a percent
//! outside 0–100 is clamped, and at most [`MAX_RECOVERIES`] entries are answered.

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::manage::names::IndexName;

/// The most recovering copies one answer lists (by index name, shard, primary first).
pub(crate) const MAX_RECOVERIES: usize = 500;

/// The cluster path: active recoveries only, of every index or of one.
pub(crate) fn recovery_path(index: Option<&IndexName>) -> String {
    match index {
        Some(index) => format!("{}/_recovery?active_only=true", index.segment()),
        None => "_recovery?active_only=true".to_owned(),
    }
}

/// Done against to do, in bytes, files or translog operations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Progress {
    pub recovered: u64,
    pub total: u64,
    /// 0 to 100: the cluster's own figure (which leaves out what the target reuses), or, when
    /// the cluster gives none, recovered over total.
    pub percent: f64,
}

/// One copy that is recovering.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Recovery {
    pub index: String,
    pub shard: u32,
    pub primary: bool,
    /// Lowercase: `peer`, `snapshot`, `existing_store`, `empty_store`, `local_shards`, or
    /// whatever else the cluster says (empty when it says nothing).
    pub kind: String,
    /// Lowercase: `init`, `index`, `verify_index`, `translog`, `finalize`, `done`, or whatever
    /// else the cluster says.
    pub stage: String,
    /// The node the data comes from (peer recoveries only).
    pub source_node_id: Option<String>,
    pub source_node: Option<String>,
    /// For a snapshot recovery: `repository/snapshot`.
    pub source_snapshot: Option<String>,
    pub target_node_id: Option<String>,
    pub target_node: Option<String>,
    pub bytes: Progress,
    pub files: Progress,
    pub translog_ops: Progress,
    pub elapsed_millis: u64,
}

/// `GET /api/clusters/:id/recoveries` and `GET /api/clusters/:id/indices/:index/recoveries`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Recoveries {
    /// By index name, shard, primary first; at most [`MAX_RECOVERIES`].
    pub recoveries: Vec<Recovery>,
    /// How many the cluster listed (more than `recoveries` holds when cut).
    pub total: u64,
    pub truncated: bool,
}

impl Recoveries {
    pub(crate) fn from_answer(answer: &Value) -> Result<Self, Error> {
        let Some(indices) = answer.as_object() else {
            return Err(Error::upstream(
                "The _recovery answer is not a JSON object.".to_owned(),
            ));
        };
        let mut recoveries: Vec<Recovery> = indices
            .iter()
            .flat_map(|(index, entry)| {
                entry["shards"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(move |shard| Recovery::from_entry(index, shard))
            })
            .collect();
        recoveries.sort_by(|a, b| {
            (a.index.as_str(), a.shard, !a.primary).cmp(&(b.index.as_str(), b.shard, !b.primary))
        });
        let total = recoveries.len() as u64;
        let truncated = recoveries.len() > MAX_RECOVERIES;
        recoveries.truncate(MAX_RECOVERIES);
        Ok(Self {
            recoveries,
            total,
            truncated,
        })
    }
}

impl Recovery {
    fn from_entry(index: &str, entry: &Value) -> Option<Self> {
        let shard = u32::try_from(entry["id"].as_u64()?).ok()?;
        let word = |value: &Value| value.as_str().unwrap_or_default().to_ascii_lowercase();
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let source = &entry["source"];
        let snapshot = match (source["repository"].as_str(), source["snapshot"].as_str()) {
            (Some(repository), Some(snapshot)) => Some(format!("{repository}/{snapshot}")),
            _ => None,
        };
        let size = &entry["index"]["size"];
        let files = &entry["index"]["files"];
        let translog = &entry["translog"];
        Some(Self {
            index: index.to_owned(),
            shard,
            primary: entry["primary"].as_bool().unwrap_or(false),
            kind: word(&entry["type"]),
            stage: word(&entry["stage"]),
            source_node_id: text(&source["id"]),
            source_node: text(&source["name"]),
            source_snapshot: snapshot,
            target_node_id: text(&entry["target"]["id"]),
            target_node: text(&entry["target"]["name"]),
            bytes: Progress::read(
                &size["recovered_in_bytes"],
                &size["total_in_bytes"],
                &size["reused_in_bytes"],
                &size["percent"],
            ),
            files: Progress::read(
                &files["recovered"],
                &files["total"],
                &files["reused"],
                &files["percent"],
            ),
            translog_ops: Progress::read(
                &translog["recovered"],
                &translog["total"],
                &Value::Null,
                &translog["percent"],
            ),
            elapsed_millis: count(&entry["total_time_in_millis"]),
        })
    }
}

/// A count: a whole number of zero or more, anything else zero (a translog total of `-1`
/// means "not known yet").
fn count(value: &Value) -> u64 {
    value.as_u64().unwrap_or(0)
}

impl Progress {
    fn read(recovered: &Value, total: &Value, reused: &Value, percent: &Value) -> Self {
        let recovered = count(recovered);
        let total = count(total);
        let percent = percent
            .as_str()
            .and_then(|text| text.trim().trim_end_matches('%').parse::<f64>().ok())
            .or_else(|| percent.as_f64())
            .filter(|percent| percent.is_finite())
            .unwrap_or_else(|| {
                let to_do = total.saturating_sub(count(reused));
                if to_do == 0 {
                    0.0
                } else {
                    recovered as f64 * 100.0 / to_do as f64
                }
            });
        Self {
            recovered,
            total,
            percent: percent.clamp(0.0, 100.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A peer recovery as OpenSearch 2.19 answers it (Elasticsearch 7.10 the same).
    fn peer() -> Value {
        json!({
            "id": 0, "type": "PEER", "stage": "INDEX", "primary": true,
            "start_time_in_millis": 1_700_000_000_000_u64, "total_time_in_millis": 5321,
            "source": {"id": "aaa", "host": "127.0.0.1", "transport_address": "127.0.0.1:9300",
                       "ip": "127.0.0.1", "name": "node-0"},
            "target": {"id": "bbb", "host": "127.0.0.1", "transport_address": "127.0.0.1:9301",
                       "ip": "127.0.0.1", "name": "node-1"},
            "index": {
                "size": {"total_in_bytes": 4_000_000, "reused_in_bytes": 0,
                         "recovered_in_bytes": 1_000_000, "percent": "25.0%"},
                "files": {"total": 12, "reused": 0, "recovered": 3, "percent": "25.0%"},
                "total_time_in_millis": 5000
            },
            "translog": {"recovered": 0, "total": -1, "percent": "-1.0%", "total_on_start": -1},
            "verify_index": {"check_index_time_in_millis": 0, "total_time_in_millis": 0}
        })
    }

    #[test]
    fn a_peer_recovery_reads_its_nodes_stage_and_progress() {
        let answer = json!({"logs": {"shards": [peer()]}});
        let read = Recoveries::from_answer(&answer).unwrap();
        assert_eq!((read.total, read.truncated), (1, false));
        let recovery = &read.recoveries[0];
        assert_eq!(
            (
                recovery.index.as_str(),
                recovery.shard,
                recovery.primary,
                recovery.kind.as_str(),
                recovery.stage.as_str()
            ),
            ("logs", 0, true, "peer", "index")
        );
        assert_eq!(recovery.source_node.as_deref(), Some("node-0"));
        assert_eq!(recovery.source_node_id.as_deref(), Some("aaa"));
        assert_eq!(recovery.target_node.as_deref(), Some("node-1"));
        assert_eq!(recovery.source_snapshot, None);
        assert_eq!(
            recovery.bytes,
            Progress {
                recovered: 1_000_000,
                total: 4_000_000,
                percent: 25.0
            }
        );
        assert_eq!(recovery.files.recovered, 3);
        assert_eq!(recovery.files.total, 12);
        // A translog total of -1 (not known yet) is zero, its "-1.0%" clamped to 0.
        assert_eq!(
            recovery.translog_ops,
            Progress {
                recovered: 0,
                total: 0,
                percent: 0.0
            }
        );
        assert_eq!(recovery.elapsed_millis, 5321);
    }

    #[test]
    fn a_snapshot_recovery_names_its_repository_and_snapshot_not_a_node() {
        let answer = json!({"restored": {"shards": [{
            "id": 2, "type": "SNAPSHOT", "stage": "INDEX", "primary": true,
            "source": {"repository": "backups", "snapshot": "nightly", "version": "8.0.0",
                       "index": "restored"},
            "target": {"id": "bbb", "name": "node-1"}
        }]}});
        let recovery = &Recoveries::from_answer(&answer).unwrap().recoveries[0];
        assert_eq!(recovery.kind, "snapshot");
        assert_eq!(recovery.source_snapshot.as_deref(), Some("backups/nightly"));
        assert_eq!(recovery.source_node, None);
    }

    #[test]
    fn without_a_percent_the_progress_is_recovered_over_what_is_not_reused() {
        let progress = Progress::read(&json!(50), &json!(300), &json!(100), &Value::Null);
        assert_eq!(progress.percent, 25.0);
        let nothing = Progress::read(&json!(0), &json!(0), &Value::Null, &Value::Null);
        assert_eq!(nothing.percent, 0.0);
        let numeric = Progress::read(&json!(1), &json!(2), &Value::Null, &json!(50.0));
        assert_eq!(numeric.percent, 50.0);
    }

    #[test]
    fn hostile_entries_are_skipped_or_read_as_zero_never_a_panic() {
        let answer = json!({
            "not-an-object": 7,
            "no-shards": {"shards": "many"},
            "odd": {"shards": [
                null, 3, "x", {"id": -1}, {"id": 1.5}, {"id": "0"},
                {"id": 5_000_000_000_u64},
                {"id": 4, "type": 9, "stage": ["x"], "primary": "yes",
                 "source": "somewhere", "target": {"name": 3},
                 "index": {"size": {"recovered_in_bytes": -5, "total_in_bytes": "big",
                                    "percent": "NaN%"},
                           "files": {"recovered": 10, "total": 2, "percent": "900%"}},
                 "translog": [], "total_time_in_millis": -3}
            ]}
        });
        let read = Recoveries::from_answer(&answer).unwrap();
        assert_eq!(read.total, 1, "{read:?}");
        let recovery = &read.recoveries[0];
        assert_eq!(recovery.shard, 4);
        assert!(!recovery.primary);
        assert_eq!((recovery.kind.as_str(), recovery.stage.as_str()), ("", ""));
        assert_eq!(
            (&recovery.source_node, &recovery.target_node),
            (&None, &None)
        );
        assert_eq!(recovery.bytes.recovered, 0);
        assert_eq!(recovery.bytes.total, 0);
        assert_eq!(recovery.bytes.percent, 0.0);
        assert_eq!(recovery.files.percent, 100.0);
        assert_eq!(recovery.elapsed_millis, 0);
        for not_an_object in [json!([]), json!("x"), Value::Null] {
            assert!(Recoveries::from_answer(&not_an_object).is_err());
        }
    }

    #[test]
    fn a_long_list_is_cut_and_says_so_in_order_of_index_shard_primary_first() {
        let shards: Vec<Value> = (0..(MAX_RECOVERIES as u64 + 20))
            .flat_map(|id| {
                [
                    json!({"id": id, "primary": false, "stage": "INDEX"}),
                    json!({"id": id, "primary": true, "stage": "INDEX"}),
                ]
            })
            .collect();
        let answer = json!({"b": {"shards": shards}, "a": {"shards": [{"id": 9}]}});
        let read = Recoveries::from_answer(&answer).unwrap();
        assert_eq!(read.total, 2 * (MAX_RECOVERIES as u64 + 20) + 1);
        assert!(read.truncated);
        assert_eq!(read.recoveries.len(), MAX_RECOVERIES);
        assert_eq!(read.recoveries[0].index, "a");
        assert_eq!(
            (read.recoveries[1].shard, read.recoveries[1].primary),
            (0, true)
        );
        assert_eq!(
            (read.recoveries[2].shard, read.recoveries[2].primary),
            (0, false)
        );
    }

    #[test]
    fn the_path_reads_active_recoveries_of_all_indices_or_one() {
        assert_eq!(recovery_path(None), "_recovery?active_only=true");
        let index = IndexName::parse("logs-2026.11").unwrap();
        assert_eq!(
            recovery_path(Some(&index)),
            "logs-2026.11/_recovery?active_only=true"
        );
    }
}
