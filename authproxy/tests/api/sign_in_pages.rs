//! A browser whose OIDC sign-in fails gets a plain page (same status, escaped text, the headers
//! of every page, a link that starts the sign-in again toward the same target); an API client
//! gets the common error body.

use crate::app::no_redirects;
use crate::oidc::{COOKIE, spawn_oidc_stack};
use crate::support::browser::Browser;

/// The page a browser is shown: `text` in it, a link to `retry`, nothing leaked, and the
/// headers every page carries.
pub async fn assert_error_page(response: reqwest::Response, text: &str, retry: &str) {
    let headers = response.headers().clone();
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"),
        "{headers:?}"
    );
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    let body = response.text().await.unwrap();
    assert!(body.starts_with("<!doctype html>"), "{body}");
    assert!(body.contains(text), "{text:?} not in {body}");
    assert!(
        body.contains(&format!("href=\"{retry}\"")),
        "no link to {retry} in {body}"
    );
    for leak in [
        "panicked",
        "backtrace",
        "src/",
        "reqwest",
        "Error {",
        "<script",
        "\"error\"",
        "127.0.0.1",
    ] {
        assert!(!body.contains(leak), "{leak} in {body}");
    }
}

/// The same request as an API client: the common error body with `code`.
async fn assert_json_error(url: &str, cookie: Option<String>, status: u16, code: &str) {
    let mut request = no_redirects().get(url).header("accept", "application/json");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status().as_u16(), status);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], code, "{body}");
}

#[tokio::test]
async fn a_sign_in_started_while_the_provider_is_down_is_a_503_page_for_a_browser() {
    let stack = spawn_oidc_stack("").await;
    // Down before anyone signed in: nothing is cached, `/auth/start` cannot reach it.
    drop(stack.provider);
    let start = stack.app.url("/auth/start?rd=/app%3Fq%3D%3Cb%3E%22");

    let response = Browser::new().get(&start).await;
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "5");
    assert_error_page(
        response,
        "The identity provider cannot be reached",
        // The same target as the redirect policy keeps it (`/app?q=%3Cb%3E%22`), encoded.
        "/auth/start?rd=%2Fapp%3Fq%3D%253Cb%253E%2522",
    )
    .await;
    // Without a target the link goes to the root.
    let response = Browser::new().get(&stack.app.url("/auth/start")).await;
    assert_eq!(response.status(), 503);
    assert_error_page(response, "identity provider", "/").await;

    assert_json_error(&start, None, 503, "oidc_provider_unavailable").await;
}

#[tokio::test]
async fn a_callback_this_browser_did_not_start_is_a_401_page_for_a_browser() {
    let stack = spawn_oidc_stack("").await;
    let victim = Browser::new();
    let callback = stack.until_callback(&victim, "/app", &stack.alice).await;

    // Another browser (no sign-in cookie) following the victim's callback.
    let response = Browser::new().get(callback.as_str()).await;
    assert_eq!(response.status(), 401);
    assert_error_page(response, "did not start this sign-in", "/").await;
    assert!(Browser::new().cookie(COOKIE).is_none());
    assert_json_error(callback.as_str(), None, 401, "sign_in_failed").await;

    // The provider refusing the sign-in (`error=`), after the sign-in cookie opened or not.
    let refused = stack.app.url("/auth/callback?error=access_denied&state=x");
    let response = victim.get(&refused).await;
    assert_eq!(response.status(), 401);
    assert_error_page(response, "refused the sign-in", "/").await;
    assert_json_error(&refused, None, 401, "sign_in_failed").await;

    // The victim's own callback still completes: nothing above consumed it.
    let response = victim.get(callback.as_str()).await;
    assert_eq!(response.status(), 302);
    assert!(victim.cookie(COOKIE).is_some());
}

#[tokio::test]
async fn a_refused_id_token_is_a_401_page_that_starts_again_toward_the_same_target() {
    let stack = spawn_oidc_stack("").await;
    let browser = Browser::new();
    let callback = stack
        .until_callback(&browser, "/app?x=1", &stack.alice)
        .await;
    stack.provider.forge_next_id_token("expired").await;
    let response = browser.get(callback.as_str()).await;
    assert_eq!(response.status(), 401);
    assert_error_page(response, "expired", "/auth/start?rd=%2Fapp%3Fx%3D1").await;
    assert!(browser.cookie(COOKIE).is_none());
}
