//! The private key of a TLS Secret in no log line (issue 20 section 2): the binary reads the
//! Secret with debug logs on, serves the certificate, and its whole output is searched.

use std::time::{Duration, SystemTime};

use kube_test_server::tls::{CertificateAuthority, tls_secret};
use serde_json::{Value, json};
use test_support::kube_cluster::{KubeCluster, ok};
use test_support::{TempDir, http_get, wait_until};

use crate::app::start_binary_with;
use crate::backends::ingress_to;
use crate::real_kube::write_kubeconfig;

/// `kubectl create` of `object` (as written: `create` adds no annotation of its own).
fn create(cluster: &KubeCluster, dir: &TempDir, api_version: &str, kind: &str, mut object: Value) {
    object["apiVersion"] = json!(api_version);
    object["kind"] = json!(kind);
    let name = object["metadata"]["name"]
        .as_str()
        .expect("a name")
        .to_owned();
    let file = dir.path().join(format!("{kind}-{name}.json"));
    std::fs::write(&file, object.to_string()).expect("writing the object");
    let file = file.to_str().expect("a UTF-8 path");
    ok(&cluster.kubectl(&["create", "-f", file]), "kubectl create");
}

#[test]
fn the_key_is_in_no_log_line_even_at_debug() {
    // The shared real API server, a namespace of the test's own.
    let cluster = KubeCluster::shared();
    let dir = TempDir::new("secret-logs");
    cluster.apply("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: vault\n");
    let ca = CertificateAuthority::new("log test CA").unwrap();
    let now = SystemTime::now();
    let day = Duration::from_secs(86_400);
    let issued = ca
        .issue(&["web.example.com".to_owned()], now - day, now + day * 30)
        .unwrap();
    let mut secret = tls_secret("vault", "web-tls", &issued, None);
    secret["metadata"]["annotations"] = json!({
        "kubectl.kubernetes.io/last-applied-configuration":
            json!({"data": {"tls.key": secret["data"]["tls.key"]}}).to_string(),
    });
    create(cluster, &dir, "v1", "Secret", secret.clone());
    // A second Secret whose certificate cannot be read: its error is logged at debug.
    let mut broken = tls_secret("vault", "broken-tls", &issued, None);
    broken["data"]["tls.crt"] = secret["data"]["tls.key"].clone();
    create(cluster, &dir, "v1", "Secret", broken);
    let mut ingress = ingress_to("vault", "web", "web");
    ingress["spec"]["tls"] = json!([
        {"hosts": ["web.example.com"], "secretName": "web-tls"},
        {"hosts": ["web.example.com"], "secretName": "broken-tls"},
    ]);
    create(cluster, &dir, "networking.k8s.io/v1", "Ingress", ingress);

    let kubeconfig = write_kubeconfig(&dir, cluster, cluster.admin_token());
    let (_binary, mut running) = start_binary_with(
        &format!(
            "  kubeconfig: {}\n  namespaces: [vault]\n",
            kubeconfig.display()
        ),
        "5s",
        "certificates:\n  read_secrets: true\nobservability:\n  log_level: debug\n  log_format: json\n",
    );
    let mut answers = String::new();
    wait_until("the certificate is read", Duration::from_secs(30), || {
        let Some((200, body)) = http_get(&running.host_port, "/api/ingresses?namespaces=vault")
        else {
            return false;
        };
        let done = body.contains("\"source\":\"secret\"") && body.contains("cannot be read");
        if done {
            answers.push_str(&body);
        }
        done
    });
    answers.push_str(
        &http_get(&running.internal_host_port, "/_metrics")
            .unwrap()
            .1,
    );
    let status = running
        .terminate(Duration::from_secs(10))
        .expect("ingress-dash exits on SIGTERM");
    assert!(status.success(), "{status}");
    let logs = running.stdout_lines().join("\n");
    assert!(logs.contains("starting watcher"), "debug logs were written");
    let key_lines: Vec<&str> = issued
        .private_key_pem
        .lines()
        .filter(|line| !line.starts_with("-----") && line.len() > 16)
        .collect();
    let encoded = secret["data"]["tls.key"].as_str().unwrap();
    assert!(!key_lines.is_empty());
    for text in [&logs, &answers] {
        assert!(!text.contains(encoded), "the encoded key leaked");
        for line in &key_lines {
            assert!(!text.contains(line), "a line of the key leaked");
        }
        assert!(!text.contains("PRIVATE KEY"), "the key's PEM leaked");
    }
}
