//! Saved queries (`/api/saved-queries`): who reads and edits what, the caps, the version check
//! (409 with the current query), search, export and import, data kept across a killed process
//! (embedded store) and shared by two replicas on the real Redis the harness starts.

use serde_json::{Value, json};
use test_support::TempDir;

use crate::access::{ADMIN, Caller, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{TestApp, cluster_yaml, console_client, spawn_app};
use crate::support::send;

/// Another member of `staff` who is no operator, and one outside it.
const VIEWER_TOO: Caller = Caller {
    user: "vic",
    groups: "staff",
};
const OUTSIDER: Caller = Caller {
    user: "olga",
    groups: "sre-other",
};

pub(crate) fn store_yaml(dir: &TempDir) -> String {
    format!(
        "saved_queries:\n  path: {}\n",
        dir.path().join("saved.redb").display()
    )
}

/// The store on the Redis at `url`.
pub(crate) fn redis_yaml(url: &str) -> String {
    format!("saved_queries:\n  store: redis\n  redis: {{url: '{url}'}}\n")
}

/// trusted_headers with two clusters nothing listens on and an embedded store of its own.
pub(crate) async fn app_with(store: &str) -> TestApp {
    let clusters = format!(
        "{}{}",
        cluster_yaml("prod", "http://127.0.0.1:9"),
        cluster_yaml("stage", "http://127.0.0.1:9")
    );
    spawn_app(&format!("{}{store}", trusted_yaml(&clusters))).await
}

async fn create(app: &TestApp, caller: &Caller, body: Value) -> (u16, Value) {
    send(as_caller(app.client.post(app.url("/api/saved-queries")), caller).json(&body)).await
}

async fn created(app: &TestApp, caller: &Caller, body: Value) -> Value {
    let (status, query) = create(app, caller, body).await;
    assert_eq!(status, 201, "{query}");
    query
}

async fn get(app: &TestApp, caller: &Caller, path: &str) -> (u16, Value) {
    send(as_caller(app.client.get(app.url(path)), caller)).await
}

async fn put(app: &TestApp, caller: &Caller, id: &str, body: Value) -> (u16, Value) {
    let url = app.url(&format!("/api/saved-queries/{id}"));
    send(as_caller(app.client.put(url), caller).json(&body)).await
}

fn health(visibility: &str) -> Value {
    json!({"name": "Cluster health", "tags": ["daily", "health"], "text": "GET _cluster/health",
           "cluster": "prod", "visibility": visibility})
}

fn names(list: &Value) -> Vec<String> {
    list["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_saved_query_has_its_fields_and_is_found_by_name_tag_text_and_cluster() {
    let dir = TempDir::new("saved-fields");
    let app = app_with(&store_yaml(&dir)).await;
    let query = created(&app, &VIEWER, health("private")).await;
    assert_eq!(query["owner"], "vera");
    assert_eq!(query["version"], 1);
    assert_eq!(query["cluster"], "prod");
    assert_eq!(query["visibility"], "private");
    assert_eq!(query["tags"], json!(["daily", "health"]));
    assert!(query["updated_at"].as_str().unwrap().ends_with('Z'));
    created(
        &app,
        &VIEWER,
        json!({"name": "Nodes", "text": "GET _cat/nodes\n\nGET _nodes/stats", "cluster": "all"}),
    )
    .await;
    let search = |q: &str| format!("/api/saved-queries?{q}");
    let (_, list) = get(&app, &VIEWER, &search("")).await;
    assert_eq!(names(&list), ["Cluster health", "Nodes"]);
    assert_eq!(
        names(&get(&app, &VIEWER, &search("q=DAILY")).await.1),
        ["Cluster health"]
    );
    assert_eq!(
        names(&get(&app, &VIEWER, &search("q=_nodes")).await.1),
        ["Nodes"]
    );
    // A cluster's queries include those for all clusters.
    assert_eq!(
        names(&get(&app, &VIEWER, &search("cluster=stage")).await.1),
        ["Nodes"]
    );
    let id = query["id"].as_str().unwrap();
    let (status, one) = get(&app, &VIEWER, &format!("/api/saved-queries/{id}")).await;
    assert_eq!((status, one), (200, query.clone()));
}

#[tokio::test]
async fn a_private_query_is_hidden_from_others_but_not_from_admins() {
    let dir = TempDir::new("saved-private");
    let app = app_with(&store_yaml(&dir)).await;
    let query = created(&app, &VIEWER, health("private")).await;
    let path = format!("/api/saved-queries/{}", query["id"].as_str().unwrap());
    let (status, body) = get(&app, &OPERATOR, &path).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    assert!(names(&get(&app, &OPERATOR, "/api/saved-queries").await.1).is_empty());
    assert_eq!(get(&app, &ADMIN, &path).await.0, 200);
    let mut edit = health("private");
    edit["version"] = json!(1);
    edit["name"] = json!("Renamed by an admin");
    assert_eq!(
        put(&app, &ADMIN, query["id"].as_str().unwrap(), edit)
            .await
            .0,
        200
    );
}

/// Admin of one cluster only: no admin's rights over the queries for `all` clusters, whose
/// other clusters they do not administer (an admin of a sandbox read every private `all` query).
#[tokio::test]
async fn an_admin_of_one_cluster_gets_no_admin_rights_over_queries_for_all() {
    const SANDBOX_ADMIN: Caller = Caller {
        user: "sam",
        groups: "sandbox-team",
    };
    let dir = TempDir::new("saved-all");
    let clusters = format!(
        "{}{}    access:\n      roles: [{{group: sandbox-team, role: admin}}, {{group: dba, role: admin}}]\n",
        cluster_yaml("prod", "http://127.0.0.1:9"),
        cluster_yaml("sandbox", "http://127.0.0.1:9")
    );
    let app = spawn_app(&format!("{}{}", trusted_yaml(&clusters), store_yaml(&dir))).await;
    let mut private = health("private");
    private["cluster"] = json!("all");
    let query = created(&app, &VIEWER, private).await;
    let id = query["id"].as_str().unwrap();
    let path = format!("/api/saved-queries/{id}");
    assert_eq!(get(&app, &SANDBOX_ADMIN, &path).await.0, 404);
    let (_, list) = get(&app, &SANDBOX_ADMIN, "/api/saved-queries").await;
    assert!(names(&list).is_empty(), "{list}");
    let edit = json!({"name": "taken", "text": "GET /", "cluster": "all", "version": 1});
    assert_eq!(put(&app, &SANDBOX_ADMIN, id, edit).await.0, 404);
    // Nor may they share a query for all with a group they are not in.
    let mut shared = health("group:dba");
    shared["cluster"] = json!("all");
    assert_eq!(create(&app, &SANDBOX_ADMIN, shared).await.0, 403);
    // An admin of every cluster keeps them.
    assert_eq!(get(&app, &ADMIN, &path).await.0, 200);
}

#[tokio::test]
async fn a_shared_query_is_read_by_its_group_and_edited_only_by_operators_in_it() {
    let dir = TempDir::new("saved-shared");
    let app = app_with(&store_yaml(&dir)).await;
    let query = created(&app, &OPERATOR, health("group:staff")).await;
    let id = query["id"].as_str().unwrap();
    let path = format!("/api/saved-queries/{id}");
    assert_eq!(get(&app, &VIEWER_TOO, &path).await.0, 200);
    assert_eq!(get(&app, &OUTSIDER, &path).await.0, 404);
    let mut edit = health("group:staff");
    edit["version"] = json!(1);
    let (status, body) = put(&app, &VIEWER_TOO, id, edit.clone()).await;
    assert_eq!(status, 403, "a viewer in the group: {body}");
    assert_eq!(body["error"]["code"], "forbidden");
    // The owner (operator) edits; so would another operator of staff.
    assert_eq!(put(&app, &OPERATOR, id, edit).await.0, 200);
}

#[tokio::test]
async fn sharing_with_a_group_one_is_not_in_is_refused() {
    let dir = TempDir::new("saved-share");
    let app = app_with(&store_yaml(&dir)).await;
    let (status, body) = create(&app, &VIEWER, health("group:dba")).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = create(&app, &VIEWER, health("public")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("bad_request"))
    );
    let mut unknown = health("private");
    unknown["cluster"] = json!("nope");
    assert_eq!(create(&app, &VIEWER, unknown).await.0, 400);
}

#[tokio::test]
async fn an_edit_from_a_stale_version_is_a_409_with_the_current_query() {
    let dir = TempDir::new("saved-conflict");
    let app = app_with(&store_yaml(&dir)).await;
    let query = created(&app, &OPERATOR, health("group:staff")).await;
    let id = query["id"].as_str().unwrap();
    let mut first = health("group:staff");
    first["version"] = json!(1);
    first["text"] = json!("GET _cluster/health?level=indices");
    let mut second = first.clone();
    second["text"] = json!("GET _cluster/health?wait_for_status=green");
    // Both edits started from version 1: the first wins, the second is told.
    let (status, saved) = put(&app, &OPERATOR, id, first).await;
    assert_eq!((status, &saved["version"]), (200, &json!(2)));
    let (status, body) = put(&app, &ADMIN, id, second).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "version_conflict");
    assert_eq!(body["current"], saved);
    // A stale delete is refused the same way; the current version deletes.
    let path = format!("/api/saved-queries/{id}");
    let delete = |version: u64| {
        as_caller(
            app.client
                .delete(app.url(&format!("{path}?version={version}"))),
            &OPERATOR,
        )
    };
    assert_eq!(send(delete(1)).await.0, 409);
    assert_eq!(delete(2).send().await.unwrap().status(), 204);
    assert_eq!(get(&app, &OPERATOR, &path).await.0, 404);
}

