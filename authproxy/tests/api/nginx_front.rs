//! A real nginx in front of an application, asking authproxy's forward_auth check through
//! `auth_request` (the configuration docs/access-control.md gives), driven like a browser
//! through sign-in with the real OpenID provider.

use reqwest::Url;

use crate::oidc::spawn_oidc_stack_in;
use crate::support::browser::Browser;

/// The `rd` parameter of a sign-in URL.
fn rd_of(location: &str) -> String {
    Url::parse(location)
        .unwrap()
        .query_pairs()
        .find(|(name, _)| name == "rd")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| panic!("no rd in {location}"))
}

#[tokio::test]
async fn nginx_auth_request_sends_to_sign_in_passes_the_identity_and_refuses_with_403() {
    let stack = spawn_oidc_stack_in(
        "forward_auth, front_proxy: nginx",
        "",
        "authorization:\n  allowed_groups: [admins]\n",
    )
    .await;
    let app = &stack.app;
    let front = test_support::AuthFront::start(&app.url("/auth/check"), &app.address);

    // No session: nginx answers 302 to authproxy's sign-in, returning to the page asked for
    // (before the fix: 500, "auth request unexpected status: 302").
    let page = format!("{}/app/discover?q=1", front.url);
    let browser = Browser::new();
    let first = browser.get(&page).await;
    assert_eq!(
        first.status(),
        302,
        "nginx error log:\n{}",
        front.error_log()
    );
    let location = first.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&app.url("/auth/start?")), "{location}");
    let rd = rd_of(&location);
    assert_eq!(rd, page);

    // An API client without credentials keeps the 401 and the Basic challenge.
    let api = app
        .client
        .get(format!("{}/logs/_search", front.url))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 401);
    assert_eq!(
        api.headers().get_all("www-authenticate").iter().count(),
        1,
        "{:?}",
        api.headers()
    );
    assert!(
        api.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic ")
    );

    // Sign-in at the provider sends the browser back to the application, where nginx now
    // passes the identity the check answered with.
    assert_eq!(stack.sign_in(&browser, &rd, &stack.alice).await, page);
    let signed_in = browser.get(&page).await;
    assert_eq!(signed_in.status(), 200);
    let body = signed_in.text().await.unwrap();
    assert!(body.contains(&format!("user={}\n", stack.alice)), "{body}");
    assert!(body.contains("email=alice@example.com\n"), "{body}");
    assert!(body.contains("groups=admins,staff\n"), "{body}");
    assert!(body.contains("authorization=Basic "), "{body}");
    assert!(body.contains("uri=/app/discover?q=1\n"), "{body}");
    // The credential nginx passed on is alice's at the cluster.
    let credential = body
        .lines()
        .find_map(|line| line.strip_prefix("authorization="))
        .unwrap();
    let (status, info) = stack.node.who(credential).await;
    assert_eq!(
        (status, &info["username"]),
        (200, &serde_json::json!(stack.alice)),
        "{info}"
    );

    // Signed in but not allowed (bob has no group admins): 403 from nginx, not a redirect to
    // sign-in again.
    let bob = Browser::new();
    let first = bob.get(&page).await;
    assert_eq!(first.status(), 302);
    let rd = rd_of(first.headers()["location"].to_str().unwrap());
    assert_eq!(stack.sign_in(&bob, &rd, &stack.bob).await, page);
    let refused = bob.get(&page).await;
    assert_eq!(refused.status(), 403);
    assert!(!refused.headers().contains_key("location"));
    let body = refused.text().await.unwrap();
    assert!(!body.contains(&format!("user={}", stack.bob)), "{body}");
    assert!(
        !front.error_log().contains("auth request unexpected status"),
        "{}",
        front.error_log()
    );
}
