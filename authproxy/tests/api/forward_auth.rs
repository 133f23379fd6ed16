//! forward_auth mode: the reverse proxy's sub-request, answered from Basic credentials with the
//! managed search-cluster user.

use crate::app::{ANN_PASSWORD, BOB_PASSWORD, spawn_stack};
use crate::support::decode_basic;
use crate::support::security_stub::Flavor;

#[tokio::test]
async fn basic_credentials_get_the_managed_user_and_identity_headers() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let upserts_before = app.counter("proxy_user_upserts_total").await;
    let response = app.get_as("/logs/_search", "ann", ANN_PASSWORD).await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["x-auth-request-user"], "ann");
    assert_eq!(headers["x-auth-request-email"], "ann@example.com");
    assert_eq!(headers["x-auth-request-groups"], "admins,staff");
    let authorization = headers["authorization"].to_str().unwrap().to_owned();
    let (user, password) = decode_basic(&authorization);
    assert_eq!(user, "ann");
    assert_eq!(password.len(), 32, "user_management.password_length");
    assert!(password.chars().all(|c| c.is_ascii_alphanumeric()));

    // The cluster user exists with that password, the mapped roles and the proxy's mark.
    let created = stack.stub.user("ann").expect("ann was upserted");
    assert_eq!(created.password, password);
    assert_eq!(created.roles, ["superuser", "kibana_user"]);
    assert_eq!(created.marks["managed_by"], "authproxy");
    assert_eq!(created.email, "ann@example.com");
    assert_eq!(created.full_name, "Ann Example");
    assert!(app.counter("proxy_user_upserts_total").await >= upserts_before + 1.0);

    // The credential works against the (secured) cluster: the request reaches osmem.
    let through = app
        .client
        .get(format!("{}/_cluster/health", stack.stub.url))
        .header("authorization", &authorization)
        .send()
        .await
        .unwrap();
    assert_eq!(through.status(), 200);
    let health: serde_json::Value = through.json().await.unwrap();
    assert!(health.get("status").is_some(), "{health}");

    // The next request is a cache hit: same credential, no new upsert.
    let puts = stack.stub.puts();
    let again = app.get_as("/logs/_search", "ann", ANN_PASSWORD).await;
    assert_eq!(
        again.headers()["authorization"].to_str().unwrap(),
        authorization
    );
    assert_eq!(stack.stub.puts(), puts);
}

#[tokio::test]
async fn default_roles_apply_when_no_rule_matches_and_opensearch_is_supported() {
    let stack = spawn_stack("forward_auth", Flavor::Opensearch, "").await;
    let response = stack.app.get_as("/", "bob", BOB_PASSWORD).await;
    assert_eq!(response.status(), 200);
    let (_, password) = decode_basic(response.headers()["authorization"].to_str().unwrap());
    let bob = stack.stub.user("bob").unwrap();
    assert_eq!(bob.roles, ["reader"]);
    assert_eq!(bob.password, password);
    assert_eq!(bob.marks["managed_by"], "authproxy");
}

#[tokio::test]
async fn wrong_or_unknown_credentials_get_401_with_a_basic_challenge() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let failures_before = app.counter("proxy_auth_failures_total").await;
    let attempts_before = app.counter("proxy_auth_attempts_total").await;
    for (user, password) in [("ann", "wrong"), ("mallory", "whatever")] {
        let response = app.get_as("/logs/_search", user, password).await;
        assert_eq!(response.status(), 401, "{user}");
        assert!(
            response.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .starts_with("Basic realm=")
        );
        assert_eq!(response.headers()["cache-control"], "no-store");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "unauthenticated");
    }
    let malformed = app
        .client
        .get(app.url("/x"))
        .header("authorization", "Basic !!!not-base64")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), 401);
    assert!(app.counter("proxy_auth_failures_total").await >= failures_before + 3.0);
    assert!(app.counter("proxy_auth_attempts_total").await >= attempts_before + 3.0);
    assert!(stack.stub.user("mallory").is_none());
}

