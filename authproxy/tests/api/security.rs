//! The security suite: open redirects, forged session cookies, spoofed forwarding and identity
//! headers, caching of authentication answers, and the failure counter.

use futures_util::future::join_all;
use reqwest::Url;

use crate::app::{ANN_PASSWORD, Cluster, Users, spawn_app, spawn_stack};
use crate::oidc::{COOKIE, spawn_oidc_stack, spawn_oidc_stack_with};
use crate::real_security::Flavor;
use crate::support::basic;
use crate::support::browser::Browser;

/// Every one of these must land on `/` after sign-in (the cookie domain is `example.com`).
const OPEN_REDIRECTS: &[&str] = &[
    "//evil.example",
    "//evil.example/",
    "///evil.example",
    "////evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "\\/evil.example",
    "https:evil.example",
    "https:/evil.example",
    "https:///evil.example",
    "http:evil.example",
    "https://evil.example",
    "http://evil.example/",
    "HTTPS://EVIL.EXAMPLE",
    "hTtPs://evil.example",
    "//EVIL.example",
    "%2F%2Fevil.example",
    "/%2Fevil.example",
    "/%2fevil.example",
    "/%5Cevil.example",
    "/%5cevil.example",
    "%2F%5Cevil.example",
    "/%252F%252Fevil.example",
    "/%09/evil.example",
    "/\t/evil.example",
    "/%0D%0ALocation:%20https://evil.example",
    "https://example.com@evil.example/",
    "https://app.example.com@evil.example/",
    "https://user:pass@app.example.com/",
    "https://evil.example#@app.example.com",
    "https://evil.example?.example.com",
    "https://evil.example\\.example.com",
    "https://example.com.evil.example/",
    "https://notexample.com/",
    "https://app.example.com.evil.example/",
    "javascript:alert(document.domain)",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "ftp://app.example.com/",
    "file:///etc/passwd",
    "evil.example",
    "@evil.example",
    " //evil.example",
    "/ /evil.example",
    "",
    // Dot segments (plain, percent-encoded, mixed case, behind backslashes or stripped
    // whitespace) that resolve to a network-path reference `//host`.
    "/..//evil.example",
    "/../..//evil.example",
    "/.//evil.example",
    "/a/..//evil.example",
    "/a/../..//evil.example",
    "/a/b/../../..//evil.example/x?y#z",
    "/%2e%2e//evil.example",
    "/%2E%2E//evil.example",
    "/.%2e//evil.example",
    "/%2e.//evil.example",
    "/%2e//evil.example",
    "/x/%2e%2e/%2e%2e//evil.example",
    "/..\\/evil.example",
    "/../\\evil.example",
    "/\\..\\/evil.example",
    "\\..\\\\evil.example",
    "/.\t.//evil.example",
    "/..\n//evil.example",
    "/.\r\n.//evil.example",
    "\t/..//evil.example",
    "/..//evil.example:443/",
    "/..//user@evil.example",
    "/..//EVIL.EXAMPLE",
    "/..//evil%2Eexample",
    "./..//evil.example",
    "..//evil.example",
    "%2e%2e//evil.example",
    "/..//%65vil.example",
    "/..///evil.example",
    "/../https://evil.example",
    "/..//app.example.com@evil.example",
    "/..//evil.example\\@app.example.com",
    "/..//evil.example#@app.example.com",
];

#[tokio::test]
async fn open_redirect_payloads_all_land_on_a_safe_target() {
    assert!(OPEN_REDIRECTS.len() >= 30);
    let stack = spawn_oidc_stack_with(", cookie_domain: example.com", "").await;
    let landings = join_all(OPEN_REDIRECTS.iter().map(|payload| {
        let stack = &stack;
        async move {
            let browser = Browser::new();
            (
                payload,
                stack.sign_in(&browser, payload, &stack.alice).await,
            )
        }
    }))
    .await;
    // The browser resolves `Location` against the callback URL: it must stay on this host.
    let callback = Url::parse(&stack.app.url("/auth/callback?code=c&state=s")).unwrap();
    for (payload, landed) in &landings {
        assert_eq!(
            stays_on(&callback, landed),
            Some("127.0.0.1".to_owned()),
            "rd={payload:?} landed on {landed:?}"
        );
    }

    // Targets that are allowed stay as they are.
    for (rd, expected) in [
        ("/app/discover?q=a#top", "/app/discover?q=a#top"),
        (
            "https://kibana.example.com/app/home",
            "https://kibana.example.com/app/home",
        ),
        ("http://example.com:5601/", "http://example.com:5601/"),
    ] {
        let browser = Browser::new();
        assert_eq!(stack.sign_in(&browser, rd, &stack.alice).await, expected);
    }

    // Logout without a session goes to `rd` under the same rules.
    for payload in OPEN_REDIRECTS {
        let mut url = Url::parse(&stack.app.url("/auth/logout")).unwrap();
        url.query_pairs_mut().append_pair("rd", payload);
        let response = Browser::new()
            .request(
                reqwest::Method::GET,
                url.as_str(),
                &[("sec-fetch-site", "same-origin")],
            )
            .await;
        assert_eq!(response.status(), 302);
        let location = response.headers()["location"].to_str().unwrap();
        assert_eq!(
            stays_on(&url, location),
            Some("127.0.0.1".to_owned()),
            "logout rd={payload:?} went to {location:?}"
        );
    }
}

