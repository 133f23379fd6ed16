//! The command-line contract every service binary keeps, as a macro each service's test
//! binary expands: `--version`, `--validate-config` (valid and with several problems), JSON
//! logs, and graceful shutdown on SIGTERM.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::process::{ChildGuard, TempDir, http_get, wait_until};

/// A built service binary (`env!("CARGO_BIN_EXE_<name>")`).
pub struct ServiceBinary {
    pub path: PathBuf,
    pub name: &'static str,
    pub liveness_path: &'static str,
    scratch: TempDir,
}

impl ServiceBinary {
    pub fn new(path: &str, name: &'static str, liveness_path: &'static str) -> Self {
        Self {
            path: PathBuf::from(path),
            name,
            liveness_path,
            scratch: TempDir::new(name),
        }
    }

    /// Writes `yaml` to a file in this binary's scratch directory.
    pub fn config_file(&self, file_name: &str, yaml: &str) -> PathBuf {
        let path = self.scratch.path().join(file_name);
        std::fs::write(&path, yaml).expect("writing a configuration file");
        path
    }

    /// Runs to completion with a clean environment plus `env`.
    pub fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.command(env)
            .args(args)
            .output()
            .expect("running the service binary")
    }

    fn command(&self, env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(&self.path);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default());
        for (name, value) in env {
            command.env(name, value);
        }
        command
    }

    /// Starts the binary with `config` and waits for its liveness path. Both listeners bind
    /// port 0 (the environment overrides `<NAME>_SERVER__PORT` and `<NAME>_SERVER__INTERNAL_PORT`
    /// win over the file), and the ports come from the binary's own `listening` log line, so no
    /// other process can take a port between its choice and its bind (the configuration's
    /// `observability.log_level` must let `info` through).
    pub fn start(&self, config: &Path) -> RunningBinary {
        let prefix = self.name.to_uppercase().replace('-', "_");
        let (public, internal) = (
            format!("{prefix}_SERVER__PORT"),
            format!("{prefix}_SERVER__INTERNAL_PORT"),
        );
        let mut guard = ChildGuard::spawn(
            self.name,
            self.command(&[(&public, "0"), (&internal, "0")])
                .arg("--config")
                .arg(config)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        );
        // Both pipes are read from the start: a process whose pipe fills (64 KiB of logs)
        // would block on its next write.
        let child = guard.child_mut();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (ports, listening) = std::sync::mpsc::channel();
        let stdout = std::thread::spawn(move || {
            let mut lines = Vec::new();
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(found) = listening_ports(&line) {
                    let _ = ports.send(found);
                }
                lines.push(line);
            }
            lines
        });
        std::thread::spawn(move || std::io::copy(&mut { stderr }, &mut std::io::sink()));
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let (port, internal_port) = loop {
            guard.assert_running();
            match listening.recv_timeout(Duration::from_millis(100)) {
                Ok(found) => break found,
                Err(_) => assert!(
                    std::time::Instant::now() < deadline,
                    "{} did not log its listening ports within 30 s",
                    self.name
                ),
            }
        };
        let host_port = format!("127.0.0.1:{port}");
        wait_until(self.name, Duration::from_secs(30), || {
            guard.assert_running();
            matches!(http_get(&host_port, self.liveness_path), Some((200, _)))
        });
        RunningBinary {
            guard,
            host_port,
            internal_host_port: format!("127.0.0.1:{}", internal_port.unwrap_or_default()),
            stdout: Some(stdout),
        }
    }
}

