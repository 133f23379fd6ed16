//! `POST /api/metrics_server/validate`: can the metrics server be reached, and do the job name
//! and labels match any elasticsearch_exporter series?

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::prometheus::{MetricsServerApi, PrometheusClient};
use super::promql::{SeriesFilter, is_label_name};
use super::time_range::now;
use crate::config::check_http_url;
use crate::error::Error;

/// Connecting may take this long; a closed port answers at once, a black hole does not.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The whole check (two or three calls) stays within a few seconds.
const CALL_TIMEOUT: Duration = Duration::from_secs(4);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidationRequest {
    pub url: String,
    #[serde(default)]
    pub job_name: Option<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct ValidationResponse {
    /// `success`, `no_data` (reachable, nothing matches) or `error` (unreachable).
    pub status: &'static str,
    pub message: String,
    pub reachable: bool,
}

/// One client for every validation: short time-outs, no redirects to elsewhere.
pub fn validation_http_client() -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(3))
        .build()?)
}

pub async fn validate(
    http: reqwest::Client,
    request: ValidationRequest,
) -> Result<ValidationResponse, Error> {
    let url = check_http_url(&request.url)
        .map_err(|message| Error::BadRequest(format!("url {message}.")))?;
    if let Some(bad) = request.labels.keys().find(|name| !is_label_name(name)) {
        return Err(Error::BadRequest(format!(
            "labels: \"{bad}\" is not a valid Prometheus label name."
        )));
    }
    let filter = SeriesFilter::new(request.job_name.as_deref(), &request.labels);
    let server = PrometheusClient::for_validation(http, url, filter);
    let version = match reach(&server).await {
        Ok(version) => version,
        Err(message) => {
            return Ok(ValidationResponse {
                status: "error",
                message,
                reachable: false,
            });
        }
    };
    let reached = match &version {
        Some(version) => format!("Reached the metrics server (Prometheus {version})."),
        None => "Reached the metrics server.".to_owned(),
    };
    let probe = server
        .filter()
        .select("elasticsearch_cluster_health_status", &[]);
    let matching = server
        .query(&format!("count({probe})"), now())
        .await
        .map(|series| {
            series
                .first()
                .and_then(|series| series.samples.first())
                .map_or(0, |(_, count)| *count as u64)
        });
    Ok(match matching {
        Ok(0) => ValidationResponse {
            status: "no_data",
            message: format!(
                "{reached} No elasticsearch_exporter series match {}: check the job name and labels against the scrape configuration.",
                server.filter().describe()
            ),
            reachable: true,
        },
        Ok(count) => ValidationResponse {
            status: "success",
            message: format!(
                "{reached} The job name and labels match {count} elasticsearch_exporter health series ({}).",
                server.filter().describe()
            ),
            reachable: true,
        },
        Err(error) => ValidationResponse {
            status: "error",
            message: format!("{reached} But a query failed: {error}"),
            reachable: true,
        },
    })
}

/// Build info, else the health endpoint; `Err` says why neither answered.
async fn reach(server: &PrometheusClient) -> Result<Option<String>, String> {
    let build_info = server
        .http()
        .get(server.endpoint("api/v1/status/buildinfo"))
        .send()
        .await;
    match build_info {
        Ok(response) if response.status().is_success() => {
            let body: Value = response.json().await.unwrap_or(Value::Null);
            return Ok(body["data"]["version"].as_str().map(str::to_owned));
        }
        Ok(_) => {}
        Err(error) => return Err(Error::from_reqwest(server.label(), &error).to_string()),
    }
    match server.http().get(server.endpoint("-/healthy")).send().await {
        Ok(response) if response.status().is_success() => Ok(None),
        Ok(response) => Err(format!(
            "The {} answered {} to its build-info and health endpoints: it does not look like Prometheus (check the URL).",
            server.label(),
            response.status()
        )),
        Err(error) => Err(Error::from_reqwest(server.label(), &error).to_string()),
    }
}