#[tokio::test]
async fn open_redirect_payloads_after_basic_sign_in_stay_on_this_host() {
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    for payload in OPEN_REDIRECTS {
        let mut url = Url::parse(&app.url("/auth/start")).unwrap();
        url.query_pairs_mut().append_pair("rd", payload);
        let response = app
            .client
            .get(url.as_str())
            .header("authorization", basic(&stack.users.ann, ANN_PASSWORD))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 302, "rd={payload:?}");
        let location = response.headers()["location"].to_str().unwrap();
        assert_eq!(
            stays_on(&url, location),
            Some("127.0.0.1".to_owned()),
            "rd={payload:?} went to {location:?}"
        );
    }
}

/// The host a browser at `page` goes to when told `Location: location` (WHATWG resolution), or
/// `None` when it would not go anywhere over http(s).
fn stays_on(page: &Url, location: &str) -> Option<String> {
    let target = page.join(location).ok()?;
    matches!(target.scheme(), "http" | "https")
        .then(|| target.host_str().map(str::to_owned))
        .flatten()
}

#[tokio::test]
async fn tampered_truncated_and_re_signed_session_cookies_are_rejected() {
    let stack = spawn_oidc_stack("").await;
    let app = &stack.app;
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.alice).await;
    let genuine = browser.cookie(COOKIE).unwrap();
    assert_eq!(browser.get(&app.url("/_cat/indices")).await.status(), 200);

    // The signed value is base64(HMAC) (44 characters) followed by `<name>:<session id>`.
    let (_, signed) = genuine.split_at(44);
    let session_id = signed
        .strip_prefix(&format!("{COOKIE}:"))
        .expect("the signed part names the cookie");
    let other_secret = authproxy::authn::cookies::CookieSigner::new(
        b"another-secret-that-is-long-enough-32b",
        "",
        "http://127.0.0.1/",
    )
    .unwrap();
    let re_signed = other_secret
        .signed(COOKIE, session_id, std::time::Duration::from_secs(60))
        .value()
        .to_owned();
    let mut flipped = genuine.clone().into_bytes();
    let middle = flipped.len() / 2;
    flipped[middle] = if flipped[middle] == b'A' { b'B' } else { b'A' };
    let mut id_changed = genuine.clone();
    id_changed.push('x');
    let forged = [
        ("tampered MAC", format!("A{}", &genuine[1..])),
        ("tampered id", String::from_utf8(flipped).unwrap()),
        ("appended", id_changed),
        ("truncated", genuine[..genuine.len() - 5].to_owned()),
        ("MAC only", genuine[..44].to_owned()),
        ("id only", session_id.to_owned()),
        ("re-signed with another secret", re_signed),
        ("empty", String::new()),
    ];
    let failures = app.counter("proxy_auth_failures_total").await;
    for (what, value) in &forged {
        let forger = Browser::new();
        forger.set_cookie(COOKIE, value);
        let response = forger.get(&app.url("/_cat/indices")).await;
        assert_eq!(response.status(), 302, "{what} was accepted");
        let api = app
            .client
            .get(app.url("/_cat/indices"))
            .header("cookie", format!("{COOKIE}={value}"))
            .send()
            .await
            .unwrap();
        assert_eq!(api.status(), 401, "{what} was accepted");
    }
    assert!(
        app.counter("proxy_auth_failures_total").await >= failures + 6.0,
        "forged signatures count as failed authentications"
    );
    // The genuine cookie still works.
    assert_eq!(browser.get(&app.url("/_cat/indices")).await.status(), 200);
}

#[tokio::test]
async fn forwarded_headers_from_an_untrusted_address_are_ignored() {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    for mode in ["forward_auth", "standalone"] {
        // `forward_auth_callers: any`: the check answers this untrusted peer (by default it
        // refuses it outright), so what it does with the peer's headers shows.
        let yaml = format!(
            "server:\n  host: 127.0.0.1\n  port: 0\n  mode: {mode}\n  trusted_proxies: [10.0.0.0/8]\n  \
             forward_auth_callers: any\n{}",
            cluster.search_yaml(&users)
        );
        let app = spawn_app(&yaml).await;
        // The sign-in redirect keeps the real URI, not the one the headers claim.
        let response = app
            .client
            .get(app.url("/real/path"))
            .header("accept", "text/html")
            .header("x-forwarded-uri", "/claimed")
            .header("x-forwarded-host", "evil.example")
            .header("x-forwarded-proto", "https")
            .header("x-original-url", "https://evil.example/claimed")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 302);
        assert_eq!(
            response.headers()["location"],
            "/auth/start?rd=%2Freal%2Fpath",
            "{mode}"
        );
        if mode == "standalone" {
            let response = app
                .client
                .get(app.url("/_cluster/health"))
                .header("authorization", basic(&users.ann, ANN_PASSWORD))
                .header("x-forwarded-for", "6.6.6.6")
                .header("x-forwarded-host", "evil.example")
                .header("x-real-ip", "6.6.6.6")
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            let last = cluster.forwarded().pop().unwrap();
            assert_eq!(last.basic_user().as_ref(), Some(&users.ann));
            assert_eq!(last.header("x-forwarded-for"), Some("127.0.0.1"));
            assert_ne!(last.header("x-forwarded-host"), Some("evil.example"));
            assert_eq!(last.header("x-real-ip"), None);
        }
    }
}

