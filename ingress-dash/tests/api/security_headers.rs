//! Security headers (issue 16, hole 2): every page, asset and API answer of ingress-dash carries
//! the Content-Security-Policy, nosniff, no-referrer and no-framing headers.

use test_support::TempDir;

use crate::app::spawn_app_static;

fn assert_security_headers(response: &reqwest::Response, what: &str) {
    let headers = response.headers();
    let policy = headers
        .get("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy"))
        .to_str()
        .unwrap();
    for directive in [
        "default-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'self'",
    ] {
        assert!(policy.contains(directive), "{what}: {policy}");
    }
    assert_eq!(headers["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(headers["x-frame-options"], "DENY", "{what}");
    assert_eq!(headers["referrer-policy"], "no-referrer", "{what}");
}

#[tokio::test]
async fn pages_assets_and_api_answers_carry_the_security_headers() {
    let dir = TempDir::new("web-dist");
    std::fs::create_dir_all(dir.path().join("assets")).unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><title>ingress-dash</title>",
    )
    .unwrap();
    std::fs::write(dir.path().join("assets/app-3f2a.js"), "console.log(1)").unwrap();
    let app = spawn_app_static(dir.path()).await;
    for path in [
        "/",
        "/namespaces/team-a",
        "/assets/app-3f2a.js",
        "/assets/missing.js",
        "/api/namespaces",
        "/api/ingresses",
        "/api/health",
        "/api/unknown",
    ] {
        let response = app.get(path).await;
        assert_security_headers(&response, path);
    }
}
