//! Personal access tokens (`personal_tokens`) against the real provider and the real secured
//! Elasticsearch 8: a user signed in through OIDC creates a token on `/auth/tokens`, a CLI uses
//! it as the Basic password and reaches the cluster as the same managed user; tokens are listed
//! without their secret, revoked, and expire; only the owner's session from this service's own
//! pages may create or revoke them.

use std::time::Duration;

use serde_json::Value;

use crate::oidc::{COOKIE, OidcStack, spawn_oidc_stack};
use crate::support::basic;
use crate::support::browser::Browser;

/// alice signed in: her browser.
async fn signed_in(stack: &OidcStack) -> Browser {
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    browser
}

/// A request to `path` carrying the browser's session cookie.
fn with_session(
    stack: &OidcStack,
    browser: &Browser,
    method: reqwest::Method,
    path: &str,
) -> reqwest::RequestBuilder {
    let cookie = format!("{COOKIE}={}", browser.cookie(COOKIE).unwrap());
    stack
        .app
        .client
        .request(method, stack.app.url(path))
        .header("cookie", cookie)
}

/// A POST of `form` to `path` with the browser's session, as a script (no `Origin`) asking
/// for JSON, plus `headers`.
async fn post(
    stack: &OidcStack,
    browser: &Browser,
    path: &str,
    form: &str,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = with_session(stack, browser, reqwest::Method::POST, path)
        .header("accept", "application/json")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

/// Creates a token named `name` for the signed-in browser: `(id, token)`.
async fn create(stack: &OidcStack, browser: &Browser, form: &str) -> (String, String) {
    let response = post(stack, browser, "/auth/tokens", form, &[]).await;
    assert_eq!(response.status(), 201, "{:?}", response.text().await);
    let body: Value = response.json().await.unwrap();
    (
        body["id"].as_str().unwrap().to_owned(),
        body["token"].as_str().unwrap().to_owned(),
    )
}

async fn as_basic(stack: &OidcStack, user: &str, token: &str) -> reqwest::Response {
    stack
        .app
        .client
        .get(stack.app.url("/_security/_authenticate"))
        .header("authorization", basic(user, token))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_cli_with_a_token_reaches_the_cluster_as_the_same_managed_user_until_revoked() {
    let stack = spawn_oidc_stack("personal_tokens: {enabled: true}\n").await;
    let browser = signed_in(&stack).await;
    let session = browser
        .get(&stack.app.url("/_security/_authenticate"))
        .await;
    assert_eq!(session.status(), 200);
    let upserts = stack.upserts(&stack.alice);

    let (id, token) = create(&stack, &browser, "name=laptop+cli&ttl=1d").await;
    assert!(token.starts_with("apt_"), "{token}");
    let cli = as_basic(&stack, &stack.alice, &token).await;
    assert_eq!(cli.status(), 200);
    let who: Value = cli.json().await.unwrap();
    assert_eq!(who["username"], stack.alice.as_str(), "{who}");
    assert_eq!(
        stack.upserts(&stack.alice),
        upserts,
        "the session's managed user and credential, not a new one"
    );
    // Another user's name with alice's token, or a changed token: refused.
    assert_eq!(as_basic(&stack, &stack.bob, &token).await.status(), 401);
    let changed = format!("{}x", &token[..token.len() - 1]);
    assert_eq!(as_basic(&stack, &stack.alice, &changed).await.status(), 401);

    // Listed by name and dates, never with the secret.
    let listed = with_session(&stack, &browser, reqwest::Method::GET, "/auth/tokens")
        .header("accept", "application/json")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // `apt_<id>_<secret>`: the secret is base64url, so it may hold '_' itself.
    let secret = token.splitn(3, '_').nth(2).unwrap();
    assert_eq!(secret.len(), 43, "{token}");
    assert!(!listed.contains(secret), "{listed}");
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed["tokens"][0]["id"], id.as_str());
    assert_eq!(listed["tokens"][0]["name"], "laptop cli");

    // Revoked: refused at once.
    let revoked = post(
        &stack,
        &browser,
        &format!("/auth/tokens/{id}/revoke"),
        "",
        &[],
    )
    .await;
    assert_eq!(revoked.status(), 204);
    assert_eq!(as_basic(&stack, &stack.alice, &token).await.status(), 401);
    let again = post(
        &stack,
        &browser,
        &format!("/auth/tokens/{id}/revoke"),
        "",
        &[],
    )
    .await;
    assert_eq!(again.status(), 404);
}

#[tokio::test]
async fn a_token_expires_and_only_the_owners_own_pages_manage_tokens() {
    let stack = spawn_oidc_stack("personal_tokens: {enabled: true, max_ttl: 10d}\n").await;
    let browser = signed_in(&stack).await;

    let (_, short) = create(&stack, &browser, "name=short&ttl=2s").await;
    assert_eq!(as_basic(&stack, &stack.alice, &short).await.status(), 200);
    test_support::eventually("the token expires", Duration::from_secs(10), async || {
        as_basic(&stack, &stack.alice, &short).await.status() == 401
    })
    .await;

    // Longer than max_ttl, or no name: 400.
    for form in ["name=x&ttl=11d", "name=&ttl=1d"] {
        let response = post(&stack, &browser, "/auth/tokens", form, &[]).await;
        assert_eq!(response.status(), 400, "{form}");
    }
    // A form posted from another site: 403, nothing created.
    let cross = post(
        &stack,
        &browser,
        "/auth/tokens",
        "name=evil",
        &[
            ("origin", "http://evil.example"),
            ("sec-fetch-site", "cross-site"),
        ],
    )
    .await;
    assert_eq!(cross.status(), 403);
    // A token (or Basic credentials) cannot make tokens: only a session can.
    let (_, token) = create(&stack, &browser, "name=cli").await;
    let by_token = stack
        .app
        .client
        .post(stack.app.url("/auth/tokens"))
        .header("authorization", basic(&stack.alice, &token))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=more")
        .send()
        .await
        .unwrap();
    assert_eq!(by_token.status(), 401);

    // The page: the list, a create form, the new token shown once.
    let page = browser.get(&stack.app.url("/auth/tokens")).await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["cache-control"], "no-store");
    let html = page.text().await.unwrap();
    assert!(
        html.contains("<form method=\"post\" action=\"/auth/tokens\">"),
        "{html}"
    );
    assert!(html.contains(">cli<") && !html.contains(&token), "{html}");
    let origin = stack.app.url("");
    let created = with_session(&stack, &browser, reqwest::Method::POST, "/auth/tokens")
        .header("accept", "text/html")
        .header("origin", origin.trim_end_matches('/'))
        .header("sec-fetch-site", "same-origin")
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=%3Cb%3Ephone%3C%2Fb%3E")
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let html = created.text().await.unwrap();
    assert!(html.contains("id=\"new-token\">apt_"), "{html}");
    assert!(
        html.contains("&lt;b&gt;phone") && !html.contains("<b>phone"),
        "{html}"
    );
}