#[tokio::test]
async fn client_identity_headers_never_reach_the_search_cluster() {
    let stack = spawn_oidc_stack("").await;
    let app = &stack.app;
    let spoofed = [
        ("x-auth-request-user", "elastic"),
        ("x-auth-request-email", "root@example.com"),
        ("x-auth-request-groups", "superuser"),
        ("x-auth-request-preferred-username", "elastic"),
        ("x-auth-request-access-token", "forged"),
    ];
    // With a session...
    let browser = Browser::new();
    stack.sign_in(&browser, "/", &stack.bob).await;
    let response = browser
        .request(reqwest::Method::GET, &app.url("/_cat/indices"), &spoofed)
        .await;
    assert_eq!(response.status(), 200);
    // ...and with Basic credentials.
    let mut request = app
        .client
        .get(app.url("/_cat/indices"))
        .header("authorization", basic(&stack.users.ann, ANN_PASSWORD));
    for (name, value) in spoofed {
        request = request.header(name, value);
    }
    assert_eq!(request.send().await.unwrap().status(), 200);
    let forwarded = stack.forwarded();
    let users: Vec<String> = forwarded.iter().filter_map(|f| f.basic_user()).collect();
    assert_eq!(
        users,
        [stack.bob.as_str(), &stack.users.ann],
        "who reached the cluster"
    );
    for request in &forwarded {
        for (name, _) in &request.headers {
            assert!(
                !name.starts_with("x-auth-request-"),
                "{name} reached the cluster"
            );
        }
    }
}

#[tokio::test]
async fn authentication_responses_are_never_cached() {
    let stack = spawn_oidc_stack("").await;
    let app = &stack.app;
    let browser = Browser::new();
    let mut answers = Vec::new();
    answers.push(("challenge", browser.get(&app.url("/x")).await));
    answers.push(("401", app.client.get(app.url("/x")).send().await.unwrap()));
    answers.push((
        "start",
        browser.get(&stack.start_url("/", &stack.alice)).await,
    ));
    answers.push((
        "failed callback",
        browser.get(&app.url("/auth/callback?code=x&state=y")).await,
    ));
    answers.push(("basic start", {
        app.client
            .get(app.url("/auth/start?rd=/"))
            .header("authorization", basic(&stack.users.ann, "wrong"))
            .send()
            .await
            .unwrap()
    }));
    let signed_in = Browser::new();
    let callback = stack.until_callback(&signed_in, "/", &stack.alice).await;
    answers.push(("callback", signed_in.get(callback.as_str()).await));
    answers.push(("logout", signed_in.get(&app.url("/auth/logout")).await));
    for (what, response) in &answers {
        assert_eq!(
            response
                .headers()
                .get("cache-control")
                .map(|v| v.to_str().unwrap()),
            Some("no-store"),
            "{what} ({})",
            response.status()
        );
    }

    // forward_auth answers, success and failure alike.
    let forward_auth = spawn_app(&format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  mode: forward_auth\n{}",
        stack.search_yaml(&stack.users)
    ))
    .await;
    for password in [ANN_PASSWORD, "wrong"] {
        let response = forward_auth.get_as("/", &stack.users.ann, password).await;
        assert_eq!(response.headers()["cache-control"], "no-store");
    }
}

#[tokio::test]
async fn failed_sign_ins_increment_the_failure_counter() {
    let stack = spawn_oidc_stack("").await;
    let app = &stack.app;
    let before = app.counter("proxy_auth_failures_total").await;
    // The provider refused (the user cancelled).
    let browser = Browser::new();
    let _ = browser.get(&stack.start_url("/", &stack.alice)).await;
    let refused = browser
        .get(&app.url("/auth/callback?error=access_denied&state=whatever"))
        .await;
    assert_eq!(refused.status(), 401);
    // A made-up code and state.
    let forged = browser
        .get(&app.url("/auth/callback?code=abc&state=def"))
        .await;
    assert_eq!(forged.status(), 401);
    // Wrong Basic credentials.
    let wrong = app.get_as("/x", &stack.users.ann, "wrong-password").await;
    assert_eq!(wrong.status(), 401);
    assert!(app.counter("proxy_auth_failures_total").await >= before + 3.0);
    // A good sign-in is a success (the counters are process-wide, so only growth is checked).
    let good = Browser::new();
    let successes = app.counter("proxy_auth_successes_total").await;
    stack.sign_in(&good, "/", &stack.alice).await;
    assert!(app.counter("proxy_auth_successes_total").await >= successes + 1.0);
}
