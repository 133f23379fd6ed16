//! One entry of `clusters:`: where the cluster is, how to reach it, and where its metrics are.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Url;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use service_kit::client_tls::ClientTlsSettings;
use service_kit::config::ConfigProblems;

use super::ClusterAccess;

/// Where a cluster's statistics come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricsSource {
    /// The cluster itself (`_cluster/health`, `_cluster/stats`, `_nodes/stats/os`).
    #[default]
    Internal,
    /// A Prometheus-compatible server scraping elasticsearch_exporter.
    #[serde(alias = "prometheus")]
    ExternalMetrics,
}

impl MetricsSource {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Internal => "internal",
            Self::ExternalMetrics => "external_metrics",
        }
    }
}

/// What a cluster is for; only `production` changes what the console does (a typed reason
/// before every state-changing call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Environment {
    Production,
    Staging,
    Test,
    Development,
}

impl Environment {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Production => "production",
            Self::Staging => "staging",
            Self::Test => "test",
            Self::Development => "development",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSettings {
    /// Used as `:cluster_id` in API paths.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Base address of the cluster, e.g. `https://search.internal:9200` (a path prefix is kept).
    pub url: String,
    #[serde(default)]
    pub metrics_source: MetricsSource,
    #[serde(default, alias = "prometheus_url")]
    pub metrics_server_url: Option<String>,
    /// Scrape job of elasticsearch_exporter, used to filter series.
    #[serde(default, alias = "prometheus_job_name")]
    pub metrics_server_job_name: Option<String>,
    /// Extra label filters on the exporter's series.
    #[serde(default, alias = "prometheus_labels")]
    pub metrics_server_labels: BTreeMap<String, String>,
    /// Credentials applied server-side to every call to this cluster.
    #[serde(default)]
    pub auth: Option<ClusterAuth>,
    #[serde(default)]
    pub tls: ClientTlsSettings,
    #[serde(default)]
    pub timeouts: ClusterTimeouts,
    /// Everyone is at most viewer on this cluster (open mode included).
    #[serde(default)]
    pub read_only: bool,
    /// `production`: every state-changing call needs a typed reason (`X-Change-Reason`).
    /// Unset: not production.
    #[serde(default)]
    pub environment: Option<Environment>,
    /// This cluster's own role mapping, replacing `access.roles` (and `access.default_role`
    /// when it sets one).
    #[serde(default)]
    pub access: Option<ClusterAccess>,
}

/// Exactly one kind of credentials; secrets usually come from `${NAME}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClusterAuth {
    /// HTTP Basic user (with `password`).
    pub username: Option<String>,
    pub password: Option<SecretString>,
    /// Elasticsearch API key, sent as `Authorization: ApiKey <api_key>` (the base64 form).
    pub api_key: Option<SecretString>,
    /// Sent as `Authorization: Bearer <bearer_token>`.
    pub bearer_token: Option<SecretString>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClusterTimeouts {
    /// Time to open a connection.
    #[serde(with = "humantime_serde")]
    pub connect: Duration,
    /// Whole-call limit for the cluster views, metrics and the metrics server.
    #[serde(with = "humantime_serde")]
    pub request: Duration,
    /// Limit for a console request, body included (large responses need time).
    #[serde(with = "humantime_serde")]
    pub relay: Duration,
    /// Limit for the health probe of the cluster list, so one dead cluster cannot stall it.
    #[serde(with = "humantime_serde")]
    pub probe: Duration,
}

impl Default for ClusterTimeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(5),
            request: Duration::from_secs(30),
            relay: Duration::from_secs(300),
            probe: Duration::from_secs(3),
        }
    }
}

/// The external metrics server of a cluster, once validated.
#[derive(Debug, Clone)]
pub(crate) struct MetricsServerSettings {
    pub(crate) url: Url,
    pub(crate) job_name: Option<String>,
    pub(crate) labels: BTreeMap<String, String>,
}

impl ClusterSettings {
    pub(crate) fn is_production(&self) -> bool {
        self.environment == Some(Environment::Production)
    }

    pub(crate) fn metrics_server(&self) -> Option<MetricsServerSettings> {
        let url = Url::parse(self.metrics_server_url.as_deref()?).ok()?;
        Some(MetricsServerSettings {
            url,
            job_name: self.metrics_server_job_name.clone(),
            labels: self.metrics_server_labels.clone(),
        })
    }

