//! `POST /api/metrics_server/validate`: can the metrics server be reached, and do the job name
//! and labels match any elasticsearch_exporter series?

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::prometheus::{MetricsServerApi, PrometheusClient};
use super::time_range::now;
use crate::config::check_http_url;
use crate::error::Error;
use crate::promql::{SeriesFilter, is_label_name};

/// Connecting may take this long; a closed port answers at once, a black hole does not.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The whole check (two or three calls) stays within a few seconds.
const CALL_TIMEOUT: Duration = Duration::from_secs(4);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ValidationRequest {
    pub url: String,
    #[serde(default)]
    pub job_name: Option<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

/// The verdict of a validation.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ValidationStatus {
    /// Reachable, and the job name and labels match exporter series.
    Success,
    /// Reachable, but nothing matches.
    NoData,
    /// Unreachable, or a query failed.
    Error,
}

impl ValidationStatus {
    /// As serialised (for the audit log).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::NoData => "no_data",
            Self::Error => "error",
        }
    }
}

#[derive(Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ValidationResponse {
    pub status: ValidationStatus,
    pub message: String,
    pub reachable: bool,
}

/// Redirects followed in a row, at most.
const MAX_REDIRECTS: usize = 3;

/// One client for every validation: short time-outs, no redirects to elsewhere.
pub fn validation_http_client() -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .redirect(same_server_redirects())
        .build()?)
}

/// Follows a redirect only to the server the caller named (a path behind a proxy, `http` to
/// `https`); one to another host or port is not followed, so a metrics server cannot bounce
/// the console's request elsewhere. The 3xx answer is then reported by [`redirect_refused`].
fn same_server_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error("too many redirects");
        }
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| same_server(first, attempt.url()));
        if same {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// Same host and port with the same scheme, or `http` upgraded to `https` on the same host.
pub(crate) fn same_server(from: &reqwest::Url, to: &reqwest::Url) -> bool {
    let host = |url: &reqwest::Url| url.host_str().map(str::to_ascii_lowercase);
    if host(from).is_none() || host(from) != host(to) {
        return false;
    }
    let same_port = from.port_or_known_default() == to.port_or_known_default();
    (from.scheme() == to.scheme() && same_port)
        || (from.scheme() == "http" && to.scheme() == "https" && to.port().is_none())
}

/// Why a redirect answer was not followed, naming where it pointed (origin only: a path or
/// query may carry secrets).
fn redirect_refused(label: &str, response: &reqwest::Response) -> Option<String> {
    if !response.status().is_redirection() {
        return None;
    }
    let target = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|location| response.url().join(location).ok())
        .map_or_else(
            || "an unknown place".to_owned(),
            |url| url.origin().ascii_serialization(),
        );
    Some(format!(
        "The {label} answered {} with a redirect to {target}: the console does not follow redirects to another host or port. Give the metrics server's own URL.",
        response.status()
    ))
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
                status: ValidationStatus::Error,
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
            status: ValidationStatus::NoData,
            message: format!(
                "{reached} No elasticsearch_exporter series match {}: check the job name and labels against the scrape configuration.",
                server.filter().describe()
            ),
            reachable: true,
        },
        Ok(count) => ValidationResponse {
            status: ValidationStatus::Success,
            message: format!(
                "{reached} The job name and labels match {count} elasticsearch_exporter health series ({}).",
                server.filter().describe()
            ),
            reachable: true,
        },
        Err(error) => ValidationResponse {
            status: ValidationStatus::Error,
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
    if let Ok(response) = &build_info
        && let Some(message) = redirect_refused(server.label(), response)
    {
        return Err(message);
    }
    match build_info {
        Ok(response) if response.status().is_success() => {
            let body: Value = response.json().await.unwrap_or(Value::Null);
            return Ok(body["data"]["version"].as_str().map(str::to_owned));
        }
        Ok(_) => {}
        Err(error) => return Err(Error::from_reqwest(server.label(), error).to_string()),
    }
    let health = server.http().get(server.endpoint("-/healthy")).send().await;
    if let Ok(response) = &health
        && let Some(message) = redirect_refused(server.label(), response)
    {
        return Err(message);
    }
    match health {
        Ok(response) if response.status().is_success() => Ok(None),
        Ok(response) => Err(format!(
            "The {} answered {} to its build-info and health endpoints: it does not look like Prometheus (check the URL).",
            server.label(),
            response.status()
        )),
        Err(error) => Err(Error::from_reqwest(server.label(), error).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_named_server() {
        let url = |text: &str| reqwest::Url::parse(text).unwrap();
        let from = url("http://prometheus.internal:9090/");
        for same in [
            "http://prometheus.internal:9090/prometheus/api/v1/status/buildinfo",
            "http://PROMETHEUS.internal:9090/x",
            "https://prometheus.internal/x",
        ] {
            assert!(same_server(&from, &url(same)), "{same}");
        }
        for other in [
            "http://prometheus.internal:9091/x",
            "http://127.0.0.1:9090/x",
            "http://prometheus.internal.evil.example:9090/x",
            "https://prometheus.internal:9090/x",
            "file:///etc/passwd",
        ] {
            assert!(!same_server(&from, &url(other)), "{other}");
        }
        assert!(!same_server(
            &url("https://p.internal/"),
            &url("http://p.internal/")
        ));
    }
}