/// The public and internal ports of the `<name> listening` line a service logs once both
/// listeners are bound, in JSON (`"port":8080,"internal_port":"Some(8081)"`) or text
/// (`port=8080 internal_port=Some(8081)`).
fn listening_ports(line: &str) -> Option<(u16, Option<u16>)> {
    if !line.contains(" listening") {
        return None;
    }
    let number_after = |key: &str| {
        let start = line.find(key)? + key.len();
        let digits: String = line[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    let public = number_after("\"port\":").or_else(|| number_after(" port="))?;
    let internal =
        number_after("\"internal_port\":\"Some(").or_else(|| number_after("internal_port=Some("));
    Some((public, internal))
}

pub struct RunningBinary {
    pub guard: ChildGuard,
    pub host_port: String,
    /// The internal listener: `/_metrics`, authproxy's forward_auth check.
    pub internal_host_port: String,
    /// The thread reading stdout while the process runs; its lines once the pipe closes.
    stdout: Option<std::thread::JoinHandle<Vec<String>>>,
}

impl RunningBinary {
    /// Sends SIGTERM and waits for the exit; the exit status, or `None` after `timeout`.
    pub fn terminate(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        self.guard.terminate(timeout)
    }

    /// The lines the process wrote to stdout (call after it has exited: it waits for the end
    /// of the output). Empty when called a second time.
    pub fn stdout_lines(&mut self) -> Vec<String> {
        self.stdout
            .take()
            .map(|reader| reader.join().expect("the stdout reader does not panic"))
            .unwrap_or_default()
    }
}

/// A minimal valid configuration on `port` with JSON logs.
pub fn minimal_config(port: u16) -> String {
    format!(
        "server:\n  host: 127.0.0.1\n  port: {port}\n  shutdown_timeout: 5s\nobservability:\n  log_level: info\n  log_format: json\n"
    )
}

/// [`minimal_config`] plus what `service` cannot run without (admin-console: one cluster; it
/// need not answer).
pub fn minimal_config_for(service: &str, port: u16) -> String {
    let mut yaml = minimal_config(port);
    if service == "admin-console" {
        yaml.push_str("clusters:\n  - {id: main, name: Main, url: 'http://127.0.0.1:9'}\n");
    }
    yaml
}

/// Expands to the command-line contract tests for one service binary.
///
/// ```ignore
/// test_support::binary_contract_tests!("admin-console", "/api/live");
/// ```
#[macro_export]
macro_rules! binary_contract_tests {
    ($name:literal, $liveness:literal) => {
        mod binary_contract {
            use std::time::Duration;

            use $crate::binary::{ServiceBinary, minimal_config_for};

            fn minimal_config(port: u16) -> String {
                minimal_config_for($name, port)
            }

            fn binary() -> ServiceBinary {
                ServiceBinary::new(env!(concat!("CARGO_BIN_EXE_", $name)), $name, $liveness)
            }

            #[test]
            fn version_prints_name_version_semver() {
                let output = binary().run(&["--version"], &[]);
                assert!(output.status.success());
                assert_eq!(
                    String::from_utf8_lossy(&output.stdout).trim(),
                    format!("{} version {}", $name, env!("CARGO_PKG_VERSION"))
                );
            }

            #[test]
            fn validate_config_accepts_a_valid_file() {
                let binary = binary();
                let yaml = minimal_config(0);
                let path = binary.config_file("valid.yaml", &yaml);
                let output = binary.run(&["--config", path.to_str().unwrap(), "--validate-config"], &[]);
                assert!(
                    output.status.success(),
                    "{}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }

            #[test]
            fn environment_overrides_use_the_documented_prefix() {
                // The prefixes docs/configuration.md lists.
                let prefix = match $name {
                    "admin-console" => "ADMIN_CONSOLE",
                    "authproxy" => "AUTHPROXY",
                    "ingress-dash" => "INGRESS_DASH",
                    other => panic!("no documented environment prefix for {other}"),
                };
                let binary = binary();
                let yaml = minimal_config(0);
                let path = binary.config_file("overridden.yaml", &yaml);
                let variable = format!("{prefix}_SERVER__HOST");
                let output = binary.run(
                    &["--config", path.to_str().unwrap(), "--validate-config"],
                    &[(variable.as_str(), "not-an-address")],
                );
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert_eq!(output.status.code(), Some(1), "{stderr}");
                assert!(stderr.contains("server.host: must be an IP address"), "{stderr}");
            }

            #[test]
            fn validate_config_lists_every_problem_without_secrets() {
                let binary = binary();
                let secret = "s3cr3t-value-that-must-not-leak";
                let yaml = format!(
                    "server:\n  port: {secret}\n  host: ${{UNSET_HOST_VARIABLE}}\n  shutdown_timeout: forever\nobservability:\n  log_level: chatty\n"
                );
                let path = binary.config_file("invalid.yaml", &yaml);
                let output = binary.run(&["--config", path.to_str().unwrap(), "--validate-config"], &[]);
                assert_eq!(output.status.code(), Some(1));
                let stderr = String::from_utf8_lossy(&output.stderr);
                for key in [
                    "server.port:",
                    "server.host: environment variable UNSET_HOST_VARIABLE is not set",
                    // A bad duration shows the forms accepted.
                    "server.shutdown_timeout: invalid value: expected a duration: a number and a unit such as 500ms, 30s, 5m",
                    "observability.log_level: must be one of debug, info, warn, error",
                ] {
                    assert!(stderr.contains(key), "missing {key:?} in:\n{stderr}");
                }
                assert!(!stderr.contains(secret), "the value leaked:\n{stderr}");
                assert!(!stderr.contains("panicked"), "{stderr}");
            }

            #[test]
            fn an_unknown_enum_value_names_the_accepted_ones_not_itself() {
                // One enumerated key of each service.
                let (section, key, message) = match $name {
                    "admin-console" | "ingress-dash" => {
                        ("access", "mode", "access.mode: must be open or trusted_headers")
                    }
                    "authproxy" => ("server", "mode", "server.mode: must be forward_auth or standalone"),
                    other => panic!("no enumerated key named for {other}"),
                };
                let binary = binary();
                let secret = "s3cr3t-enum-value";
                let yaml = minimal_config(0).replacen(
                    &format!("{section}:\n"),
                    &format!("{section}:\n  {key}: {secret}\n"),
                    1,
                );
                let yaml = if yaml.contains(&format!("  {key}: {secret}")) {
                    yaml
                } else {
                    format!("{yaml}{section}:\n  {key}: {secret}\n")
                };
                let path = binary.config_file("enum.yaml", &yaml);
                let output = binary.run(&["--config", path.to_str().unwrap(), "--validate-config"], &[]);
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert_eq!(output.status.code(), Some(1), "{stderr}");
                assert!(stderr.contains(message), "missing {message:?} in:\n{stderr}");
                assert!(!stderr.contains(secret), "the value leaked:\n{stderr}");
            }

            #[test]
            fn example_configuration_is_valid() {
                let example = $crate::repo_root().join("examples").join(concat!($name, ".yaml"));
                let output = binary().run(&["--config", example.to_str().unwrap(), "--validate-config"], &[]);
                assert!(
                    output.status.success(),
                    "{}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }

            #[test]
            fn malformed_yaml_is_one_precise_line() {
                let binary = binary();
                let path = binary.config_file("malformed.yaml", "server:\n  port: [9000\n");
                let output = binary.run(&["--config", path.to_str().unwrap(), "--validate-config"], &[]);
                assert_eq!(output.status.code(), Some(1));
                let stderr = String::from_utf8_lossy(&output.stderr);
                let problem_lines: Vec<_> = stderr.lines().filter(|l| l.contains("not valid YAML")).collect();
                assert_eq!(problem_lines.len(), 1, "{stderr}");
                assert!(problem_lines[0].contains("line 3"), "{stderr}");
            }

            #[test]
            fn missing_config_file_is_reported_not_a_panic() {
                let output = binary().run(&["--config", "/nonexistent/x.yaml", "--validate-config"], &[]);
                assert_eq!(output.status.code(), Some(1));
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert!(stderr.contains("cannot read the configuration file"), "{stderr}");
            }

            #[test]
            fn serves_liveness_logs_json_and_stops_gracefully_on_sigterm() {
                let binary = binary();
                let path = binary.config_file("serve.yaml", &minimal_config(0));
                let mut running = binary.start(&path);
                let url = format!("http://{}{}", running.host_port, $liveness);
                let probe = binary.run(&["--healthcheck", &url], &[]);
                assert!(probe.status.success(), "{}", String::from_utf8_lossy(&probe.stderr));
                let status = running
                    .terminate(Duration::from_secs(15))
                    .expect("the service did not stop within 15 s of SIGTERM");
                assert!(status.success(), "exit status after SIGTERM: {status}");
                let probe = binary.run(&["--healthcheck", &url], &[]);
                assert!(!probe.status.success(), "healthcheck passed with the service stopped");
                let lines = running.stdout_lines();
                assert!(!lines.is_empty(), "no log lines");
                for line in &lines {
                    let record: $crate::serde_json::Value = $crate::serde_json::from_str(line)
                        .unwrap_or_else(|_| panic!("not one JSON object per line: {line}"));
                    for field in ["timestamp", "level", "message"] {
                        assert!(record.get(field).is_some(), "no {field} in {line}");
                    }
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::listening_ports;

    #[test]
    fn the_listening_line_gives_both_ports_in_either_format() {
        assert_eq!(
            listening_ports(
                r#"{"timestamp":"t","level":"INFO","message":"authproxy listening","port":41234,"internal_port":"Some(41235)"}"#
            ),
            Some((41234, Some(41235)))
        );
        assert_eq!(
            listening_ports(
                "2026-11-28T03:00:00Z  INFO ingress-dash listening port=3000 internal_port=None"
            ),
            Some((3000, None))
        );
        assert_eq!(listening_ports(r#"{"message":"starting","port":1}"#), None);
    }
}
