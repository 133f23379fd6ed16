//! Sessions that refresh (`oidc.refresh`) against the real provider, which issues refresh tokens
//! and rotates them at each use (a reused one is refused and its grant revoked, so a proxy that
//! spends one twice fails here): the session stays while its access token is renewed before
//! expiry, a group changed at the provider changes the managed user's roles on the real
//! cluster, two replicas on one Redis spend each refresh token once, and a revoked refresh token
//! sends the browser to sign in again (an API client gets the JSON 401).

use std::time::{Duration, Instant};

use serde_json::json;

use super::{OidcStack, spawn_oidc_stack_ttl};
use crate::support::browser::Browser;

const REFRESHED: &str = "proxy_session_refreshes_total{outcome=\"refreshed\"}";
/// Any user may ask the cluster who they are, whatever their roles.
const WHO: &str = "/_security/_authenticate";
const REJECTED: &str = "proxy_session_refreshes_total{outcome=\"rejected\"}";

/// A stack whose provider's access tokens live `access_ttl` seconds, refreshed `before` seconds
/// before they expire (more than `access_ttl`: at every request), with `extra_yaml` appended.
async fn stack(access_ttl: u64, before: u64, extra_yaml: &str) -> OidcStack {
    let refresh = format!("  refresh: {{before_expiry: {before}s}}\n");
    spawn_oidc_stack_ttl("standalone", "", extra_yaml, (&refresh, access_ttl)).await
}

#[tokio::test]
async fn a_session_refreshes_before_expiry_and_takes_new_groups_to_the_cluster() {
    let stack = stack(8, 4, "").await;
    let app = &stack.app;
    let browser = Browser::new();
    let signed_in = Instant::now();
    stack.sign_in(&browser, "/", &stack.alice).await;
    assert_eq!(browser.get(&app.url(WHO)).await.status(), 200);
    let alice = stack.cluster_user(&stack.alice).await.unwrap();
    assert_eq!(alice["roles"], json!(["superuser", "kibana_user"]));
    if signed_in.elapsed() < Duration::from_secs(3) {
        assert_eq!(stack.provider.refresh_grants().await, (0, 0), "not due yet");
    }

    // An administrator takes alice out of `admins` at the provider.
    stack.provider.set_groups(&stack.alice, &["staff"]).await;
    // Requests go on; the session stays past the first access token's expiry (8 s), renewed
    // within 4 s of it.
    test_support::eventually(
        "a refresh, and the session past the first access token's expiry",
        Duration::from_secs(40),
        async || {
            let response = browser.get(&app.url(WHO)).await;
            assert_eq!(response.status(), 200, "the session is kept");
            signed_in.elapsed() > Duration::from_secs(9)
                && stack.provider.refresh_grants().await.0 >= 1
        },
    )
    .await;
    let (_, refused) = stack.provider.refresh_grants().await;
    assert_eq!(refused, 0);
    assert!(app.counter(REFRESHED).await >= 1.0);
    let alice = stack.cluster_user(&stack.alice).await.unwrap();
    assert_eq!(
        alice["roles"],
        json!(["kibana_user"]),
        "the superuser role went with the admins group: {alice}"
    );
    // The cluster's own answer to the session's requests.
    let who: serde_json::Value = browser.get(&app.url(WHO)).await.json().await.unwrap();
    assert_eq!(who["roles"], json!(["kibana_user"]), "{who}");
}

