//! `authorization`: who may enter once authenticated (allowed users, email domains, groups, per
//! host rules), for Basic users and OIDC sessions, and how a refusal and an unauthenticated
//! browser are answered to each reverse proxy (Traefik's ForwardAuth, nginx `auth_request`).

use crate::app::{
    ANN_PASSWORD, BOB_PASSWORD, TestApp, Users, spawn_stack, spawn_stack_of, spawn_stack_with,
};
use crate::oidc::spawn_oidc_stack_in;
use crate::real_security::Flavor;
use crate::support::basic;
use crate::support::browser::Browser;

/// ann: groups admins, staff, ann@example.com; bob: no group, bob@example.org.
const ADMINS_ONLY: &str = "authorization:\n  allowed_groups: [admins]\n";

/// Traefik's ForwardAuth headers for `host` and `uri`.
fn traefik(host: &str, uri: &str) -> Vec<(&'static str, String)> {
    vec![
        ("x-forwarded-method", "GET".to_owned()),
        ("x-forwarded-proto", "https".to_owned()),
        ("x-forwarded-host", host.to_owned()),
        ("x-forwarded-uri", uri.to_owned()),
    ]
}

/// nginx `auth_request`'s headers (`proxy_set_header X-Original-URL ...`).
fn nginx(url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("x-original-method", "GET".to_owned()),
        ("x-original-url", url.to_owned()),
    ]
}

async fn check(
    app: &TestApp,
    headers: &[(&'static str, String)],
    extra: &[(&'static str, String)],
) -> reqwest::Response {
    let mut request = app.client.get(app.url("/auth-check"));
    for (name, value) in headers.iter().chain(extra) {
        request = request.header(*name, value);
    }
    request.send().await.unwrap()
}

/// `proxy_auth_denials_total{reason=..,rule=..}` on `/_metrics`, 0 when not there yet.
pub async fn denials(app: &TestApp, rule: &str, reason: &str) -> f64 {
    let text = app.metrics_text().await;
    text.lines()
        .filter(|line| line.starts_with("proxy_auth_denials_total{"))
        .filter(|line| {
            line.contains(&format!("rule=\"{rule}\""))
                && line.contains(&format!("reason=\"{reason}\""))
        })
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

#[tokio::test]
async fn a_basic_user_outside_the_allowed_groups_gets_403_never_a_sign_in() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, ADMINS_ONLY).await;
    let (app, Users { ann, bob }) = (&stack.app, &stack.users);
    let before = denials(app, "global", "group_not_allowed").await;

    assert_eq!(
        app.get_as("/logs/_search", ann, ANN_PASSWORD)
            .await
            .status(),
        200
    );

    // An API client: the common error body.
    let api = app.get_as("/logs/_search", bob, BOB_PASSWORD).await;
    assert_eq!(api.status(), 403);
    assert!(!api.headers().contains_key("location"));
    assert!(!api.headers().contains_key("authorization"));
    assert_eq!(api.headers()["cache-control"], "no-store");
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["error"]["code"], "forbidden");

    // A browser: a plain page, not a redirect to sign-in (which would loop).
    let page = app
        .client
        .get(app.url("/app"))
        .header("authorization", basic(bob, BOB_PASSWORD))
        .header("accept", "text/html,application/xhtml+xml")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 403);
    assert!(!page.headers().contains_key("location"));
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.text().await.unwrap().contains("not allowed"));

    assert!(denials(app, "global", "group_not_allowed").await >= before + 2.0);
    // No cluster user is made for an identity that may not enter.
    assert!(stack.cluster_user(bob).await.is_none());
    assert_eq!(stack.upserts(bob), 0);
    assert!(stack.cluster_user(ann).await.is_some());
}

#[tokio::test]
async fn users_and_email_domains_open_the_door_and_standalone_applies_them_too() {
    let users = Users::new();
    let yaml = format!(
        "authorization:\n  allowed_users: [{}]\n  allowed_email_domains: [corp.example]\n",
        users.bob
    );
    let stack = spawn_stack_of(users, "standalone", Flavor::Elasticsearch, "", &yaml).await;
    let (app, Users { ann, bob }) = (&stack.app, &stack.users);
    let before = denials(app, "global", "user_not_allowed").await;
    assert_eq!(
        app.get_as("/_cluster/health", bob, BOB_PASSWORD)
            .await
            .status(),
        200
    );
    let refused = app.get_as("/_cluster/health", ann, ANN_PASSWORD).await;
    assert_eq!(refused.status(), 403);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "forbidden");
    assert!(denials(app, "global", "user_not_allowed").await >= before + 1.0);
    // Only bob's request reached the cluster, as bob.
    let forwarded = stack.forwarded();
    assert_eq!(forwarded.len(), 1, "{forwarded:?}");
    assert_eq!(forwarded[0].basic_user().as_ref(), Some(bob));
}

