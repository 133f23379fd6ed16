//! The provider's keys are fetched again when an ID token does not verify under a cached key id
//! (a provider restarted with a new key under the same id), at most once per interval, so
//! forged tokens cannot make the proxy hammer the provider.

use crate::oidc::{COOKIE, OidcStack, spawn_oidc_stack};
use crate::support::browser::Browser;

fn key_fetches(stack: &OidcStack) -> u64 {
    let oidc = stack.app.state.oidc.as_ref().expect("OIDC is on");
    oidc.sign_in.provider.key_fetches()
}

#[tokio::test]
async fn a_provider_restarted_with_a_new_key_under_the_same_key_id_is_trusted_again() {
    let mut stack = spawn_oidc_stack("").await;
    let alice = Browser::new();
    stack.sign_in(&alice, "/", &stack.alice).await;
    assert_eq!(key_fetches(&stack), 1);

    // A new RSA key under the same kid `test-rsa`, on the same port and issuer.
    stack.provider.restart();
    let bob = Browser::new();
    stack.sign_in(&bob, "/", &stack.bob).await;
    assert!(bob.cookie(COOKIE).is_some());
    assert_eq!(key_fetches(&stack), 2, "the keys were fetched again once");
    assert_eq!(bob.get(&stack.app.url("/_cat/indices")).await.status(), 200);
    // The existing session was never the provider's business.
    assert_eq!(
        alice.get(&stack.app.url("/_cat/indices")).await.status(),
        200
    );
}

#[tokio::test]
async fn forged_tokens_under_a_known_key_id_fetch_the_keys_at_most_once_per_interval() {
    let stack = spawn_oidc_stack("").await;
    stack.sign_in(&Browser::new(), "/", &stack.alice).await;
    assert_eq!(key_fetches(&stack), 1);

    for _ in 0..5 {
        let browser = Browser::new();
        let callback = stack.until_callback(&browser, "/", &stack.alice).await;
        // RS256 by a key the provider never published, under its kid.
        stack.provider.forge_next_id_token("foreign_key").await;
        let response = browser.get(callback.as_str()).await;
        assert_eq!(response.status(), 401);
        assert!(browser.cookie(COOKIE).is_none());
    }
    assert_eq!(
        key_fetches(&stack),
        2,
        "five forged tokens within the interval fetched the keys once"
    );
    // Genuine sign-ins are unaffected.
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.bob).await;
    assert!(browser.cookie(COOKIE).is_some());
    assert_eq!(key_fetches(&stack), 2);
}
