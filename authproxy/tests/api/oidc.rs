//! OIDC sign-in against a real OpenID provider (panva's oidc-provider): the whole browser flow
//! with a cookie jar, sessions, logout, and every way a callback can be forged or replayed.

use std::time::Duration;

use reqwest::Url;
use serde_json::json;

use crate::app::{TestApp, spawn_app};
use crate::support::browser::Browser;
use crate::support::security_stub::{Flavor, SecurityStub, stub_users_yaml};

pub const CLIENT_ID: &str = "authproxy-tests";
pub const CLIENT_SECRET: &str = "client-secret-for-tests-only";
pub const SESSION_SECRET: &str = "session-secret-for-tests-at-least-32-bytes";
pub const COOKIE: &str = "_authproxy_session";

/// The provider, osmem behind the security stub, and the proxy (standalone) with OIDC on.
pub struct OidcStack {
    pub app: TestApp,
    pub stub: SecurityStub,
    pub provider: test_support::OidcProvider,
    _osmem: test_support::Osmem,
}

impl OidcStack {
    /// `/auth/start` for `user`, as a user's bookmark or a login link would carry it.
    pub fn start_url(&self, rd: &str, user: &str) -> String {
        let mut url = Url::parse(&self.app.url("/auth/start")).unwrap();
        url.query_pairs_mut()
            .append_pair("rd", rd)
            .append_pair("login_hint", user);
        url.to_string()
    }

    pub fn is_callback(&self, url: &Url) -> bool {
        url.as_str().starts_with(&self.app.url("/auth/callback"))
    }

    /// Runs sign-in up to the provider's redirect to the callback, which is returned unvisited.
    pub async fn until_callback(&self, browser: &Browser, rd: &str, user: &str) -> Url {
        let landing = browser
            .follow(&self.start_url(rd, user), |next| self.is_callback(next))
            .await;
        let last = landing.visited.last().unwrap().clone();
        assert!(
            self.is_callback(&last),
            "the provider did not send the browser back: {:?} {}",
            landing.visited,
            landing.response.status()
        );
        last
    }

    /// Signs `user` in and returns where the callback sent the browser.
    pub async fn sign_in(&self, browser: &Browser, rd: &str, user: &str) -> String {
        let callback = self.until_callback(browser, rd, user).await;
        let response = browser.get(callback.as_str()).await;
        assert_eq!(response.status(), 302, "{:?}", response.text().await);
        assert_eq!(response.headers()["cache-control"], "no-store");
        response.headers()["location"].to_str().unwrap().to_owned()
    }
}

pub async fn spawn_oidc_stack(extra_yaml: &str) -> OidcStack {
    spawn_oidc_stack_with("", extra_yaml).await
}

/// `session_extra` goes inside the `session:` flow mapping (e.g. `, ttl: 2s`).
pub async fn spawn_oidc_stack_with(session_extra: &str, extra_yaml: &str) -> OidcStack {
    spawn_oidc_stack_in("standalone", session_extra, extra_yaml).await
}

pub async fn spawn_oidc_stack_in(mode: &str, session_extra: &str, extra_yaml: &str) -> OidcStack {
    let osmem = test_support::Osmem::start();
    let stub = SecurityStub::start(Flavor::Elasticsearch, &osmem.url);
    let port = test_support::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let provider = test_support::OidcProvider::start(&json!({
        "clients": [{
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uris": [format!("{base}/auth/callback")],
            "post_logout_redirect_uris": [format!("{base}/")],
        }],
        "users": {
            "alice": {"email": "alice@example.com", "name": "Alice Example", "groups": ["admins", "staff"]},
            "bob": {"email": "bob@example.org", "name": "Bob", "groups": []},
        },
    }));
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: {port}, mode: {mode}, trusted_proxies: [127.0.0.1]}}\n\
         oidc:\n  enabled: true\n  issuer_url: {issuer}\n  client_id: {CLIENT_ID}\n  \
         client_secret: {CLIENT_SECRET}\n  redirect_url: {base}/auth/callback\n  \
         scopes: [openid, email, profile, groups]\n\
         session: {{secret: {SESSION_SECRET}{session_extra}}}\n{users}{extra_yaml}",
        issuer = provider.issuer,
        users = stub_users_yaml(&stub.url, Flavor::Elasticsearch),
    );
    let app = spawn_app(&yaml).await;
    OidcStack {
        app,
        stub,
        provider,
        _osmem: osmem,
    }
}

