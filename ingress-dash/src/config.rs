//! ingress-dash settings: the YAML file's shape, its defaults and its validation.

use serde::Deserialize;
use service_kit::cli::ServiceSettings;
use service_kit::config::{ConfigProblems, Validate, VariableSource};
use service_kit::logging::{LogFormat, LogLevel};
use service_kit::settings::{ObservabilitySettings, ServerSettings};

/// The default `server.port` (the specification's 3000); the `PORT` environment variable
/// overrides both it and the file.
#[derive(Debug, Clone)]
pub struct DefaultPort;

impl service_kit::settings::DefaultPort for DefaultPort {
    const PORT: u16 = 3000;
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub server: ServerSettings<DefaultPort>,
    pub observability: ObservabilitySettings,
}

impl Validate for Settings {
    /// `PORT` overrides `server.port`, as the specification and most platforms expect.
    fn apply_environment(&mut self, env: &dyn VariableSource, problems: &mut ConfigProblems) {
        if let Some(port) = env.get("PORT") {
            match port.trim().parse() {
                Ok(port) => self.server.port = port,
                Err(_) => problems.push("PORT", "must be a port number between 0 and 65535"),
            }
        }
    }

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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use service_kit::config::ConfigLoader;

    use super::*;

    fn load(yaml: &str, env: &[(&str, &str)]) -> Result<Settings, ConfigProblems> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        ConfigLoader::new("INGRESS_DASH")
            .with_env(env)
            .load_str(yaml)
    }

    #[test]
    fn port_defaults_to_3000() {
        assert_eq!(load("", &[]).unwrap().server.port, 3000);
    }

    #[test]
    fn port_variable_overrides_file_and_default() {
        assert_eq!(
            load("server:\n  port: 4000\n", &[("PORT", "8081")])
                .unwrap()
                .server
                .port,
            8081
        );
    }

    #[test]
    fn bad_port_variable_is_a_problem() {
        let problems = load("", &[("PORT", "http")]).unwrap_err().to_string();
        assert_eq!(problems, "PORT: must be a port number between 0 and 65535");
    }
}
