//! `GET /auth/explain`: the caller's own identity, the `authorization` rule of the host the
//! trusted front proxy names and its decision, and the search-cluster roles with the
//! `role_mappings` behind each; unauthenticated callers get the usual 401, and nothing is cached.
//! No cluster is contacted (the roles come from the configuration), so `search.url` is the discard
//! port, where nothing listens.

use serde_json::{Value, json};

use crate::app::{ANN_PASSWORD, BOB_PASSWORD, TestApp, no_redirects, spawn_app};
use crate::support::{basic, bcrypt_hash};

async fn app() -> TestApp {
    spawn_app(&format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  mode: forward_auth\n  trusted_proxies: [127.0.0.1]\n\
         basic_auth:\n  users:\n\
         \x20   - {{username: ann, password_hash: \"{}\", email: ann@example.com, groups: [admins, staff]}}\n\
         \x20   - {{username: bob, password_hash: \"{}\", email: bob@example.org}}\n\
         authorization:\n  hosts:\n    - {{host: \"*.internal.example\", allowed_groups: [admins]}}\n\
         user_management:\n  enabled: true\n  role_mappings:\n\
         \x20   - {{claim: groups, pattern: \"admin*\", search_roles: [superuser, kibana_user]}}\n\
         \x20   - {{claim: email, pattern: \"*@example.com\", search_roles: [kibana_user, reader]}}\n\
         \x20 default_search_roles: [viewer]\n\
         search:\n  url: http://127.0.0.1:9\n  admin_user: admin\n  admin_password: not-used-here\n",
        bcrypt_hash(ANN_PASSWORD),
        bcrypt_hash(BOB_PASSWORD),
    ))
    .await
}

/// The explanation for `user` about `host` (Traefik's headers, from the trusted proxy).
async fn explain(app: &TestApp, user: Option<(&str, &str)>, host: &str) -> reqwest::Response {
    let mut request = no_redirects()
        .get(app.public_url("/auth/explain"))
        .header("x-forwarded-method", "GET")
        .header("x-forwarded-proto", "https")
        .header("x-forwarded-host", host)
        .header("x-forwarded-uri", "/");
    if let Some((name, password)) = user {
        request = request.header("authorization", basic(name, password));
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn a_member_sees_the_rule_that_admits_them_and_where_each_role_comes_from() {
    let app = app().await;
    let answer = explain(
        &app,
        Some(("ann", ANN_PASSWORD)),
        "grafana.internal.example",
    )
    .await;
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["cache-control"], "no-store");
    let body: Value = answer.json().await.unwrap();
    assert_eq!(
        (&body["username"], &body["method"], &body["groups"]),
        (&json!("ann"), &json!("basic"), &json!(["admins", "staff"]))
    );
    assert_eq!(body["host"], "grafana.internal.example");
    assert_eq!(body["rule"], "hosts[0] (*.internal.example)");
    assert_eq!(
        (&body["decision"], &body["reason"]),
        (&json!("allowed"), &Value::Null)
    );
    assert_eq!(
        body["searchRoles"],
        json!({
            "roles": [
                {"role": "superuser", "from": ["role_mappings[0]: groups matches \"admin*\""]},
                {"role": "kibana_user", "from": [
                    "role_mappings[0]: groups matches \"admin*\"",
                    "role_mappings[1]: email matches \"*@example.com\""]},
                {"role": "reader", "from": ["role_mappings[1]: email matches \"*@example.com\""]},
            ],
            "defaultRoles": false,
            "emailUnverified": false,
        })
    );
    let text = body.to_string();
    assert!(
        !text.contains(ANN_PASSWORD) && !text.contains("$2"),
        "{text}"
    );
}

#[tokio::test]
async fn a_refused_user_learns_why_and_gets_the_default_roles() {
    let app = app().await;
    let answer = explain(
        &app,
        Some(("bob", BOB_PASSWORD)),
        "grafana.internal.example",
    )
    .await;
    assert_eq!(answer.status(), 200, "explaining is not entering");
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["rule"], "hosts[0] (*.internal.example)");
    assert_eq!(body["decision"], "denied");
    assert!(body["reason"].is_string(), "{body}");
    assert_eq!(body["searchRoles"]["defaultRoles"], true);
    assert_eq!(
        body["searchRoles"]["roles"],
        json!([{"role": "viewer", "from": ["default_search_roles"]}])
    );
    // A host no rule names is refused (unmatched_hosts: refuse, the default with host rules),
    // and the explanation says so.
    let other: Value = explain(&app, Some(("bob", BOB_PASSWORD)), "wiki.example.com")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (&other["rule"], &other["decision"], &other["reason"]),
        (
            &json!("no hosts[] entry (unmatched_hosts: refuse)"),
            &json!("denied"),
            &json!("no_host_rule")
        )
    );
}

#[tokio::test]
async fn without_credentials_or_with_wrong_ones_it_is_the_usual_401() {
    let app = app().await;
    for user in [None, Some(("ann", "not-her-password"))] {
        // A script asking directly (no front proxy, no browser): 401 with the Basic challenge.
        let mut request = no_redirects().get(app.public_url("/auth/explain"));
        if let Some((name, password)) = user {
            request = request.header("authorization", basic(name, password));
        }
        let answer = request.send().await.unwrap();
        assert_eq!(answer.status(), 401, "{user:?}");
        assert!(answer.headers().contains_key("www-authenticate"));
        let text = answer.text().await.unwrap();
        assert!(
            !text.contains("admins") && !text.contains("superuser"),
            "{text}"
        );
    }
}
