//! Plumbing the three services share line for line: the command line, configuration loading with
//! `${NAME}` substitution and full validation, logs, the Prometheus endpoint and the mapping of
//! each crate's error enum to the common error body. Service behaviour never lives here.

pub mod cli;
pub mod config;
pub mod http;
pub mod logging;
pub mod metrics;
pub mod probe;
pub mod server;
pub mod settings;
#[cfg(feature = "otel")]
pub mod telemetry;
