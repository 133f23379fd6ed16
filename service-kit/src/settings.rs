//! The settings every service has: the `server:` and `observability:` sections' common keys
//! (written once here, in [`server_settings!`](crate::server_settings) and
//! [`observability_settings!`](crate::observability_settings), each service adding its own keys
//! beside them), the trait the command line and the application shell read them through, and
//! the other small sections several services share.
//!
//! The sections are generated rather than nested or flattened: `#[serde(flatten)]` cannot be
//! combined with `deny_unknown_fields`, and it would lose the configuration loader's key paths
//! and the environment overrides' type coercion.

use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::config::{ConfigProblems, Validate};
use crate::logging::{LogFormat, LogLevel};

/// What the command line and the application shell need from a service's settings; implemented
/// by [`service_settings!`](crate::service_settings).
pub trait ServiceSettings: DeserializeOwned + Validate {
    /// The `server:` section, made by [`server_settings!`](crate::server_settings).
    fn server(&self) -> &dyn ServerSection;
    /// The `observability:` section, made by
    /// [`observability_settings!`](crate::observability_settings).
    fn observability(&self) -> &dyn ObservabilitySection;

    /// Where to export traces, when the service traces at all.
    #[cfg(feature = "otel")]
    fn tracing(&self) -> Option<crate::telemetry::TracingSettings> {
        None
    }
}

/// The keys every `server:` section has.
pub trait ServerSection {
    /// The address to listen on (`server.host`).
    fn host(&self) -> &str;
    /// `server.port`; 0 picks a free port (used by tests).
    fn port(&self) -> u16;
    /// `server.internal_port`: the listener of `/_metrics` and the service's internal routes
    /// (authproxy's forward_auth check), on `server.host`; 0 picks a free port.
    fn internal_port(&self) -> u16;
    /// How long in-flight requests may run on after SIGTERM (`server.shutdown_timeout`).
    fn shutdown_timeout(&self) -> Duration;

    /// Problems with the common keys, under `server.`.
    fn validate_listen(&self, problems: &mut ConfigProblems) {
        problems.check(
            self.host().parse::<std::net::IpAddr>().is_ok(),
            "server.host",
            "must be an IP address to listen on, such as 0.0.0.0 or 127.0.0.1",
        );
        problems.check(
            self.internal_port() == 0 || self.internal_port() != self.port(),
            "server.internal_port",
            "must differ from server.port: the internal listener (metrics, authproxy's check) must not be where callers reach the service",
        );
        problems.check(
            self.shutdown_timeout() <= Duration::from_secs(3600),
            "server.shutdown_timeout",
            "must be at most 1h",
        );
    }
}

/// The keys every `observability:` section has.
pub trait ObservabilitySection {
    fn log_level(&self) -> LogLevel;
    fn log_format(&self) -> LogFormat;
    /// Serves `/_metrics` on the internal listener when true.
    fn metrics_enabled(&self) -> bool;
}

/// Implements [`ServiceSettings`] for a settings struct whose sections are the fields `server`
/// and `observability`; further items (such as `fn tracing`) follow the type.
#[macro_export]
macro_rules! service_settings {
    ($name:ty $(, $($item:tt)*)?) => {
        impl $crate::settings::ServiceSettings for $name {
            fn server(&self) -> &dyn $crate::settings::ServerSection {
                &self.server
            }

            fn observability(&self) -> &dyn $crate::settings::ObservabilitySection {
                &self.observability
            }

            $($($item)*)?
        }
    };
}

/// A section struct: its fields with their doc comments, attributes and defaults; it denies
/// unknown keys and takes every missing key from its default.
#[doc(hidden)]
#[macro_export]
macro_rules! __settings_section {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$field_attr:meta])* $field_vis:vis $field:ident : $type:ty = $default:expr ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, $crate::__private::serde::Deserialize)]
        #[serde(crate = "::service_kit::__private::serde", deny_unknown_fields, default)]
        $vis struct $name {
            $( $(#[$field_attr])* $field_vis $field: $type, )*
        }

        impl ::std::default::Default for $name {
            fn default() -> Self {
                Self {
                    $( $field: $default, )*
                }
            }
        }
    };
}

/// Declares a service's `server:` section: `host` (default `0.0.0.0`), `port` and
/// `internal_port` (the given defaults) and `shutdown_timeout` (default 30 s), then the
/// service's own keys, each with its doc comment, attributes and default. The struct denies unknown keys, takes every missing key
/// from its default and implements [`ServerSection`].
///
/// ```
/// service_kit::server_settings! {
///     /// `server:` of an example service.
///     pub struct ServerSettings {
///         default_port: 9000;
///         default_internal_port: 9001;
///         /// Where the built web app is.
///         pub static_dir: std::path::PathBuf = "web/dist".into(),
///     }
/// }
/// let settings = ServerSettings::default();
/// assert_eq!((settings.host.as_str(), settings.port), ("0.0.0.0", 9000));
/// assert_eq!(settings.internal_port, 9001);
/// ```
#[macro_export]
macro_rules! server_settings {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            default_port: $port:expr;
            default_internal_port: $internal_port:expr;
            $($fields:tt)*
        }
    ) => {
        $crate::__settings_section! {
            $(#[$attr])*
            $vis struct $name {
                /// The address to listen on.
                pub host: ::std::string::String = "0.0.0.0".to_owned(),
                /// 0 picks a free port (used by tests).
                pub port: u16 = $port,
                /// The internal listener (`/_metrics`, internal routes) for the scraper and
                /// the front door only; 0 picks a free port (used by tests).
                pub internal_port: u16 = $internal_port,
                /// How long in-flight requests may run on after SIGTERM.
                #[serde(with = "::service_kit::__private::humantime_serde")]
                pub shutdown_timeout: ::std::time::Duration = ::std::time::Duration::from_secs(30),
                $($fields)*
            }
        }

        impl $crate::settings::ServerSection for $name {
            fn host(&self) -> &str {
                &self.host
            }

            fn port(&self) -> u16 {
                self.port
            }

            fn internal_port(&self) -> u16 {
                self.internal_port
            }

            fn shutdown_timeout(&self) -> ::std::time::Duration {
                self.shutdown_timeout
            }
        }
    };
}

