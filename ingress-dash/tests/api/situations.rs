//! The sample situations `make run` serves (kube-test-server's `populate_everything`), written
//! into a real API server (`real_kube::sample_cluster`), as a newcomer sees them in the
//! snapshot: a certificate expiring in 5 days that misses the wildcard host (from its
//! cert-manager Certificate, Secrets not read), a backend without ready endpoints, a missing
//! backend Service, an HTTPRoute with an unresolved ref; and with Secrets read, the
//! certificates from the Secrets themselves.

use std::time::Duration;

use serde_json::{Value, json};

use crate::app::TestApp;
use crate::backends::item;
use crate::real_kube::sample_cluster::sample_cluster;
use crate::real_kube::{Cluster, spawn_real};

const WAIT: Duration = Duration::from_secs(10);

/// The first snapshot of a stream of `namespaces` (joined: the stream waits for the watchers).
async fn streamed<K>(app: &TestApp<K>, namespaces: &str) -> Value {
    let mut stream = app.stream(&format!("?namespaces={namespaces}"), None).await;
    let snapshot = stream.next_event(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(snapshot.data["errors"], json!([]));
    snapshot.data
}

fn days_left(not_after: &Value) -> i64 {
    let not_after: k8s_openapi::jiff::Timestamp = not_after.as_str().unwrap().parse().unwrap();
    (not_after.as_second() - k8s_openapi::jiff::Timestamp::now().as_second()) / 86_400
}

#[tokio::test]
async fn the_sample_situations_show_without_reading_secrets() {
    let app = spawn_real(Cluster::Shared(sample_cluster()), None, "", "").await;
    let data = streamed(&app, "team-000").await;
    // app-00000: cert-manager's Certificate, 5 days left, the wildcard rule host not covered.
    let certificate = &item(&data, "app-00000")["certificates"][0];
    assert_eq!(certificate["source"], "cert_manager", "{certificate}");
    assert!(
        (4..=5).contains(&days_left(&certificate["notAfter"])),
        "{certificate}"
    );
    assert_eq!(
        certificate["missingHosts"],
        json!(["*.team-000.example.com"])
    );
    // app-00010: no Secret read, no Certificate: not read, with the reason.
    let unread = &item(&data, "app-00010")["certificates"][0];
    assert_eq!(unread["source"], "not_read");
    assert!(unread["error"].as_str().unwrap().contains("read_secrets"));
    // The HTTPRoutes: checkout's backend does not resolve.
    let checkout = item(&data, "checkout");
    assert_eq!(checkout["kind"], "HTTPRoute");
    assert_eq!(checkout["backends"][0]["state"], "missing_service");
    assert_eq!(item(&data, "storefront")["backends"][0]["state"], "ready");
    // app-00001 (team-001): no ready endpoints; app-00002 (team-002): a missing Service.
    let body = streamed(&app, "team-001,team-002").await;
    let states = |name: &str| -> Vec<(String, String)> {
        item(&body, name)["backends"]
            .as_array()
            .unwrap()
            .iter()
            .map(|backend| {
                (
                    backend["service"].as_str().unwrap().to_owned(),
                    backend["state"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert!(
        states("app-00001").contains(&("app-00001".into(), "no_ready_endpoints".into())),
        "{:?}",
        states("app-00001")
    );
    assert!(
        states("app-00002").contains(&("app-00002-api".into(), "missing_service".into())),
        "{:?}",
        states("app-00002")
    );
}

#[tokio::test]
async fn with_secrets_read_the_certificates_come_from_the_secrets() {
    let app = spawn_real(
        Cluster::Shared(sample_cluster()),
        None,
        "",
        "certificates:\n  read_secrets: true\n",
    )
    .await;
    let data = streamed(&app, "team-000").await;
    let certificate = &item(&data, "app-00000")["certificates"][0];
    assert_eq!(certificate["source"], "secret", "{certificate}");
    assert_eq!(
        certificate["subjectNames"],
        json!(["app-00000.team-000.example.com"])
    );
    assert_eq!(
        certificate["missingHosts"],
        json!(["*.team-000.example.com"])
    );
    let body = streamed(&app, "team-002").await;
    let certificate = &item(&body, "app-00002")["certificates"][0];
    assert_eq!(certificate["source"], "secret");
    assert!(
        (78..=80).contains(&days_left(&certificate["notAfter"])),
        "{certificate}"
    );
    // Every host covered: the empty list is left out of the record (docs/api/ingress-dash.md).
    assert_eq!(certificate.get("missingHosts"), None, "{certificate}");
}
