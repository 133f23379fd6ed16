//! Attacks from the outside review (holes 3, 5, 7 and 8), each against the real application
//! with real Redis, the real secured Elasticsearch 8 node (behind the recording proxy) and the
//! real OIDC provider.

use serde_json::json;

use crate::app::{
    ANN_PASSWORD, BOB_PASSWORD, Cluster, TestApp, Users, spawn_app, spawn_stack, unique,
};
use crate::oidc::{SESSION_SECRET, oidc_yaml, start_provider};
use crate::real_security::{Flavor, STACK_READER};
use crate::support::browser::Browser;
use crate::support::{basic, decode_basic};

const REDIS_KEY: &str = "0123456789abcdef0123456789abcdef";

/// Hole 3: behind a reverse proxy every attempt comes from the proxy's address (here
/// 127.0.0.1). Wrong passwords for made-up names, then for ann herself, must not lock out
/// ann's already verified credentials nor bob's correct ones.
#[tokio::test]
async fn failures_from_the_shared_proxy_address_do_not_lock_out_other_users() {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let (ann, bob) = (&users.ann, &users.bob);
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, mode: standalone}}\n{}",
        cluster.search_yaml(&users).replace(
            "max_failures_per_address: 1000",
            "max_failures_per_address: 20"
        )
    );
    let app = spawn_app(&yaml).await;
    let path = "/_cluster/health";
    assert_eq!(app.get_as(path, ann, ANN_PASSWORD).await.status(), 200);

    // 25 wrong passwords for made-up names: the address is limited for unknown names.
    let mut statuses = Vec::new();
    for attempt in 0..25 {
        let name = format!("made-up-{attempt}");
        statuses.push(app.get_as(path, &name, "guess").await.status().as_u16());
    }
    assert!(
        statuses.contains(&429),
        "made-up names were never limited: {statuses:?}"
    );
    assert_eq!(
        app.get_as(path, "someone-else", "guess").await.status(),
        429
    );

    // ann's verified credentials and bob's (never verified yet) still get in.
    assert_eq!(app.get_as(path, ann, ANN_PASSWORD).await.status(), 200);

    // Someone at the same address now guesses ann's password until it is limited...
    let mut guesses = Vec::new();
    for _ in 0..5 {
        guesses.push(app.get_as(path, ann, "wrong").await.status().as_u16());
    }
    assert_eq!(guesses.last(), Some(&429), "{guesses:?}");
    // ...and ann, already verified, is still not refused; neither is bob.
    assert_eq!(app.get_as(path, ann, ANN_PASSWORD).await.status(), 200);
    assert_eq!(app.get_as(path, bob, BOB_PASSWORD).await.status(), 200);
}

/// Hole 3: `--validate-config` warns (exit 0) about forward_auth without trusted proxies.
#[test]
fn validate_config_warns_about_forward_auth_without_trusted_proxies() {
    let binary = test_support::binary::ServiceBinary::new(
        env!("CARGO_BIN_EXE_authproxy"),
        "authproxy",
        "/healthz",
    );
    let path = binary.config_file(
        "no-trusted-proxies.yaml",
        "server: {mode: forward_auth, trusted_proxies: []}\n",
    );
    let output = binary.run(
        &["--config", path.to_str().unwrap(), "--validate-config"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: server.trusted_proxies:"),
        "no warning in:\n{stderr}"
    );
    let trusted = binary.config_file(
        "trusted-proxies.yaml",
        "server: {mode: forward_auth, trusted_proxies: [10.0.0.0/8], front_proxy: nginx}\n",
    );
    let output = binary.run(
        &["--config", trusted.to_str().unwrap(), "--validate-config"],
        &[],
    );
    assert!(output.status.success());
    assert!(!String::from_utf8_lossy(&output.stderr).contains("warning"));
}

/// Hole 7: the forward_auth check hands out the managed credential, so it answers only the
/// reverse proxies in `server.trusted_proxies` (here 10.0.0.0/8; this client is 127.0.0.1).
#[tokio::test]
async fn forward_auth_answers_only_trusted_proxies() {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let local = Users::new();
    let ann = &local.ann;
    let users = cluster.search_yaml(&local);
    let app = spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, mode: forward_auth, trusted_proxies: [10.0.0.0/8]}}\n{users}"
    ))
    .await;
    let response = app.get_as("/", ann, ANN_PASSWORD).await;
    assert_eq!(response.status(), 403);
    assert!(response.headers().get("authorization").is_none());
    assert!(response.headers().get("x-auth-request-user").is_none());
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "untrusted_caller");
    assert!(body["error"]["message"].is_string());
    assert!(
        cluster.cluster_user(ann).await.is_none(),
        "no cluster user was made for it"
    );

    // The operator's explicit opt-in (a listener only the reverse proxy reaches) answers all.
    let open = spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, mode: forward_auth, forward_auth_callers: any}}\n{users}"
    ))
    .await;
    let response = open.get_as("/", ann, ANN_PASSWORD).await;
    assert_eq!(response.status(), 200);
    let credential = response.headers()["authorization"].to_str().unwrap();
    assert_eq!(cluster.node.who(credential).await.0, 200);
}

