use proptest::prelude::*;

use super::*;

const HOST: Option<&str> = Some("auth.example.com");

fn target(policy: &RedirectPolicy, rd: &str) -> String {
    policy.safe_target(Some(rd), HOST).to_string()
}

#[test]
fn local_paths_and_allowed_hosts_are_kept() {
    let policy = RedirectPolicy::new(".example.com");
    assert_eq!(target(&policy, "/"), "/");
    assert_eq!(
        target(&policy, "/logs/_search?q=1#top"),
        "/logs/_search?q=1#top"
    );
    assert_eq!(target(&policy, "/a/../b"), "/b");
    assert_eq!(target(&policy, "/a/%2e%2e/b"), "/b");
    assert_eq!(target(&policy, "/a b"), "/a%20b");
    assert_eq!(
        target(&policy, "https://kibana.example.com/app?x=1"),
        "https://kibana.example.com/app?x=1"
    );
    assert_eq!(
        target(&policy, "http://example.com:8080/"),
        "http://example.com:8080/"
    );
    assert_eq!(
        target(&policy, "//auth.example.com/x"),
        "/x",
        "this very host, written as a network-path reference"
    );
    // Without a cookie domain, the request's own host is still allowed.
    let host_only = RedirectPolicy::new("");
    assert_eq!(
        target(&host_only, "https://auth.example.com/app"),
        "https://auth.example.com/app"
    );
    assert_eq!(target(&host_only, "https://example.com/"), "/");
}

#[test]
fn everything_that_resolves_elsewhere_falls_back_to_the_root() {
    let policy = RedirectPolicy::new("example.com");
    for bad in [
        "//evil.example",
        "/\\evil.example",
        "/%2Fevil.example",
        "/%252Fevil.example",
        "/%5Cevil.example",
        "/..//evil.example",
        "/a/../..//evil.example",
        "/%2e%2e//evil.example",
        "/.%2E//evil.example",
        "/.\t.//evil.example",
        "/..\\/evil.example",
        "..//evil.example",
        "https:evil.example",
        "https://evil.example",
        "https://example.com.evil.example/",
        "https://notexample.com/",
        "https://user@example.com/",
        "https://example.com@evil.example/",
        "https://127.0.0.1/",
        "javascript:alert(1)",
        "data:text/html,x",
        "/\t/evil.example",
        "",
    ] {
        assert_eq!(target(&policy, bad), "/", "{bad:?}");
    }
    let long = format!("/{}", "a".repeat(MAX_TARGET_LEN));
    assert_eq!(target(&policy, &long), "/");
}

#[test]
fn a_strange_host_header_allows_paths_only() {
    let policy = RedirectPolicy::new("");
    for host in [
        None,
        Some(""),
        Some("evil.example/x"),
        Some("a@evil.example"),
        Some("evil.example\\"),
    ] {
        assert_eq!(
            policy.safe_target(Some("/x?y"), host).as_str(),
            "/x?y",
            "{host:?}"
        );
        assert_eq!(
            policy
                .safe_target(Some("https://evil.example/"), host)
                .as_str(),
            "/",
            "{host:?}"
        );
    }
}

/// Pieces adversarial targets are made of: the characters browsers treat specially in URLs,
/// their percent-encodings, and host names (allowed and foreign).
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "/",
        "\\",
        ".",
        "%",
        "2",
        "e",
        "E",
        "f",
        "F",
        "5",
        "c",
        ":",
        "@",
        "?",
        "#",
        "\t",
        "\n",
        "\r",
        " ",
        "%2e",
        "%2E",
        "%2f",
        "%5c",
        "%09",
        "..",
        "evil.example",
        "EVIL.example",
        "example.com",
        "app.example.com",
        "auth.example.com",
        "127.0.0.1",
        "[::1]",
        "http",
        "https",
        "javascript",
        "%00",
        "\u{3002}",
        "xn--",
        "80",
    ])
}

fn adversarial() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..24).prop_map(|pieces| pieces.concat())
}

/// Where a browser showing `page` goes when told `Location: location`.
fn followed(page: &str, location: &str) -> Url {
    Url::parse(page).unwrap().join(location).unwrap()
}

fn allowed(policy: &RedirectPolicy, url: &Url, request_host: &str) -> bool {
    let request_host = request_host.split(':').next().unwrap();
    matches!(url.scheme(), "http" | "https")
        && url.username().is_empty()
        && url.password().is_none()
        && match url.host() {
            Some(Host::Domain(name)) => {
                name == request_host || policy.is_inside_cookie_domain(name)
            }
            Some(host) => host.to_string() == request_host,
            None => false,
        }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn no_input_leaves_the_allowed_hosts(rd in adversarial(), host_index in 0..3usize) {
        let (request_host, pages) = [
            ("auth.example.com", ["https://auth.example.com/auth/callback?code=c", "http://auth.example.com/auth/logout"]),
            ("127.0.0.1:9000", ["http://127.0.0.1:9000/auth/callback?code=c", "http://127.0.0.1:9000/auth/start?rd=x"]),
            ("other.test", ["https://other.test/auth/callback", "https://other.test/a/b/c"]),
        ][host_index];
        for policy in [RedirectPolicy::new("example.com"), RedirectPolicy::new("")] {
            let Some(target) = policy.check(&rd, Some(request_host)) else { continue };
            let location = target.as_str();
            prop_assert!(location.len() <= MAX_TARGET_LEN);
            prop_assert!(
                !location.chars().any(|c| c.is_control() || c == ' '),
                "{rd:?} -> {location:?}"
            );
            let path = location.split(['?', '#']).next().unwrap_or_default();
            prop_assert!(!path.contains('\\'), "{rd:?} -> {location:?}");
            if location.starts_with('/') {
                prop_assert!(!location.starts_with("//"), "{rd:?} -> {location:?}");
            }
            for page in pages {
                let url = followed(page, location);
                prop_assert!(allowed(&policy, &url, request_host), "{rd:?} -> {location:?} -> {url}");
            }
            // The target sent is itself accepted unchanged: what was checked is what is sent.
            prop_assert_eq!(policy.check(location, Some(request_host)), Some(target.clone()));
        }
    }

    #[test]
    fn arbitrary_text_never_panics(rd in ".{0,300}", host in ".{0,40}") {
        let policy = RedirectPolicy::new("example.com");
        let _ = policy.safe_target(Some(&rd), Some(&host));
    }
}
