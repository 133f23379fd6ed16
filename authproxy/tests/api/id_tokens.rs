//! Forged ID tokens against the real provider's keys: the provider (test-support/oidc) replaces
//! the genuine ID token of its next token response by a forgery built from it, nonce included,
//! so each forgery differs from a good sign-in in exactly one way. Every one must be refused by
//! the callback, with the reason that names its defect, and start no session.

use crate::oidc::{COOKIE, OidcStack, spawn_oidc_stack};
use crate::support::browser::Browser;

/// Signs alice in up to the callback, makes the provider forge the ID token `kind`, and delivers
/// the callback: the status, the error message (if any) and whether a session cookie was set.
async fn callback_with_forged_token(stack: &OidcStack, kind: &str) -> (u16, String, bool) {
    let browser = Browser::new();
    let callback = stack.until_callback(&browser, "/", &stack.alice).await;
    stack.provider.forge_next_id_token(kind).await;
    // As an API client, for the common error body (a browser gets a page).
    let response = browser
        .request(
            reqwest::Method::GET,
            callback.as_str(),
            &[("accept", "application/json")],
        )
        .await;
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    let message = body["error"]["message"].as_str().unwrap_or("").to_owned();
    if status == 401 {
        assert_eq!(body["error"]["code"], "sign_in_failed", "{kind}: {body}");
    }
    (status, message, browser.cookie(COOKIE).is_some())
}

#[tokio::test]
async fn forged_id_tokens_are_refused_by_the_callback() {
    let stack = spawn_oidc_stack("").await;
    // The control: the genuine claims signed again with the provider's key are accepted, so each
    // refusal below is about its forgery, not about the hook.
    let (status, message, session) = callback_with_forged_token(&stack, "resign").await;
    assert_eq!((status, session), (302, true), "control refused: {message}");

    let failures = stack.app.counter("proxy_auth_failures_total").await;
    let forgeries = [
        ("wrong_aud", "another client"),
        ("other_client", "another client"),
        ("other_azp", "another client"),
        ("extra_audience", "another client"),
        ("wrong_iss", "another issuer"),
        ("expired", "expired"),
        ("alg_none", "algorithm"),
        ("hs256_public_key", "algorithm"),
        ("hs256_client_secret", "algorithm"),
        ("foreign_key", "signature"),
    ];
    let mut accepted = Vec::new();
    for (kind, reason) in forgeries {
        let (status, message, session) = callback_with_forged_token(&stack, kind).await;
        if status != 401 || session || !message.contains(reason) {
            accepted.push(format!(
                "{kind}: {status}, session {session}, message {message:?} (expected {reason:?})"
            ));
        }
    }
    assert!(
        accepted.is_empty(),
        "not refused as expected:\n{}",
        accepted.join("\n")
    );
    assert!(
        stack.app.counter("proxy_auth_failures_total").await >= failures + forgeries.len() as f64,
        "each forgery counts as a failed authentication"
    );
}