    pub(crate) fn validate(&self, at: &str, problems: &mut ConfigProblems) {
        problems.check(
            is_valid_id(&self.id),
            &format!("{at}.id"),
            "must be 1 to 64 characters of letters, digits, `-`, `_` or `.`",
        );
        problems.check(
            !self.name.trim().is_empty(),
            &format!("{at}.name"),
            "must not be empty",
        );
        if let Err(message) = check_http_url(&self.url) {
            problems.push(format!("{at}.url"), message);
        }
        match (&self.metrics_source, &self.metrics_server_url) {
            (MetricsSource::ExternalMetrics, None) => problems.push(
                format!("{at}.metrics_server_url"),
                "is required when metrics_source is external_metrics",
            ),
            (_, Some(url)) => {
                if let Err(message) = check_http_url(url) {
                    problems.push(format!("{at}.metrics_server_url"), message);
                }
            }
            (MetricsSource::Internal, None) => {}
        }
        if let Some(job) = &self.metrics_server_job_name {
            problems.check(
                !job.is_empty(),
                &format!("{at}.metrics_server_job_name"),
                "must not be empty when given",
            );
        }
        for name in self.metrics_server_labels.keys() {
            problems.check(
                crate::promql::is_label_name(name),
                &format!("{at}.metrics_server_labels.{name}"),
                "is not a valid Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)",
            );
        }
        if let Some(auth) = &self.auth {
            auth.validate(&format!("{at}.auth"), problems);
        }
        self.tls.validate(&format!("{at}.tls"), problems);
        self.timeouts.validate(&format!("{at}.timeouts"), problems);
        if let Some(access) = &self.access {
            access.validate(&format!("{at}.access"), problems);
        }
    }
}

impl ClusterAuth {
    fn validate(&self, at: &str, problems: &mut ConfigProblems) {
        let basic = self.username.is_some() || self.password.is_some();
        let kinds = [basic, self.api_key.is_some(), self.bearer_token.is_some()]
            .iter()
            .filter(|set| **set)
            .count();
        problems.check(
            kinds == 1,
            at,
            "must hold exactly one of username/password, api_key or bearer_token",
        );
        if basic {
            problems.check(
                self.username
                    .as_deref()
                    .is_some_and(|user| !user.is_empty()),
                &format!("{at}.username"),
                "is required with password and must not be empty",
            );
            problems.check(
                self.password.is_some(),
                &format!("{at}.password"),
                "is required with username",
            );
        }
        for (key, secret) in [
            ("api_key", &self.api_key),
            ("bearer_token", &self.bearer_token),
        ] {
            if let Some(secret) = secret {
                problems.check(
                    !secret.expose_secret().is_empty()
                        && secret
                            .expose_secret()
                            .bytes()
                            .all(|byte| byte.is_ascii_graphic()),
                    &format!("{at}.{key}"),
                    "must be non-empty printable ASCII without spaces",
                );
            }
        }
    }
}

impl ClusterTimeouts {
    fn validate(&self, at: &str, problems: &mut ConfigProblems) {
        for (key, value) in [
            ("connect", self.connect),
            ("request", self.request),
            ("relay", self.relay),
            ("probe", self.probe),
        ] {
            problems.check(
                value >= Duration::from_millis(100) && value <= Duration::from_secs(3600),
                &format!("{at}.{key}"),
                "must be between 100ms and 1h",
            );
        }
    }
}

fn is_valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
}

/// An absolute http(s) URL with a host and no credentials, query or fragment.
pub(crate) fn check_http_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|error| format!("is not a valid URL ({error})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("must use http or https, not {}", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("must name a host".to_owned());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not hold credentials; use the auth section".to_owned());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("must not have a query string or fragment".to_owned());
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_with_a_reason() {
        assert!(check_http_url("http://127.0.0.1:9200").is_ok());
        assert!(check_http_url("https://es.internal/prefix/").is_ok());
        assert!(
            check_http_url("not a url")
                .unwrap_err()
                .contains("valid URL")
        );
        assert!(
            check_http_url("ftp://x")
                .unwrap_err()
                .contains("http or https")
        );
        assert!(
            check_http_url("http://u:p@x")
                .unwrap_err()
                .contains("credentials")
        );
    }

    #[test]
    fn ids_are_path_safe() {
        assert!(is_valid_id("prod-eu_1.a"));
        assert!(!is_valid_id(""));
        assert!(!is_valid_id("a/b"));
        assert!(!is_valid_id("a b"));
    }
}
