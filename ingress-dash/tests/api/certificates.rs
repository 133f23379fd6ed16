//! Certificates behind TLS entries (issue 20 section 2): from the TLS Secret when reading
//! Secrets is enabled (a real X.509 certificate from kube-test-server's CA), else from a
//! cert-manager Certificate; hosts the certificate does not cover; the expiry metric; and the
//! private key in no answer, event or metric.

use std::time::{Duration, SystemTime};

use kube_test_server::tls::{CertificateAuthority, IssuedCertificate, tls_secret};
use kube_test_server::{Kind, sample};
use serde_json::{Value, json};

use crate::app::{TestApp, eventually, spawn_app};
use crate::backends::item;

const WAIT: Duration = Duration::from_secs(10);
const DAY: Duration = Duration::from_secs(86_400);

fn tls_ingress(namespace: &str, name: &str, hosts: &[&str], secret: &str) -> Value {
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

fn issue(names: &[&str], days_left: u32) -> (CertificateAuthority, IssuedCertificate) {
    let ca = CertificateAuthority::new("ingress-dash test CA").unwrap();
    let now = SystemTime::now();
    let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
    let issued = ca.issue(&names, now - DAY, now + DAY * days_left).unwrap();
    (ca, issued)
}

/// The key as it could leak: each base64 line of its PEM, and the Secret's base64 of it.
fn key_fragments(issued: &IssuedCertificate, secret: &Value) -> Vec<String> {
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

fn assert_no_key(text: &str, fragments: &[String], what: &str) {
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
async fn a_secrets_certificate_is_shown_measured_and_its_key_never_leaves() {
    let app = spawn_app("", "certificates:\n  read_secrets: true\n").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("vault");
    let (ca, issued) = issue(&["shop.example.com"], 20);
    let mut secret = tls_secret("vault", "shop-tls", &issued, Some(ca.certificate_pem()));
    // kubectl apply keeps the whole Secret, key included, in an annotation.
    secret["metadata"]["annotations"] = json!({
        "kubectl.kubernetes.io/last-applied-configuration":
            json!({"data": {"tls.key": secret["data"]["tls.key"]}}).to_string(),
    });
    cluster.put(Kind::Secret, secret.clone());
    let fragments = key_fragments(&issued, &secret);
    cluster.put_ingress(tls_ingress(
        "vault",
        "shop",
        &["shop.example.com", "www.example.com"],
        "shop-tls",
    ));

    let mut stream = app.stream("?namespaces=vault", None).await;
    let block = stream.next_block(WAIT).await.unwrap();
    assert_eq!(block, "retry: 3000");
    let block = stream.next_block(WAIT).await.unwrap();
    assert!(block.starts_with("event: snapshot"), "{block}");
    assert_no_key(&block, &fragments, "stream's snapshot");
    let data: Value = serde_json::from_str(
        block
            .lines()
            .find_map(|line| line.strip_prefix("data: "))
            .unwrap(),
    )
    .unwrap();
    let certificate = &item(&data, "shop")["certificates"][0];
    assert_eq!(certificate["source"], "secret");
    assert_eq!(certificate["secretName"], "shop-tls");
    assert_eq!(certificate["subjectNames"], json!(["shop.example.com"]));
    assert_eq!(certificate["notAfter"], issued.not_after_rfc3339());
    assert_eq!(certificate["notBefore"], issued.not_before_rfc3339());
    assert_eq!(certificate["missingHosts"], json!(["www.example.com"]));
    assert_eq!(certificate["error"], Value::Null);
    assert!(
        certificate["issuer"]
            .as_str()
            .unwrap()
            .contains("ingress-dash test CA"),
        "{certificate}"
    );

    let snapshot = app
        .get("/api/ingresses?namespaces=vault")
        .await
        .text()
        .await
        .unwrap();
    assert_no_key(&snapshot, &fragments, "snapshot");
    let not_after = issued
        .not_after
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let series = format!(
        "ingress_dash_certificate_expiry_timestamp_seconds{{namespace=\"vault\",ingress=\"shop\",secret=\"shop-tls\"}} {not_after}\n"
    );
    let text = metrics(&app).await;
    assert!(text.contains(&series), "{text}");
    assert_no_key(&text, &fragments, "metrics");

    // A renewed certificate: one `modified`, still without the key.
    let (ca, renewed) = issue(&["shop.example.com", "www.example.com"], 90);
    let secret = tls_secret("vault", "shop-tls", &renewed, Some(ca.certificate_pem()));
    let mut fragments = fragments;
    fragments.extend(key_fragments(&renewed, &secret));
    cluster.put(Kind::Secret, secret);
    let block = stream.next_block(WAIT).await.unwrap();
    assert!(block.starts_with("event: modified"), "{block}");
    assert_no_key(&block, &fragments, "stream's event");
    // Every host covered: the empty list is left out (docs/api/ingress-dash.md).
    assert!(!block.contains("\"missingHosts\""), "{block}");
    assert!(block.contains(&renewed.not_after_rfc3339()), "{block}");

    // The ingress goes: so does its series.
    cluster.delete_ingress("vault", "shop");
    assert!(eventually(async || !metrics(&app).await.contains("ingress=\"shop\"")).await);
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
async fn a_missing_secret_is_said_in_words() {
    let app = spawn_app("", "certificates:\n  read_secrets: true\n").await;
    let cluster = &app.kube.cluster;
    cluster.add_namespace("shop");
    sample::put_service_with_endpoints(cluster, "shop", "web", 80, 1, true);
    cluster.put_ingress(tls_ingress("shop", "web", &["web.example.com"], "web-tls"));
    let mut stream = app.stream("?namespaces=shop", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    let certificate = &item(&first.data, "web")["certificates"][0];
    assert_eq!(certificate["source"], "secret");
    assert!(
        certificate["error"]
            .as_str()
            .unwrap()
            .contains("The Secret shop/web-tls does not exist"),
        "{certificate}"
    );
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