#[tokio::test]
async fn two_replicas_on_one_redis_spend_each_refresh_token_once() {
    let redis = test_support::RedisServer::start();
    let cache = format!(
        "cache: {{backend: redis, redis_url: \"{}\", encryption_key: 0123456789abcdef0123456789abcdef}}\n",
        redis.url()
    );
    // Access tokens of 2 s refreshed 30 s before expiry: every request finds its session due.
    let stack = stack(2, 30, &cache).await;
    let second = stack.replica().await;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    assert_eq!(stack.provider.refresh_grants().await, (0, 0));

    for round in 0..3 {
        let urls: Vec<String> = (0..5)
            .flat_map(|_| [stack.app.url("/_cat/indices"), second.url("/_cat/indices")])
            .collect();
        let statuses = futures_util::future::join_all(urls.iter().map(|url| {
            let browser = &browser;
            async move { browser.get(url).await.status().as_u16() }
        }))
        .await;
        assert!(
            statuses.iter().all(|status| *status == 200),
            "round {round}: {statuses:?}"
        );
    }
    let (spent, refused) = stack.provider.refresh_grants().await;
    assert_eq!(refused, 0, "a refresh token was spent twice");
    assert!(spent >= 3, "each round refreshed: {spent}");
    assert!(spent <= 30, "{spent}");
    // The session goes on at both replicas.
    assert_eq!(
        browser.get(&second.url("/_cat/indices")).await.status(),
        200
    );
    assert_eq!(
        browser.get(&stack.app.url("/_cat/indices")).await.status(),
        200
    );
}

#[tokio::test]
async fn a_revoked_refresh_token_ends_the_session_and_sign_in_starts_again() {
    let stack = stack(2, 30, "").await;
    let app = &stack.app;
    let (browser, script) = (Browser::new(), Browser::new());
    stack.sign_in(&browser, "/", &stack.alice).await;
    stack.sign_in(&script, "/", &stack.bob).await;
    let rejected = app.counter(REJECTED).await;
    stack.provider.revoke_refresh_tokens().await;

    // A browser is sent to sign in again, keeping where it was going.
    let response = browser.get(&app.url("/_cat/indices?v")).await;
    assert_eq!(response.status(), 302);
    assert_eq!(
        response.headers()["location"],
        "/auth/start?rd=%2F_cat%2Findices%3Fv"
    );
    // An API client gets the JSON 401.
    assert_api_401(&script, &app.url("/_cat/indices")).await;
    assert_eq!(stack.provider.refresh_grants().await, (0, 2));
    assert!(app.counter(REJECTED).await >= rejected + 2.0);

    // The sessions are gone: no second attempt with the dead token.
    assert_eq!(browser.get(&app.url("/_cat/indices")).await.status(), 302);
    assert_eq!(stack.provider.refresh_grants().await, (0, 2));
    // Signing in again gives a working session.
    stack.sign_in(&browser, "/", &stack.alice).await;
    assert_eq!(browser.get(&app.url("/_cat/indices")).await.status(), 200);
}

#[tokio::test]
async fn a_provider_down_past_a_retry_ends_the_session_cleanly() {
    let stack = stack(2, 30, "").await;
    let app = &stack.app;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    let unavailable = app
        .counter("proxy_session_refreshes_total{outcome=\"unavailable\"}")
        .await;
    drop(stack.provider);

    // The refresh cannot reach the provider, twice: sign in again, not a 500 or a 503.
    let response = browser.get(&app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 302);
    assert_eq!(
        response.headers()["location"],
        "/auth/start?rd=%2F_cat%2Findices"
    );
    assert!(
        app.counter("proxy_session_refreshes_total{outcome=\"unavailable\"}")
            .await
            >= unavailable + 1.0
    );
    // The session is gone, not retried at every request: no further refresh is tried.
    let after_end = app
        .counter("proxy_session_refreshes_total{outcome=\"unavailable\"}")
        .await;
    assert_api_401(&browser, &app.url("/_cat/indices")).await;
    assert_eq!(
        app.counter("proxy_session_refreshes_total{outcome=\"unavailable\"}")
            .await,
        after_end
    );
}

/// `url` as an API client with `browser`'s cookies: the JSON 401.
async fn assert_api_401(browser: &Browser, url: &str) {
    let response = browser
        .request(reqwest::Method::GET, url, &[("accept", "application/json")])
        .await;
    assert_eq!(response.status(), 401);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unauthenticated", "{body}");
}
