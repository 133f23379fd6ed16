//! OIDC sign-in against a real OpenID provider (panva's oidc-provider): the whole browser flow
//! with a cookie jar and every way a callback can be forged or replayed; sessions and logout in
//! [`sessions`]. The cluster is the real secured Elasticsearch 8 node behind the recording proxy
//! ([`crate::app::Cluster`]); the provider's users have names of their own per stack.

mod refresh;
mod sessions;

use reqwest::Url;
use serde_json::json;

use crate::app::{Cluster, TestApp, Users, spawn_app, unique};
use crate::real_security::{Flavor, STACK_READER};
use crate::support::browser::Browser;

pub const CLIENT_ID: &str = "authproxy-tests";
pub const CLIENT_SECRET: &str = "client-secret-for-tests-only";
pub const SESSION_SECRET: &str = "session-secret-for-tests-at-least-32-bytes";
pub const COOKIE: &str = "_authproxy_session";

/// The provider, the cluster, and the proxy (standalone) with OIDC on.
pub struct OidcStack {
    pub app: TestApp,
    pub provider: test_support::OidcProvider,
    /// The provider's users' logins (and `preferred_username`): alice (groups `admins` and
    /// `staff`, an `example.com` address) and bob (no group, another domain), who is also the
    /// local user `users.bob`.
    pub alice: String,
    pub bob: String,
    /// The proxy's local users.
    pub users: Users,
    pub cluster: Cluster,
    /// The proxy's configuration (for a second replica, [`OidcStack::replica`]).
    pub yaml: String,
    pub port: u16,
}

impl std::ops::Deref for OidcStack {
    type Target = Cluster;

    fn deref(&self) -> &Cluster {
        &self.cluster
    }
}

