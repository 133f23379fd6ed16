//! Issue 31, hole 4: `/_metrics` carries the certificate-expiry series with the namespace,
//! ingress and Secret names of every namespace, so it is not served where users reach the
//! dashboard: only on the internal listener (`server.internal_port`), which the scraper reaches
//! and no Ingress, front door or compose port publishes.

use crate::app::{built_web_app, spawn_app_server, spawn_app_static};

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

/// With the web app served, a path the app does not know is answered with `index.html` for
/// client-side routing; `/_metrics` and every other `/_` path must stay a 404 rather than a
/// 200 page (seen in the container, where the image serves the built app).
#[tokio::test]
async fn the_web_app_does_not_answer_for_metrics_on_the_public_port() {
    let dir = built_web_app();
    let app = spawn_app_static(dir.path()).await;
    for path in ["/_metrics", "/_metrics/", "/_anything"] {
        let response = app
            .client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .expect("request sent");
        let status = response.status().as_u16();
        let body = response.text().await.unwrap();
        assert_eq!(status, 404, "public {path} answered: {body}");
        assert!(body.contains("\"error\""), "{path}: {body}");
    }
    let page = app
        .client
        .get(format!("{}/some/client/route", app.address))
        .send()
        .await
        .expect("request sent");
    assert_eq!(page.status(), 200, "client-side routes still get the app");
}
