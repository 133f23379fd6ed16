//! Sessions that refresh (`oidc.refresh`) against the real provider, which issues refresh tokens
//! and rotates them at each use (a reused one is refused and its grant revoked, so a proxy that
//! spends one twice fails here): the session stays while its access token is renewed before
//! expiry, a group changed at the provider changes the managed user's roles on the real
//! cluster, two replicas on one Redis spend each refresh token once, and a revoked refresh token
//! sends the browser to sign in again (an API client gets the JSON 401). The races: a request
//! that goes away mid-refresh, a sign-out during one, a refresh answered without an ID token or
//! a working userinfo, and a provider that issues refresh tokens only for `offline_access`.

use std::time::{Duration, Instant};

use serde_json::json;

use super::{OidcStack, spawn_oidc_stack_ttl};
use crate::support::browser::Browser;

/// Any user may ask the cluster who they are, whatever their roles.
const WHO: &str = "/_security/_authenticate";
const REJECTED: &str = "proxy_session_refreshes_total{outcome=\"rejected\"}";
const UNAVAILABLE: &str = "proxy_session_refreshes_total{outcome=\"unavailable\"}";
const WAIT_TIMEOUT: &str = "proxy_session_refreshes_total{outcome=\"wait_timeout\"}";
const INCOMPLETE: &str = "proxy_session_refreshes_total{outcome=\"incomplete\"}";

/// The counters are the process's (one metrics recorder for every app of this test binary), so a
/// test reads only counts no concurrent test can add to. Only the tests holding this make the
/// failure outcomes (`unavailable`, `rejected`, `incomplete`, `wait_timeout`): one at a time,
/// each asserts its own count exactly. `refreshed` is every test's: a test proves its refreshes
/// with its own provider's counts ([`test_support::OidcProvider::refresh_grants`]) instead.
static COUNTED: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

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
async fn a_wait_for_a_lease_that_never_goes_counts_as_a_wait_timeout() {
    use deadpool_redis::redis::AsyncCommands;

    let redis = test_support::RedisServer::start();
    let cache = format!(
        "cache: {{backend: redis, redis_url: \"{}\", encryption_key: 0123456789abcdef0123456789abcdef}}\n",
        redis.url()
    );
    let stack = stack(2, 30, &cache).await;
    let app = &stack.app;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    // Another replica's lease on this session, stuck well past the 25 s a waiter waits.
    let mut raw = deadpool_redis::redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let sessions: Vec<String> = raw.keys("authproxy:session:*").await.unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let lease = sessions[0].replace("authproxy:session:", "authproxy:session-refresh:");
    let _: () = raw.set_ex(&lease, "another-replica", 120).await.unwrap();
    let _counted = COUNTED.lock().await;
    let timed_out = app.counter(WAIT_TIMEOUT).await;

    // The session goes on as stored; the wait is counted as such, not as `shared`.
    assert_eq!(browser.get(&app.url(WHO)).await.status(), 200);
    assert_eq!(app.counter(WAIT_TIMEOUT).await, timed_out + 1.0);
    assert_eq!(
        stack.provider.refresh_grants().await,
        (0, 0),
        "not spent here"
    );
    let holder: Option<String> = raw.get(&lease).await.unwrap();
    assert_eq!(
        holder.as_deref(),
        Some("another-replica"),
        "not ours to release"
    );
}

