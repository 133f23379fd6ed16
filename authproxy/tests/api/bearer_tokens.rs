//! API clients with `Authorization: Bearer <JWT access token>` (`oidc.bearer`), against the real
//! provider (client-credentials tokens for a resource server, test-support/oidc) and the real
//! secured Elasticsearch 8 node: a genuine token reaches the cluster as the client's managed
//! user; forged, expired, foreign and malformed tokens are refused with the JSON 401 and an
//! RFC 6750 challenge; API clients never get a redirect to sign-in.

use reqwest::Method;
use serde_json::Value;

use crate::app::{Cluster, TestApp, Users, spawn_app};
use crate::oidc::{CLIENT_ID, CLIENT_SECRET, SESSION_SECRET, oidc_yaml};
use crate::real_security::{Flavor, STACK_READER};

const SERVICE_SECRET: &str = "service-secret-for-tests-only";
/// The audiences the provider issues access tokens for: the proxy's, and another API's.
const AUDIENCE: &str = "urn:authproxy:search";
const OTHER_AUDIENCE: &str = "urn:another:api";

/// The real provider (with the proxy's sign-in client and an API client that has only client
/// credentials, named [`BearerStack::service`]), the real secured Elasticsearch, and the proxy
/// with `oidc.bearer` accepting [`AUDIENCE`].
struct BearerStack {
    app: TestApp,
    provider: test_support::OidcProvider,
    /// The API client's id: the `sub` of its tokens, so its managed user's name. Unique per
    /// stack, as the tests share the node.
    service: String,
    cluster: Cluster,
}

impl std::ops::Deref for BearerStack {
    type Target = Cluster;

    fn deref(&self) -> &Cluster {
        &self.cluster
    }
}

async fn spawn_bearer_stack(mode: &str) -> BearerStack {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let service = crate::app::unique("service");
    let port = test_support::free_port();
    let provider = test_support::OidcProvider::start(&serde_json::json!({
        "clients": [{
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uris": [format!("http://127.0.0.1:{port}/auth/callback")],
        }, {
            "client_id": service,
            "client_secret": SERVICE_SECRET,
            "grant_types": ["client_credentials"],
            "response_types": [],
            "redirect_uris": [],
        }],
        "resource_servers": [AUDIENCE, OTHER_AUDIENCE],
    }));
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: {port}, mode: {mode}, trusted_proxies: [127.0.0.1]}}\n\
         {oidc}  bearer: {{enabled: true, audiences: [\"{AUDIENCE}\"]}}\n\
         session: {{secret: {SESSION_SECRET}}}\n{users}",
        oidc = oidc_yaml(&provider, port),
        users = cluster.search_yaml(&users),
    );
    let app = spawn_app(&yaml).await;
    BearerStack {
        app,
        provider,
        service,
        cluster,
    }
}

/// A genuine token of the service client for the proxy's audience.
async fn token(stack: &BearerStack) -> String {
    stack
        .provider
        .client_credentials_token(&stack.service, SERVICE_SECRET, Some(AUDIENCE))
        .await
}

/// The service client's next token, forged by the provider as `kind`.
async fn forged(stack: &BearerStack, kind: &str) -> String {
    stack.provider.forge_next_id_token(kind).await;
    token(stack).await
}

/// `GET path` with `Authorization: Bearer <token>` and `headers`.
async fn get_with_bearer(
    stack: &BearerStack,
    path: &str,
    token: &str,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = stack
        .app
        .client
        .request(Method::GET, stack.app.url(path))
        .bearer_auth(token);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

/// Asserts the refusal of a bad token: 401, the JSON body with `invalid_token`, the RFC 6750
/// challenge, never a redirect; returns the message.
async fn refused(response: reqwest::Response, what: &str) -> String {
    assert_eq!(response.status(), 401, "{what}");
    assert!(response.headers().get("location").is_none(), "{what}");
    let challenge = response.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.starts_with("Bearer ") && challenge.contains("error=\"invalid_token\""),
        "{what}: {challenge}"
    );
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json"),
        "{what}"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_token", "{what}: {body}");
    body["error"]["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_client_credentials_token_reaches_the_real_cluster_as_its_managed_user() {
    let stack = spawn_bearer_stack("standalone").await;
    let token = token(&stack).await;
    let response = get_with_bearer(&stack, "/_security/_authenticate", &token, &[]).await;
    assert_eq!(response.status(), 200);
    let who: Value = response.json().await.unwrap();
    // The cluster itself authenticated the managed user named by the token's `sub`.
    assert_eq!(who["username"], stack.service, "{who}");
    assert_eq!(who["roles"], serde_json::json!([STACK_READER]), "{who}");
    let last = stack.forwarded().pop().unwrap();
    assert_eq!(last.basic_user().as_deref(), Some(stack.service.as_str()));
    assert!(
        !last
            .header("authorization")
            .unwrap_or_default()
            .contains(&token),
        "the token never reaches the cluster"
    );
    let user = stack.cluster_user(&stack.service).await.expect("upserted");
    assert_eq!(user["metadata"]["managed_source"], "bearer", "{user}");

    // The same token again: remembered, the same managed user, no second upsert.
    let upserts = stack.upserts(&stack.service);
    let again = get_with_bearer(&stack, "/_cluster/health", &token, &[]).await;
    assert_eq!(again.status(), 200);
    assert_eq!(stack.upserts(&stack.service), upserts);

    // /auth/explain names the method and the roles' origin.
    let explained: Value = get_with_bearer(&stack, "/auth/explain", &token, &[])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(explained["username"], stack.service);
    assert_eq!(explained["method"], "bearer");
    assert_eq!(
        explained["searchRoles"]["roles"][0]["from"][0], "default_search_roles",
        "{explained}"
    );
}

#[tokio::test]
async fn the_forward_auth_check_answers_a_bearer_client_with_its_managed_credential() {
    let stack = spawn_bearer_stack("forward_auth").await;
    let token = token(&stack).await;
    let traefik = [
        ("x-forwarded-method", "GET"),
        ("x-forwarded-proto", "https"),
        ("x-forwarded-host", "search.example.com"),
        ("x-forwarded-uri", "/_cluster/health"),
    ];
    let response = get_with_bearer(&stack, "/", &token, &traefik).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["x-auth-request-user"],
        stack.service.as_str()
    );
    let managed = response.headers()["authorization"].to_str().unwrap();
    assert!(
        managed.starts_with("Basic "),
        "the managed credential, not the token"
    );

    let bad = get_with_bearer(&stack, "/", "not-a-jwt", &traefik).await;
    let message = refused(bad, "forward_auth").await;
    assert!(message.contains("not a JWT"), "{message}");
}

#[tokio::test]
async fn behind_nginx_a_bearer_client_gets_through_and_a_bad_token_is_never_redirected() {
    let stack = spawn_bearer_stack("forward_auth, front_proxy: nginx").await;
    let app = &stack.app;
    let front = test_support::AuthFront::start(&app.url("/auth/check"), &app.address);
    let page = format!("{}/logs/_search", front.url);
    let token = token(&stack).await;
    let through = app
        .client
        .get(&page)
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        through.status(),
        200,
        "nginx error log:\n{}",
        front.error_log()
    );
    let body = through.text().await.unwrap();
    assert!(
        body.contains(&format!("user={}\n", stack.service)),
        "{body}"
    );
    assert!(
        body.contains("authorization=Basic "),
        "the managed credential: {body}"
    );

    // A bad token, even from a client that takes HTML: nginx keeps the 401 and the Bearer
    // challenge it copied from the check, and sends nobody to sign-in.
    let refused = app
        .client
        .get(&page)
        .bearer_auth("x.y.z")
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert!(refused.headers().get("location").is_none());
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
}

