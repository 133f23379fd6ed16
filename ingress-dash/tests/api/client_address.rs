//! Hole 10b of the security review: behind an ingress controller every user must get their own
//! token bucket, and a client that is not a trusted proxy cannot pick a fresh bucket by sending
//! `X-Forwarded-For`.

use crate::app::{TestApp, spawn_app_server};

const LIMITS: &str = "rate_limit:\n  burst: 3\n  per_second: 1\n";

async fn get_from(app: &TestApp, forwarded_for: &str) -> u16 {
    app.client
        .get(format!("{}/api/namespaces", app.address))
        .header("X-Forwarded-For", forwarded_for)
        .send()
        .await
        .expect("request sent")
        .status()
        .as_u16()
}

#[tokio::test]
async fn clients_behind_a_trusted_proxy_get_their_own_buckets() {
    // The test client (127.0.0.1) plays the ingress controller.
    let app = spawn_app_server("  trusted_proxies: [127.0.0.0/8, \"::1\"]\n", LIMITS).await;
    for _ in 0..3 {
        assert_eq!(get_from(&app, "203.0.113.7").await, 200);
    }
    assert_eq!(get_from(&app, "203.0.113.7").await, 429);
    // Another user behind the same proxy is not refused because of the first one.
    assert_eq!(get_from(&app, "203.0.113.8").await, 200);
    // A client-supplied left-most entry does not pick the bucket: the proxy appended the real one.
    assert_eq!(get_from(&app, "198.51.100.1, 203.0.113.7").await, 429);
}

#[tokio::test]
async fn forwarded_for_from_an_untrusted_peer_is_ignored() {
    let app = spawn_app_server("  trusted_proxies: [10.0.0.0/8]\n", LIMITS).await;
    // A spoofer sends a new address with every request: it still has one bucket, its own.
    let statuses: Vec<u16> = futures_util::future::join_all(
        (0..6).map(|index| get_from_owned(&app, format!("198.51.100.{index}"))),
    )
    .await;
    assert_eq!(statuses.iter().filter(|status| **status == 200).count(), 3);
    assert_eq!(statuses.iter().filter(|status| **status == 429).count(), 3);
}

async fn get_from_owned(app: &TestApp, forwarded_for: String) -> u16 {
    get_from(app, &forwarded_for).await
}

#[tokio::test]
async fn invalid_trusted_proxies_are_refused_at_start() {
    let yaml = "server:\n  trusted_proxies: [\"10.0.0.0/33\", not-an-address]\n";
    let problems = service_kit::config::ConfigLoader::new("TEST_UNUSED_PREFIX")
        .with_env(Default::default())
        .load_str::<ingress_dash::Settings>(yaml)
        .unwrap_err()
        .to_string();
    // Both entries are reported, at once.
    assert_eq!(
        problems.matches("server.trusted_proxies").count(),
        2,
        "{problems}"
    );
}
