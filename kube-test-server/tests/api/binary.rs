//! The binary as `make run` and the container image run it.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use test_support::ChildGuard;

/// Starts the binary on a free port and waits for its "listening" line.
fn start() -> ChildGuard {
    let mut server = ChildGuard::spawn(
        "kube-test-server",
        Command::new(env!("CARGO_BIN_EXE_kube-test-server"))
            .args(["--port", "0", "--sample", "3"])
            .stdout(Stdio::piped()),
    );
    let stdout = server.child_mut().stdout.take().expect("stdout is piped");
    let mut first_line = String::new();
    BufReader::new(stdout).read_line(&mut first_line).unwrap();
    assert!(
        first_line.starts_with("kube-test-server listening on http://"),
        "{first_line}"
    );
    server
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