#[tokio::test]
async fn forged_expired_and_foreign_tokens_are_refused_with_json_401() {
    let stack = spawn_bearer_stack("standalone").await;
    // The control: the genuine claims signed again with the provider's key pass, so each refusal
    // below is about its defect, not the hook.
    let control = forged(&stack, "resign").await;
    let response = get_with_bearer(&stack, "/_cluster/health", &control, &[]).await;
    assert_eq!(response.status(), 200, "{:?}", response.text().await);

    let failures = stack.app.counter("proxy_auth_failures_total").await;
    let forgeries = [
        ("expired", "expired"),
        ("not_yet_valid", "not valid yet"),
        ("wrong_aud", "another audience"),
        ("wrong_iss", "another issuer"),
        ("unknown_kid", "a key the provider does not publish"),
        ("foreign_key", "signature does not verify"),
        ("tampered", "signature does not verify"),
        ("alg_none", "accepted algorithm"),
        ("hs256_public_key", "accepted algorithm"),
    ];
    let mut tokens: Vec<(String, String, &str)> = Vec::new();
    for (kind, reason) in forgeries {
        tokens.push((kind.to_owned(), forged(&stack, kind).await, reason));
    }
    // A real token of the provider for another API.
    let other = stack
        .provider
        .client_credentials_token(&stack.service, SERVICE_SECRET, Some(OTHER_AUDIENCE))
        .await;
    tokens.push(("other API".to_owned(), other, "another audience"));
    tokens.push((
        "never a JWT".to_owned(),
        "opaque-token".to_owned(),
        "not a JWT",
    ));
    tokens.push((
        "three garbage parts".to_owned(),
        "a.b.c".to_owned(),
        "not a JWT",
    ));
    tokens.push(("empty".to_owned(), String::new(), "not a JWT"));
    let huge = format!("{}.{}.sig", "e".repeat(10_000), "e".repeat(10_000));
    tokens.push(("huge".to_owned(), huge, "larger than 8192 bytes"));

    let mut wrong = Vec::new();
    for (what, token, reason) in &tokens {
        let response = get_with_bearer(&stack, "/_cluster/health", token, &[]).await;
        let message = refused(response, what).await;
        if !message.contains(reason) {
            wrong.push(format!("{what}: {message:?} (expected {reason:?})"));
        }
    }
    assert!(
        wrong.is_empty(),
        "refused for the wrong reason:\n{}",
        wrong.join("\n")
    );
    assert!(
        stack.app.counter("proxy_auth_failures_total").await >= failures + tokens.len() as f64,
        "each refusal counts as a failed authentication"
    );
    assert!(
        stack.forwarded().len() == 1,
        "only the control reached the cluster"
    );
}

