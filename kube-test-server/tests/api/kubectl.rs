//! Fidelity proof: the real kubectl talks to the server over plain HTTP.

use std::process::Command;

use kube_test_server::{KubeTestServer, Options, sample};
use test_support::TempDir;

fn kubectl(server: &KubeTestServer, args: &[&str]) -> String {
    let dir = TempDir::new("kubectl");
    let config = dir.path().join("kubeconfig");
    std::fs::write(&config, server.kubeconfig()).unwrap();
    let output = Command::new("/usr/bin/kubectl")
        .arg("--kubeconfig")
        .arg(&config)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .expect("running kubectl");
    assert!(
        output.status.success(),
        "kubectl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn kubectl_get_ingress_all_namespaces_as_json() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 6, 2);
    let output = kubectl(&server, &["get", "ingress", "-A", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&output).unwrap();
    assert_eq!(list["kind"], "List");
    assert_eq!(list["apiVersion"], "v1");
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 6);
    for item in items {
        assert_eq!(item["kind"], "Ingress");
        assert_eq!(item["apiVersion"], "networking.k8s.io/v1");
        assert!(item["metadata"]["resourceVersion"].as_str().is_some());
        assert!(item["metadata"]["uid"].as_str().is_some());
    }
    let names: Vec<(&str, &str)> = items
        .iter()
        .map(|item| {
            (
                item["metadata"]["namespace"].as_str().unwrap(),
                item["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(names.contains(&("team-000", "app-00000")));
    assert!(names.contains(&("team-001", "app-00005")));
    assert_eq!(
        items[0]["spec"]["rules"][0]["host"],
        "app-00000.team-000.example.com"
    );
}

#[test]
fn kubectl_get_namespaces_prints_the_server_table() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 0, 3);
    let output = kubectl(&server, &["get", "ns"]);
    let lines: Vec<Vec<&str>> = output
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(lines[0], ["NAME", "STATUS", "AGE"]);
    let rows: Vec<(&str, &str)> = lines[1..].iter().map(|row| (row[0], row[1])).collect();
    assert_eq!(
        rows,
        [
            ("team-000", "Active"),
            ("team-001", "Active"),
            ("team-002", "Active")
        ]
    );
}

#[test]
fn kubectl_sees_a_forbidden_namespace_as_forbidden() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 2, 2);
    server.cluster.faults.forbid_namespace("team-001");
    let dir = TempDir::new("kubectl");
    let config = dir.path().join("kubeconfig");
    std::fs::write(&config, server.kubeconfig()).unwrap();
    let output = Command::new("/usr/bin/kubectl")
        .arg("--kubeconfig")
        .arg(&config)
        .args(["get", "ingress", "-n", "team-001", "-o", "json"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is forbidden"), "{stderr}");
    assert!(
        stderr.contains("cannot list resource \"ingresses\""),
        "{stderr}"
    );
}
