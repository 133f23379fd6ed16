//! A cluster behind HTTPS with certificates from a private CA, as production clusters are:
//! the shared real OpenSearch 2 node behind nginx terminating TLS (one port for any client, one
//! demanding a client certificate signed by the CA). The secured Elasticsearch 8 node's own
//! HTTPS (its CA, the admin's credential) is in `real_clusters`.

use serde_json::Value;
use test_support::{Distribution, SearchCluster, TestCertificates, TlsFront};

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{direct_json, shared};

struct Fixture {
    certificates: TestCertificates,
    front: TlsFront,
    cluster: &'static SearchCluster,
}

async fn fixture() -> Fixture {
    let cluster = shared(Distribution::OpenSearch2).await;
    let certificates = TestCertificates::generate();
    let front = TlsFront::start(&cluster.url, &certificates);
    Fixture {
        certificates,
        front,
        cluster,
    }
}

impl Fixture {
    fn file(&self, name: &str) -> String {
        self.certificates.path(name).display().to_string()
    }
}

/// The console's `_cluster/health` through the relay, and the list entry of `id`.
async fn health_and_entry(app: &TestApp, id: &str) -> (u16, Value, Value) {
    let (status, health) = app
        .get_json(&format!("/api/clusters/{id}/proxy/_cluster/health"))
        .await;
    let (_, list) = app.get_json("/api/clusters").await;
    let entry = list["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|cluster| cluster["id"] == id)
        .cloned()
        .unwrap();
    (status, health, entry)
}

#[tokio::test]
async fn a_cluster_is_reached_over_https_with_its_ca_file_and_refused_without_it() {
    let f = fixture().await;
    let trusted = format!(
        "{}    tls:\n      ca_file: {}\n",
        cluster_yaml("trusted", &f.front.url),
        f.file("ca.pem")
    );
    let untrusted = cluster_yaml("untrusted", &f.front.url);
    let app = spawn_app(&format!("clusters:\n{trusted}{untrusted}")).await;

    let (status, health, entry) = health_and_entry(&app, "trusted").await;
    assert_eq!(status, 200, "{health}");
    let own = direct_json(f.cluster, "/").await;
    assert_eq!(
        health["cluster_name"], own["cluster_name"],
        "the node's own"
    );
    assert_eq!(entry["reachable"], true, "{entry}");
    // Shared: other suites' replicas may leave it yellow.
    assert!(
        ["green", "yellow"].contains(&entry["health"].as_str().unwrap_or("")),
        "{entry}"
    );

    // Without the CA the certificate is not trusted: the console says so instead of relaying.
    let (status, body, entry) = health_and_entry(&app, "untrusted").await;
    assert!(status == 502 || status == 503, "{status} {body}");
    let message = body["error"]["message"].as_str().unwrap().to_lowercase();
    assert!(
        message.contains("cluster \"untrusted\"") && message.contains("tls.ca_file"),
        "{message}"
    );
    assert_eq!(entry["reachable"], false);
    assert!(
        entry["error"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("certificate"),
        "{entry}"
    );
}

#[tokio::test]
async fn insecure_skip_verify_accepts_a_certificate_nobody_vouches_for() {
    let f = fixture().await;
    let cluster = format!(
        "{}    tls:\n      insecure_skip_verify: true\n",
        cluster_yaml("lab", &f.front.url)
    );
    let app = spawn_app(&format!("clusters:\n{cluster}")).await;
    let (status, health, entry) = health_and_entry(&app, "lab").await;
    assert_eq!(status, 200, "{health}");
    assert_eq!(entry["reachable"], true, "{entry}");
}

#[tokio::test]
async fn mutual_tls_presents_the_configured_client_certificate() {
    let f = fixture().await;
    let with_certificate = format!(
        "{}    tls:\n      ca_file: {}\n      client_cert_file: {}\n      client_key_file: {}\n",
        cluster_yaml("mtls", &f.front.mutual_url),
        f.file("ca.pem"),
        f.file("client.pem"),
        f.file("client-key.pem"),
    );
    let without_certificate = format!(
        "{}    tls:\n      ca_file: {}\n",
        cluster_yaml("anonymous", &f.front.mutual_url),
        f.file("ca.pem"),
    );
    let app = spawn_app(&format!(
        "clusters:\n{with_certificate}{without_certificate}"
    ))
    .await;

    let (status, health, entry) = health_and_entry(&app, "mtls").await;
    assert_eq!(status, 200, "{health} / nginx: {}", f.front.error_log());
    assert_eq!(entry["reachable"], true, "{entry}");

    // nginx answers a client without a certificate with 400; the console relays that answer
    // as it relays every answer of the cluster, and the list shows the cluster as failing.
    let (status, _, entry) = health_and_entry(&app, "anonymous").await;
    assert_eq!(status, 400);
    assert_eq!(entry["reachable"], false, "{entry}");
}
