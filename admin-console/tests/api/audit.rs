//! The audit log of state-changing calls (`audit.file`, counters on `/_metrics`) and the
//! validation of the `access`/`audit` settings. The calls go to the shared real OpenSearch 2
//! node through a recording proxy of the test's own (index names `audit-…`); the allocation
//! lock is cluster-wide and other suites move it, so the proxy answers that call 503 rather
//! than let it reach the node.

use std::time::Duration;

use admin_console::Settings;
use serde_json::{Value, json};
use service_kit::config::{ConfigLoader, ConfigProblems, Validate};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{cluster_yaml, spawn_app};
use crate::support::real::{proxy_before, shared};
use crate::support::wait_until;

pub(crate) fn lines_of(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

#[tokio::test]
async fn state_changing_calls_are_audited_without_bodies_or_credentials() {
    let cluster = shared(Distribution::OpenSearch2).await;
    crate::support::seed_indices(&cluster.url, "audit-ledger", 1, |_| 1).await;
    let recorder = proxy_before(cluster);
    let dir = TempDir::new("audit");
    let file = dir.path().join("audit.log");
    // A unique cluster id: the counters are process-wide.
    let app = spawn_app(&format!(
        "{}audit:\n  file: {}\n",
        trusted_yaml(&cluster_yaml("audited", &recorder.url)),
        file.display()
    ))
    .await;
    let proxy = |tail: &str| app.url(&format!("/api/clusters/audited/proxy{tail}"));

    // 1. An admin writes a document holding a password, with credentials of their own.
    let written = as_caller(
        app.client
            .put(proxy("/audit-ledger-0000/_doc/7?refresh=true"))
            .header("authorization", "Basic c2VjcmV0LXVzZXI6aHVudGVyMg==")
            .header("cookie", "session=cookie-secret-value")
            .header("x-request-id", "req-from-proxy-1")
            .header("x-forwarded-for", "203.0.113.7")
            .json(&json!({"user": "x", "password": "hunter2-body-secret"})),
        &ADMIN,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(written.status(), 201);
    // 2. A viewer tries to close the index: refused, audited as denied.
    let refused = as_caller(app.client.post(proxy("/audit-ledger-0000/_close")), &VIEWER)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    // 3. An operator deletes nothing: the cluster's 404 is a failure.
    let missing = as_caller(
        app.client.post(proxy("/audit-no-such-index/_refresh")),
        &OPERATOR,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(missing.status(), 404);
    // 4. Reads are not audited.
    let read = as_caller(
        app.client
            .post(proxy("/audit-ledger-0000/_search"))
            .json(&json!({})),
        &VIEWER,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(read.status(), 200);
    // 5. The allocation lock is: sent, and the cluster's 503 is a failure.
    recorder.set_unavailable(true);
    let lock = as_caller(
        app.client
            .put(app.url("/api/clusters/audited/allocation"))
            .json(&json!({"enable": "all"})),
        &OPERATOR,
    )
    .send()
    .await
    .unwrap();
    recorder.set_unavailable(false);
    assert_eq!(lock.status(), 502);
    assert!(
        recorder
            .requests()
            .iter()
            .any(|r| r.method == "PUT" && r.path == "/_cluster/settings"),
        "the lock's PUT was sent"
    );

    let path = file.clone();
    wait_until("four audit lines", Duration::from_secs(10), move || {
        lines_of(&path).len() >= 4
    })
    .await;
    let text = std::fs::read_to_string(&file).unwrap();
    for secret in [
        "hunter2",
        "c2VjcmV0",
        "cookie-secret-value",
        "password",
        "authorization",
        "Authorization",
    ] {
        assert!(!text.contains(secret), "{secret} leaked into {text}");
    }
    let lines = lines_of(&file);
    assert_eq!(lines.len(), 4, "{text}");
    let write = &lines[0];
    assert_eq!(write["user"], "ada");
    assert_eq!(write["groups"], json!(["dba"]));
    assert_eq!(write["source"], "203.0.113.7");
    assert_eq!(write["cluster"], "audited");
    assert_eq!(write["method"], "PUT");
    assert_eq!(
        write["path"],
        "/api/clusters/audited/proxy/audit-ledger-0000/_doc/7?refresh=true"
    );
    assert_eq!(write["status"], 201);
    assert_eq!(write["outcome"], "success");
    assert_eq!(write["request_id"], "req-from-proxy-1");
    assert!(write["duration_ms"].is_u64());
    assert!(write["time"].as_str().unwrap().ends_with('Z'));
    let denied = &lines[1];
    assert_eq!(denied["user"], "vera");
    assert_eq!(denied["status"], 403);
    assert_eq!(denied["outcome"], "denied");
    assert_eq!(denied["role"], "viewer");
    assert_eq!(denied["source"], "127.0.0.1");
    assert_eq!(
        denied["request_id"].as_str().unwrap().len(),
        32,
        "generated when the proxy sent none"
    );
    assert_eq!(lines[2]["status"], 404);
    assert_eq!(lines[2]["outcome"], "failure");
    assert_eq!(lines[3]["path"], "/api/clusters/audited/allocation");
    assert_eq!(lines[3]["method"], "PUT");
    assert_eq!(lines[3]["status"], 502);
    assert_eq!(lines[3]["outcome"], "failure");

    let scrape = app
        .client
        .get(format!("{}/_metrics", app.internal))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let count = |outcome: &str| -> Option<String> {
        scrape
            .lines()
            .find(|line| {
                line.starts_with("admin_console_audit_events_total{")
                    && line.contains("cluster=\"audited\"")
                    && line.contains(&format!("outcome=\"{outcome}\""))
            })
            .and_then(|line| line.rsplit(' ').next())
            .map(str::to_owned)
    };
    assert_eq!(count("success").as_deref(), Some("1"), "{scrape}");
    assert_eq!(count("denied").as_deref(), Some("1"));
    assert_eq!(count("failure").as_deref(), Some("2"));
}

/// Validating a metrics server makes the console call a URL the caller
/// chooses, so each call is audited with that URL (without its password), who asked and how it
/// ended, refused ones included.
#[tokio::test]
async fn validating_a_metrics_server_is_audited_with_the_url() {
    let cluster = shared(Distribution::OpenSearch2).await;
    let dir = TempDir::new("audit-validate");
    let file = dir.path().join("audit.log");
    let app = spawn_app(&format!(
        "{}audit:\n  file: {}\n",
        trusted_yaml(&cluster_yaml("validated", &cluster.url)),
        file.display()
    ))
    .await;
    let validate = |caller, url: &str| {
        as_caller(
            app.client
                .post(app.url("/api/metrics_server/validate"))
                .json(&json!({"url": url, "labels": {}})),
            caller,
        )
        .send()
    };
    let answer = validate(&ADMIN, "http://127.0.0.1:1/prom").await.unwrap();
    assert_eq!(answer.status(), 200);
    let refused = validate(&ADMIN, "http://scraper:s3cret-pass@127.0.0.1:1/prom")
        .await
        .unwrap();
    assert_eq!(refused.status(), 400, "credentials in the URL are refused");
    let refused = validate(&VIEWER, "http://169.254.169.254/latest")
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);

    let path = file.clone();
    wait_until("three audit lines", Duration::from_secs(10), move || {
        lines_of(&path).len() >= 3
    })
    .await;
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains("s3cret-pass"),
        "a password in the URL leaked: {text}"
    );
    let lines = lines_of(&file);
    assert_eq!(lines.len(), 3, "{text}");
    let admin = &lines[0];
    assert_eq!(admin["user"], "ada");
    assert_eq!(admin["method"], "POST");
    assert_eq!(admin["path"], "/api/metrics_server/validate");
    assert_eq!(admin["url"], "http://127.0.0.1:1/prom");
    assert_eq!(admin["status"], 200);
    assert_eq!(admin["outcome"], "success");
    assert_eq!(admin["result"], "error", "the server was not reachable");
    assert_eq!(admin["role"], "admin");
    assert_eq!(admin["cluster"], Value::Null);
    assert_eq!(
        lines[1]["url"], "http://127.0.0.1:1/prom",
        "credentials left out"
    );
    assert_eq!(lines[1]["status"], 400);
    assert_eq!(lines[1]["outcome"], "failure");
    let viewer = &lines[2];
    assert_eq!(viewer["user"], "vera");
    assert_eq!(viewer["url"], "http://169.254.169.254/latest");
    assert_eq!(viewer["status"], 403);
    assert_eq!(viewer["outcome"], "denied");
    assert_eq!(viewer["role"], "viewer");
}

fn load(yaml: &str) -> Result<Settings, Vec<String>> {
    ConfigLoader::new("ADMIN_CONSOLE")
        .with_env(Default::default())
        .load_str(yaml)
        .map_err(|problems| problems.iter().map(|p| p.to_string()).collect())
}

#[test]
fn access_settings_are_validated_with_precise_keys() {
    let problems = load(
        "server:
  trusted_proxies: [10.0.0.0/8, not-an-address]
access:
  mode: trusted_headers
  roles:
    - {group: '[unclosed', role: admin}
    - {group: '', role: viewer}
    - {group: ops, role: none}
clusters:
  - id: a
    name: A
    url: http://127.0.0.1:9200
    read_only: true
    access:
      roles: [{group: dev, role: none}]
",
    )
    .unwrap_err();
    for expected in [
        "server.trusted_proxies[1]",
        "access.roles[0].group",
        "access.roles[1].group",
        "access.roles[2].role",
        "clusters[0].access.roles[0].role",
    ] {
        assert!(
            problems.iter().any(|problem| problem.starts_with(expected)),
            "{expected} in {problems:?}"
        );
    }
    assert_eq!(problems.len(), 5, "{problems:?}");
    let unknown = load("access:\n  mode: closed\n").unwrap_err();
    assert!(unknown.iter().any(|p| p.contains("access")), "{unknown:?}");
    let unknown = load("access:\n  default_role: root\n").unwrap_err();
    assert!(unknown.iter().any(|p| p.contains("access")), "{unknown:?}");
}

#[test]
fn trusted_headers_without_trusted_proxies_is_a_warning() {
    const ONE_CLUSTER: &str = "clusters:\n  - {id: a, name: A, url: 'http://127.0.0.1:9200'}\n";
    let settings = load(&format!("access:\n  mode: trusted_headers\n{ONE_CLUSTER}")).unwrap();
    assert_eq!(
        settings.access.default_role(),
        admin_console::config::Role::Viewer
    );
    let mut warnings = ConfigProblems::new();
    settings.warnings(&mut warnings);
    let warnings: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("server.trusted_proxies") && w.contains("401")),
        "{warnings:?}"
    );
    let open = load(&format!(
        "access:\n  roles: [{{group: ops, role: admin}}]\n{ONE_CLUSTER}"
    ))
    .unwrap();
    let mut warnings = ConfigProblems::new();
    open.warnings(&mut warnings);
    assert!(
        warnings
            .iter()
            .any(|w| w.to_string().starts_with("access.mode"))
    );
}