#[tokio::test]
async fn a_revoked_refresh_token_ends_the_session_and_sign_in_starts_again() {
    let stack = stack(2, 30, "").await;
    let app = &stack.app;
    let (browser, script) = (Browser::new(), Browser::new());
    stack.sign_in(&browser, "/", &stack.alice).await;
    stack.sign_in(&script, "/", &stack.bob).await;
    let _counted = COUNTED.lock().await;
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
    assert_eq!(app.counter(REJECTED).await, rejected + 2.0);

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
    let _counted = COUNTED.lock().await;
    let unavailable = app.counter(UNAVAILABLE).await;
    drop(stack.provider);

    // The refresh cannot reach the provider, twice: sign in again, not a 500 or a 503.
    let response = browser.get(&app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 302);
    assert_eq!(
        response.headers()["location"],
        "/auth/start?rd=%2F_cat%2Findices"
    );
    assert_eq!(app.counter(UNAVAILABLE).await, unavailable + 1.0);
    // The session is gone, not retried at every request: no further refresh is tried.
    assert_api_401(&browser, &app.url("/_cat/indices")).await;
    assert_eq!(app.counter(UNAVAILABLE).await, unavailable + 1.0);
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

/// Changes how the provider answers refreshes from now on (`delay_ms`, `id_token`, `userinfo`:
/// see test-support/oidc/server.js).
async fn refresh_behaviour(stack: &OidcStack, behaviour: serde_json::Value) {
    let response = reqwest::Client::new()
        .post(format!(
            "{}/__test/refresh-behaviour",
            stack.provider.issuer
        ))
        .json(&behaviour)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
}

/// The provider's counts: `ok`, `failed`, `pending` (answers held back), `issued` (refresh
/// tokens issued at sign-in), `userinfo` (requests).
async fn provider_counts(stack: &OidcStack) -> serde_json::Value {
    reqwest::Client::new()
        .get(format!("{}/__test/refresh-grants", stack.provider.issuer))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Waits until the provider holds a refresh's answer back (the token already rotated there).
async fn until_a_refresh_is_held_back(stack: &OidcStack) {
    test_support::eventually(
        "the provider to hold a refresh's answer back",
        Duration::from_secs(20),
        async || provider_counts(stack).await["pending"] == 1,
    )
    .await;
}

/// A stack whose sessions are due at every request (2 s access tokens, refreshed 30 s before
/// expiry), alice signed in with the browser returned.
async fn alice_due_at_every_request() -> (OidcStack, Browser) {
    let stack = stack(2, 30, "").await;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    (stack, browser)
}

#[tokio::test]
async fn a_refresh_whose_id_token_does_not_verify_asks_userinfo_nothing() {
    let (stack, browser) = alice_due_at_every_request().await;
    let app = &stack.app;
    let _counted = COUNTED.lock().await;
    let rejected = app.counter(REJECTED).await;
    let asked = provider_counts(&stack).await["userinfo"].clone();
    stack.provider.forge_next_id_token("wrong_aud").await;

    let response = browser.get(&app.url("/_cat/indices")).await;
    assert_eq!(
        response.status(),
        302,
        "the forged ID token ends the session"
    );
    assert_eq!(stack.provider.refresh_grants().await, (1, 0));
    assert_eq!(app.counter(REJECTED).await, rejected + 1.0);
    // The new access token was not used before its ID token verified.
    assert_eq!(provider_counts(&stack).await["userinfo"], asked);
}

#[tokio::test]
async fn a_refresh_whose_request_went_away_still_stores_the_rotated_token() {
    let (stack, browser) = alice_due_at_every_request().await;
    let app = &stack.app;
    assert!(provider_counts(&stack).await["issued"].as_u64() >= Some(1));
    refresh_behaviour(&stack, json!({"delay_ms": 2000})).await;
    let who = app.url(WHO);
    // The client goes away in the middle of the refresh: its request is dropped.
    tokio::select! {
        _ = browser.get(&who) => panic!("the request ended before its refresh was held back"),
        () = until_a_refresh_is_held_back(&stack) => {}
    }
    refresh_behaviour(&stack, json!({"delay_ms": 0})).await;

    // The provider rotated the token for a request nobody waits for any more; the refresh still
    // stored it, so the next refresh spends the new one (a lost one would be refused).
    test_support::eventually(
        "a second refresh with the rotated token",
        Duration::from_secs(40),
        async || {
            let response = browser.get(&app.url(WHO)).await;
            assert_eq!(response.status(), 200, "the session is kept");
            stack.provider.refresh_grants().await.0 >= 2
        },
    )
    .await;
    assert_eq!(
        stack.provider.refresh_grants().await.1,
        0,
        "a token was lost"
    );
}

#[tokio::test]
async fn a_refresh_slower_than_its_limit_ends_the_session_inside_the_lease() {
    let (stack, browser) = alice_due_at_every_request().await;
    let app = &stack.app;
    let _counted = COUNTED.lock().await;
    let unavailable = app.counter(UNAVAILABLE).await;
    // Each call within the provider client's own 10 s, together over the refresh's 18 s limit
    // (and near the lease's 25 s).
    refresh_behaviour(
        &stack,
        json!({"delay_ms": 9_000, "userinfo_delay_ms": 9_500}),
    )
    .await;

    let response = browser.get(&app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 302, "the session ends, not renewed late");
    assert_eq!(app.counter(UNAVAILABLE).await, unavailable + 1.0);
    assert_api_401(&browser, &app.url("/_cat/indices")).await;
}

#[tokio::test]
async fn signing_out_during_a_refresh_does_not_bring_the_session_back() {
    let (stack, browser) = alice_due_at_every_request().await;
    let app = &stack.app;
    let cookie = browser.cookie(super::COOKIE).unwrap();
    refresh_behaviour(&stack, json!({"delay_ms": 2000})).await;

    let who = app.url(WHO);
    let (during, ()) = tokio::join!(browser.get(&who), async {
        until_a_refresh_is_held_back(&stack).await;
        let response = browser
            .request(
                reqwest::Method::GET,
                &app.url("/auth/logout"),
                &[("sec-fetch-site", "same-origin")],
            )
            .await;
        assert_eq!(response.status(), 302);
    });
    assert_eq!(during.status(), 302, "the refresh found the session ended");
    assert_eq!(stack.provider.refresh_grants().await, (1, 0));

    // The old cookie names no session: the refresh did not write it again.
    let replay = Browser::new();
    replay.set_cookie(super::COOKIE, &cookie);
    assert_api_401(&replay, &app.url(WHO)).await;
    assert_eq!(
        stack.provider.refresh_grants().await,
        (1, 0),
        "not refreshed again"
    );
}

#[tokio::test]
async fn a_refresh_without_an_id_token_takes_the_groups_from_userinfo_alone() {
    let (stack, browser) = alice_due_at_every_request().await;
    let app = &stack.app;
    assert_eq!(browser.get(&app.url(WHO)).await.status(), 200);
    let alice = stack.cluster_user(&stack.alice).await.unwrap();
    assert_eq!(alice["roles"], json!(["superuser", "kibana_user"]));

    // alice leaves every group: the provider then sends no `groups` claim at all.
    refresh_behaviour(&stack, json!({"id_token": false})).await;
    stack.provider.set_groups(&stack.alice, &[]).await;
    let (spent, refused) = stack.provider.refresh_grants().await;
    let who: serde_json::Value = browser.get(&app.url(WHO)).await.json().await.unwrap();
    assert_eq!(
        stack.provider.refresh_grants().await,
        (spent + 1, refused),
        "refreshed once"
    );
    // The default roles alone: `superuser` went with `admins`.
    assert_eq!(
        who["roles"],
        json!(["kibana_user"]),
        "the old groups survived: {who}"
    );
}

#[tokio::test]
async fn a_refresh_without_an_id_token_or_userinfo_ends_the_session_unrefreshed() {
    let (stack, browser) = alice_due_at_every_request().await;
    let app = &stack.app;
    refresh_behaviour(&stack, json!({"id_token": false, "userinfo": false})).await;
    let _counted = COUNTED.lock().await;
    let incomplete = app.counter(INCOMPLETE).await;

    let response = browser.get(&app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 302, "signed out, to sign in again");
    // Counted `incomplete`, not `refreshed`.
    assert_eq!(app.counter(INCOMPLETE).await, incomplete + 1.0);
    assert_eq!(
        stack.provider.refresh_grants().await,
        (1, 0),
        "spent once, not retried"
    );
    assert_api_401(&browser, &app.url("/_cat/indices")).await;
}

#[tokio::test]
async fn without_refresh_no_offline_access_is_asked_and_no_refresh_token_is_issued() {
    let stack = spawn_oidc_stack_ttl(
        "standalone",
        ", ttl: 4s",
        "",
        ("  refresh: {enabled: false}\n", 1),
    )
    .await;
    let app = &stack.app;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    assert_eq!(provider_counts(&stack).await["issued"], 0);
    // The session lasts `session.ttl`, past its access token, and then ends: never refreshed.
    test_support::eventually("the session to end", Duration::from_secs(30), async || {
        browser.get(&app.url(WHO)).await.status() == 302
    })
    .await;
    assert_eq!(stack.provider.refresh_grants().await, (0, 0));
}
