//! OIDC sessions: their expiry, logout here and at the provider, forward_auth on the session,
//! sessions kept in Redis, the provider's keys fetched again, cross-site logout.

use std::time::Duration;

use reqwest::Url;
use serde_json::json;

use super::{COOKIE, OidcStack, spawn_oidc_stack, spawn_oidc_stack_in, spawn_oidc_stack_with};
use crate::support::basic;
use crate::support::browser::Browser;

#[tokio::test]
async fn an_expired_session_sends_the_browser_to_sign_in_again() {
    let stack = spawn_oidc_stack_with(", ttl: 2s", "").await;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    assert_eq!(
        browser.get(&stack.app.url("/_cat/indices")).await.status(),
        200
    );
    // The session lives 2 s; wait (at most 15 s) until the proxy no longer accepts it.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let response = loop {
        let response = browser.get(&stack.app.url("/_cat/indices")).await;
        if response.status() != 200 || std::time::Instant::now() >= deadline {
            break response;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(response.status(), 302);
    assert!(
        response.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/auth/start?rd=")
    );
}

#[tokio::test]
async fn logout_ends_the_session_and_signs_out_at_the_provider() {
    let stack = spawn_oidc_stack("").await;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    let cookie = browser.cookie(COOKIE).unwrap();
    assert_eq!(
        browser.get(&stack.app.url("/_cat/indices")).await.status(),
        200
    );

    // A link on the proxy's own pages (same-origin).
    let response = browser
        .request(
            reqwest::Method::GET,
            &stack.app.url("/auth/logout"),
            &[("sec-fetch-site", "same-origin")],
        )
        .await;
    assert_eq!(response.status(), 302);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert!(browser.cookie(COOKIE).is_none(), "the cookie is cleared");
    let end_session = Url::parse(response.headers()["location"].to_str().unwrap()).unwrap();
    assert!(
        end_session.as_str().starts_with(&stack.provider.issuer),
        "{end_session}"
    );
    let param = |name: &str| {
        end_session
            .query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    assert!(param("id_token_hint").is_some_and(|hint| hint.split('.').count() == 3));
    assert_eq!(
        param("post_logout_redirect_uri").as_deref(),
        Some(stack.app.url("/").as_str())
    );
    // The provider accepts the request (it shows its logout confirmation).
    let at_provider = browser.get(end_session.as_str()).await;
    assert_eq!(at_provider.status(), 200);

    // The old cookie is worth nothing now, even sent again.
    let stale = Browser::new();
    stale.set_cookie(COOKIE, &cookie);
    let response = stale.get(&stack.app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 302);
}

#[tokio::test]
async fn forward_auth_signs_in_on_the_proxy_host_and_answers_with_the_session_identity() {
    let stack = spawn_oidc_stack_in("forward_auth", ", cookie_domain: example.com", "").await;
    let app = &stack.app;
    // Traefik asks about https://app.example.com/app/discover for a browser without a session.
    let traefik = [
        ("x-forwarded-method", "GET"),
        ("x-forwarded-proto", "https"),
        ("x-forwarded-host", "app.example.com"),
        ("x-forwarded-uri", "/app/discover?q=1"),
    ];
    let browser = Browser::new();
    let challenge = browser
        .request(reqwest::Method::GET, &app.url("/"), &traefik)
        .await;
    assert_eq!(challenge.status(), 302);
    let location = challenge.headers()["location"].to_str().unwrap().to_owned();
    let start = Url::parse(&location).expect("an absolute URL on the proxy's host");
    assert_eq!(
        start.origin(),
        Url::parse(&app.public_url("/")).unwrap().origin()
    );
    let rd = start
        .query_pairs()
        .find(|(name, _)| name == "rd")
        .unwrap()
        .1
        .into_owned();
    assert_eq!(rd, "https://app.example.com/app/discover?q=1");

    // After sign-in the browser goes back to the application.
    assert_eq!(stack.sign_in(&browser, &rd, &stack.alice).await, rd);

    // The next sub-request carries the session cookie: 200 with the identity and credential.
    let response = browser
        .request(reqwest::Method::GET, &app.url("/"), &traefik)
        .await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["x-auth-request-user"], stack.alice.as_str());
    assert_eq!(headers["x-auth-request-email"], "alice@example.com");
    assert_eq!(headers["x-auth-request-groups"], "admins,staff");
    assert_eq!(headers["cache-control"], "no-store");
    let (user, password) = crate::support::decode_basic(headers["authorization"].to_str().unwrap());
    assert_eq!(user, stack.alice);
    // The password is alice's at the cluster.
    let (status, info) = stack.node.who(&basic(&user, &password)).await;
    assert_eq!((status, &info["username"]), (200, &json!(user)), "{info}");
}

#[tokio::test]
async fn sessions_live_encrypted_in_redis_with_their_ttl_and_fail_closed_without_it() {
    use deadpool_redis::redis::AsyncCommands;

    let mut redis_server = test_support::RedisServer::start();
    let stack = spawn_oidc_stack_with(
        ", ttl: 1h",
        &format!(
            "cache: {{backend: redis, redis_url: \"{}\", encryption_key: 0123456789abcdef0123456789abcdef}}\n",
            redis_server.url()
        ),
    )
    .await;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    assert_eq!(
        browser.get(&stack.app.url("/_cat/indices")).await.status(),
        200
    );

    let mut redis = deadpool_redis::redis::Client::open(redis_server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = redis.keys("authproxy:session:*").await.unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let cookie = browser.cookie(COOKIE).unwrap();
    let session_id = &cookie[44 + COOKIE.len() + 1..];
    assert!(
        !keys[0].contains(session_id),
        "the store key is a hash of the id"
    );
    let stored: Vec<u8> = redis.get(&keys[0]).await.unwrap();
    assert!(
        !stored
            .windows(stack.alice.len())
            .any(|window| window == stack.alice.as_bytes()),
        "the session is stored encrypted"
    );
    let ttl: i64 = redis.pttl(&keys[0]).await.unwrap();
    assert!(
        ttl > 3_500_000 && ttl <= 3_600_000,
        "session.ttl per key, got {ttl}"
    );

    redis_server.stop();
    let response = browser.get(&stack.app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 503, "fail closed");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "session_store_unavailable");
}

#[tokio::test]
async fn keys_are_fetched_again_when_the_id_token_names_an_unknown_key() {
    let stack = spawn_oidc_stack("").await;
    let browser = Browser::new();
    // /auth/start discovers the provider and caches its keys...
    let callback = stack.until_callback(&browser, "/", &stack.alice).await;
    // ...which the provider then "rotates": the cached set no longer has the token's key id.
    stack
        .app
        .state
        .oidc
        .as_ref()
        .expect("OIDC is on")
        .sign_in
        .provider
        .forget_keys()
        .await;
    let response = browser.get(callback.as_str()).await;
    assert_eq!(response.status(), 302, "{:?}", response.text().await);
    assert!(browser.cookie(COOKIE).is_some());
    assert_eq!(
        browser.get(&stack.app.url("/_cat/indices")).await.status(),
        200
    );
}

/// What a logout request did: its status, its body, and whether the session still works.
async fn logout_attempt(
    stack: &OidcStack,
    browser: &Browser,
    method: reqwest::Method,
    headers: &[(&str, &str)],
) -> (u16, String, bool) {
    let response = browser
        .request(method, &stack.app.url("/auth/logout?rd=/after"), headers)
        .await;
    let status = response.status().as_u16();
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body = response.text().await.unwrap();
    let alive = browser.get(&stack.app.url("/_cat/indices")).await.status() == 200;
    (status, body, alive)
}

#[tokio::test]
async fn a_cross_site_logout_changes_nothing_and_asks_for_confirmation() {
    let stack = spawn_oidc_stack("").await;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    let origin = stack.app.url("");
    let cross_site: &[(&str, &[(&str, &str)])] = &[
        // An <img> or link on another site.
        ("GET cross-site", &[("sec-fetch-site", "cross-site")]),
        ("GET same-site", &[("sec-fetch-site", "same-site")]),
        // An older browser that sends neither Sec-Fetch-Site nor Origin on a navigation.
        ("GET without fetch metadata", &[]),
        (
            "GET with a foreign Origin",
            &[("origin", "https://evil.example")],
        ),
        // An auto-submitted form on another site.
        (
            "POST cross-site",
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "https://evil.example"),
            ],
        ),
        (
            "POST with a foreign Origin",
            &[("origin", "https://evil.example")],
        ),
    ];
    for (what, headers) in cross_site {
        let method = if what.starts_with("POST") {
            reqwest::Method::POST
        } else {
            reqwest::Method::GET
        };
        let (status, body, alive) = logout_attempt(&stack, &browser, method, headers).await;
        assert!(alive, "{what} ended the session");
        assert_eq!(status, 200, "{what}");
        assert!(
            body.contains("<form method=\"post\" action=\"/auth/logout?rd=%2Fafter\""),
            "{what}: {body}"
        );
    }
    assert!(browser.cookie(COOKIE).is_some());

    // The confirmation form posts from the proxy's own page: that logs out.
    let (status, _, alive) = logout_attempt(
        &stack,
        &browser,
        reqwest::Method::POST,
        &[("sec-fetch-site", "same-origin"), ("origin", &origin)],
    )
    .await;
    assert_eq!(status, 302);
    assert!(!alive, "a same-origin POST logs out");
    assert!(browser.cookie(COOKIE).is_none());

    // So does a same-origin GET (Origin only, as older browsers send on some navigations) and a
    // URL typed into the address bar (Sec-Fetch-Site: none).
    for headers in [
        &[("origin", origin.as_str())][..],
        &[("sec-fetch-site", "none")][..],
    ] {
        let browser = Browser::new();
        stack.sign_in(&browser, "/", &stack.alice).await;
        let (status, _, alive) =
            logout_attempt(&stack, &browser, reqwest::Method::GET, headers).await;
        assert_eq!(status, 302, "{headers:?}");
        assert!(!alive, "{headers:?}");
    }
}