impl OidcStack {
    /// Another proxy with this one's configuration (its store, provider client and cluster) on
    /// a port of its own: a second replica.
    pub async fn replica(&self) -> TestApp {
        let port = self.port;
        spawn_app(&self.yaml.replacen(&format!("port: {port},"), "port: 0,", 1)).await
    }

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

/// The real provider with this suite's client, for a proxy on `port`, and `users` (login →
/// `email`, `name`, `groups`, `email_verified`).
pub fn start_provider(port: u16, users: serde_json::Value) -> test_support::OidcProvider {
    start_provider_with(port, users, 3600)
}

/// [`start_provider`] whose access tokens live `access_token_ttl` seconds.
pub fn start_provider_with(
    port: u16,
    users: serde_json::Value,
    access_token_ttl: u64,
) -> test_support::OidcProvider {
    let base = format!("http://127.0.0.1:{port}");
    test_support::OidcProvider::start(&json!({
        "access_token_ttl": access_token_ttl,
        "clients": [{
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uris": [format!("{base}/auth/callback")],
            "post_logout_redirect_uris": [format!("{base}/")],
        }],
        "users": users,
    }))
}

/// The `oidc:` section of a proxy on `port` signing in at `provider`.
pub fn oidc_yaml(provider: &test_support::OidcProvider, port: u16) -> String {
    format!(
        "oidc:\n  enabled: true\n  issuer_url: {issuer}\n  client_id: {CLIENT_ID}\n  \
         client_secret: {CLIENT_SECRET}\n  redirect_url: http://127.0.0.1:{port}/auth/callback\n  \
         scopes: [openid, email, profile, groups]\n",
        issuer = provider.issuer
    )
}

pub async fn spawn_oidc_stack(extra_yaml: &str) -> OidcStack {
    spawn_oidc_stack_with("", extra_yaml).await
}

/// `session_extra` goes inside the `session:` flow mapping (e.g. `, ttl: 2s`). `extra_yaml`
/// names the stack's users as `{alice}`, `{bob}` (the provider's, bob also a local user) and
/// `{ann}` (local).
pub async fn spawn_oidc_stack_with(session_extra: &str, extra_yaml: &str) -> OidcStack {
    spawn_oidc_stack_in("standalone", session_extra, extra_yaml).await
}

pub async fn spawn_oidc_stack_in(mode: &str, session_extra: &str, extra_yaml: &str) -> OidcStack {
    spawn_oidc_stack_ttl(mode, session_extra, extra_yaml, ("", 3600)).await
}

/// [`spawn_oidc_stack_in`] with `oidc_extra` lines inside the `oidc:` section (indented by two
/// spaces) and the provider's access tokens living `access_token_ttl` seconds.
pub async fn spawn_oidc_stack_ttl(
    mode: &str,
    session_extra: &str,
    extra_yaml: &str,
    (oidc_extra, access_token_ttl): (&str, u64),
) -> OidcStack {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let (alice, bob) = (unique("alice"), unique("bob"));
    // The local bob is the provider's bob: the same name from two sources.
    let users = Users {
        ann: unique("ann"),
        bob: bob.clone(),
    };
    let extra_yaml = extra_yaml
        .replace("{alice}", &alice)
        .replace("{bob}", &bob)
        .replace("{ann}", &users.ann);
    let port = test_support::free_port();
    let provider = start_provider_with(
        port,
        json!({
            alice.as_str(): {"email": "alice@example.com", "name": "Alice Example", "groups": ["admins", "staff"]},
            bob.as_str(): {"email": "bob@example.org", "name": "Bob", "groups": []},
        }),
        access_token_ttl,
    );
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: {port}, mode: {mode}, trusted_proxies: [127.0.0.1]}}\n\
         {oidc}{oidc_extra}session: {{secret: {SESSION_SECRET}{session_extra}}}\n{users}{extra_yaml}",
        oidc = oidc_yaml(&provider, port),
        users = cluster.search_yaml(&users),
    );
    let app = spawn_app(&yaml).await;
    OidcStack {
        app,
        provider,
        alice,
        bob,
        users,
        cluster,
        yaml,
        port,
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
    let started = browser.get(&stack.start_url(&rd, &stack.alice)).await;
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
    assert_eq!(param("login_hint").as_deref(), Some(stack.alice.as_str()));
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
    let last = stack.forwarded().pop().unwrap();
    assert_eq!(last.basic_user().as_ref(), Some(&stack.alice));
    assert_eq!(last.path, "/_cluster/health");
    assert_eq!(
        last.header("cookie"),
        None,
        "the session cookie never reaches the cluster"
    );
    let alice = stack
        .cluster_user(&stack.alice)
        .await
        .expect("alice was upserted");
    assert_eq!(
        alice["roles"],
        json!(["superuser", "kibana_user"]),
        "groups and email mapped"
    );
    assert_eq!(alice["email"], "alice@example.com");
    assert_eq!(alice["full_name"], "Alice Example");
    assert_eq!(
        alice["metadata"],
        json!({"managed_by": "authproxy", "managed_source": "oidc"}),
        "{alice}"
    );
}

#[tokio::test]
async fn a_user_without_a_matching_claim_gets_the_default_roles() {
    let stack = spawn_oidc_stack("").await;
    let browser = Browser::new();
    let landed = stack.sign_in(&browser, "/", &stack.bob).await;
    assert_eq!(landed, "/");
    let response = browser.get(&stack.app.url("/_cat/indices")).await;
    assert_eq!(response.status(), 200);
    let bob = stack.cluster_user(&stack.bob).await.unwrap();
    assert_eq!(bob["roles"], json!([STACK_READER]), "{bob}");
    // The cluster's own answer: the session's requests are bob's, with that role only.
    let (status, info) = stack
        .node
        .who(stack.forwarded()[0].header("authorization").unwrap())
        .await;
    assert_eq!(
        (status, &info["username"]),
        (200, &json!(stack.bob)),
        "{info}"
    );
}

#[tokio::test]
async fn wrong_replayed_and_foreign_state_are_refused() {
    let stack = spawn_oidc_stack("").await;
    let app = &stack.app;
    let failures = app.counter("proxy_auth_failures_total").await;

    // Wrong state: the callback's state is not the one bound to this browser.
    let browser = Browser::new();
    let callback = stack.until_callback(&browser, "/", &stack.alice).await;
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
    let callback = stack.until_callback(&browser, "/", &stack.alice).await;
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
    let callback = stack.until_callback(&attacker, "/", &stack.bob).await;
    let _ = victim.get(&stack.start_url("/", &stack.alice)).await; // the victim has its own state
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
    let started = browser.get(&stack.start_url("/", &stack.alice)).await;
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
