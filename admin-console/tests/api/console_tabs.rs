//! The console's tabs on the server (`/api/console/tabs?cluster=`): per user and cluster, a
//! stale write (another browser of the same user) is 409 with what is stored, the caps answer in
//! the common error body, a broken store is 503, and two replicas on the real Redis share them.

use serde_json::{Value, json};
use test_support::TempDir;

use crate::access::{ADMIN, Caller, OPERATOR, as_caller};
use crate::app::TestApp;
use crate::saved_queries::{app_with, redis_yaml, store_yaml};
use crate::support::send;

async fn get(app: &TestApp, caller: &Caller, cluster: &str) -> (u16, Value) {
    let url = app.url(&format!("/api/console/tabs?cluster={cluster}"));
    send(as_caller(app.client.get(url), caller)).await
}

async fn put(app: &TestApp, caller: &Caller, cluster: &str, body: &Value) -> (u16, Value) {
    let url = app.url(&format!("/api/console/tabs?cluster={cluster}"));
    send(as_caller(app.client.put(url), caller).json(body)).await
}

fn two_tabs(version: u64) -> Value {
    json!({
        "tabs": [
            {"id": "t1", "title": "Health", "text": "GET /_cluster/health\n"},
            {"id": "t2", "title": "GET /logs/_settings", "text": "GET /logs/_settings\n"}
        ],
        "active": "t2",
        "version": version
    })
}

#[tokio::test]
async fn tabs_are_kept_per_user_and_cluster() {
    let dir = TempDir::new("console-tabs-kept");
    let app = app_with(&store_yaml(&dir)).await;
    let (status, empty) = get(&app, &OPERATOR, "prod").await;
    assert_eq!(
        (status, &empty["version"], &empty["tabs"]),
        (200, &json!(0), &json!([]))
    );

    let (status, saved) = put(&app, &OPERATOR, "prod", &two_tabs(0)).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["version"], 1);
    let (status, read) = get(&app, &OPERATOR, "prod").await;
    assert_eq!((status, &read), (200, &saved));
    assert_eq!(read["tabs"], two_tabs(0)["tabs"]);
    assert_eq!(read["active"], "t2");

    assert_eq!(
        get(&app, &OPERATOR, "stage").await.1["version"],
        0,
        "another cluster"
    );
    assert_eq!(
        get(&app, &ADMIN, "prod").await.1["version"],
        0,
        "another user"
    );
}

#[tokio::test]
async fn a_write_from_a_stale_version_is_a_409_with_the_stored_tabs() {
    let dir = TempDir::new("console-tabs-conflict");
    let app = app_with(&store_yaml(&dir)).await;
    assert_eq!(put(&app, &OPERATOR, "prod", &two_tabs(0)).await.0, 200);
    // A second browser that found nothing stored either.
    let (status, body) = put(&app, &OPERATOR, "prod", &two_tabs(0)).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "version_conflict");
    assert_eq!(body["current"]["version"], 1);
    assert_eq!(body["current"]["tabs"][1]["id"], "t2");
    assert_eq!(
        put(&app, &OPERATOR, "prod", &two_tabs(1)).await.1["version"],
        2
    );
    assert_eq!(put(&app, &OPERATOR, "prod", &two_tabs(1)).await.0, 409);
}

#[tokio::test]
async fn caps_and_rules_answer_in_the_common_error_body() {
    let dir = TempDir::new("console-tabs-caps");
    let app = app_with(&store_yaml(&dir)).await;
    let many: Vec<Value> = (0..21)
        .map(|n| json!({"id": format!("t{n}"), "title": "T", "text": ""}))
        .collect();
    let long = "x".repeat(64 * 1024 + 1);
    let cases = [
        (json!({"tabs": many, "version": 0}), 400),
        (
            json!({"tabs": [{"id": "t", "title": "T", "text": long}], "version": 0}),
            413,
        ),
        (
            json!({"tabs": [{"id": "a b", "title": "T", "text": ""}], "version": 0}),
            400,
        ),
        (
            json!({"tabs": [{"id": "t", "title": "T", "text": ""}], "active": "u", "version": 0}),
            400,
        ),
        (
            json!({"tabs": [], "version": 0, "owner": "someone-else"}),
            400,
        ),
        (json!({"tabs": []}), 400),
    ];
    for (body, expected) in cases {
        let (status, answer) = put(&app, &OPERATOR, "prod", &body).await;
        assert_eq!(status, expected, "{answer}");
        assert!(answer["error"]["code"].is_string(), "{answer}");
        assert!(answer["error"]["message"].is_string(), "{answer}");
    }
    assert_eq!(
        get(&app, &OPERATOR, "prod").await.1["version"],
        0,
        "nothing kept"
    );
    assert_eq!(get(&app, &OPERATOR, "nowhere").await.0, 404);
    let url = app.url("/api/console/tabs");
    assert_eq!(send(as_caller(app.client.get(url), &OPERATOR)).await.0, 400);
}

#[tokio::test]
async fn a_store_that_cannot_be_used_is_a_503() {
    let dir = TempDir::new("console-tabs-broken");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let store = format!(
        "saved_queries:\n  path: {}\n",
        file.join("saved.redb").display()
    );
    let app = app_with(&store).await;
    let (status, body) = get(&app, &OPERATOR, "prod").await;
    assert_eq!(status, 503, "{body}");
    assert!(body["error"]["code"].is_string(), "{body}");
    assert_eq!(put(&app, &OPERATOR, "prod", &two_tabs(0)).await.0, 503);
}

#[tokio::test]
async fn two_replicas_on_redis_share_tabs_and_refuse_a_stale_write() {
    let redis = test_support::RedisServer::start();
    let store = redis_yaml(&redis.url());
    let (one, two) = (app_with(&store).await, app_with(&store).await);
    let (status, saved) = put(&one, &OPERATOR, "prod", &two_tabs(0)).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(get(&two, &OPERATOR, "prod").await.1, saved);
    assert_eq!(put(&two, &OPERATOR, "prod", &two_tabs(1)).await.0, 200);
    let (status, body) = put(&one, &OPERATOR, "prod", &two_tabs(1)).await;
    assert_eq!((status, &body["current"]["version"]), (409, &json!(2)));
}
