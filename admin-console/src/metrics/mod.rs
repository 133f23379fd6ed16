//! Cluster metrics: the snapshot of the specification and the history of the health heatmap,
//! from the cluster itself (`internal`) or from a Prometheus-compatible server.

pub mod history;
pub mod internal;
pub mod prometheus;
pub mod promql;
pub mod time_range;
pub mod validate;

use serde::Serialize;

use crate::cluster::Cluster;
use crate::cluster::views::Health;
use crate::error::Error;
use history::{History, HistoryPoint};
use time_range::TimeRange;

/// One moment of a cluster, as the snapshot and each history point report it. A value the
/// source does not have is `None` (`null`), never 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Measurement {
    pub timestamp: i64,
    pub health: Option<Health>,
    pub node_count: Option<u64>,
    pub index_count: Option<u64>,
    pub document_count: Option<u64>,
    pub shard_count: Option<u64>,
    pub unassigned_shards: Option<u64>,
    pub memory_usage_percent: Option<f64>,
    pub disk_usage_percent: Option<f64>,
    pub cpu_usage_percent: Option<f64>,
}

impl Measurement {
    pub fn empty(timestamp: i64) -> Self {
        Self {
            timestamp,
            health: None,
            node_count: None,
            index_count: None,
            document_count: None,
            shard_count: None,
            unassigned_shards: None,
            memory_usage_percent: None,
            disk_usage_percent: None,
            cpu_usage_percent: None,
        }
    }
}

/// `GET /api/clusters/:id/metrics`: exactly the fields of the specification.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub cluster_id: String,
    #[serde(flatten)]
    pub measurement: Measurement,
}

/// The snapshot default range is the last 24 hours.
pub const SNAPSHOT_DEFAULT_SPAN: i64 = 24 * 3600;
/// The history default range is the last 7 days.
pub const HISTORY_DEFAULT_SPAN: i64 = 7 * 24 * 3600;

/// The current state for `range`: the cluster now (internal), or the metrics server at `end`.
pub async fn snapshot(cluster: &Cluster, range: TimeRange, now: i64) -> Result<Snapshot, Error> {
    let measurement = match &cluster.metrics_server {
        Some(server) => server.snapshot_at(range.end.min(now), cluster.id()).await?,
        None => cluster.current_measurement().await?,
    };
    Ok(Snapshot {
        cluster_id: cluster.id().to_owned(),
        measurement,
    })
}

/// The history for `range`, at most [`history::MAX_POINTS`] points, oldest first.
pub async fn history(cluster: &Cluster, range: TimeRange) -> Result<History, Error> {
    match (&cluster.metrics_server, &cluster.history) {
        (Some(server), _) => {
            let step = history::step_for(range, 60);
            let points = server.history(range, step).await?;
            let reason = points.is_empty().then(|| {
                format!(
                    "The metrics server has no elasticsearch_exporter series for {} in this range; check metrics_server_job_name and metrics_server_labels against the scrape configuration.",
                    server.filter().describe()
                )
            });
            Ok(History::new(
                cluster.id(),
                "external_metrics",
                range,
                step,
                points,
                reason,
            ))
        }
        (None, Some(store)) => {
            let step = history::step_for(range, store.sample_interval_secs().max(1));
            let points: Vec<HistoryPoint> = store.points(range, step);
            let reason = points.is_empty().then(|| {
                "The console has not sampled this cluster in this range (it samples while it runs, and keeps a bounded history in memory).".to_owned()
            });
            Ok(History::new(
                cluster.id(),
                "internal",
                range,
                step,
                points,
                reason,
            ))
        }
        (None, None) => Err(Error::Upstream(format!(
            "Cluster \"{}\" has no metrics source.",
            cluster.id()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_has_exactly_the_specified_fields() {
        let snapshot = Snapshot {
            cluster_id: "c".to_owned(),
            measurement: Measurement {
                health: Some(Health::Green),
                ..Measurement::empty(5)
            },
        };
        let value = serde_json::to_value(&snapshot).unwrap();
        let mut keys: Vec<_> = value.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "clusterId",
                "cpuUsagePercent",
                "diskUsagePercent",
                "documentCount",
                "health",
                "indexCount",
                "memoryUsagePercent",
                "nodeCount",
                "shardCount",
                "timestamp",
                "unassignedShards"
            ]
        );
    }
}