#[tokio::test]
async fn repeated_failures_for_a_user_are_limited_with_retry_after() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    // max_failures_per_user is 3 in the test configuration.
    for _ in 0..3 {
        assert_eq!(app.get_as("/x", "bob", "wrong").await.status(), 401);
    }
    let limited = app.get_as("/x", "bob", "wrong").await;
    assert_eq!(limited.status(), 429);
    let retry_after: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry_after >= 1);
    let body: serde_json::Value = limited.json().await.unwrap();
    assert_eq!(body["error"]["code"], "too_many_failures");
    // Even the right password waits now; another user is not affected.
    assert_eq!(app.get_as("/x", "bob", BOB_PASSWORD).await.status(), 429);
    assert_eq!(app.get_as("/x", "ann", ANN_PASSWORD).await.status(), 200);
}

#[tokio::test]
async fn requests_without_credentials_are_redirected_or_challenged() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    // The root: a redirect toward sign-in, whatever the client.
    let root = app.client.get(app.url("/")).send().await.unwrap();
    assert_eq!(root.status(), 302);
    assert_eq!(root.headers()["location"], "/auth/start?rd=%2F");
    // A browser on another path: a redirect that returns there.
    let browser = app
        .client
        .get(app.url("/app/discover?x=1"))
        .header("accept", "text/html,application/xhtml+xml")
        .send()
        .await
        .unwrap();
    assert_eq!(browser.status(), 302);
    assert_eq!(
        browser.headers()["location"],
        "/auth/start?rd=%2Fapp%2Fdiscover%3Fx%3D1"
    );
    // An API client: 401 with a Basic challenge.
    let api = app
        .client
        .get(app.url("/logs/_search"))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 401);
    assert!(api.headers().contains_key("www-authenticate"));
}

#[tokio::test]
async fn the_original_request_comes_from_trusted_proxies_only() {
    // 127.0.0.1 is trusted in this stack: the forwarded URI decides.
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let traefik = app
        .client
        .get(app.url("/auth-check"))
        .header("x-forwarded-method", "GET")
        .header("x-forwarded-proto", "https")
        .header("x-forwarded-host", "search.example.com")
        .header("x-forwarded-uri", "/")
        .send()
        .await
        .unwrap();
    assert_eq!(traefik.status(), 302);
    assert_eq!(traefik.headers()["location"], "/auth/start?rd=%2F");
    let behind_nginx = crate::app::spawn_stack_with(
        "forward_auth",
        Flavor::Elasticsearch,
        "  front_proxy: nginx\n",
        "",
    )
    .await;
    let nginx_app = &behind_nginx.app;
    let nginx = nginx_app
        .client
        .get(nginx_app.url("/auth-check"))
        .header("x-original-method", "GET")
        .header(
            "x-original-url",
            "https://search.example.com/kibana/app?y=2",
        )
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    // nginx's auth_request accepts no 302: a 401 its error_page turns into the sign-in redirect.
    assert_eq!(nginx.status(), 401);
    assert!(!nginx.headers().contains_key("www-authenticate"));

    // Without trusted proxies (answering any caller) the same headers are ignored: the
    // sub-request's own path decides.
    let untrusted = crate::app::spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, forward_auth_callers: any}}\n{}",
        crate::app::users_yaml(&stack.stub.url, Flavor::Elasticsearch)
    ))
    .await;
    let ignored = untrusted
        .client
        .get(untrusted.url("/auth-check"))
        .header("x-forwarded-uri", "/")
        .send()
        .await
        .unwrap();
    assert_eq!(ignored.status(), 401);
}

#[tokio::test]
async fn a_foreign_cluster_user_is_never_overwritten() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    stack
        .stub
        .seed_foreign_user("ann", "operators-own-password");
    let response = stack.app.get_as("/x", "ann", ANN_PASSWORD).await;
    assert_eq!(response.status(), 409);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "search_user_conflict");
    let ann = stack.stub.user("ann").unwrap();
    assert_eq!(ann.password, "operators-own-password");
    assert_eq!(ann.roles, ["superuser"]);
    assert_eq!(stack.stub.puts(), 0);
}

#[tokio::test]
async fn concurrent_first_requests_make_one_upsert() {
    let stack = spawn_stack("forward_auth", Flavor::Opensearch, "").await;
    let requests = (0..16).map(|_| stack.app.get_as("/x", "ann", ANN_PASSWORD));
    let responses = futures_util::future::join_all(requests).await;
    let credentials: Vec<_> = responses
        .iter()
        .map(|r| {
            assert_eq!(r.status(), 200);
            r.headers()["authorization"].to_str().unwrap().to_owned()
        })
        .collect();
    assert!(credentials.iter().all(|c| c == &credentials[0]));
    assert_eq!(stack.stub.puts(), 1);
}
