//! Which host's rule applies (issue 31, items 1, 2 and 12): the host is taken from the one
//! header contract of the reverse proxy in front (`server.front_proxy`), parsed strictly as
//! `host[:port]`; a host no rule names is refused; standalone reads no proxy header at all;
//! `allowed_users` entries name their identity source.

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestRunner};

use crate::app::{ANN_PASSWORD, BOB_PASSWORD, Stack, TestApp, spawn_stack, spawn_stack_with};
use crate::oidc::spawn_oidc_stack;
use crate::real_security::Flavor;
use crate::support::basic;
use crate::support::browser::Browser;

/// admin.test for the group admins (ann), public.test for every signed-in identity (bob too);
/// no global list.
const HOST_RULES: &str = "authorization:\n  hosts:\n    \
                          - {host: admin.test, allowed_groups: [admins]}\n    \
                          - {host: public.test}\n";

/// forward_auth behind `front_proxy` with [`HOST_RULES`].
async fn behind(front_proxy: &str) -> Stack {
    let server = format!("  front_proxy: {front_proxy}\n");
    spawn_stack_with("forward_auth", Flavor::Elasticsearch, &server, HOST_RULES).await
}

fn basic_line(user: &str, password: &str) -> String {
    format!("Authorization: {}\r\n", basic(user, password))
}

/// nginx in front with the documented snippet, one server block per application host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_host_form_lets_a_user_into_a_server_block_another_hosts_rule_judged() {
    let stack = behind("nginx").await;
    let app = &stack.app;
    let front =
        test_support::HostsFront::start(&app.url("/auth/check"), &["admin.test", "public.test"]);
    let bob = basic_line(&stack.users.bob, BOB_PASSWORD);
    let ann = basic_line(&stack.users.ann, ANN_PASSWORD);
    let front_ref = &front;
    let get = |host: &str, who: &str| {
        let (host, who) = (host.to_owned(), who.to_owned());
        async move { tokio::task::block_in_place(|| front_ref.get(host.as_bytes(), &who)) }
    };

    // The plain forms: each host's own rule.
    assert_eq!(get("public.test", &bob).await.status, 200);
    assert_eq!(get("admin.test", &bob).await.status, 403);
    let admin = get("admin.test:80", &ann).await;
    assert_eq!(
        (admin.status, admin.server.as_deref()),
        (200, Some("admin.test"))
    );

    let before = app.counter("proxy_invalid_hosts_total").await;
    // nginx routes each of these to admin.test's server block (the part before the first
    // ':'); authproxy used to parse $http_host as a URL and judge public.test, or no host at
    // all (the global lists, open here).
    for host in [
        "admin.test:abc",
        "admin.test:x@public.test",
        "admin.test:80@public.test",
        "admin.test:99999",
        "admin.test:",
        "ADMIN.test.:8080x",
    ] {
        let answer = get(host, &bob).await;
        assert_ne!(
            answer.status, 200,
            "Host {host:?}: bob reached {:?}: {}",
            answer.server, answer.body
        );
    }
    assert!(app.counter("proxy_invalid_hosts_total").await >= before + 5.0);

    // A host no rule names (nginx's default server): refused, not the (open) global lists.
    let other = get("other.test", &bob).await;
    assert_eq!(other.status, 403, "{other:?}\n{}", front.error_log());
}

/// The property behind the cases above: whatever `Host` a client sends, bob (who may enter
/// only public.test) gets a 200 only from public.test's server block, and ann (admins) never
/// from the default server, which no rule names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_host_nginx_routes_is_judged_under_another_hosts_rule() {
    let stack = behind("nginx").await;
    let front = test_support::HostsFront::start(
        &stack.app.url("/auth/check"),
        &["admin.test", "public.test"],
    );
    let (bob, ann) = (
        basic_line(&stack.users.bob, BOB_PASSWORD),
        basic_line(&stack.users.ann, ANN_PASSWORD),
    );
    let piece = prop::sample::select(vec![
        "admin.test",
        "public.test",
        "other.test",
        "ADMIN.TEST",
        ":",
        ":80",
        ":abc",
        "@",
        ".",
        "..",
        "#",
        "?",
        "/",
        "%2e",
        "[::1]",
        "\t",
        "x",
        "-",
        "_",
        "\\",
    ]);
    let strategy = (prop::collection::vec(piece, 1..6), any::<bool>());
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    tokio::task::block_in_place(|| {
        runner
            .run(&strategy, |(pieces, as_bob)| {
                let host = pieces.concat();
                let answer = front.get(host.as_bytes(), if as_bob { &bob } else { &ann });
                if answer.status == 200 {
                    let allowed: &[&str] = if as_bob {
                        &["public.test"]
                    } else {
                        &["public.test", "admin.test"]
                    };
                    prop_assert!(
                        answer
                            .server
                            .as_deref()
                            .is_some_and(|s| allowed.contains(&s)),
                        "Host {:?} as {}: 200 from server block {:?}",
                        host,
                        if as_bob { "bob" } else { "ann" },
                        answer.server
                    );
                }
                Ok(())
            })
            .unwrap();
    });
}

async fn check(app: &TestApp, headers: &[(&str, &str)], user: &str, password: &str) -> u16 {
    let mut request = app
        .client
        .get(app.url("/auth/check"))
        .header("authorization", basic(user, password));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap().status().as_u16()
}