/// Declares a service's `observability:` section: `log_level` (default `info`), `log_format`
/// (default `json`) and `metrics_enabled` (default true), then the service's own keys, each with
/// its doc comment, attributes and default. The struct denies unknown keys, takes every missing
/// key from its default and implements [`ObservabilitySection`].
#[macro_export]
macro_rules! observability_settings {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $($fields:tt)*
        }
    ) => {
        $crate::__settings_section! {
            $(#[$attr])*
            $vis struct $name {
                pub log_level: $crate::logging::LogLevel = $crate::logging::LogLevel::Info,
                pub log_format: $crate::logging::LogFormat = $crate::logging::LogFormat::Json,
                /// Serves `/_metrics` (on the internal listener) when true.
                pub metrics_enabled: bool = true,
                $($fields)*
            }
        }

        impl $crate::settings::ObservabilitySection for $name {
            fn log_level(&self) -> $crate::logging::LogLevel {
                self.log_level
            }

            fn log_format(&self) -> $crate::logging::LogFormat {
                self.log_format
            }

            fn metrics_enabled(&self) -> bool {
                self.metrics_enabled
            }
        }
    };
}

crate::observability_settings! {
    /// `observability:` for services that add no keys of their own.
    pub struct ObservabilitySettings {}
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use super::*;
    use crate::config::ConfigLoader;

    crate::server_settings! {
        struct Server {
            default_port: 7000;
            default_internal_port: 7001;
            /// A key of the service's own.
            #[serde(with = "humantime_serde")]
            read_timeout: Duration = Duration::from_secs(5),
            name: String = "default".to_owned(),
        }
    }

    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Sample {
        server: Server,
        observability: ObservabilitySettings,
    }

    impl Validate for Sample {
        fn validate(&self, problems: &mut ConfigProblems) {
            self.server.validate_listen(problems);
        }
    }

    fn load(yaml: &str, env: &[(&str, &str)]) -> Result<Sample, ConfigProblems> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect();
        ConfigLoader::new("SAMPLE").with_env(env).load_str(yaml)
    }

    #[test]
    fn every_key_has_its_default() {
        let sample = load("", &[]).unwrap();
        let server = &sample.server;
        assert_eq!((server.host(), server.port()), ("0.0.0.0", 7000));
        assert_eq!(server.internal_port(), 7001);
        assert_eq!(server.shutdown_timeout(), Duration::from_secs(30));
        assert_eq!(server.read_timeout, Duration::from_secs(5));
        assert_eq!(server.name, "default");
        let observability = &sample.observability;
        assert_eq!(observability.log_level(), LogLevel::Info);
        assert_eq!(observability.log_format(), LogFormat::Json);
        assert!(observability.metrics_enabled());
    }

    #[test]
    fn common_and_own_keys_are_read_from_the_file_and_the_environment() {
        let sample = load(
            "server:\n  port: 0\n  read_timeout: 2s\nobservability:\n  metrics_enabled: false\n",
            &[
                ("SAMPLE_SERVER__SHUTDOWN_TIMEOUT", "3s"),
                ("SAMPLE_SERVER__NAME", "from-env"),
            ],
        )
        .unwrap();
        assert_eq!(sample.server.port, 0);
        assert_eq!(sample.server.read_timeout, Duration::from_secs(2));
        assert_eq!(sample.server.shutdown_timeout, Duration::from_secs(3));
        assert_eq!(sample.server.name, "from-env");
        assert!(!sample.observability.metrics_enabled);
    }

    #[test]
    fn every_problem_is_reported_with_its_key() {
        let problems = load(
            "server:\n  host: example.com\n  port: http\n  colour: red\n  shutdown_timeout: 2h\nobservability:\n  log_level: loud\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        for key in [
            "server.port",
            "server.colour",
            "observability.log_level",
            "server.host",
            "server.shutdown_timeout",
        ] {
            assert!(problems.contains(key), "{key} missing from:\n{problems}");
        }
    }

    #[test]
    fn the_internal_listener_may_not_share_the_public_port() {
        let problems = load("server:\n  port: 7000\n  internal_port: 7000\n", &[])
            .unwrap_err()
            .to_string();
        assert!(problems.contains("server.internal_port"), "{problems}");
        // 0 picks a free port for each (tests).
        load("server:\n  port: 0\n  internal_port: 0\n", &[]).unwrap();
    }
}
