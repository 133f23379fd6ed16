//! Templates (issue 19): composable, component and legacy templates listed, viewed, created,
//! replaced, simulated and deleted through `/api/clusters/:id/templates…`, against osmem-server
//! behind search-test-server (which records what the console sent); and who may do it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::RequestBuilder;
use search_test_server::{Options, Recorded, SearchTestServer};
use serde_json::{Value, json};
use test_support::{Osmem, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::wait_until;

pub(crate) struct Fixture {
    pub(crate) app: TestApp,
    pub(crate) front: SearchTestServer,
    _osmem: Osmem,
}

/// osmem behind search-test-server (`options`' osmem_url is filled in), the console in open mode
/// with one cluster `main`.
pub(crate) async fn fixture(options: Options) -> Fixture {
    let osmem = Osmem::start();
    let front = SearchTestServer::start(Options {
        osmem_url: osmem.url.clone(),
        ..options
    });
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("main", &front.url))).await;
    Fixture {
        app,
        front,
        _osmem: osmem,
    }
}

pub(crate) async fn send(request: RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The requests the front received whose path starts with `prefix`.
pub(crate) fn sent(front: &SearchTestServer, prefix: &str) -> Vec<Recorded> {
    front
        .requests()
        .into_iter()
        .filter(|request| request.path.starts_with(prefix))
        .collect()
}

fn api(f: &Fixture, tail: &str) -> String {
    f.app.url(&format!("/api/clusters/main/templates{tail}"))
}

#[tokio::test]
async fn templates_are_created_listed_viewed_simulated_and_deleted() {
    let f = fixture(Options::default()).await;
    let put = |tail: &str, body: Value| f.app.client.put(api(&f, tail)).json(&body);
    let (status, component) = send(put(
        "/component/base",
        json!({"definition": {"template": {"settings": {"index.number_of_shards": 2}}, "version": 1}, "create": true}),
    ))
    .await;
    assert_eq!(status, 200, "{component}");
    assert_eq!(component["kind"], "component");
    assert_eq!(component["definition"]["version"], 1);
    for (name, priority) in [("logs", 10), ("logs-low", 1)] {
        let (status, body) = send(put(
            &format!("/index/{name}"),
            json!({"definition": {"index_patterns": ["logs-*"], "priority": priority, "composed_of": ["base"],
                "template": {"mappings": {"properties": {"message": {"type": "text"}}}, "aliases": {"all-logs": {}}}},
                "create": true}),
        ))
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, _) = send(put(
        "/legacy/old",
        json!({"definition": {"index_patterns": ["logs-*", "old-*"], "order": 3, "version": 7}}),
    ))
    .await;
    assert_eq!(status, 200);
    // What was sent: the definition as given, create=true only when asked.
    let puts: Vec<(String, String)> = sent(&f.front, "/_")
        .into_iter()
        .filter(|r| r.method == "PUT")
        .map(|r| (r.path, r.query))
        .collect();
    assert_eq!(
        puts,
        vec![
            (
                "/_component_template/base".to_owned(),
                "create=true".to_owned()
            ),
            ("/_index_template/logs".to_owned(), "create=true".to_owned()),
            (
                "/_index_template/logs-low".to_owned(),
                "create=true".to_owned()
            ),
            ("/_template/old".to_owned(), String::new()),
        ]
    );
    let legacy_put = sent(&f.front, "/_template/old")
        .into_iter()
        .find(|r| r.method == "PUT")
        .unwrap();
    assert_eq!(legacy_put.body.unwrap()["order"], 3);

    let (status, list) = send(f.app.client.get(api(&f, ""))).await;
    assert_eq!(status, 200);
    assert_eq!(list["index"][0]["name"], "logs");
    assert_eq!(list["index"][0]["indexPatterns"], json!(["logs-*"]));
    assert_eq!(list["index"][0]["priority"], 10);
    assert_eq!(list["index"][0]["composedOf"], json!(["base"]));
    assert_eq!(list["index"][0]["dataStream"], false);
    assert_eq!(list["component"][0]["name"], "base");
    assert_eq!(list["component"][0]["usedBy"], json!(["logs", "logs-low"]));
    assert_eq!(list["component"][0]["hasSettings"], true);
    assert_eq!(list["legacy"][0]["name"], "old");
    assert_eq!(list["legacy"][0]["order"], 3);
    assert_eq!(list["errors"], json!([]));

    let (status, detail) = send(f.app.client.get(api(&f, "/index/logs"))).await;
    assert_eq!(status, 200);
    assert_eq!(detail["definition"]["composed_of"], json!(["base"]));

    // Replacing (no create) keeps the name and changes the definition.
    let (status, replaced) = send(put(
        "/index/logs",
        json!({"definition": {"index_patterns": ["logs-*"], "priority": 20, "composed_of": ["base"]}}),
    ))
    .await;
    assert_eq!(status, 200, "{replaced}");
    assert_eq!(replaced["definition"]["priority"], 20);

    f.front.clear_requests();
    let (status, simulated) = send(
        f.app
            .client
            .post(api(&f, "/simulate"))
            .json(&json!({"index": "logs-2026.11.24"})),
    )
    .await;
    assert_eq!(status, 200, "{simulated}");
    assert_eq!(simulated["template"], "logs");
    assert_eq!(simulated["settings"]["index"]["number_of_shards"], "2");
    // Overlapping: the lower-priority composable template and the legacy one that also match.
    let mut overlapping: Vec<&str> = simulated["overlapping"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    overlapping.sort_unstable();
    assert_eq!(overlapping, vec!["logs-low", "old"], "{simulated}");
    assert_eq!(simulated["legacyMatches"], json!(["old"]));
    let simulation = sent(&f.front, "/_index_template/_simulate_index/");
    assert_eq!(simulation.len(), 1);
    assert_eq!(simulation[0].method, "POST");
    assert_eq!(
        simulation[0].path,
        "/_index_template/_simulate_index/logs-2026.11.24"
    );
    let (status, nothing) = send(
        f.app
            .client
            .post(api(&f, "/simulate"))
            .json(&json!({"index": "metrics-1"})),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(nothing["template"], Value::Null);
    assert_eq!(nothing["settings"], json!({}));

    // Delete: the name typed again.
    let (status, body) = send(f.app.client.delete(api(&f, "/index/logs-low"))).await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("confirm=logs-low"),
        "{body}"
    );
    let (status, deleted) = send(
        f.app
            .client
            .delete(api(&f, "/index/logs-low?confirm=logs-low")),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(deleted, json!({"kind": "index", "name": "logs-low"}));
    assert_eq!(
        sent(&f.front, "/_index_template/logs-low")
            .last()
            .map(|r| r.method.clone()),
        Some("DELETE".to_owned())
    );
    let (status, gone) = send(f.app.client.get(api(&f, "/index/logs-low"))).await;
    assert_eq!(status, 404, "{gone}");
    assert_eq!(gone["error"]["code"], "rejected_by_cluster");
    assert_eq!(
        gone["error"]["message"],
        "The cluster has no index template named \"logs-low\"."
    );
    let (status, _) = send(f.app.client.delete(api(&f, "/legacy/old?confirm=old"))).await;
    assert_eq!(status, 200, "legacy delete");
}

#[tokio::test]
async fn bad_template_input_is_refused_before_the_cluster_sees_it() {
    let f = fixture(Options::default()).await;
    let put = |tail: &str, body: Value| f.app.client.put(api(&f, tail)).json(&body);
    for (request, expected) in [
        (
            put(
                "/index/Logs",
                json!({"definition": {"index_patterns": ["a"]}}),
            ),
            "must be lower case",
        ),
        (
            put(
                "/index/a%2Fb",
                json!({"definition": {"index_patterns": ["a"]}}),
            ),
            "must not contain '/'",
        ),
        (
            put(
                "/index/_x",
                json!({"definition": {"index_patterns": ["a"]}}),
            ),
            "must not start with _",
        ),
        (
            put(
                "/index/a*",
                json!({"definition": {"index_patterns": ["a"]}}),
            ),
            "must not contain '*'",
        ),
        (
            put("/v1/a", json!({"definition": {"index_patterns": ["a"]}})),
            "use index, component or legacy",
        ),
        (
            put("/index/a", json!({"definition": [1, 2]})),
            "must be a JSON object, not a list",
        ),
        (
            put("/index/a", json!({"definition": {"priority": 1}})),
            "needs \"index_patterns\"",
        ),
        (
            put("/component/a", json!({"definition": {"settings": {}}})),
            "needs \"template\"",
        ),
        (put("/index/a", json!({"template": {}})), "unknown field"),
        (
            f.app.client.delete(api(&f, "/index/a?confirm=b")),
            "confirm=a",
        ),
        (
            f.app.client.delete(api(&f, "/index/*?confirm=*")),
            "must not contain '*'",
        ),
        (
            f.app
                .client
                .post(api(&f, "/simulate"))
                .json(&json!({"index": "../x"})),
            "The index name \"../x\" contains \"/\"",
        ),
    ] {
        let (status, body) = send(request).await;
        assert_eq!(status, 400, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{expected}: {body}");
    }
    assert!(
        sent(&f.front, "/_index_template").is_empty()
            && sent(&f.front, "/_component_template").is_empty()
            && sent(&f.front, "/_template").is_empty(),
        "nothing reached the cluster: {:?}",
        f.front.requests()
    );
    // The cluster's own refusals pass through with its reason: a taken name with create, a
    // component template that does not exist.
    let definition = json!({"definition": {"index_patterns": ["t-*"]}, "create": true});
    assert_eq!(send(put("/index/taken", definition.clone())).await.0, 200);
    let (status, body) = send(put("/index/taken", definition)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "rejected_by_cluster");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already exists"),
        "{body}"
    );
    let (status, body) = send(put(
        "/index/broken",
        json!({"definition": {"index_patterns": ["b-*"], "composed_of": ["missing"]}}),
    ))
    .await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("missing"),
        "{body}"
    );
}

/// The audit lines of `file` once `count` are there.
pub(crate) async fn audit_lines(file: &Path, count: usize) -> Vec<Value> {
    let path: PathBuf = file.to_owned();
    let read = |path: &Path| -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    };
    let waited = path.clone();
    wait_until("the audit lines", Duration::from_secs(10), move || {
        read(&waited).len() >= count
    })
    .await;
    read(&path)
}

/// The console in trusted_headers mode in front of `front`, auditing to a file in `dir`.
pub(crate) async fn trusted_app(front_url: &str, dir: &TempDir) -> (TestApp, PathBuf) {
    let file = dir.path().join("audit.log");
    let app = spawn_app(&format!(
        "{}audit:\n  file: {}\n",
        trusted_yaml(&cluster_yaml("main", front_url)),
        file.display()
    ))
    .await;
    (app, file)
}

#[tokio::test]
async fn a_viewer_reads_and_simulates_only_an_admin_writes_templates() {
    let osmem = Osmem::start();
    let front = SearchTestServer::start(Options {
        osmem_url: osmem.url.clone(),
        ..Options::default()
    });
    let dir = TempDir::new("templates-roles");
    let (app, file) = trusted_app(&front.url, &dir).await;
    let url = |tail: &str| app.url(&format!("/api/clusters/main/templates{tail}"));
    let definition = json!({"definition": {"index_patterns": ["r-*"]}});
    for caller in [&VIEWER, &OPERATOR] {
        let (status, body) = send(as_caller(
            app.client.put(url("/index/r")).json(&definition),
            caller,
        ))
        .await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(body["error"]["code"], "forbidden");
        let (status, _) = send(as_caller(
            app.client.delete(url("/index/r?confirm=r")),
            caller,
        ))
        .await;
        assert_eq!(status, 403);
    }
    assert!(sent(&front, "/_index_template/r").is_empty());
    let (status, _) = send(as_caller(app.client.get(url("")), &VIEWER)).await;
    assert_eq!(status, 200);
    let (status, _) = send(as_caller(
        app.client
            .post(url("/simulate"))
            .json(&json!({"index": "r-1"})),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200, "simulating is reading");
    let (status, body) = send(as_caller(
        app.client.put(url("/index/r")).json(&definition),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 200, "{body}");
    let lines = audit_lines(&file, 5).await;
    let denied: Vec<&Value> = lines
        .iter()
        .filter(|line| line["outcome"] == "denied")
        .collect();
    assert_eq!(denied.len(), 4, "{lines:?}");
    assert_eq!(denied[0]["user"], "vera");
    assert_eq!(denied[0]["path"], "/api/clusters/main/templates/index/r");
    let written = lines.iter().find(|line| line["user"] == "ada").unwrap();
    assert_eq!(written["outcome"], "success");
    assert_eq!(written["method"], "PUT");
}
