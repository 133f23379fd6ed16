//! `internal` metrics: three light calls made concurrently (`_cluster/health`, filtered
//! `_cluster/stats`, `_nodes/stats/os` for CPU; never the full cluster state), and the
//! background sampler that records them for the history.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use service_kit::single_flight::SingleFlight;

use super::Measurement;
use super::history::HistoryStore;
use super::time_range::now;
use crate::cluster::client::ClusterApi;
use crate::cluster::views;
use crate::config::InternalHistorySettings;
use crate::error::Error;
use crate::numbers::{disk_used_percent, percent_of, round2};

pub const HEALTH_PATH: &str = "_cluster/health";
pub const STATS_PATH: &str =
    "_cluster/stats?filter_path=indices.count,indices.docs.count,nodes.jvm.mem,nodes.fs";
pub const NODES_OS_PATH: &str = "_nodes/stats/os?filter_path=nodes.*.os.cpu.percent";

/// How long a measurement is shared: every tab polling the same cluster within this second
/// costs the cluster one set of three calls, not one per tab.
const MEASUREMENT_CACHE_TTL: Duration = Duration::from_secs(1);

/// What an `internal` cluster's metrics need: the history the background sampler records, and
/// the current measurement shared by concurrent callers.
pub struct InternalMetrics {
    history: Arc<HistoryStore>,
    /// Time between two samples (`internal_history.sample_interval`).
    interval: Duration,
    measurement: SingleFlight<(), Measurement, Error>,
}

impl InternalMetrics {
    pub fn new(settings: &InternalHistorySettings) -> Self {
        Self {
            history: Arc::new(HistoryStore::new(settings.capacity())),
            interval: settings.sample_interval,
            measurement: SingleFlight::keeping_for(MEASUREMENT_CACHE_TTL),
        }
    }

    pub fn history(&self) -> &HistoryStore {
        &self.history
    }

    /// The time between two samples, in whole seconds (at least 1).
    pub fn sample_interval_secs(&self) -> i64 {
        self.interval.as_secs().max(1) as i64
    }

    /// The background task that samples `cluster` into this history until it is aborted.
    pub fn sampler<C: ClusterApi + 'static>(
        &self,
        cluster: C,
        cluster_id: String,
    ) -> impl Future<Output = ()> + Send + 'static {
        run_sampler(cluster, cluster_id, self.history.clone(), self.interval)
    }

    /// The cluster's state now: at most one set of calls per second, shared by concurrent
    /// callers; the timestamp says when it was measured.
    pub async fn current(&self, cluster: &impl ClusterApi) -> Result<Measurement, Error> {
        self.measurement.run((), || measure(cluster, now())).await
    }
}

/// The cluster's state now. Health and stats are needed; CPU is `null` when the cluster
/// refuses `_nodes/stats` (permissions, or a server without it).
pub async fn measure(cluster: &impl ClusterApi, timestamp: i64) -> Result<Measurement, Error> {
    let (health, stats, nodes_os) = futures_util::join!(
        cluster.get_json(HEALTH_PATH),
        cluster.get_json(STATS_PATH),
        cluster.get_json(NODES_OS_PATH),
    );
    let (health, stats) = (health?, stats?);
    let u64_at = |value: &Value, pointer: &str| value.pointer(pointer).and_then(Value::as_u64);
    Ok(Measurement {
        timestamp,
        health: Some(views::health_of(&health)?),
        node_count: u64_at(&health, "/number_of_nodes"),
        index_count: u64_at(&stats, "/indices/count"),
        document_count: u64_at(&stats, "/indices/docs/count"),
        shard_count: u64_at(&health, "/active_shards"),
        unassigned_shards: u64_at(&health, "/unassigned_shards"),
        memory_usage_percent: percent_of(
            &stats["nodes"]["jvm"]["mem"]["heap_used_in_bytes"],
            &stats["nodes"]["jvm"]["mem"]["heap_max_in_bytes"],
        ),
        disk_usage_percent: disk_used_percent(&stats["nodes"]["fs"]),
        cpu_usage_percent: nodes_os.ok().and_then(|nodes| average_cpu(&nodes)),
    })
}

/// The mean `os.cpu.percent` of the nodes that report one.
fn average_cpu(nodes_stats: &Value) -> Option<f64> {
    let values: Vec<f64> = nodes_stats["nodes"]
        .as_object()?
        .values()
        .filter_map(|node| node["os"]["cpu"]["percent"].as_f64())
        .collect();
    (!values.is_empty()).then(|| round2(values.iter().sum::<f64>() / values.len() as f64))
}

/// Samples `cluster` into `store` every `interval` until the task is aborted. A failed sample
/// records nothing: the history shows a gap, not made-up values.
async fn run_sampler<C: ClusterApi>(
    cluster: C,
    cluster_id: String,
    store: Arc<HistoryStore>,
    interval: Duration,
) {
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        match measure(&cluster, now()).await {
            Ok(sample) => store.record(sample),
            Err(error) => {
                tracing::debug!(cluster = %cluster_id, %error, "history sample failed");
                metrics::counter!("admin_console_history_sample_failures_total", "cluster" => cluster_id.clone())
                    .increment(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cpu_is_the_mean_of_reporting_nodes() {
        let nodes = json!({"nodes": {"a": {"os": {"cpu": {"percent": 10}}}, "b": {"os": {"cpu": {"percent": 21}}}, "c": {}}});
        assert_eq!(average_cpu(&nodes), Some(15.5));
        assert_eq!(average_cpu(&json!({"nodes": {}})), None);
    }
}