#[tokio::test]
async fn host_rules_guard_each_application_behind_traefik() {
    // unmatched_hosts: global: other hosts get the global lists (the default refuses them).
    let users = Users::new();
    let yaml = format!(
        "authorization:\n  allowed_groups: [admins]\n  unmatched_hosts: global\n  hosts:\n    \
         - {{host: \"kibana.example.com\", allowed_users: [{}]}}\n    \
         - {{host: \"*.open.example.com\"}}\n",
        users.bob
    );
    let stack = spawn_stack_of(users, "forward_auth", Flavor::Elasticsearch, "", &yaml).await;
    let (app, Users { ann, bob }) = (&stack.app, &stack.users);
    let as_bob = [("authorization", basic(bob, BOB_PASSWORD))];
    let as_ann = [("authorization", basic(ann, ANN_PASSWORD))];
    let before = denials(app, "hosts[0]", "user_not_allowed").await;

    // bob (no group) is listed for kibana, refused elsewhere by the global rule.
    let kibana = traefik("Kibana.Example.com:443", "/app/home");
    assert_eq!(check(app, &kibana, &as_bob).await.status(), 200);
    assert_eq!(check(app, &kibana, &as_ann).await.status(), 403);
    assert!(denials(app, "hosts[0]", "user_not_allowed").await >= before + 1.0);
    let grafana = traefik("grafana.example.com", "/");
    assert_eq!(check(app, &grafana, &as_bob).await.status(), 403);
    assert_eq!(check(app, &grafana, &as_ann).await.status(), 200);
    // A rule without lists: every signed-in identity.
    let open = traefik("wiki.open.example.com", "/");
    assert_eq!(check(app, &open, &as_bob).await.status(), 200);
    // nginx's header names no host behind Traefik (front_proxy unset: traefik): the global rule.
    let nginx_kibana = nginx("https://kibana.example.com/app/home");
    assert_eq!(check(app, &nginx_kibana, &as_bob).await.status(), 403);
    assert_eq!(check(app, &nginx_kibana, &as_ann).await.status(), 200);
}

#[tokio::test]
async fn a_host_rule_is_not_believed_from_an_untrusted_peer() {
    // The check answers any caller, but X-Forwarded-Host from a peer outside trusted_proxies is
    // ignored: no host is known, so no host rule applies (refused as unmatched), and naming an
    // open host opens nothing.
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = crate::app::spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, forward_auth_callers: any}}\n{}authorization:\n  \
         allowed_groups: [admins]\n  hosts: [{{host: open.example.com}}]\n",
        stack.search_yaml()
    ))
    .await;
    let as_bob = [("authorization", basic(&stack.users.bob, BOB_PASSWORD))];
    let before = denials(&app, "unmatched", "no_host_rule").await;
    let forged = check(&app, &traefik("open.example.com", "/"), &as_bob).await;
    assert_eq!(forged.status(), 403);
    assert!(denials(&app, "unmatched", "no_host_rule").await >= before + 1.0);
}

