//! The built web app: files, SPA fallback, caching headers, and the not-built answer.

use crate::app::{built_web_app, spawn_app};

#[tokio::test]
async fn serves_the_app_with_spa_fallback_and_caching() {
    let dir = built_web_app();
    let app = crate::app::spawn_app_static(dir.path()).await;
    let index = app.get("/").await;
    assert_eq!(index.status(), 200);
    assert_eq!(index.headers()["cache-control"], "no-cache");
    assert!(index.text().await.unwrap().contains("ingress-dash"));
    let asset = app.get("/assets/app-3f2a.js").await;
    assert_eq!(asset.status(), 200);
    assert_eq!(
        asset.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let route = app.get("/namespaces/team-a").await;
    assert_eq!(route.status(), 200);
    assert_eq!(route.headers()["cache-control"], "no-cache");
    assert!(
        route
            .text()
            .await
            .unwrap()
            .contains("<title>ingress-dash</title>")
    );
    let (status, body) = app.get_json("/api/unknown").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    assert_eq!(app.get("/assets/missing.js").await.status(), 404);
}

#[tokio::test]
async fn without_the_build_the_root_says_so() {
    let app = spawn_app("", "").await;
    let (status, body) = app.get_json("/").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "web_app_not_built");
}
