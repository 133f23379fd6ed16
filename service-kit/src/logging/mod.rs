//! Logs through `tracing`: one line per event, JSON or text, level from configuration. Text
//! records escape the control characters of every field ([`escape`]), JSON ones are escaped by
//! serde_json, so no logged value can start a line of its own.

#[cfg(test)]
pub(crate) mod capture;
mod escape;

use serde::Deserialize;
use tracing_subscriber::filter::{Filtered, LevelFilter};
use tracing_subscriber::layer::{Layer, Layered, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Registry, fmt};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum LogLevel {
    Debug,
    #[default]
    Info,
    Warn,
    Error,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum LogFormat {
    /// One JSON object per line with `timestamp` (RFC 3339), `level`, `message` and the event's
    /// fields at the top level, which is what log shippers index without extra parsing.
    #[default]
    Json,
    /// `timestamp LEVEL message key=value ...`, control characters in values escaped (`\n`,
    /// `\u{1b}`, ...).
    Text,
}

impl TryFrom<String> for LogLevel {
    type Error = &'static str;

    fn try_from(value: String) -> Result<Self, &'static str> {
        match value.to_ascii_lowercase().as_str() {
            "debug" => Ok(Self::Debug),
            "info" => Ok(Self::Info),
            "warn" | "warning" => Ok(Self::Warn),
            "error" => Ok(Self::Error),
            _ => Err("must be one of debug, info, warn, error"),
        }
    }
}

impl TryFrom<String> for LogFormat {
    type Error = &'static str;

    fn try_from(value: String) -> Result<Self, &'static str> {
        match value.to_ascii_lowercase().as_str() {
            "json" => Ok(Self::Json),
            "text" => Ok(Self::Text),
            _ => Err("must be json or text"),
        }
    }
}

/// Installs the process-wide subscriber. `RUST_LOG`, when set, refines the configured level
/// (e.g. `info,authproxy=debug`). A second call is a no-op, which keeps tests that build several
/// applications in one process simple.
pub fn init(level: LogLevel, format: LogFormat) {
    init_with_layer(level, format, None::<NoLayer>);
}

/// Like [`init`], plus one more layer (the OpenTelemetry one when tracing is on). The log level
/// filters the log lines only: the extra layer sees every span at INFO and above, so raising
/// the log level to `warn` does not switch tracing off.
pub fn init_with_layer<L>(level: LogLevel, format: LogFormat, extra: Option<L>)
where
    L: Layer<Layered<Filtered<BoxedFmtLayer, EnvFilter, Registry>, Registry>> + Send + Sync,
{
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level.as_str()));
    let fmt_layer: BoxedFmtLayer = match format {
        LogFormat::Json => fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .with_ansi(false)
            .with_target(false)
            .with_writer(std::io::stdout)
            .boxed(),
        LogFormat::Text => fmt::layer()
            .fmt_fields(escape::EscapedFields::default())
            .with_ansi(false)
            .with_target(false)
            .with_writer(std::io::stdout)
            .boxed(),
    };
    let _already_installed = tracing_subscriber::registry()
        .with(fmt_layer.with_filter(filter))
        .with(extra.map(|layer| layer.with_filter(LevelFilter::INFO)))
        .try_init();
}

type BoxedFmtLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// Stands in for "no extra layer".
pub type NoLayer = tracing_subscriber::layer::Identity;