/// Hole 8: standalone passes on only an allow-list of request headers; whatever would change
/// how the cluster authenticates or authorizes the request stays behind.
#[tokio::test]
async fn standalone_forwards_no_header_that_changes_how_the_cluster_authenticates() {
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let hostile = [
        ("es-security-runas-user", "elastic"),
        (
            "es-secondary-authorization",
            "Basic ZWxhc3RpYzpjaGFuZ2VtZQ==",
        ),
        ("x-proxy-user", "admin"),
        ("x-proxy-roles", "all_access"),
        ("forwarded", "for=10.0.0.1;by=10.0.0.2"),
        ("x-forwarded-user", "admin"),
        ("x-real-ip", "10.0.0.1"),
        ("x-some-future-auth-header", "admin"),
    ];
    let kept = [
        ("x-opaque-id", "req-1"),
        ("user-agent", "attack-test/1.0"),
        ("accept", "application/json"),
        ("if-none-match", "\"etag-1\""),
        (
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ),
    ];
    let mut request = app
        .client
        .get(app.url("/_cluster/health"))
        .header("authorization", basic(&stack.users.ann, ANN_PASSWORD));
    for (name, value) in hostile.iter().chain(kept.iter()) {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let seen = stack.forwarded().pop().unwrap();
    assert_eq!(seen.basic_user().as_ref(), Some(&stack.users.ann));
    for (name, _) in hostile {
        assert_eq!(seen.header(name), None, "{name} reached the cluster");
    }
    for (name, sent) in kept {
        assert_eq!(seen.header(name), Some(sent), "{name} was not passed on");
    }
    assert_eq!(seen.header("x-forwarded-for"), Some("127.0.0.1"));
}

/// Hole 8: a cluster that answers 401 to everything does not make every request upsert the
/// user again: one refresh per managed user per `user_management.min_refresh_interval`. No
/// real cluster refuses a user whose password was just set, so the recording proxy does (its
/// fault mode): every request as ann answers 401, the admin's upserts still pass.
#[tokio::test]
async fn a_cluster_that_rejects_everything_gets_one_refresh_per_interval() {
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let (app, ann) = (&stack.app, &stack.users.ann);
    let path = "/_cluster/health";
    assert_eq!(app.get_as(path, ann, ANN_PASSWORD).await.status(), 200);
    let upserts = stack.upserts(ann);
    stack.recorder.reject_user(ann);
    for _ in 0..5 {
        let response = app.get_as(path, ann, ANN_PASSWORD).await;
        assert_eq!(response.status(), 401, "the cluster's answer is relayed");
    }
    assert_eq!(
        stack.upserts(ann),
        upserts + 1,
        "one refresh, not one per request"
    );
}

/// The cluster, the real OIDC provider with `provider_users`, and the proxy (standalone) with
/// OIDC and the local `users`.
struct OidcApp {
    app: TestApp,
    cluster: Cluster,
    _provider: test_support::OidcProvider,
}

async fn oidc_app(users: &Users, provider_users: serde_json::Value) -> OidcApp {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let port = test_support::free_port();
    let provider = start_provider(port, provider_users);
    let app = spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: {port}, mode: standalone}}\n\
         {oidc}session: {{secret: {SESSION_SECRET}}}\n{users}",
        oidc = oidc_yaml(&provider, port),
        users = cluster.search_yaml(users),
    ))
    .await;
    OidcApp {
        app,
        cluster,
        _provider: provider,
    }
}

/// Signs the provider's `login` in with `browser`, through the real provider.
async fn sign_in(app: &TestApp, browser: &Browser, login: &str) {
    let mut start = reqwest::Url::parse(&app.url("/auth/start")).unwrap();
    start
        .query_pairs_mut()
        .append_pair("rd", "/")
        .append_pair("login_hint", login);
    let callback_prefix = app.url("/auth/callback");
    let landing = browser
        .follow(start.as_str(), |next| {
            next.as_str().starts_with(&callback_prefix)
        })
        .await;
    let callback = landing.visited.last().unwrap().clone();
    assert!(
        callback.as_str().starts_with(&callback_prefix),
        "{callback}"
    );
    assert_eq!(browser.get(callback.as_str()).await.status(), 302);
}

