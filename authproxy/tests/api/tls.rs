//! A search cluster behind HTTPS with certificates from a private CA and mutual TLS: the real
//! secured Elasticsearch 8 node (through the recording proxy) behind nginx, which demands a
//! client certificate signed by a CA of the test's own. (The node's own HTTPS, with the CA the
//! harness makes, is the real_security suite's.)

use test_support::{TestCertificates, TlsFront};

use crate::app::{ANN_PASSWORD, Cluster, TestApp, Users, spawn_app};
use crate::real_security::Flavor;

struct Fixture {
    certificates: TestCertificates,
    front: TlsFront,
    cluster: Cluster,
    users: Users,
}

async fn fixture() -> Fixture {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let certificates = TestCertificates::generate();
    let front = TlsFront::start(&cluster.recorder.url, &certificates);
    Fixture {
        certificates,
        front,
        cluster,
        users: Users::new(),
    }
}

impl Fixture {
    /// A standalone proxy towards the cluster's mutual-TLS port with `tls` as `search.tls`.
    async fn proxy(&self, tls: &str) -> TestApp {
        let security = self.cluster.node.security;
        let users = self.users.yaml(
            &self.front.mutual_url,
            Flavor::Elasticsearch,
            (&security.admin_user, &security.admin_password),
        );
        spawn_app(&format!(
            "server: {{host: 127.0.0.1, port: 0, mode: standalone}}\n{users}  tls: {tls}\n"
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
    let f = fixture().await;
    let app = f
        .proxy(&format!(
            "{{ca_file: {}, client_cert_file: {}, client_key_file: {}}}",
            f.file("ca.pem"),
            f.file("client.pem"),
            f.file("client-key.pem")
        ))
        .await;
    let response = app
        .get_as("/_cluster/health", &f.users.ann, ANN_PASSWORD)
        .await;
    assert_eq!(
        response.status(),
        200,
        "{:?} / nginx: {}",
        response.text().await,
        f.front.error_log()
    );
    let last = f.cluster.forwarded().pop().unwrap();
    assert_eq!(last.basic_user().as_ref(), Some(&f.users.ann));
    assert!(f.cluster.cluster_user(&f.users.ann).await.is_some());
    assert_eq!(search_backend_check(&app).await, "\"ok\"");
}

#[tokio::test]
async fn an_untrusted_cluster_certificate_fails_closed_and_says_what_to_set() {
    let f = fixture().await;
    let app = f.proxy("{}").await;
    let response = app
        .get_as("/_cluster/health", &f.users.ann, ANN_PASSWORD)
        .await;
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("search.tls.ca_file"), "{message}");
    assert!(
        f.cluster.recorder.requests().is_empty(),
        "nothing reached the cluster"
    );
    let check = search_backend_check(&app).await;
    assert!(check.contains("not trusted"), "{check}");
}
