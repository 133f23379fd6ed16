//! Settings sections that are the same in every service that has them.

use std::marker::PhantomData;
use std::time::Duration;

use serde::Deserialize;

use crate::config::ConfigProblems;
use crate::logging::{LogFormat, LogLevel};

/// `observability:` for services without tracing (authproxy extends it with `otel_*`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ObservabilitySettings {
    pub log_level: LogLevel,
    pub log_format: LogFormat,
    /// Serves `/_metrics` when true.
    pub metrics_enabled: bool,
}

impl Default for ObservabilitySettings {
    fn default() -> Self {
        Self {
            log_level: LogLevel::Info,
            log_format: LogFormat::Json,
            metrics_enabled: true,
        }
    }
}

/// A service's default listening port, as a type so [`ServerSettings`] can default to it.
pub trait DefaultPort {
    const PORT: u16;
}

/// `server:` for services that need nothing more than where to listen.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default, bound = "")]
pub struct ServerSettings<P: DefaultPort> {
    pub host: String,
    /// 0 picks a free port (used by tests).
    pub port: u16,
    /// How long in-flight requests may run on after SIGTERM.
    #[serde(with = "humantime_serde")]
    pub shutdown_timeout: Duration,
    #[serde(skip)]
    default_port: PhantomData<P>,
}

impl<P: DefaultPort> Default for ServerSettings<P> {
    fn default() -> Self {
        Self {
            host: "0.0.0.0".to_owned(),
            port: P::PORT,
            shutdown_timeout: Duration::from_secs(30),
            default_port: PhantomData,
        }
    }
}

impl<P: DefaultPort> ServerSettings<P> {
    /// Problems under `server.`.
    pub fn validate(&self, problems: &mut ConfigProblems) {
        validate_listen(&self.host, self.shutdown_timeout, problems);
    }
}

/// Checks shared by every `server:` section, whatever else it holds.
pub fn validate_listen(host: &str, shutdown_timeout: Duration, problems: &mut ConfigProblems) {
    problems.check(
        host.parse::<std::net::IpAddr>().is_ok(),
        "server.host",
        "must be an IP address to listen on, such as 0.0.0.0 or 127.0.0.1",
    );
    problems.check(
        shutdown_timeout <= Duration::from_secs(3600),
        "server.shutdown_timeout",
        "must be at most 1h",
    );
}

/// Where a service keeps what several replicas must share (`cache.backend`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheBackend {
    /// In this process; for a single replica.
    #[default]
    Memory,
    /// Shared by every replica.
    Redis,
}