/// Hole 5: an identity-provider user named like a local Basic user must not receive the local
/// user's cached credential or cluster user (with its roles).
#[tokio::test]
async fn an_oidc_user_named_like_a_local_user_does_not_get_its_credential() {
    // Anyone who can register at the provider can pick the name ann.
    let users = Users::new();
    let ann = &users.ann;
    let OidcApp {
        app,
        cluster,
        _provider,
    } = oidc_app(
        &users,
        json!({
            ann.as_str(): {"email": "ann@evil.example", "name": "Not Ann", "groups": []},
        }),
    )
    .await;

    // The local ann works through the proxy: a superuser credential is cached.
    assert_eq!(
        app.get_as("/_cluster/health", ann, ANN_PASSWORD)
            .await
            .status(),
        200
    );
    let local = cluster.cluster_user(ann).await.unwrap();
    assert_eq!(local["roles"], json!(["superuser", "kibana_user"]));
    let forwarded_before = cluster.forwarded().len();

    // The provider's "ann" signs in and calls the cluster.
    let browser = Browser::new();
    sign_in(&app, &browser, ann).await;
    let response = browser.get(&app.url("/_cluster/health")).await;
    assert_eq!(
        response.status(),
        409,
        "refused, not served as the local ann"
    );
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "search_user_conflict");
    assert_eq!(
        cluster.forwarded().len(),
        forwarded_before,
        "nothing reached the cluster as ann"
    );
    assert_eq!(cluster.upserts(ann), 1, "the local ann's user is intact");
    let after = cluster.cluster_user(ann).await.unwrap();
    assert_eq!(after, local);
    // And the local ann keeps working.
    assert_eq!(
        app.get_as("/_cluster/health", ann, ANN_PASSWORD)
            .await
            .status(),
        200
    );
}

/// Hole 5: an address the provider has not verified satisfies no `email` rule (the test
/// configuration maps `*@example.com` to kibana_user; eve's unverified address matches it).
#[tokio::test]
async fn an_unverified_email_satisfies_no_email_rule() {
    let (eve, val) = (unique("eve"), unique("val"));
    let OidcApp {
        app,
        cluster,
        _provider,
    } = oidc_app(
        &Users::new(),
        json!({
            eve.as_str(): {"email": "eve@example.com", "email_verified": false, "groups": []},
            val.as_str(): {"email": "val@example.com", "groups": []},
        }),
    )
    .await;
    for (login, role) in [(&eve, STACK_READER), (&val, "kibana_user")] {
        let browser = Browser::new();
        sign_in(&app, &browser, login).await;
        // The cluster's own answer: who the session's requests are, with which roles.
        let response = browser.get(&app.url("/_security/_authenticate")).await;
        assert_eq!(response.status(), 200, "{login}");
        let info: serde_json::Value = response.json().await.unwrap();
        assert_eq!(info["username"], json!(login), "{info}");
        assert_eq!(info["roles"], json!([role]), "{login}: {info}");
        let user = cluster.cluster_user(login).await.unwrap();
        assert_eq!(user["roles"], json!([role]), "{login}: {user}");
    }
    let user = cluster.cluster_user(&eve).await.unwrap();
    assert!(
        user["email"].as_str().unwrap_or_default().is_empty(),
        "the unverified address is not passed on: {user}"
    );
}

/// Hole 5: the role set is part of what is cached. ann leaves `admins` (a new configuration
/// rolled out as a second replica sharing Redis): her next request must not reuse the
/// superuser credential cached for her old groups.
#[tokio::test]
async fn a_changed_group_membership_gives_new_roles_not_the_cached_ones() {
    let redis_server = test_support::RedisServer::start();
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let ann = &users.ann;
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, trusted_proxies: [127.0.0.1]}}\n\
         cache: {{backend: redis, redis_url: \"{}\", encryption_key: {REDIS_KEY}}}\n{}",
        redis_server.url(),
        cluster.search_yaml(&users)
    );
    let before = spawn_app(&yaml).await;
    let after = spawn_app(&yaml.replace("groups: [admins, staff]", "groups: [staff]")).await;

    let first = before.get_as("/", ann, ANN_PASSWORD).await;
    assert_eq!(first.status(), 200);
    let roles = async || cluster.cluster_user(ann).await.unwrap()["roles"].clone();
    assert_eq!(roles().await, json!(["superuser", "kibana_user"]));
    let second = after.get_as("/", ann, ANN_PASSWORD).await;
    assert_eq!(second.status(), 200);
    assert_eq!(
        roles().await,
        json!(["kibana_user"]),
        "the cluster user has the new roles"
    );
    let (_, old_password) = decode_basic(first.headers()["authorization"].to_str().unwrap());
    let (_, new_password) = decode_basic(second.headers()["authorization"].to_str().unwrap());
    assert_ne!(
        new_password, old_password,
        "a new credential, not the cached one"
    );
    // At the cluster the old password is gone, the new one has the new roles only.
    assert_eq!(cluster.node.who(&basic(ann, &old_password)).await.0, 401);
    let (status, info) = cluster.node.who(&basic(ann, &new_password)).await;
    assert_eq!(
        (status, &info["roles"]),
        (200, &json!(["kibana_user"])),
        "{info}"
    );
}