#[tokio::test]
async fn the_whole_browser_flow_reaches_the_cluster_as_the_managed_user() {
    let stack = spawn_oidc_stack("").await;
    let app = &stack.app;
    let browser = Browser::new();
    let sessions_before = app.counter("proxy_session_creates_total").await;

    // A protected request without a session is sent to sign-in, keeping where it was going.
    let first = browser.get(&app.url("/_cluster/health?pretty")).await;
    assert_eq!(first.status(), 302);
    let location = first.headers()["location"].to_str().unwrap().to_owned();
    let start = Url::parse(&app.url(&location)).unwrap();
    assert_eq!(start.path(), "/auth/start");
    let rd = start
        .query_pairs()
        .find(|(name, _)| name == "rd")
        .unwrap()
        .1
        .into_owned();
    assert_eq!(rd, "/_cluster/health?pretty");

    // /auth/start sends the browser to the provider with PKCE S256, state and nonce, and binds
    // the state to this browser with a short-lived cookie.
    let started = browser.get(&stack.start_url(&rd, "alice")).await;
    assert_eq!(started.status(), 302);
    assert_eq!(started.headers()["cache-control"], "no-store");
    let authorize = Url::parse(started.headers()["location"].to_str().unwrap()).unwrap();
    assert!(authorize.as_str().starts_with(&stack.provider.issuer));
    let param = |name: &str| {
        authorize
            .query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    assert_eq!(param("code_challenge_method").as_deref(), Some("S256"));
    assert_eq!(param("response_type").as_deref(), Some("code"));
    assert_eq!(param("login_hint").as_deref(), Some("alice"));
    assert!(param("state").is_some() && param("nonce").is_some());
    assert!(param("scope").unwrap().contains("openid"));
    let state_cookie = started
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|value| value.to_str().unwrap().to_owned())
        .find(|value| value.starts_with("_authproxy_session_csrf="))
        .expect("a state cookie");
    assert!(state_cookie.contains("HttpOnly") && state_cookie.contains("SameSite=Lax"));
    assert!(state_cookie.contains("Max-Age=600"));

    // Provider → callback → session cookie → back to rd.
    let landing = browser
        .follow(authorize.as_str(), |next| stack.is_callback(next))
        .await;
    let callback = landing.visited.last().unwrap().clone();
    let response = browser.get(callback.as_str()).await;
    assert_eq!(response.status(), 302);
    assert_eq!(response.headers()["location"], "/_cluster/health?pretty");
    let session_cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|value| value.to_str().unwrap().to_owned())
        .find(|value| value.starts_with(&format!("{COOKIE}=")))
        .expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=86400"] {
        assert!(session_cookie.contains(attribute), "{session_cookie}");
    }
    assert!(
        !session_cookie.contains("Secure"),
        "plain http on localhost: {session_cookie}"
    );
    assert!(
        browser.cookie("_authproxy_session_csrf").is_none(),
        "state cookie cleared"
    );
    assert!(app.counter("proxy_session_creates_total").await >= sessions_before + 1.0);

    // The session's requests reach the cluster as the managed user with the mapped roles.
    let through = browser.get(&app.url("/_cluster/health?pretty")).await;
    assert_eq!(through.status(), 200);
    let health: serde_json::Value = through.json().await.unwrap();
    assert!(health.get("status").is_some(), "{health}");
    let last = stack.stub.forwarded().last().unwrap().clone();
    assert_eq!(last.user, "alice");
    assert!(
        last.headers.iter().all(|(name, _)| name != "cookie"),
        "the session cookie never reaches the cluster"
    );
    let alice = stack.stub.user("alice").expect("alice was upserted");
    assert_eq!(
        alice.roles,
        ["superuser", "kibana_user"],
        "groups and email mapped"
    );
    assert_eq!(alice.email, "alice@example.com");
    assert_eq!(alice.full_name, "Alice Example");
    assert_eq!(alice.marks["managed_by"], "authproxy");
}

