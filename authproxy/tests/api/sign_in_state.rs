//! The pending sign-in (state, nonce, PKCE verifier, return target) lives in an encrypted,
//! short-lived cookie, so anonymous `/auth/start` requests write nothing to the session store;
//! the store is written only once a callback has signed someone in.

use deadpool_redis::redis::{self, AsyncCommands};
use futures_util::future::join_all;

use crate::oidc::{COOKIE, spawn_oidc_stack_with};
use crate::support::browser::Browser;

const STATE_COOKIE: &str = "_authproxy_session_csrf";

#[tokio::test]
async fn anonymous_sign_in_starts_write_nothing_to_the_store() {
    let redis_server = test_support::RedisServer::start();
    let stack = spawn_oidc_stack_with(
        "",
        &format!(
            "cache: {{backend: redis, redis_url: \"{}\", encryption_key: 0123456789abcdef0123456789abcdef}}\n",
            redis_server.url()
        ),
    )
    .await;
    let mut redis = redis::Client::open(redis_server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let dbsize = |mut connection: redis::aio::MultiplexedConnection| async move {
        redis::cmd("DBSIZE")
            .query_async::<i64>(&mut connection)
            .await
            .unwrap()
    };
    let before = dbsize(redis.clone()).await;

    // A flood of anonymous sign-in starts, each as a new browser.
    let starts = join_all((0..60).map(|n| {
        let url = stack.start_url(&format!("/app/{n}"), &stack.alice);
        async move {
            let browser = Browser::new();
            let response = browser.get(&url).await;
            (response.status().as_u16(), browser.cookie(STATE_COOKIE))
        }
    }))
    .await;
    for (status, cookie) in &starts {
        assert_eq!(*status, 302);
        assert!(cookie.is_some(), "the sign-in is kept in the browser");
    }
    assert_eq!(
        dbsize(redis.clone()).await,
        before,
        "anonymous /auth/start wrote to the store"
    );
    let pending: Vec<String> = redis.keys("authproxy:signin:*").await.unwrap();
    assert!(pending.is_empty(), "{pending:?}");

    // Sign-in still works end to end, returns to rd, and only then the session is stored.
    let browser = Browser::new();
    assert_eq!(
        stack.sign_in(&browser, "/app/kept?q=1", &stack.alice).await,
        "/app/kept?q=1"
    );
    assert!(browser.cookie(COOKIE).is_some());
    assert!(
        browser.cookie(STATE_COOKIE).is_none(),
        "cleared by the callback"
    );
    let sessions: Vec<String> = redis.keys("authproxy:session:*").await.unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(dbsize(redis.clone()).await, before + 1);
    assert_eq!(
        browser.get(&stack.app.url("/_cat/indices")).await.status(),
        200
    );
}

#[tokio::test]
async fn the_sign_in_cookie_is_sealed_and_bound_to_its_state() {
    let stack = crate::oidc::spawn_oidc_stack("").await;
    let browser = Browser::new();
    let started = browser
        .get(&stack.start_url("/secret-target", &stack.alice))
        .await;
    let set_cookie = started
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|value| value.to_str().unwrap().to_owned())
        .find(|value| value.starts_with(&format!("{STATE_COOKIE}=")))
        .expect("a sign-in cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Max-Age=600"] {
        assert!(set_cookie.contains(attribute), "{set_cookie}");
    }
    let value = browser.cookie(STATE_COOKIE).unwrap();
    for secret in ["secret-target", stack.alice.as_str()] {
        assert!(!value.contains(secret), "the cookie is encrypted: {value}");
    }

    // A tampered cookie (one character changed) is refused at the callback.
    let callback = stack.until_callback(&browser, "/", &stack.alice).await;
    let genuine = browser.cookie(STATE_COOKIE).unwrap();
    let mut bytes = genuine.clone().into_bytes();
    let middle = bytes.len() / 2;
    bytes[middle] = if bytes[middle] == b'A' { b'B' } else { b'A' };
    browser.set_cookie(STATE_COOKIE, &String::from_utf8(bytes).unwrap());
    let response = browser.get(callback.as_str()).await;
    assert_eq!(response.status(), 401);
    assert!(browser.cookie(COOKIE).is_none());

    // Another browser's (valid) sign-in cookie does not fit this callback's state.
    let other = Browser::new();
    let _ = other.get(&stack.start_url("/", &stack.alice)).await;
    browser.set_cookie(STATE_COOKIE, &other.cookie(STATE_COOKIE).unwrap());
    let response = browser.get(callback.as_str()).await;
    assert_eq!(response.status(), 401);
    assert!(browser.cookie(COOKIE).is_none());

    // The genuine cookie still completes the sign-in.
    browser.set_cookie(STATE_COOKIE, &genuine);
    let response = browser.get(callback.as_str()).await;
    assert_eq!(response.status(), 302, "{:?}", response.text().await);
    assert!(browser.cookie(COOKIE).is_some());
}