/// Traefik's ForwardAuth sends X-Forwarded-Method/-Proto/-Host/-Uri (and, unless
/// `authRequestHeaders` is set, every header the client sent).
#[tokio::test]
async fn behind_traefik_only_its_forwarded_headers_name_the_host() {
    let stack = behind("traefik").await;
    let (app, bob) = (&stack.app, &stack.users.bob);
    let traefik = |host: &'static str| {
        vec![
            ("x-forwarded-method", "GET"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", host),
            ("x-forwarded-uri", "/"),
        ]
    };
    assert_eq!(
        check(app, &traefik("public.test"), bob, BOB_PASSWORD).await,
        200
    );
    assert_eq!(
        check(app, &traefik("admin.test"), bob, BOB_PASSWORD).await,
        403
    );
    // The client's own X-Original-URL, passed through by Traefik, names public.test.
    let mut forged = traefik("admin.test");
    forged.push(("x-original-url", "https://public.test/"));
    forged.push(("x-original-method", "GET"));
    assert_eq!(check(app, &forged, bob, BOB_PASSWORD).await, 403);
    // Not host[:port]: 400, counted.
    let before = app.counter("proxy_invalid_hosts_total").await;
    for host in [
        "admin.test:x@public.test",
        "public.test@admin.test",
        "admin.test:abc",
    ] {
        assert_eq!(
            check(app, &traefik(host), bob, BOB_PASSWORD).await,
            400,
            "{host}"
        );
    }
    assert!(app.counter("proxy_invalid_hosts_total").await >= before + 3.0);
}

/// Behind nginx, a client's X-Forwarded-Host (nginx passes it through) is not the host.
#[tokio::test]
async fn behind_nginx_a_clients_forwarded_host_is_ignored() {
    let stack = behind("nginx").await;
    let headers = [
        ("x-original-method", "GET"),
        ("x-original-url", "http://admin.test/"),
        ("x-forwarded-host", "public.test"),
        ("x-forwarded-uri", "/"),
    ];
    assert_eq!(
        check(&stack.app, &headers, &stack.users.bob, BOB_PASSWORD).await,
        403
    );
}

/// Standalone applies the global lists only: a client's proxy headers name no host rule.
#[tokio::test]
async fn standalone_reads_no_proxy_contract_header() {
    let yaml = "authorization:\n  allowed_groups: [admins]\n  hosts: [{host: open.example.com}]\n";
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, yaml).await;
    let app = &stack.app;
    let forged: [&[(&str, &str)]; 2] = [
        &[("x-original-url", "http://open.example.com/_cluster/health")],
        &[
            ("x-forwarded-host", "open.example.com"),
            ("x-forwarded-uri", "/_cluster/health"),
        ],
    ];
    for headers in forged {
        let mut request = app
            .client
            .get(app.url("/_cluster/health"))
            .header("authorization", basic(&stack.users.bob, BOB_PASSWORD));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        assert_eq!(request.send().await.unwrap().status(), 403, "{headers:?}");
    }
    assert_eq!(
        app.get_as("/_cluster/health", &stack.users.ann, ANN_PASSWORD)
            .await
            .status(),
        200
    );
}

/// Local Basic user bob and the identity provider's bob (same name, same address): a rule
/// meant for one does not let the other in.
#[tokio::test]
async fn allowed_users_name_the_identity_source() {
    let stack = spawn_oidc_stack("authorization:\n  allowed_users: [\"basic:{bob}\"]\n").await;
    let app = &stack.app;
    assert_eq!(
        app.get_as("/_cluster/health", &stack.users.bob, BOB_PASSWORD)
            .await
            .status(),
        200
    );
    let browser = Browser::new();
    stack
        .sign_in(&browser, "/_cluster/health", &stack.bob)
        .await;
    let refused = browser.get(&app.url("/_cluster/health")).await;
    assert_eq!(refused.status(), 403);
}

/// A bare name with both sources configured is ambiguous: the configuration is refused with a
/// message that says how to write it.
#[test]
fn a_bare_allowed_user_with_two_sources_is_refused() {
    let yaml = format!(
        "oidc: {{enabled: true, issuer_url: \"http://127.0.0.1:1\", client_id: c, client_secret: s, \
         redirect_url: \"http://127.0.0.1:9000/auth/callback\"}}\n\
         session: {{secret: 0123456789abcdef0123456789abcdef}}\n\
         basic_auth: {{users: [{{username: bob, password_hash: \"{}\"}}]}}\n\
         authorization:\n  allowed_users: [bob, \"oidc:alice\", \"basic:bob\"]\n  \
         hosts: [{{host: a.test, allowed_users: [carol@example.com]}}]\n",
        crate::support::bcrypt_hash(BOB_PASSWORD)
    );
    let problems = service_kit::config::ConfigLoader::new("TEST_UNUSED_PREFIX")
        .load_str::<authproxy::Settings>(&yaml)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        problems.contains("authorization.allowed_users[0]: names no source"),
        "{problems}"
    );
    assert!(problems.contains("basic:bob or oidc:bob"), "{problems}");
    assert!(
        problems.contains("authorization.hosts[0].allowed_users[0]: names no source"),
        "{problems}"
    );
    assert!(!problems.contains("allowed_users[1]"), "{problems}");
    assert!(!problems.contains("allowed_users[2]"), "{problems}");
}
