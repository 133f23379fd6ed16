//! forward_auth mode: the reverse proxy's sub-request, answered from Basic credentials with the
//! managed search-cluster user, made on the real secured node (Elasticsearch 8; OpenSearch 2
//! where a test is about that flavour) and read back from its security API.

use reqwest::Method;
use serde_json::json;

use crate::app::{ANN_PASSWORD, BOB_PASSWORD, spawn_stack, unique};
use crate::real_security::{Flavor, STACK_READER};
use crate::support::{basic, decode_basic};

#[tokio::test]
async fn basic_credentials_get_the_managed_user_and_identity_headers() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let (app, ann) = (&stack.app, &stack.users.ann);
    let upserts_before = app.counter("proxy_user_upserts_total").await;
    let response = app.get_as("/logs/_search", ann, ANN_PASSWORD).await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["x-auth-request-user"], ann.as_str());
    assert_eq!(headers["x-auth-request-email"], "ann@example.com");
    assert_eq!(headers["x-auth-request-groups"], "admins,staff");
    let authorization = headers["authorization"].to_str().unwrap().to_owned();
    let (user, password) = decode_basic(&authorization);
    assert_eq!(&user, ann);
    assert_eq!(password.len(), 32, "user_management.password_length");
    assert!(password.chars().all(|c| c.is_ascii_alphanumeric()));

    // The cluster user exists with the mapped roles and the proxy's mark.
    let created = stack.cluster_user(ann).await.expect("ann was upserted");
    assert_eq!(
        created["roles"],
        json!(["superuser", "kibana_user"]),
        "{created}"
    );
    assert_eq!(created["metadata"]["managed_by"], "authproxy", "{created}");
    let flavor = stack.node.flavor;
    assert_eq!(flavor.user_email(&created), "ann@example.com");
    assert_eq!(flavor.user_full_name(&created), "Ann Example");
    assert!(app.counter("proxy_user_upserts_total").await >= upserts_before + 1.0);

    // The credential works against the cluster: it authenticates ann with those roles.
    let (status, info) = stack.node.who(&authorization).await;
    assert_eq!((status, &info["username"]), (200, &json!(ann)), "{info}");
    assert_eq!(info["roles"], json!(["superuser", "kibana_user"]), "{info}");

    // The next request is a cache hit: same credential, no new upsert.
    let upserts = stack.upserts(ann);
    assert_eq!(upserts, 1);
    let again = app.get_as("/logs/_search", ann, ANN_PASSWORD).await;
    assert_eq!(
        again.headers()["authorization"].to_str().unwrap(),
        authorization
    );
    assert_eq!(stack.upserts(ann), upserts);
}

#[tokio::test]
async fn default_roles_apply_when_no_rule_matches_and_opensearch_is_supported() {
    let stack = spawn_stack("forward_auth", Flavor::OpenSearch, "").await;
    let bob = &stack.users.bob;
    let response = stack.app.get_as("/", bob, BOB_PASSWORD).await;
    assert_eq!(response.status(), 200);
    let authorization = response.headers()["authorization"].to_str().unwrap();
    let user = stack.cluster_user(bob).await.expect("bob was upserted");
    assert_eq!(
        user["opendistro_security_roles"],
        json!([STACK_READER]),
        "{user}"
    );
    assert_eq!(user["attributes"]["managed_by"], "authproxy", "{user}");
    // The generated password is bob's at the cluster.
    let (status, info) = stack.node.who(authorization).await;
    assert_eq!((status, &info["user_name"]), (200, &json!(bob)), "{info}");
}

#[tokio::test]
async fn wrong_or_unknown_credentials_get_401_with_a_basic_challenge() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let failures_before = app.counter("proxy_auth_failures_total").await;
    let attempts_before = app.counter("proxy_auth_attempts_total").await;
    let mallory = unique("mallory");
    for (user, password) in [(stack.users.ann.as_str(), "wrong"), (&mallory, "whatever")] {
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
    assert!(stack.cluster_user(&mallory).await.is_none());
    assert!(
        stack.recorder.requests().is_empty(),
        "nothing reached the cluster"
    );
}

#[tokio::test]
async fn repeated_failures_for_a_user_are_limited_with_retry_after() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let (app, ann, bob) = (&stack.app, &stack.users.ann, &stack.users.bob);
    // max_failures_per_user is 3 in the test configuration.
    for _ in 0..3 {
        assert_eq!(app.get_as("/x", bob, "wrong").await.status(), 401);
    }
    let limited = app.get_as("/x", bob, "wrong").await;
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
    assert_eq!(app.get_as("/x", bob, BOB_PASSWORD).await.status(), 429);
    assert_eq!(app.get_as("/x", ann, ANN_PASSWORD).await.status(), 200);
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
        stack.search_yaml()
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
    let (node, ann) = (&stack.node, &stack.users.ann);
    // An operator made ann on the cluster, without the proxy's mark.
    let own_password = "Operators-Own-Lamp-4417";
    let (status, body) = node
        .admin(
            Method::PUT,
            &node.flavor.user_path(ann),
            Some(node.flavor.user_body(
                own_password,
                json!([STACK_READER]),
                json!({"team": "ops"}),
            )),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let response = stack.app.get_as("/x", ann, ANN_PASSWORD).await;
    assert_eq!(response.status(), 409);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "search_user_conflict");
    let user = stack.cluster_user(ann).await.unwrap();
    assert_eq!(user["roles"], json!([STACK_READER]), "{user}");
    assert_eq!(user["metadata"], json!({"team": "ops"}), "{user}");
    assert_eq!(
        node.who(&basic(ann, own_password)).await.0,
        200,
        "the operator's password"
    );
    assert_eq!(stack.upserts(ann), 0);
}

#[tokio::test]
async fn concurrent_first_requests_make_one_upsert() {
    // Elasticsearch: OpenSearch refuses concurrent changes of its users (any test's) with 409,
    // which the proxy tries again; that would be counted here too.
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let ann = &stack.users.ann;
    let requests = (0..16).map(|_| stack.app.get_as("/x", ann, ANN_PASSWORD));
    let responses = futures_util::future::join_all(requests).await;
    let credentials: Vec<_> = responses
        .iter()
        .map(|r| {
            assert_eq!(r.status(), 200);
            r.headers()["authorization"].to_str().unwrap().to_owned()
        })
        .collect();
    assert!(credentials.iter().all(|c| c == &credentials[0]));
    assert_eq!(stack.upserts(ann), 1);
    assert_eq!(stack.node.who(&credentials[0]).await.0, 200);
}
