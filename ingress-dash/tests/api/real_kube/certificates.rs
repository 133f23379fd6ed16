//! Certificates of real TLS Secrets (moved from kube-test-server): the API server validates a
//! `kubernetes.io/tls` Secret and serves it to the watcher's field selector on `type`; the
//! certificate is shown and measured, its key in no answer, event or metric.

use std::time::{Duration, SystemTime};

use kube_test_server::tls::tls_secret;
use serde_json::{Value, json};

use super::{INGRESS, RealApp, SECRET, SERVICE, service, spawn_shared};
use crate::app::eventually;
use crate::backends::item;
use crate::certificates::{assert_no_key, issue, key_fragments, tls_ingress};

const WAIT: Duration = Duration::from_secs(10);

async fn metrics(app: &RealApp) -> String {
    app.get("/_metrics").await.text().await.unwrap()
}

#[tokio::test]
async fn a_secrets_certificate_is_shown_measured_and_its_key_never_leaves() {
    let app = spawn_shared("", "certificates:\n  read_secrets: true\n").await;
    let kube = &app.kube;
    kube.namespaces(&["rk-vault"]).await;
    let (ca, issued) = issue(&["shop.example.com"], 20);
    let mut secret = tls_secret("rk-vault", "shop-tls", &issued, Some(ca.certificate_pem()));
    // kubectl apply keeps the whole Secret, key included, in an annotation.
    secret["metadata"]["annotations"] = json!({
        "kubectl.kubernetes.io/last-applied-configuration":
            json!({"data": {"tls.key": secret["data"]["tls.key"]}}).to_string(),
    });
    kube.put(SECRET, secret.clone()).await;
    let fragments = key_fragments(&issued, &secret);
    kube.put(
        INGRESS,
        tls_ingress(
            "rk-vault",
            "shop",
            &["shop.example.com", "www.example.com"],
            "shop-tls",
        ),
    )
    .await;

    let mut stream = app.stream("?namespaces=rk-vault", None).await;
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
        .get("/api/ingresses?namespaces=rk-vault")
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
        "ingress_dash_certificate_expiry_timestamp_seconds{{namespace=\"rk-vault\",ingress=\"shop\",secret=\"shop-tls\"}} {not_after}\n"
    );
    let text = metrics(&app).await;
    assert!(text.contains(&series), "{text}");
    assert_no_key(&text, &fragments, "metrics");

    // A renewed certificate: one `modified`, still without the key.
    let (ca, renewed) = issue(&["shop.example.com", "www.example.com"], 90);
    let secret = tls_secret("rk-vault", "shop-tls", &renewed, Some(ca.certificate_pem()));
    let mut fragments = fragments;
    fragments.extend(key_fragments(&renewed, &secret));
    kube.put(SECRET, secret).await;
    let block = stream.next_block(WAIT).await.unwrap();
    assert!(block.starts_with("event: modified"), "{block}");
    assert_no_key(&block, &fragments, "stream's event");
    // Every host covered: the empty list is left out (docs/api/ingress-dash.md).
    assert!(!block.contains("\"missingHosts\""), "{block}");
    assert!(block.contains(&renewed.not_after_rfc3339()), "{block}");

    // The ingress goes: so does its series.
    kube.delete(INGRESS, "rk-vault", "shop").await;
    assert!(
        eventually(async || !metrics(&app)
            .await
            .contains("namespace=\"rk-vault\",ingress=\"shop\""))
        .await
    );
}

#[tokio::test]
async fn a_missing_secret_is_said_in_words() {
    let app = spawn_shared("", "certificates:\n  read_secrets: true\n").await;
    let kube = &app.kube;
    kube.namespaces(&["rk-no-secret"]).await;
    kube.put(SERVICE, service("rk-no-secret", "web")).await;
    kube.put(
        INGRESS,
        tls_ingress("rk-no-secret", "web", &["web.example.com"], "web-tls"),
    )
    .await;
    let mut stream = app.stream("?namespaces=rk-no-secret", None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    let certificate = &item(&first.data, "web")["certificates"][0];
    assert_eq!(certificate["source"], "secret");
    assert!(
        certificate["error"]
            .as_str()
            .unwrap()
            .contains("The Secret rk-no-secret/web-tls does not exist"),
        "{certificate}"
    );
}
