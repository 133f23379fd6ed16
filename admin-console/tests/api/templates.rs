//! Templates: composable, component and legacy templates listed, viewed, created, replaced,
//! simulated and deleted through `/api/clusters/:id/templates…`, against real nodes of
//! OpenSearch 2 and Elasticsearch 8 (secured) through a recording proxy that shows what the
//! console sent; and who may do it. The nodes are shared with other suites (Elasticsearch 8
//! comes with built-in templates of its own): each test keeps to template names of its own.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{REAL, Real, real, real_with};
use crate::support::{send, wait_until};

fn api(f: &Real, tail: &str) -> String {
    f.url(&format!("/templates{tail}"))
}

/// The row named `name` of a list section.
fn row<'a>(list: &'a Value, section: &str, name: &str) -> &'a Value {
    list[section]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == name)
        .unwrap_or_else(|| panic!("{section} {name} in {list}"))
}

#[tokio::test]
async fn templates_are_created_listed_viewed_simulated_and_deleted() {
    for distribution in REAL {
        templates_round_trip(distribution).await;
    }
}

async fn templates_round_trip(distribution: Distribution) {
    let f = real(distribution).await;
    let put = |tail: &str, body: Value| f.app.client.put(api(&f, tail)).json(&body);
    // The legacy template first: Elasticsearch 8 refuses one whose patterns overlap a
    // composable template's (the other way round is a warning only).
    let (status, body) = send(put(
        "/legacy/tpl-old",
        json!({"definition": {"index_patterns": ["tpl-logs-*", "tpl-old-*"], "order": 3, "version": 7}}),
    ))
    .await;
    assert_eq!(status, 200, "{distribution:?}: {body}");
    let (status, component) = send(put(
        "/component/tpl-base",
        json!({"definition": {"template": {"settings": {"index.number_of_shards": 2}}, "version": 1}, "create": true}),
    ))
    .await;
    assert_eq!(status, 200, "{distribution:?}: {component}");
    assert_eq!(component["kind"], "component");
    assert_eq!(component["definition"]["version"], 1);
    for (name, priority) in [("tpl-logs", 10), ("tpl-logs-low", 1)] {
        let (status, body) = send(put(
            &format!("/index/{name}"),
            json!({"definition": {"index_patterns": ["tpl-logs-*"], "priority": priority, "composed_of": ["tpl-base"],
                "template": {"mappings": {"properties": {"message": {"type": "text"}}}, "aliases": {"tpl-all-logs": {}}}},
                "create": true}),
        ))
        .await;
        assert_eq!(status, 200, "{distribution:?}: {body}");
    }
    // What was sent: the definition as given, create=true only when asked.
    let puts: Vec<(String, String)> = f
        .sent("/_")
        .into_iter()
        .filter(|r| r.method == "PUT")
        .map(|r| (r.path, r.query))
        .collect();
    assert_eq!(
        puts,
        vec![
            ("/_template/tpl-old".to_owned(), String::new()),
            (
                "/_component_template/tpl-base".to_owned(),
                "create=true".to_owned()
            ),
            (
                "/_index_template/tpl-logs".to_owned(),
                "create=true".to_owned()
            ),
            (
                "/_index_template/tpl-logs-low".to_owned(),
                "create=true".to_owned()
            ),
        ]
    );
    let legacy_put = f
        .sent("/_template/tpl-old")
        .into_iter()
        .find(|r| r.method == "PUT")
        .unwrap();
    assert_eq!(legacy_put.body.unwrap()["order"], 3);

    let (status, list) = send(f.app.client.get(api(&f, ""))).await;
    assert_eq!(status, 200, "{list}");
    let logs = row(&list, "index", "tpl-logs");
    assert_eq!(logs["indexPatterns"], json!(["tpl-logs-*"]), "{logs}");
    assert_eq!(logs["priority"], 10, "{logs}");
    assert_eq!(logs["composedOf"], json!(["tpl-base"]), "{logs}");
    assert_eq!(logs["dataStream"], false, "{logs}");
    let base = row(&list, "component", "tpl-base");
    assert_eq!(
        base["usedBy"],
        json!(["tpl-logs", "tpl-logs-low"]),
        "{base}"
    );
    assert_eq!(base["hasSettings"], true, "{base}");
    assert_eq!(row(&list, "legacy", "tpl-old")["order"], 3);
    assert_eq!(list["errors"], json!([]), "{distribution:?}");

    let (status, detail) = send(f.app.client.get(api(&f, "/index/tpl-logs"))).await;
    assert_eq!(status, 200, "{detail}");
    assert_eq!(detail["definition"]["composed_of"], json!(["tpl-base"]));

    // Replacing (no create) keeps the name and changes the definition.
    let (status, replaced) = send(put(
        "/index/tpl-logs",
        json!({"definition": {"index_patterns": ["tpl-logs-*"], "priority": 20, "composed_of": ["tpl-base"]}}),
    ))
    .await;
    assert_eq!(status, 200, "{replaced}");
    assert_eq!(replaced["definition"]["priority"], 20);

    f.proxy.clear_requests();
    let (status, simulated) = send(
        f.app
            .client
            .post(api(&f, "/simulate"))
            .json(&json!({"index": "tpl-logs-2026.11.24"})),
    )
    .await;
    assert_eq!(status, 200, "{simulated}");
    assert_eq!(simulated["template"], "tpl-logs", "{simulated}");
    assert_eq!(
        simulated["settings"]["index"]["number_of_shards"], "2",
        "{simulated}"
    );
    // Overlapping: the lower-priority composable template and the legacy one that also match.
    let mut overlapping: Vec<&str> = simulated["overlapping"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    overlapping.sort_unstable();
    assert_eq!(
        overlapping,
        vec!["tpl-logs-low", "tpl-old"],
        "{distribution:?}: {simulated}"
    );
    assert_eq!(
        simulated["legacyMatches"],
        json!(["tpl-old"]),
        "{simulated}"
    );
    let simulation = f.sent("/_index_template/_simulate_index/");
    assert_eq!(simulation.len(), 1);
    assert_eq!(simulation[0].method, "POST");
    assert_eq!(
        simulation[0].path,
        "/_index_template/_simulate_index/tpl-logs-2026.11.24"
    );
    let (status, nothing) = send(
        f.app
            .client
            .post(api(&f, "/simulate"))
            .json(&json!({"index": "tpl-none-1"})),
    )
    .await;
    assert_eq!(status, 200, "{nothing}");
    assert_eq!(nothing["template"], Value::Null, "{nothing}");
    assert_eq!(nothing["settings"], json!({}), "{nothing}");

    // Delete: the name typed again.
    let (status, body) = send(f.app.client.delete(api(&f, "/index/tpl-logs-low"))).await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("confirm=tpl-logs-low"),
        "{body}"
    );
    let (status, deleted) = send(
        f.app
            .client
            .delete(api(&f, "/index/tpl-logs-low?confirm=tpl-logs-low")),
    )
    .await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted, json!({"kind": "index", "name": "tpl-logs-low"}));
    assert_eq!(
        f.sent("/_index_template/tpl-logs-low")
            .last()
            .map(|r| r.method.clone()),
        Some("DELETE".to_owned())
    );
    let (status, gone) = send(f.app.client.get(api(&f, "/index/tpl-logs-low"))).await;
    assert_eq!(status, 404, "{gone}");
    assert_eq!(gone["error"]["code"], "rejected_by_cluster");
    assert_eq!(
        gone["error"]["message"],
        "The cluster has no index template named \"tpl-logs-low\"."
    );
    for tail in [
        "/legacy/tpl-old?confirm=tpl-old",
        "/index/tpl-logs?confirm=tpl-logs",
        "/component/tpl-base?confirm=tpl-base",
    ] {
        let (status, body) = send(f.app.client.delete(api(&f, tail))).await;
        assert_eq!(status, 200, "DELETE {tail}: {body}");
    }
}