#[tokio::test]
async fn a_provider_restarted_with_a_new_key_is_followed_by_fetching_its_keys_again() {
    let mut stack = spawn_bearer_stack("standalone").await;
    let before = token(&stack).await;
    let response = get_with_bearer(&stack, "/_cluster/health", &before, &[]).await;
    assert_eq!(response.status(), 200);
    let fetches = stack
        .app
        .state
        .oidc
        .as_ref()
        .unwrap()
        .sign_in
        .provider
        .key_fetches();
    // A new signing key under the same key id, as a provider without persistent keys.
    stack.provider.restart();
    let after = token(&stack).await;
    let response = get_with_bearer(&stack, "/_cluster/health", &after, &[]).await;
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
    let provider = &stack.app.state.oidc.as_ref().unwrap().sign_in.provider;
    assert_eq!(
        provider.key_fetches(),
        fetches + 1,
        "the keys were fetched once more"
    );
}

#[tokio::test]
async fn api_clients_get_json_never_a_redirect_to_sign_in() {
    let stack = spawn_bearer_stack("standalone").await;
    let app = &stack.app;
    let ask = |path: &'static str, accept: &'static str| async move {
        app.client
            .get(app.url(path))
            .header("accept", accept)
            .send()
            .await
            .unwrap()
    };
    // A browser is sent to sign-in (the control)...
    assert_eq!(ask("/_cluster/health", "text/html").await.status(), 302);
    // ...a client asking for JSON gets the 401 body, also at the root and when it takes HTML too.
    for (path, accept) in [
        ("/_cluster/health", "application/json"),
        ("/", "application/json"),
        ("/", "text/html, application/json;q=0.9"),
    ] {
        let response = ask(path, accept).await;
        assert_eq!(response.status(), 401, "{path} {accept}");
        assert!(response.headers().get("location").is_none());
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "unauthenticated", "{path} {accept}");
    }
    // A bad Bearer token from a client that also takes HTML: JSON, not a page or a redirect.
    let response = get_with_bearer(&stack, "/", "x.y.z", &[("accept", "text/html")]).await;
    refused(response, "bearer with text/html").await;
}

#[tokio::test]
async fn the_binary_logs_the_method_and_the_reason_and_never_the_token() {
    use std::time::Duration;

    use test_support::binary::ServiceBinary;

    let service = crate::app::unique("service");
    let port = test_support::free_port();
    let provider = test_support::OidcProvider::start(&serde_json::json!({
        "clients": [{
            "client_id": service,
            "client_secret": SERVICE_SECRET,
            "grant_types": ["client_credentials"],
            "response_types": [],
            "redirect_uris": [],
        }],
        "resource_servers": [AUDIENCE],
    }));
    let binary = ServiceBinary::new(env!("CARGO_BIN_EXE_authproxy"), "authproxy", "/healthz");
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: {port}, shutdown_timeout: 5s, trusted_proxies: [127.0.0.1]}}\n\
         observability: {{log_level: info, log_format: json}}\n\
         user_management: {{enabled: false}}\n\
         {oidc}  bearer: {{enabled: true, audiences: [\"{AUDIENCE}\"]}}\n\
         session: {{secret: {SESSION_SECRET}}}\n",
        oidc = oidc_yaml(&provider, port),
    );
    let path = binary.config_file("bearer.yaml", &yaml);
    let mut running = binary.start(&path);
    let good = provider
        .client_credentials_token(&service, SERVICE_SECRET, Some(AUDIENCE))
        .await;
    provider.forge_next_id_token("expired").await;
    let expired = provider
        .client_credentials_token(&service, SERVICE_SECRET, Some(AUDIENCE))
        .await;
    let check = format!("http://{}/app", running.internal_host_port);
    let client = crate::app::no_redirects();
    for (token, status) in [(&good, 200), (&expired, 401)] {
        let response = client.get(&check).bearer_auth(token).send().await.unwrap();
        assert_eq!(response.status(), status);
    }
    running
        .terminate(Duration::from_secs(15))
        .expect("stops on SIGTERM");
    let lines = running.stdout_lines();
    let signature = |token: &str| token.rsplit('.').next().unwrap_or_default().to_owned();
    for line in &lines {
        for token in [&good, &expired] {
            assert!(
                !line.contains(&signature(token)),
                "a token was logged: {line}"
            );
        }
    }
    let records: Vec<Value> = lines
        .iter()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let find = |message: &str| {
        records
            .iter()
            .find(|record| record["message"] == message)
            .unwrap_or_else(|| panic!("no {message:?} record in {lines:#?}"))
    };
    let success = find("authentication succeeded");
    assert_eq!(success["username"], service.as_str());
    assert_eq!(success["method"], "bearer");
    let failure = find("authentication failed");
    assert_eq!(failure["method"], "bearer");
    assert_eq!(failure["reason"], "the token has expired");
}
