//! Security headers (issue 16, hole 2): every page, asset and API answer of ingress-dash carries
//! the Content-Security-Policy, nosniff, no-referrer and no-framing headers.

use crate::app::{built_web_app, spawn_app_server, spawn_app_static};

#[tokio::test]
async fn pages_assets_and_api_answers_carry_the_security_headers() {
    let dir = built_web_app();
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
        test_support::assert_security_headers(&response, path);
    }
}

/// DNS rebinding: with `server.allowed_hosts` set, a request for another `Host` is refused;
/// liveness and readiness (probed by the pod's IP) are answered for any `Host`.
#[tokio::test]
async fn a_foreign_host_is_refused_when_allowed_hosts_is_set() {
    let app = spawn_app_server("  allowed_hosts: [dash.example.com]\n", "").await;
    let (address, client) = (&app.address, &app.client);
    let get = |path: &str, host: &str| {
        client
            .get(format!("{address}{path}"))
            .header("host", host)
            .send()
    };

    for path in ["/api/namespaces", "/api/ingresses", "/"] {
        let refused = get(path, "evil.example").await.unwrap();
        assert_eq!(refused.status(), 403, "{path}");
        test_support::assert_security_headers(&refused, path);
        let body: serde_json::Value = refused.json().await.unwrap();
        assert_eq!(body["error"]["code"], "host_not_allowed", "{path}");
    }
    let allowed = get("/api/namespaces", "DASH.example.com:443")
        .await
        .unwrap();
    assert_eq!(allowed.status(), 200);
    for probe in ["/api/live", "/api/health"] {
        let answer = get(probe, "10.1.2.3:3000").await.unwrap();
        assert_ne!(answer.status(), 403, "{probe}");
    }
}