#[tokio::test]
async fn bad_template_input_is_refused_before_the_cluster_sees_it() {
    for distribution in REAL {
        bad_template_input(distribution).await;
    }
}

async fn bad_template_input(distribution: Distribution) {
    let f = real(distribution).await;
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
        f.sent("/_index_template").is_empty()
            && f.sent("/_component_template").is_empty()
            && f.sent("/_template").is_empty(),
        "nothing reached the cluster: {:?}",
        f.proxy.requests()
    );
    // The cluster's own refusals pass through with its reason: a taken name with create, a
    // component template that does not exist.
    let definition = json!({"definition": {"index_patterns": ["tpl-t-*"]}, "create": true});
    assert_eq!(
        send(put("/index/tpl-taken", definition.clone())).await.0,
        200
    );
    let (status, body) = send(put("/index/tpl-taken", definition)).await;
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
        "/index/tpl-broken",
        json!({"definition": {"index_patterns": ["tpl-b-*"], "composed_of": ["tpl-missing"]}}),
    ))
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tpl-missing"),
        "{body}"
    );
    let (status, body) = send(
        f.app
            .client
            .delete(api(&f, "/index/tpl-taken?confirm=tpl-taken")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
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
    let dir = TempDir::new("templates-roles");
    let file = dir.path().join("audit.log");
    let f = real_with(Distribution::OpenSearch2, |clusters| {
        format!(
            "{}audit:\n  file: {}\n",
            trusted_yaml(clusters),
            file.display()
        )
    })
    .await;
    let app = &f.app;
    let url = |tail: &str| api(&f, tail);
    let definition = json!({"definition": {"index_patterns": ["tpl-r-*"]}});
    for caller in [&VIEWER, &OPERATOR] {
        let (status, body) = send(as_caller(
            app.client.put(url("/index/tpl-r")).json(&definition),
            caller,
        ))
        .await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(body["error"]["code"], "forbidden");
        let (status, _) = send(as_caller(
            app.client.delete(url("/index/tpl-r?confirm=tpl-r")),
            caller,
        ))
        .await;
        assert_eq!(status, 403);
    }
    assert!(f.sent("/_index_template/tpl-r").is_empty());
    let (status, _) = send(as_caller(app.client.get(url("")), &VIEWER)).await;
    assert_eq!(status, 200);
    let (status, _) = send(as_caller(
        app.client
            .post(url("/simulate"))
            .json(&json!({"index": "tpl-r-1"})),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200, "simulating is reading");
    let (status, body) = send(as_caller(
        app.client.put(url("/index/tpl-r")).json(&definition),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 200, "{body}");
    let changes: Vec<String> = f
        .sent("/_index_template/tpl-r")
        .into_iter()
        .filter(|r| r.method != "GET")
        .map(|r| r.method)
        .collect();
    assert_eq!(changes, ["PUT"], "the admin's only");
    let lines = audit_lines(&file, 5).await;
    let denied: Vec<&Value> = lines
        .iter()
        .filter(|line| line["outcome"] == "denied")
        .collect();
    assert_eq!(denied.len(), 4, "{lines:?}");
    assert_eq!(denied[0]["user"], "vera");
    assert_eq!(
        denied[0]["path"],
        "/api/clusters/main/templates/index/tpl-r"
    );
    let written = lines.iter().find(|line| line["user"] == "ada").unwrap();
    assert_eq!(written["outcome"], "success");
    assert_eq!(written["method"], "PUT");
}
