//! The binary as `make run` and the container image run it.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use test_support::ChildGuard;

/// Starts the binary on a free port and waits for its "listening" line.
fn start() -> ChildGuard {
    start_with(&[]).0
}

/// The same with more flags; also returns the server's URL.
fn start_with(flags: &[&str]) -> (ChildGuard, String) {
    let mut server = ChildGuard::spawn(
        "kube-test-server",
        Command::new(env!("CARGO_BIN_EXE_kube-test-server"))
            .args(["--port", "0", "--sample", "3"])
            .args(flags)
            .stdout(Stdio::piped()),
    );
    let stdout = server.child_mut().stdout.take().expect("stdout is piped");
    let mut first_line = String::new();
    BufReader::new(stdout).read_line(&mut first_line).unwrap();
    let url = first_line
        .strip_prefix("kube-test-server listening on ")
        .unwrap_or_else(|| panic!("{first_line}"))
        .trim()
        .to_owned();
    (server, url)
}

#[tokio::test]
async fn flags_forbid_a_resource_and_leave_out_the_gateway_api() {
    let (_server, url) = start_with(&["--forbid-resource", "secrets", "--no-gateway-api"]);
    let status = |path: &'static str| {
        let url = format!("{url}{path}");
        async move {
            let response = test_support::http_client().get(url).send().await.unwrap();
            response.status().as_u16()
        }
    };
    assert_eq!(status("/api/v1/secrets").await, 403);
    assert_eq!(
        status("/api/v1/namespaces/team-000/secrets/app-00000-tls").await,
        403
    );
    assert_eq!(
        status("/apis/gateway.networking.k8s.io/v1/httproutes").await,
        404
    );
    assert_eq!(status("/api/v1/services").await, 200);
    assert_eq!(status("/apis/cert-manager.io/v1/certificates").await, 200);
}

#[test]
fn an_unknown_resource_to_forbid_is_a_clear_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_kube-test-server"))
        .args(["--port", "0", "--forbid-resource", "pods"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("pods: not a resource this server holds"),
        "{stderr}"
    );
}

/// As PID 1 in a container a process has no default action for SIGTERM: without its own
/// handler `docker stop` waited out its time-out and killed the server (exit 137).
#[test]
fn sigterm_ends_the_server_with_status_zero() {
    let mut server = start();
    let status = server
        .terminate(Duration::from_secs(10))
        .expect("kube-test-server still running 10 s after SIGTERM");
    assert!(status.success(), "exited with {status}");
}
