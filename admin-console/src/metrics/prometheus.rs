//! The external metrics server (Prometheus HTTP API v1): instant and range queries on
//! elasticsearch_exporter's series, run concurrently and merged into measurements.

use std::collections::BTreeMap;
use std::future::Future;

use reqwest::Url;
use serde::Deserialize;
use serde_json::Value;

use super::Measurement;
use super::time_range::TimeRange;
use crate::cluster::views::Health;
use crate::config::{ClusterTimeouts, MetricsServerSettings};
use crate::error::{Cause, Error};
use crate::numbers::round2;
use crate::promql::{ExporterQueries, SeriesFilter};

/// One series of a query answer: its labels and its `(unix seconds, value)` samples.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    pub samples: Vec<(i64, f64)>,
}

/// What the metrics code needs from a Prometheus-compatible server.
pub trait MetricsServerApi: Send + Sync {
    fn query(
        &self,
        query: &str,
        time: i64,
    ) -> impl Future<Output = Result<Vec<Series>, Error>> + Send;
    fn query_range(
        &self,
        query: &str,
        range: TimeRange,
        step: i64,
    ) -> impl Future<Output = Result<Vec<Series>, Error>> + Send;
}

pub struct PrometheusClient {
    http: reqwest::Client,
    base: Url,
    label: String,
    filter: SeriesFilter,
    queries: ExporterQueries,
}

impl PrometheusClient {
    pub fn new(
        settings: MetricsServerSettings,
        timeouts: &ClusterTimeouts,
    ) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .timeout(timeouts.request)
            .build()?;
        let filter = SeriesFilter::new(settings.job_name.as_deref(), &settings.labels);
        Ok(Self {
            http,
            label: format!("metrics server {}", redacted(&settings.url)),
            base: settings.url,
            queries: ExporterQueries::new(&filter),
            filter,
        })
    }

    /// A client for the validation endpoint (short time-outs, no cluster).
    pub fn for_validation(http: reqwest::Client, base: Url, filter: SeriesFilter) -> Self {
        Self {
            label: format!("metrics server {}", redacted(&base)),
            http,
            base,
            queries: ExporterQueries::new(&filter),
            filter,
        }
    }

    pub fn filter(&self) -> &SeriesFilter {
        &self.filter
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub fn endpoint(&self, path: &str) -> String {
        format!("{}/{}", self.base.as_str().trim_end_matches('/'), path)
    }

    async fn call(&self, path: &str, params: &[(&str, String)]) -> Result<Value, Error> {
        let mut url = Url::parse(&self.endpoint(path)).map_err(|error| {
            Error::upstream_because(
                format!("Bad metrics server URL: {error}."),
                Cause::Url(error),
            )
        })?;
        url.query_pairs_mut()
            .extend_pairs(params.iter().map(|(name, value)| (*name, value.as_str())));
        let response = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, error))?;
        let status = response.status();
        let body: Value = response.json().await.map_err(|error| {
            Error::upstream_because(
                format!(
                    "The {} did not answer with JSON ({status}): {error}.",
                    self.label
                ),
                error,
            )
        })?;
        if body["status"] != "success" {
            return Err(Error::upstream(format!(
                "The {} refused the query ({status}): {}",
                self.label,
                body["error"].as_str().unwrap_or("no reason given")
            )));
        }
        Ok(body)
    }

    /// The snapshot at `time` from instant queries; no health series means no data.
    pub async fn snapshot_at(&self, time: i64, cluster_id: &str) -> Result<Measurement, Error> {
        let q = &self.queries;
        let results = futures_util::future::join_all(
            self.all_queries(q)
                .into_iter()
                .map(|query| self.query(query, time)),
        )
        .await;
        let mut merged = merge(time, results)?;
        let measurement = merged
            .remove(&time)
            .or_else(|| merged.into_values().last())
            .filter(|measurement| measurement.health.is_some());
        match measurement {
            Some(measurement) => Ok(Measurement {
                timestamp: time,
                ..measurement
            }),
            None => Err(self.no_data(cluster_id, time).await),
        }
    }

    /// Why there is no health series at `time`: an exporter that is scraped but cannot read the
    /// cluster (`elasticsearch_cluster_health_up` 0, its health series gone), or no matching
    /// exporter series at all.
    async fn no_data(&self, cluster_id: &str, time: i64) -> Error {
        let up = self.query(&self.queries.health_up, time).await;
        let exporter_up_cluster_down = up.is_ok_and(|series| {
            !series.is_empty()
                && series
                    .iter()
                    .all(|s| s.samples.iter().all(|(_, value)| *value == 0.0))
        });
        if exporter_up_cluster_down {
            return Error::NoMetricsData(format!(
                "The elasticsearch_exporter that the {} scrapes for {} cannot read the cluster's health (elasticsearch_cluster_health_up is 0): cluster \"{cluster_id}\" is down or refuses the exporter.",
                self.label,
                self.filter.describe()
            ));
        }
        Error::NoMetricsData(format!(
            "The {} has no elasticsearch_exporter series for {} (cluster \"{cluster_id}\"); check metrics_server_job_name and metrics_server_labels.",
            self.label,
            self.filter.describe()
        ))
    }

    /// Range queries for every field, concurrently; points exist where some value does.
    pub async fn history(&self, range: TimeRange, step: i64) -> Result<Vec<Measurement>, Error> {
        let q = &self.queries;
        let results = futures_util::future::join_all(
            self.all_queries(q)
                .into_iter()
                .map(|query| self.query_range(query, range, step)),
        )
        .await;
        Ok(merge(range.start, results)?.into_values().collect())
    }

    fn all_queries<'a>(&self, q: &'a ExporterQueries) -> [&'a str; 9] {
        [
            &q.health,
            &q.node_count,
            &q.index_count,
            &q.document_count,
            &q.shard_count,
            &q.unassigned_shards,
            &q.memory_usage_percent,
            &q.disk_usage_percent,
            &q.cpu_usage_percent,
        ]
    }
}

