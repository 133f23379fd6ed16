//! admin-console settings: the YAML file's shape, its defaults and its validation.

use serde::Deserialize;
use service_kit::cli::ServiceSettings;
use service_kit::config::{ConfigProblems, Validate};
use service_kit::logging::{LogFormat, LogLevel};
use service_kit::settings::{ObservabilitySettings, ServerSettings};

/// The default `server.port`.
#[derive(Debug, Clone)]
pub struct DefaultPort;

impl service_kit::settings::DefaultPort for DefaultPort {
    const PORT: u16 = 8080;
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub server: ServerSettings<DefaultPort>,
    pub observability: ObservabilitySettings,
}

impl Validate for Settings {
    fn validate(&self, problems: &mut ConfigProblems) {
        self.server.validate(problems);
    }
}

impl ServiceSettings for Settings {
    fn log_level(&self) -> LogLevel {
        self.observability.log_level
    }

    fn log_format(&self) -> LogFormat {
        self.observability.log_format
    }
}
