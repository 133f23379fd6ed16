//! `/_metrics` names clusters a caller may not see, so it is not served where
//! callers reach the console: only on the internal listener (`server.internal_port`), which the
//! scraper reaches and no Ingress, front door or compose port publishes.

use test_support::Distribution;

use crate::access::{VIEWER, as_caller, trusted_yaml};
use crate::app::{cluster_yaml, spawn_app};
use crate::support::real::shared;

#[tokio::test]
async fn a_signed_in_caller_gets_404_for_metrics_on_the_public_port() {
    let cluster = shared(Distribution::OpenSearch2).await;
    // A cluster the caller may not see (default_role: none, no role for its group).
    let hidden = format!(
        "{}    access:\n      default_role: none\n",
        cluster_yaml("hidden-prod", &cluster.url)
    );
    let app = spawn_app(&trusted_yaml(&hidden)).await;
    let response = as_caller(app.client.get(app.url("/_metrics")), &VIEWER)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    assert_eq!(status, 404, "public /_metrics answered: {body}");
    assert!(!body.contains("hidden-prod"), "{body}");
    // The scraper's way in.
    let scraped = app
        .client
        .get(format!("{}/_metrics", app.internal))
        .send()
        .await
        .unwrap();
    assert_eq!(scraped.status(), 200);
    assert!(
        scraped
            .text()
            .await
            .unwrap()
            .contains("http_requests_total")
    );
}
