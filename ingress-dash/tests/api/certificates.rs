//! Certificates behind TLS entries (issue 20 section 2): from a cert-manager Certificate when
//! Secrets are not read (kube-test-server serves the cert-manager CRD, the real API server here
//! has none), and Secrets forbidden. The certificates of real TLS Secrets run against the real
//! API server (`real_kube::certificates`).

use std::time::{Duration, SystemTime};

use kube_test_server::Kind;
use kube_test_server::tls::{CertificateAuthority, IssuedCertificate, tls_secret};
use serde_json::{Value, json};

use crate::app::{TestApp, spawn_app};
use crate::backends::item;

const WAIT: Duration = Duration::from_secs(10);
const DAY: Duration = Duration::from_secs(86_400);

pub fn tls_ingress(namespace: &str, name: &str, hosts: &[&str], secret: &str) -> Value {
    let rules: Vec<Value> = hosts
        .iter()
        .map(|host| json!({"host": host, "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
        ]}}))
        .collect();
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"rules": rules, "tls": [{"hosts": hosts, "secretName": secret}]},
    })
}

pub fn issue(names: &[&str], days_left: u32) -> (CertificateAuthority, IssuedCertificate) {
    let ca = CertificateAuthority::new("ingress-dash test CA").unwrap();
    let now = SystemTime::now();
    let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
    let issued = ca.issue(&names, now - DAY, now + DAY * days_left).unwrap();
    (ca, issued)
}

/// The key as it could leak: each base64 line of its PEM, and the Secret's base64 of it.
pub fn key_fragments(issued: &IssuedCertificate, secret: &Value) -> Vec<String> {
    let mut fragments: Vec<String> = issued
        .private_key_pem
        .lines()
        .filter(|line| !line.starts_with("-----") && line.len() > 16)
        .map(str::to_owned)
        .collect();
    fragments.push(secret["data"]["tls.key"].as_str().unwrap().to_owned());
    assert!(fragments.len() >= 2);
    fragments
}

pub fn assert_no_key(text: &str, fragments: &[String], what: &str) {
    for fragment in fragments {
        assert!(
            !text.contains(fragment.as_str()),
            "the key is in the {what}"
        );
    }
}

async fn metrics(app: &TestApp) -> String {
    app.get("/_metrics").await.text().await.unwrap()
}

#[tokio::test]
async fn without_secrets_the_cert_manager_certificate_tells_or_nothing_does() {
    let app = spawn_app("", "").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("shop");
    let (ca, issued) = issue(&["shop.example.com"], 5);
    cluster.put(
        Kind::Secret,
        tls_secret("shop", "shop-tls", &issued, Some(ca.certificate_pem())),
    );
    cluster.put(
        Kind::Certificate,
        json!({
            "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
            "metadata": {"name": "shop", "namespace": "shop"},
            "spec": {"secretName": "shop-tls", "dnsNames": ["shop.example.com"],
                     "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer"}},
            "status": {"notAfter": issued.not_after_rfc3339(), "notBefore": issued.not_before_rfc3339(),
                       "conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "up to date"}]},
        }),
    );
    cluster.put_ingress(tls_ingress(
        "shop",
        "shop",
        &["shop.example.com", "*.shop.example.com"],
        "shop-tls",
    ));
    cluster.put_ingress(tls_ingress(
        "shop",
        "plain",
        &["plain.example.com"],
        "plain-tls",
    ));
    let mut stream = app.stream("?namespaces=shop", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    let managed = &item(&first.data, "shop")["certificates"][0];
    assert_eq!(managed["source"], "cert_manager");
    assert_eq!(managed["subjectNames"], json!(["shop.example.com"]));
    assert_eq!(managed["notAfter"], issued.not_after_rfc3339());
    assert_eq!(managed["issuer"], "ClusterIssuer/letsencrypt");
    assert_eq!(managed["missingHosts"], json!(["*.shop.example.com"]));
    let unread = &item(&first.data, "plain")["certificates"][0];
    assert_eq!(unread["source"], "not_read");
    assert_eq!(unread["notAfter"], Value::Null);
    assert!(
        unread["error"]
            .as_str()
            .unwrap()
            .contains("certificates.read_secrets is false"),
        "{unread}"
    );
    // The metric comes from the cert-manager status too.
    assert!(metrics(&app).await.contains("secret=\"shop-tls\"}"));
    // The Certificate goes: the entry is not read any more.
    cluster.delete(Kind::Certificate, Some("shop"), "shop");
    let event = stream.next_event(WAIT).await.unwrap();
    assert_eq!(event.event, "modified");
    assert_eq!(event.data["certificates"][0]["source"], "not_read");
}

#[tokio::test]
async fn forbidden_secrets_make_certificates_not_read_with_the_reason() {
    let app = spawn_app("", "certificates:\n  read_secrets: true\n").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("shop");
    cluster.forbid(Kind::Secret, Some("shop"));
    cluster.put_ingress(tls_ingress("shop", "web", &["web.example.com"], "web-tls"));
    let mut stream = app.stream("?namespaces=shop", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        first.data["errors"],
        json!([]),
        "the namespace did not fail"
    );
    let certificate = &item(&first.data, "web")["certificates"][0];
    assert_eq!(certificate["source"], "not_read");
    assert!(
        certificate["error"]
            .as_str()
            .unwrap()
            .contains("may not list or watch secrets in shop"),
        "{certificate}"
    );
}
