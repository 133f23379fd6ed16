//! Issue 31, hole 4: `/_metrics` carries the certificate-expiry series with the namespace,
//! ingress and Secret names of every namespace, so it is not served where users reach the
//! dashboard: only on the internal listener (`server.internal_port`), which the scraper reaches
//! and no Ingress, front door or compose port publishes.

use crate::app::spawn_app_server;

const LOOPBACK_IS_TRUSTED: &str = "  trusted_proxies: [127.0.0.0/8, \"::1\"]\n";

const SHOP_ONLY: &str =
    "access:\n  mode: trusted_headers\n  namespaces_by_group:\n    shop: [\"shop-*\"]\n";

#[tokio::test]
async fn a_signed_in_user_gets_404_for_metrics_on_the_public_port() {
    let app = spawn_app_server(LOOPBACK_IS_TRUSTED, SHOP_ONLY).await;
    let response = app
        .client
        .get(format!("{}/_metrics", app.address))
        .header("X-Auth-Request-User", "ann")
        .header("X-Auth-Request-Groups", "shop")
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    assert_eq!(status, 404, "public /_metrics answered: {body}");
    // The scraper's way in: no identity needed there.
    let scraped = app
        .client
        .get(format!("{}/_metrics", app.internal))
        .send()
        .await
        .expect("request sent");
    assert_eq!(scraped.status(), 200);
    assert!(
        scraped
            .text()
            .await
            .unwrap()
            .contains("ingress_dash_circuit_breaker_state")
    );
}