#[tokio::test]
async fn concurrent_edits_from_one_version_save_exactly_one() {
    let dir = TempDir::new("saved-race");
    let app = app_with(&store_yaml(&dir)).await;
    let query = created(&app, &ADMIN, health("private")).await;
    let id = query["id"].as_str().unwrap().to_owned();
    let edits = (0..8).map(|n| {
        let mut body = health("private");
        body["version"] = json!(1);
        body["text"] = json!(format!("GET _cat/indices?n={n}"));
        put(&app, &ADMIN, &id, body)
    });
    let statuses: Vec<u16> = futures_util::future::join_all(edits)
        .await
        .into_iter()
        .map(|(status, _)| status)
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        7,
        "{statuses:?}"
    );
}

#[tokio::test]
async fn names_tags_and_text_are_capped_with_the_common_error_body() {
    let dir = TempDir::new("saved-caps");
    let app = app_with(&store_yaml(&dir)).await;
    let with = |field: &str, value: Value| {
        let mut body = health("private");
        body[field] = value;
        body
    };
    for (body, status) in [
        (with("name", json!("n".repeat(121))), 400),
        (with("name", json!("  ")), 400),
        (
            with(
                "tags",
                json!((0..17).map(|n| format!("t{n}")).collect::<Vec<_>>()),
            ),
            400,
        ),
        (with("tags", json!(["t".repeat(41)])), 400),
        (with("text", json!("x".repeat(64 * 1024 + 1))), 413),
        (with("unknown_field", json!(1)), 400),
    ] {
        let (got, answer) = create(&app, &VIEWER, body).await;
        assert_eq!(got, status, "{answer}");
        assert!(answer["error"]["code"].is_string(), "{answer}");
        assert!(answer["error"]["message"].is_string(), "{answer}");
    }
    assert!(names(&get(&app, &VIEWER, "/api/saved-queries").await.1).is_empty());
    // More entries than one import takes.
    let many: Vec<Value> = (0..501)
        .map(|n| json!({"name": format!("q{n}"), "text": "GET /"}))
        .collect();
    let (status, body) = create(&app, &VIEWER, Value::Array(many)).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (413, Some("too_large"))
    );
    // An import body above 4 MiB.
    let huge = format!("[{}]", " ".repeat(4 * 1024 * 1024 - 1));
    let request = app
        .client
        .post(app.url("/api/saved-queries"))
        .header("content-type", "application/json")
        .body(huge);
    let (status, answer) = send(as_caller(request, &VIEWER)).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (413, Some("too_large"))
    );
}