#[tokio::test]
async fn a_user_without_a_matching_claim_gets_the_default_roles() {
    let stack = spawn_oidc_stack("").await;
    let browser = Browser::new();
    let landed = stack.sign_in(&browser, "/", "bob").await;
    assert_eq!(landed, "/");
    let response = browser.get(&stack.app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(stack.stub.user("bob").unwrap().roles, ["reader"]);
}

#[tokio::test]
async fn wrong_replayed_and_foreign_state_are_refused() {
    let stack = spawn_oidc_stack("").await;
    let app = &stack.app;
    let failures = app.counter("proxy_auth_failures_total").await;

    // Wrong state: the callback's state is not the one bound to this browser.
    let browser = Browser::new();
    let callback = stack.until_callback(&browser, "/", "alice").await;
    let mut wrong = callback.clone();
    let pairs: Vec<(String, String)> = callback
        .query_pairs()
        .map(|(k, v)| {
            let v = if k == "state" {
                format!("{v}x")
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    wrong.query_pairs_mut().clear().extend_pairs(pairs);
    let response = browser
        .request(
            reqwest::Method::GET,
            wrong.as_str(),
            &[("accept", "application/json")],
        )
        .await;
    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "sign_in_failed");
    assert!(browser.cookie(COOKIE).is_none());

    // Replayed: the right callback works once; sent again with the same state cookie, it fails.
    let browser = Browser::new();
    let callback = stack.until_callback(&browser, "/", "alice").await;
    let state_cookie = browser.cookie("_authproxy_session_csrf").unwrap();
    assert_eq!(browser.get(callback.as_str()).await.status(), 302);
    let replay = Browser::new();
    replay.set_cookie("_authproxy_session_csrf", &state_cookie);
    let response = replay.get(callback.as_str()).await;
    assert_eq!(response.status(), 401, "a callback is used once");
    assert!(replay.cookie(COOKIE).is_none());

    // Foreign: a callback started in one browser, delivered to another (login CSRF).
    let victim = Browser::new();
    let attacker = Browser::new();
    let callback = stack.until_callback(&attacker, "/", "bob").await;
    let _ = victim.get(&stack.start_url("/", "alice")).await; // the victim has its own state
    let response = victim.get(callback.as_str()).await;
    assert_eq!(response.status(), 401);
    assert!(victim.cookie(COOKIE).is_none());
    let nobody = Browser::new();
    assert_eq!(
        nobody.get(callback.as_str()).await.status(),
        401,
        "no state cookie"
    );

    assert!(app.counter("proxy_auth_failures_total").await >= failures + 4.0);
}

#[tokio::test]
async fn an_id_token_with_another_nonce_is_refused() {
    let stack = spawn_oidc_stack("").await;
    let browser = Browser::new();
    let started = browser.get(&stack.start_url("/", "alice")).await;
    let mut authorize = Url::parse(started.headers()["location"].to_str().unwrap()).unwrap();
    // The provider puts whatever nonce it was asked for into the ID token.
    let pairs: Vec<(String, String)> = authorize
        .query_pairs()
        .map(|(k, v)| {
            let v = if k == "nonce" {
                "another-nonce".to_owned()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    authorize.query_pairs_mut().clear().extend_pairs(pairs);
    let landing = browser
        .follow(authorize.as_str(), |next| stack.is_callback(next))
        .await;
    let callback = landing.visited.last().unwrap().clone();
    assert!(stack.is_callback(&callback));
    let response = browser
        .request(
            reqwest::Method::GET,
            callback.as_str(),
            &[("accept", "application/json")],
        )
        .await;
    assert_eq!(response.status(), 401);
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"].as_str().unwrap().contains("nonce"),
        "{body}"
    );
    assert!(browser.cookie(COOKIE).is_none());
}

#[tokio::test]
async fn an_expired_session_sends_the_browser_to_sign_in_again() {
    let stack = spawn_oidc_stack_with(", ttl: 2s", "").await;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", "alice").await;
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
    stack.sign_in(&browser, "/", "alice").await;
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
    assert_eq!(stack.sign_in(&browser, &rd, "alice").await, rd);

    // The next sub-request carries the session cookie: 200 with the identity and credential.
    let response = browser
        .request(reqwest::Method::GET, &app.url("/"), &traefik)
        .await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["x-auth-request-user"], "alice");
    assert_eq!(headers["x-auth-request-email"], "alice@example.com");
    assert_eq!(headers["x-auth-request-groups"], "admins,staff");
    assert_eq!(headers["cache-control"], "no-store");
    let (user, password) = crate::support::decode_basic(headers["authorization"].to_str().unwrap());
    assert_eq!(user, "alice");
    assert_eq!(stack.stub.user("alice").unwrap().password, password);
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
    stack.sign_in(&browser, "/", "alice").await;
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
        !stored.windows(5).any(|window| window == b"alice"),
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
    let callback = stack.until_callback(&browser, "/", "alice").await;
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
    stack.sign_in(&browser, "/", "alice").await;
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
        stack.sign_in(&browser, "/", "alice").await;
        let (status, _, alive) =
            logout_attempt(&stack, &browser, reqwest::Method::GET, headers).await;
        assert_eq!(status, 302, "{headers:?}");
        assert!(!alive, "{headers:?}");
    }
}