impl MetricsServerApi for PrometheusClient {
    async fn query(&self, query: &str, time: i64) -> Result<Vec<Series>, Error> {
        let body = self
            .call(
                "api/v1/query",
                &[("query", query.to_owned()), ("time", time.to_string())],
            )
            .await?;
        Ok(parse_series(&body["data"]))
    }

    async fn query_range(
        &self,
        query: &str,
        range: TimeRange,
        step: i64,
    ) -> Result<Vec<Series>, Error> {
        let params = [
            ("query", query.to_owned()),
            ("start", range.start.to_string()),
            ("end", range.end.to_string()),
            ("step", step.to_string()),
        ];
        let body = self.call("api/v1/query_range", &params).await?;
        Ok(parse_series(&body["data"]))
    }
}

#[derive(Deserialize)]
struct RawSeries {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    value: Option<(f64, String)>,
    #[serde(default)]
    values: Vec<(f64, String)>,
}

/// `data.result` of a vector or matrix answer; NaN and infinite samples are dropped.
pub fn parse_series(data: &Value) -> Vec<Series> {
    let raw: Vec<RawSeries> = serde_json::from_value(data["result"].clone()).unwrap_or_default();
    raw.into_iter()
        .map(|series| {
            let samples = series
                .value
                .into_iter()
                .chain(series.values)
                .filter_map(|(time, value)| {
                    let value: f64 = value.parse().ok()?;
                    value.is_finite().then_some((time as i64, value))
                })
                .collect();
            Series {
                labels: series.metric,
                samples,
            }
        })
        .collect()
}

/// Builds measurements per timestamp from the nine answers, in [`PrometheusClient::all_queries`]
/// order. The first error wins (they are the same server).
fn merge(
    _start: i64,
    results: Vec<Result<Vec<Series>, Error>>,
) -> Result<BTreeMap<i64, Measurement>, Error> {
    let mut points: BTreeMap<i64, Measurement> = BTreeMap::new();
    for (field, result) in results.into_iter().enumerate() {
        for series in result? {
            for (time, value) in &series.samples {
                let point = points
                    .entry(*time)
                    .or_insert_with(|| Measurement::empty(*time));
                let count = Some(value.max(0.0).round() as u64);
                match field {
                    0 => {
                        // Several series at once (several matching exporters): the worst wins.
                        let color = series.labels.get("color").and_then(|c| Health::parse(c));
                        point.health = point.health.max(color);
                    }
                    1 => point.node_count = count,
                    2 => point.index_count = count,
                    3 => point.document_count = count,
                    4 => point.shard_count = count,
                    5 => point.unassigned_shards = count,
                    6 => point.memory_usage_percent = Some(round2(*value)),
                    7 => point.disk_usage_percent = Some(round2(*value)),
                    _ => point.cpu_usage_percent = Some(round2(*value)),
                }
            }
        }
    }
    Ok(points)
}

/// The URL without user information, for messages.
fn redacted(url: &Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string().trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matrix_answers_become_series_and_merge_by_timestamp() {
        let health = parse_series(&json!({"resultType": "matrix", "result": [
            {"metric": {"color": "green"}, "values": [[100, "1"], [160, "1"]]},
            {"metric": {"color": "yellow"}, "values": [[220, "1"]]}
        ]}));
        let nodes = parse_series(
            &json!({"result": [{"metric": {}, "values": [[100, "3"], [220, "NaN"]]}]}),
        );
        let mut results = vec![Ok(health), Ok(nodes)];
        results.extend((0..7).map(|_| Ok(Vec::new())));
        let merged = merge(0, results).unwrap();
        let stamps: Vec<_> = merged.keys().copied().collect();
        assert_eq!(stamps, [100, 160, 220]);
        assert_eq!(merged[&100].node_count, Some(3));
        assert_eq!(merged[&220].health, Some(Health::Yellow));
        assert_eq!(merged[&220].node_count, None);
        assert_eq!(merged[&160].cpu_usage_percent, None);
    }
}
