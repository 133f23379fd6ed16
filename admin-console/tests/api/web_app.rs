//! The built web app: files, SPA fallback, cache headers, and the not-built answer.

use test_support::TempDir;

use crate::app::{spawn_app, spawn_app_with};

pub(crate) fn built_web_app() -> TempDir {
    let dir = TempDir::new("web-dist");
    std::fs::create_dir_all(dir.path().join("assets")).unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><title>console</title><div id=root></div>",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("assets/index-3f9a1c.js"),
        "console.log('app');".repeat(200),
    )
    .unwrap();
    std::fs::write(dir.path().join("favicon.svg"), "<svg/>").unwrap();
    dir
}

#[tokio::test]
async fn files_assets_and_spa_fallback_have_the_right_cache_headers() {
    let dir = built_web_app();
    let app = spawn_app_with(&format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  static_dir: {}\n",
        dir.path().display()
    ))
    .await;
    let index = app.client.get(app.url("/")).send().await.unwrap();
    assert_eq!(index.status(), 200);
    assert_eq!(index.headers()["cache-control"], "no-cache");
    assert!(
        index.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(index.text().await.unwrap().contains("id=root"));

    let asset = app
        .client
        .get(app.url("/assets/index-3f9a1c.js"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(asset.status(), 200);
    assert_eq!(
        asset.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(asset.headers()["content-encoding"], "gzip");

    for deep_link in [
        "/clusters/prod/indices",
        "/clusters/prod/statistics?start=1&end=2",
    ] {
        let page = app.client.get(app.url(deep_link)).send().await.unwrap();
        assert_eq!(page.status(), 200, "{deep_link}");
        assert_eq!(page.headers()["cache-control"], "no-cache");
        assert!(page.text().await.unwrap().contains("id=root"));
    }
    let missing_asset = app
        .client
        .get(app.url("/assets/gone-123.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing_asset.status(), 404);
    let api = app
        .client
        .get(app.url("/api/nothing"))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 404);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
    let traversal = app
        .client
        .get(app.url("/%2e%2e/%2e%2e/etc/passwd"))
        .send()
        .await
        .unwrap();
    assert!(!traversal.text().await.unwrap().contains("root:"));
}

#[tokio::test]
async fn without_a_built_web_app_the_root_says_so() {
    let app = spawn_app("").await;
    let response = app.client.get(app.url("/")).send().await.unwrap();
    assert_eq!(response.status(), 404);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "web_app_not_built");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not built")
    );
}
