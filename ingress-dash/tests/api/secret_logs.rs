//! The private key of a TLS Secret in no log line (issue 20 section 2): the binary reads the
//! Secret with debug logs on, serves the certificate, and its whole output is searched.

use std::time::{Duration, SystemTime};

use crate::app::start_binary;
use kube_test_server::tls::{CertificateAuthority, tls_secret};
use kube_test_server::{Kind, KubeTestServer, Options};
use serde_json::json;
use test_support::{http_get, wait_until};

use crate::backends::ingress_to;

#[test]
fn the_key_is_in_no_log_line_even_at_debug() {
    let kube = KubeTestServer::start(Options::default()).unwrap();
    kube.cluster.add_namespace("vault");
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
    kube.cluster.put(Kind::Secret, secret.clone());
    // A second Secret whose certificate cannot be read: its error is logged at debug.
    let mut broken = tls_secret("vault", "broken-tls", &issued, None);
    broken["data"]["tls.crt"] = secret["data"]["tls.key"].clone();
    kube.cluster.put(Kind::Secret, broken);
    let mut ingress = ingress_to("vault", "web", "web");
    ingress["spec"]["tls"] = json!([
        {"hosts": ["web.example.com"], "secretName": "web-tls"},
        {"hosts": ["web.example.com"], "secretName": "broken-tls"},
    ]);
    kube.cluster.put_ingress(ingress);

    let (_binary, mut running) = start_binary(
        kube.url(),
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