#[tokio::test]
async fn an_export_imports_as_another_users_queries_and_a_second_import_skips_them() {
    let dir = TempDir::new("saved-export");
    let app = app_with(&store_yaml(&dir)).await;
    created(&app, &OPERATOR, health("group:staff")).await;
    created(
        &app,
        &OPERATOR,
        json!({"name": "Mine", "text": "GET _cat/shards"}),
    )
    .await;
    let (status, export) = get(&app, &OPERATOR, "/api/saved-queries?format=export").await;
    assert_eq!(status, 200);
    assert_eq!(export["kind"], "admin-console/saved-queries");
    assert_eq!(export["queries"].as_array().unwrap().len(), 2);
    let import = |caller: &'static Caller, body: Value| {
        send(as_caller(app.client.post(app.url("/api/saved-queries")), caller).json(&body))
    };
    // VIEWER_TOO is in staff: both come in as theirs.
    let (status, report) = import(&VIEWER_TOO, export.clone()).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["created"].as_array().unwrap().len(), 2, "{report}");
    assert!(
        report["created"]
            .as_array()
            .unwrap()
            .iter()
            .all(|q| q["owner"] == "vic")
    );
    let (_, again) = import(&VIEWER_TOO, export.clone()).await;
    assert_eq!(again["created"], json!([]));
    assert_eq!(again["skipped"].as_array().unwrap().len(), 2, "{again}");
    // OUTSIDER may not share with staff, and a broken entry is skipped with its reason.
    let mut entries = export["queries"].as_array().unwrap().clone();
    entries.push(json!({"name": "broken"}));
    let (_, outsider) = import(&OUTSIDER, Value::Array(entries)).await;
    assert_eq!(
        outsider["created"].as_array().unwrap().len(),
        1,
        "{outsider}"
    );
    let skipped = outsider["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{outsider}");
    assert!(
        skipped
            .iter()
            .all(|s| s["reason"].as_str().is_some_and(|r| !r.is_empty()))
    );
}