#[tokio::test]
async fn unauthenticated_browsers_get_what_each_proxy_understands() {
    let stack = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let behind_nginx = spawn_stack_with(
        "forward_auth",
        Flavor::Elasticsearch,
        "  front_proxy: nginx\n",
        "",
    )
    .await;
    let html = [("accept", "text/html,application/xhtml+xml".to_owned())];

    // Traefik passes a redirect on: 302 to sign-in.
    let traefik = check(app, &traefik("search.example.com", "/app?x=1"), &html).await;
    assert_eq!(traefik.status(), 302);
    assert_eq!(
        traefik.headers()["location"],
        "/auth/start?rd=%2Fapp%3Fx%3D1"
    );

    // nginx auth_request cannot (a 302 becomes its 500): 401 without a Basic challenge, which
    // its error_page turns into the redirect; non-browsers keep the Basic challenge.
    let app = &behind_nginx.app;
    let browser = check(app, &nginx("https://search.example.com/app?x=1"), &html).await;
    assert_eq!(browser.status(), 401);
    assert!(!browser.headers().contains_key("www-authenticate"));
    assert!(!browser.headers().contains_key("location"));
    let body: serde_json::Value = browser.json().await.unwrap();
    assert_eq!(body["error"]["code"], "sign_in_required");
    let root = check(app, &nginx("https://search.example.com/"), &[]).await;
    assert_eq!(root.status(), 401);
    assert!(!root.headers().contains_key("www-authenticate"));
    let api = check(app, &nginx("https://search.example.com/_search"), &[]).await;
    assert_eq!(api.status(), 401);
    assert!(
        api.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic ")
    );
}

#[tokio::test]
async fn a_signed_in_oidc_user_outside_the_rules_gets_403_not_a_sign_in_loop() {
    let stack = spawn_oidc_stack_in(
        "forward_auth",
        ", cookie_domain: example.com",
        "authorization:\n  allowed_groups: [admins]\n",
    )
    .await;
    let app = &stack.app;
    let headers = [
        ("x-forwarded-method", "GET"),
        ("x-forwarded-proto", "https"),
        ("x-forwarded-host", "app.example.com"),
        ("x-forwarded-uri", "/"),
    ];
    let target = "https://app.example.com/";

    let before = denials(app, "global", "group_not_allowed").await;
    let alice = Browser::new();
    stack.sign_in(&alice, target, &stack.alice).await;
    let allowed = alice
        .request(reqwest::Method::GET, &app.url("/"), &headers)
        .await;
    assert_eq!(allowed.status(), 200);

    let bob = Browser::new();
    // Sign-in itself succeeds (authentication), then the check refuses (authorization).
    assert_eq!(stack.sign_in(&bob, target, &stack.bob).await, target);
    let refused = bob
        .request(reqwest::Method::GET, &app.url("/"), &headers)
        .await;
    assert_eq!(refused.status(), 403);
    assert!(!refused.headers().contains_key("location"));
    assert!(!refused.headers().contains_key("x-auth-request-user"));
    assert!(refused.text().await.unwrap().contains("Access denied"));
    assert!(denials(app, "global", "group_not_allowed").await >= before + 1.0);
    assert!(stack.cluster_user(&stack.bob).await.is_none());
    assert!(stack.cluster_user(&stack.alice).await.is_some());
}

#[tokio::test]
async fn a_refusal_is_logged_with_the_user_and_the_rule() {
    use test_support::binary::ServiceBinary;

    let binary = ServiceBinary::new(env!("CARGO_BIN_EXE_authproxy"), "authproxy", "/healthz");
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, shutdown_timeout: 5s, trusted_proxies: [127.0.0.1]}}\n\
         observability: {{log_level: info, log_format: json}}\n\
         user_management: {{enabled: false}}\n\
         basic_auth:\n  users: [{{username: ann, password_hash: \"{}\", groups: [ops]}}]\n\
         authorization:\n  hosts: [{{host: \"*.internal.example\", allowed_groups: [admins]}}]\n",
        crate::support::bcrypt_hash(ANN_PASSWORD)
    );
    let path = binary.config_file("authorization.yaml", &yaml);
    let mut running = binary.start(&path);
    let refused = crate::app::no_redirects()
        .get(format!("http://{}/check", running.internal_host_port))
        .header("authorization", basic("ann", ANN_PASSWORD))
        .header("x-forwarded-host", "grafana.internal.example")
        .header("x-forwarded-uri", "/")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    running
        .terminate(std::time::Duration::from_secs(15))
        .expect("stops on SIGTERM");
    let lines = running.stdout_lines();
    let record: serde_json::Value = lines
        .iter()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|record| record["message"] == "access denied")
        .unwrap_or_else(|| panic!("no \"access denied\" record in {lines:#?}"));
    assert_eq!(record["level"], "WARN");
    assert_eq!(record["username"], "ann");
    assert_eq!(record["rule"], "hosts[0] (*.internal.example)");
    assert_eq!(record["reason"], "group_not_allowed");
    assert_eq!(record["host"], "grafana.internal.example");
    assert_eq!(record["source_ip"], "127.0.0.1");
}
