//! The binary as `make run` and the container image run it.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
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

#[test]
fn print_objects_writes_the_sample_as_an_api_server_would_take_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_kube-test-server"))
        .args(["--print-objects", "--sample", "4", "--namespaces", "2"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let objects: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let kinds: Vec<&str> = objects
        .iter()
        .map(|object| object["kind"].as_str().unwrap())
        .collect();
    // Namespaces first, every kind of the sample, nothing the API server sets itself.
    assert_eq!(&kinds[..2], ["Namespace", "Namespace"]);
    // The IngressClasses after the Ingresses: a real API server would otherwise give the
    // default class to the Ingresses that name none.
    let last_ingress = kinds.iter().rposition(|kind| *kind == "Ingress");
    let first_class = kinds.iter().position(|kind| *kind == "IngressClass");
    assert!(last_ingress < first_class, "{kinds:?}");
    let classes: Vec<(&Value, &Value)> = objects
        .iter()
        .filter(|object| object["kind"] == "IngressClass")
        .map(|object| {
            let metadata = &object["metadata"];
            let default = &metadata["annotations"]["ingressclass.kubernetes.io/is-default-class"];
            (&metadata["name"], default)
        })
        .collect();
    assert_eq!(
        classes,
        [
            (&json!("haproxy"), &Value::Null),
            (&json!("nginx"), &json!("true")),
            (&json!("traefik"), &Value::Null),
        ]
    );
    for kind in [
        "Ingress",
        "Service",
        "EndpointSlice",
        "Secret",
        "Event",
        "HTTPRoute",
        "IngressClass",
    ] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    assert_eq!(kinds.iter().filter(|kind| **kind == "Ingress").count(), 4);
    for object in &objects {
        let metadata = &object["metadata"];
        for field in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
        ] {
            assert!(metadata.get(field).is_none(), "{field} in {object}");
        }
        assert!(object["apiVersion"].is_string(), "{object}");
        assert!(object["spec"].get("clusterIP").is_none(), "{object}");
    }
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
