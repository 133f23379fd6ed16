//! The identity headers of a forward_auth answer with hostile identity values: newlines, commas
//! inside group names, control characters and ten thousand groups.

use crate::app::spawn_app;
use crate::support::{basic, bcrypt_hash};

const PASSWORD: &str = "eve-password-1";

#[tokio::test]
async fn hostile_identity_values_never_reach_the_application_as_headers() {
    let mut groups: Vec<String> = vec![
        "\"ops,admins\"".to_owned(),
        "\"staff\\r\\nX-Injected: 1\"".to_owned(),
        "\"nul\\0\"".to_owned(),
        "\" padded\"".to_owned(),
        "readers".to_owned(),
    ];
    groups.extend((0..10_000).map(|i| format!("g{i:05}")));
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, mode: forward_auth, trusted_proxies: [127.0.0.1]}}\n\
         user_management: {{enabled: false}}\n\
         basic_auth:\n  users:\n    - username: eve\n      password_hash: \"{hash}\"\n      \
         email: \"eve@example.com\\r\\nX-Injected: 1\"\n      groups: [{groups}]\n",
        hash = bcrypt_hash(PASSWORD),
        groups = groups.join(", "),
    );
    let app = spawn_app(&yaml).await;
    let response = app
        .client
        .get(app.url("/auth-check"))
        .header("authorization", basic("eve", PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert!(!headers.contains_key("x-injected"));
    assert_eq!(headers["x-auth-request-user"], "eve");
    // An address with a line break is left out, not cut or rewritten.
    assert!(!headers.contains_key("x-auth-request-email"));
    let joined = headers["x-auth-request-groups"].to_str().unwrap();
    assert!(joined.len() <= 2048, "{} bytes", joined.len());
    let kept: Vec<&str> = joined.split(',').collect();
    // Only whole, real groups: the comma, control-character and padded ones are dropped,
    // the rest kept in order until the bound.
    assert_eq!(kept[0], "readers");
    assert_eq!(kept[1], "g00000");
    assert!(kept.len() > 100);
    for (index, group) in kept[1..].iter().enumerate() {
        assert_eq!(*group, format!("g{index:05}"));
    }
}

#[tokio::test]
async fn hostile_claims_from_the_identity_provider_are_sanitised_the_same_way() {
    use crate::oidc::{CLIENT_ID, CLIENT_SECRET, SESSION_SECRET};
    use crate::support::browser::Browser;

    let port = test_support::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut groups = vec![
        serde_json::json!("ops,admins"),
        serde_json::json!("staff\r\nX-Injected: 1"),
        serde_json::json!("readers"),
    ];
    groups.extend((0..3_000).map(|i| serde_json::json!(format!("g{i:05}"))));
    let provider = test_support::OidcProvider::start(&serde_json::json!({
        "clients": [{
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uris": [format!("{base}/auth/callback")],
        }],
        "users": {
            "mallory": {"email": "mallory@example.com\nX-Injected: 1", "name": "M", "groups": groups},
        },
    }));
    let app = spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: {port}, mode: forward_auth, trusted_proxies: [127.0.0.1]}}\n\
         oidc: {{enabled: true, issuer_url: \"{issuer}\", client_id: {CLIENT_ID}, \
         client_secret: {CLIENT_SECRET}, redirect_url: \"{base}/auth/callback\", \
         scopes: [openid, email, profile, groups]}}\n\
         session: {{secret: {SESSION_SECRET}}}\n\
         user_management: {{enabled: false}}\n",
        issuer = provider.issuer,
    ))
    .await;

    let browser = Browser::new();
    let mut start = reqwest::Url::parse(&app.url("/auth/start")).unwrap();
    start
        .query_pairs_mut()
        .append_pair("rd", "/")
        .append_pair("login_hint", "mallory");
    let callback = app.url("/auth/callback");
    let landing = browser
        .follow(start.as_str(), |next| next.as_str().starts_with(&callback))
        .await;
    let last = landing.visited.last().unwrap().clone();
    assert!(
        last.as_str().starts_with(&callback),
        "{:?}",
        landing.visited
    );
    let signed_in = browser.get(last.as_str()).await;
    assert_eq!(signed_in.status(), 302, "{:?}", signed_in.text().await);

    let response = browser
        .request(
            reqwest::Method::GET,
            &app.url("/auth-check"),
            &[
                ("x-forwarded-proto", "http"),
                ("x-forwarded-host", "app.example.com"),
                ("x-forwarded-uri", "/"),
            ],
        )
        .await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert!(!headers.contains_key("x-injected"));
    assert_eq!(headers["x-auth-request-user"], "mallory");
    assert!(!headers.contains_key("x-auth-request-email"));
    let joined = headers["x-auth-request-groups"].to_str().unwrap();
    assert!(joined.len() <= 2048, "{} bytes", joined.len());
    let kept: Vec<&str> = joined.split(',').collect();
    assert_eq!(&kept[..3], ["readers", "g00000", "g00001"]);
    assert!(!kept.contains(&"ops") && !kept.contains(&"admins"));
}