#[test]
fn a_killed_console_keeps_every_saved_query_on_its_next_start() {
    use test_support::binary::ServiceBinary;

    let dir = TempDir::new("saved-restart");
    let binary = ServiceBinary::new(
        env!("CARGO_BIN_EXE_admin-console"),
        "admin-console",
        "/api/live",
    );
    let config = binary.config_file(
        "saved.yaml",
        &format!(
            "server:\n  host: 127.0.0.1\n  port: 0\n  static_dir: /nonexistent-admin-console-web\n{}clusters:\n{}",
            store_yaml(&dir),
            cluster_yaml("prod", "http://127.0.0.1:9")
        ),
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = console_client();
    let mut first = binary.start(&config);
    let url = format!("http://{}/api/saved-queries", first.host_port);
    let saved: Value = runtime.block_on(async {
        let response = client
            .post(&url)
            .json(&health("private"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        response.json().await.unwrap()
    });
    // SIGKILL: no shutdown path runs.
    drop(first.guard.child_mut().kill());
    let _ = first.guard.child_mut().wait();
    let second = binary.start(&config);
    let url = format!(
        "http://{}/api/saved-queries/{}",
        second.host_port,
        saved["id"].as_str().unwrap()
    );
    let (status, after) = runtime.block_on(async {
        let response = client.get(&url).send().await.unwrap();
        (
            response.status().as_u16(),
            response.json::<Value>().await.unwrap(),
        )
    });
    assert_eq!((status, after), (200, saved));
}

#[tokio::test]
async fn two_replicas_on_redis_share_queries_and_refuse_a_stale_edit() {
    let redis = test_support::RedisServer::start();
    let store = redis_yaml(&redis.url());
    let (one, two) = (app_with(&store).await, app_with(&store).await);
    let query = created(&one, &OPERATOR, health("group:staff")).await;
    let id = query["id"].as_str().unwrap();
    let (status, seen) = get(&two, &VIEWER_TOO, &format!("/api/saved-queries/{id}")).await;
    assert_eq!((status, &seen), (200, &query));
    let mut edit = health("group:staff");
    edit["version"] = json!(1);
    assert_eq!(put(&one, &OPERATOR, id, edit.clone()).await.0, 200);
    let (status, body) = put(&two, &ADMIN, id, edit).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["current"]["version"], 2);
}

#[test]
fn validation_names_the_store_kinds_and_a_missing_redis_url() {
    use test_support::binary::ServiceBinary;

    let binary = ServiceBinary::new(
        env!("CARGO_BIN_EXE_admin-console"),
        "admin-console",
        "/api/live",
    );
    let check = |name: &str, saved: &str| {
        let config = binary.config_file(
            name,
            &format!(
                "clusters:\n{}saved_queries:\n{saved}",
                cluster_yaml("prod", "http://127.0.0.1:9")
            ),
        );
        let output = binary.run(
            &["--validate-config", "--config", config.to_str().unwrap()],
            &[],
        );
        assert!(!output.status.success());
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let unknown = check("kind.yaml", "  store: sqlite\n");
    assert!(unknown.contains("saved_queries.store"), "{unknown}");
    assert!(unknown.contains("embedded or redis"), "{unknown}");
    let no_url = check("redis.yaml", "  store: redis\n");
    assert!(no_url.contains("saved_queries.redis.url"), "{no_url}");
}
