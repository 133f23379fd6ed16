//! Certificates behind TLS entries (issue 20 section 2), against the real API server: from a
//! cert-manager Certificate when Secrets are not read (on `real_kube::sample_cluster`, which has
//! the shape of cert-manager's CRD), and Secrets forbidden by a Role. The certificates of real
//! TLS Secrets: `real_kube::certificates`.

use std::time::{Duration, SystemTime};

use kube_test_server::tls::{CertificateAuthority, IssuedCertificate, tls_secret};
use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use crate::app::TestApp;
use crate::backends::item;
use crate::real_kube::sample_cluster::sample_cluster;
use crate::real_kube::{
    CERTIFICATE, Cluster, INGRESS, SECRET, scoped, spawn_real, token_for_resources,
};

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

async fn metrics<K>(app: &TestApp<K>) -> String {
    app.get("/_metrics").await.text().await.unwrap()
}

/// On the sample cluster (it has the shape of cert-manager's CRD), in a namespace of its own.
#[tokio::test]
async fn without_secrets_the_cert_manager_certificate_tells_or_nothing_does() {
    let ns = "cert-shop";
    let app = spawn_real(Cluster::Shared(sample_cluster()), None, "", "").await;
    let kube = &app.kube;
    kube.namespaces(&[ns]).await;
    let (ca, issued) = issue(&["shop.example.com"], 5);
    kube.put(
        SECRET,
        tls_secret(ns, "shop-tls", &issued, Some(ca.certificate_pem())),
    )
    .await;
    let certificate = json!({
        "metadata": {"name": "shop", "namespace": ns},
        "spec": {"secretName": "shop-tls", "dnsNames": ["shop.example.com"],
                 "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer"}},
    });
    kube.put(CERTIFICATE, certificate).await;
    kube.put_status(
        CERTIFICATE,
        json!({
            "metadata": {"name": "shop", "namespace": ns},
            "status": {"notAfter": issued.not_after_rfc3339(), "notBefore": issued.not_before_rfc3339(),
                       "conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "up to date"}]},
        }),
    )
    .await;
    kube.put(
        INGRESS,
        tls_ingress(
            ns,
            "shop",
            &["shop.example.com", "*.shop.example.com"],
            "shop-tls",
        ),
    )
    .await;
    kube.put(
        INGRESS,
        tls_ingress(ns, "plain", &["plain.example.com"], "plain-tls"),
    )
    .await;
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
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
    assert!(metrics(&app).await.contains("secret=\"shop-tls\"}"));
    assert!(kube.delete(CERTIFICATE, ns, "shop").await);
    let event = stream.next_event(WAIT).await.unwrap();
    assert_eq!(event.event, "modified");
    assert_eq!(event.data["certificates"][0]["source"], "not_read");
}

/// A service account whose Role leaves Secrets out: the real 403.
#[tokio::test]
async fn forbidden_secrets_make_certificates_not_read_with_the_reason() {
    let cluster = KubeCluster::shared();
    let ns = "cert-forbidden";
    let token = token_for_resources(
        cluster,
        ns,
        "dash",
        &["ingresses", "services", "endpointslices", "events"],
    );
    let app = spawn_real(
        Cluster::Shared(cluster),
        Some(&token),
        &scoped(&[ns]),
        "certificates:\n  read_secrets: true\n",
    )
    .await;
    app.kube
        .put(
            INGRESS,
            tls_ingress(ns, "web", &["web.example.com"], "web-tls"),
        )
        .await;
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
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
            .contains(&format!("may not list or watch secrets in {ns}")),
        "{certificate}"
    );
}
