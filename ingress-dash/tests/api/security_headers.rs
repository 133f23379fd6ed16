//! Security headers (issue 16, hole 2): every page, asset and API answer of ingress-dash carries
//! the Content-Security-Policy, nosniff, no-referrer and no-framing headers.

use test_support::TempDir;

use crate::app::spawn_app_static;

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
        test_support::assert_security_headers(&response, path);
    }
}

/// DNS rebinding: with `server.allowed_hosts` set, a request for another `Host` is refused;
/// liveness and readiness (probed by the pod's IP) are answered for any `Host`.
#[tokio::test]
async fn a_foreign_host_is_refused_when_allowed_hosts_is_set() {
    use ingress_dash::{Application, Settings};
    use kube_test_server::{KubeTestServer, Options};
    use service_kit::config::ConfigLoader;

    let kube = KubeTestServer::start(Options::default()).expect("kube-test-server starts");
    let yaml = format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  allowed_hosts: [dash.example.com]\nkubernetes:\n  api_url: {}\n",
        kube.url()
    );
    let settings: Settings = ConfigLoader::new("TEST_UNUSED_PREFIX")
        .with_env(Default::default())
        .load_str(&yaml)
        .expect("test configuration is valid");
    let app = Application::build(settings)
        .await
        .expect("application starts");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    let client = test_support::http_client();
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
