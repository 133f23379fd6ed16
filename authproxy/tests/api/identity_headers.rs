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
