//! Cluster metrics: the snapshot of the specification and the history of the health heatmap,
//! from the cluster itself (`internal`) or from a Prometheus-compatible server.

pub mod history;
pub mod internal;
pub mod prometheus;
pub mod time_range;
pub mod validate;

use serde::Serialize;

use crate::cluster::client::ClusterApi;
use crate::cluster::views::Health;
use crate::config::{ClusterSettings, InternalHistorySettings, MetricsSource};
use crate::error::Error;
use history::{History, HistoryPoint};
pub use internal::InternalMetrics;
use prometheus::PrometheusClient;
use time_range::TimeRange;

/// One moment of a cluster, as the snapshot and each history point report it. A value the
/// source does not have is `None` (`null`), never 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
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
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Snapshot {
    pub cluster_id: String,
    #[serde(flatten)]
    pub measurement: Measurement,
}

/// The snapshot default range is the last 24 hours.
pub const SNAPSHOT_DEFAULT_SPAN: i64 = 24 * 3600;
/// The history default range is the last 7 days.
pub const HISTORY_DEFAULT_SPAN: i64 = 7 * 24 * 3600;

/// Where a cluster's statistics come from, with what that source needs: one of the two,
/// never both or neither.
pub enum Metrics {
    /// A Prometheus-compatible server scraping elasticsearch_exporter (`external_metrics`).
    External(Box<PrometheusClient>),
    /// The cluster itself (`internal`): the sampled history and the shared measurement.
    Internal(InternalMetrics),
}

impl Metrics {
    pub fn new(
        settings: &ClusterSettings,
        history: &InternalHistorySettings,
    ) -> anyhow::Result<Self> {
        Ok(match settings.metrics_source {
            MetricsSource::ExternalMetrics => {
                let server = settings.metrics_server().ok_or_else(|| {
                    anyhow::anyhow!(
                        "cluster \"{}\": metrics_server_url is required when metrics_source is external_metrics",
                        settings.id
                    )
                })?;
                Self::External(Box::new(PrometheusClient::new(server, &settings.timeouts)?))
            }
            MetricsSource::Internal => Self::Internal(InternalMetrics::new(history)),
        })
    }

    /// The current state for `range`: the cluster now (internal), or the metrics server at
    /// `end`.
    pub async fn snapshot(
        &self,
        cluster: &impl ClusterApi,
        cluster_id: &str,
        range: TimeRange,
        now: i64,
    ) -> Result<Snapshot, Error> {
        let measurement = match self {
            Self::External(server) => server.snapshot_at(range.end.min(now), cluster_id).await?,
            Self::Internal(internal) => internal.current(cluster).await?,
        };
        Ok(Snapshot {
            cluster_id: cluster_id.to_owned(),
            measurement,
        })
    }

    /// The history for `range`, at most [`history::MAX_POINTS`] points, oldest first.
    pub async fn history(&self, cluster_id: &str, range: TimeRange) -> Result<History, Error> {
        match self {
            Self::External(server) => {
                let step = history::step_for(range, 60);
                let points = server.history(range, step).await?;
                let reason = points.is_empty().then(|| {
                    format!(
                        "The metrics server has no elasticsearch_exporter series for {} in this range; check metrics_server_job_name and metrics_server_labels against the scrape configuration.",
                        server.filter().describe()
                    )
                });
                Ok(History::new(
                    cluster_id,
                    "external_metrics",
                    range,
                    step,
                    points,
                    reason,
                ))
            }
            Self::Internal(internal) => {
                let step = history::step_for(range, internal.sample_interval_secs());
                let points: Vec<HistoryPoint> = internal.history().points(range, step);
                let reason = points.is_empty().then(|| {
                    "The console has not sampled this cluster in this range (it samples while it runs, and keeps a bounded history in memory).".to_owned()
                });
                Ok(
                    History::new(cluster_id, "internal", range, step, points, reason)
                        .collecting_since(internal.history().collecting_since()),
                )
            }
        }
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
