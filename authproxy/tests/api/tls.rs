//! A search cluster behind HTTPS with certificates from a private CA and mutual TLS, as
//! Elasticsearch 8 sets itself up: the security stub (in front of osmem) behind nginx, which
//! demands a client certificate signed by the CA.

use test_support::{Osmem, TestCertificates, TlsFront};

use crate::app::{ANN_PASSWORD, TestApp, spawn_app};
use crate::support::security_stub::{Flavor, SecurityStub, stub_users_yaml};

struct Fixture {
    certificates: TestCertificates,
    front: TlsFront,
    stub: SecurityStub,
    _osmem: Osmem,
}

fn fixture() -> Fixture {
    let osmem = Osmem::start();
    let stub = SecurityStub::start(Flavor::Elasticsearch, &osmem.url);
    let certificates = TestCertificates::generate();
    let front = TlsFront::start(&stub.url, &certificates);
    Fixture {
        certificates,
        front,
        stub,
        _osmem: osmem,
    }
}

impl Fixture {
    /// A standalone proxy towards the cluster's mutual-TLS port with `tls` as `search.tls`.
    async fn proxy(&self, tls: &str) -> TestApp {
        spawn_app(&format!(
            "server: {{host: 127.0.0.1, port: 0, mode: standalone}}\n{}  tls: {tls}\n",
            stub_users_yaml(&self.front.mutual_url, Flavor::Elasticsearch)
        ))
        .await
    }

    fn file(&self, name: &str) -> String {
        self.certificates.path(name).display().to_string()
    }
}

async fn search_backend_check(app: &TestApp) -> String {
    let (_, health) = app.get_json("/_health").await;
    health["checks"]["search_backend"].to_string()
}

#[tokio::test]
async fn the_managed_user_is_made_and_used_over_mutual_tls() {
    let f = fixture();
    let app = f
        .proxy(&format!(
            "{{ca_file: {}, client_cert_file: {}, client_key_file: {}}}",
            f.file("ca.pem"),
            f.file("client.pem"),
            f.file("client-key.pem")
        ))
        .await;
    let response = app.get_as("/_cluster/health", "ann", ANN_PASSWORD).await;
    assert_eq!(
        response.status(),
        200,
        "{:?} / nginx: {}",
        response.text().await,
        f.front.error_log()
    );
    let forwarded = f.stub.forwarded();
    assert_eq!(forwarded.last().unwrap().user, "ann");
    assert_eq!(search_backend_check(&app).await, "\"ok\"");
}

#[tokio::test]
async fn an_untrusted_cluster_certificate_fails_closed_and_says_what_to_set() {
    let f = fixture();
    let app = f.proxy("{}").await;
    let response = app.get_as("/_cluster/health", "ann", ANN_PASSWORD).await;
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("search.tls.ca_file"), "{message}");
    assert!(f.stub.forwarded().is_empty(), "nothing reached the cluster");
    let check = search_backend_check(&app).await;
    assert!(check.contains("not trusted"), "{check}");
}
