//! The production guard against real nodes (OpenSearch 2, Elasticsearch 7): on a cluster with
//! `environment: production`, management changes and relayed writes need `X-Change-Reason`
//! (428 `change_reason_required` without it), the reason goes into the audit line, reads never
//! ask, a hostile value is refused (400 `invalid_change_reason`) and never written anywhere, and
//! the same node configured without `environment` behaves as before.

use std::time::Duration;

use reqwest::RequestBuilder;
use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster, TempDir};

use crate::app::{TestApp, spawn_app};
use crate::audit::lines_of;
use crate::support::send;
use crate::support::wait_until;

const REASON: &str = "x-change-reason";

struct Guarded {
    app: TestApp,
    audit: std::path::PathBuf,
    _dir: TempDir,
}

impl Guarded {
    /// `prod` (production) and `dev` (no environment), both the same real node.
    async fn start(distribution: Distribution) -> Self {
        let cluster = tokio::task::spawn_blocking(move || SearchCluster::shared(distribution))
            .await
            .unwrap();
        assert!(cluster.security.is_none(), "an open node");
        let dir = TempDir::new("production-guard");
        let audit = dir.path().join("audit.log");
        let url = &cluster.url;
        let app = spawn_app(&format!(
            "audit:\n  file: {}\nclusters:\n  \
             - {{id: prod, name: Prod, url: '{url}', environment: production}}\n  \
             - {{id: dev, name: Dev, url: '{url}'}}\n",
            audit.display()
        ))
        .await;
        Self {
            app,
            audit,
            _dir: dir,
        }
    }

    fn url(&self, cluster: &str, tail: &str) -> String {
        self.app.url(&format!("/api/clusters/{cluster}{tail}"))
    }

    fn post(&self, cluster: &str, tail: &str, body: Value) -> RequestBuilder {
        self.app.client.post(self.url(cluster, tail)).json(&body)
    }

    fn delete(&self, cluster: &str, tail: &str) -> RequestBuilder {
        self.app.client.delete(self.url(cluster, tail))
    }

    async fn exists(&self, index: &str) -> bool {
        let (status, _) = send(
            self.app
                .client
                .get(self.url("dev", &format!("/proxy/{index}"))),
        )
        .await;
        status == 200
    }

    /// The audit lines once there are `count`.
    async fn audit_lines(&self, count: usize) -> Vec<Value> {
        let path = self.audit.clone();
        wait_until("the audit lines", Duration::from_secs(10), move || {
            lines_of(&path).len() >= count
        })
        .await;
        lines_of(&self.audit)
    }
}

fn index_body(name: &str) -> Value {
    json!({"name": name, "shards": 1, "replicas": 0})
}

fn assert_reason_required(status: u16, body: &Value) {
    assert_eq!(status, 428, "{body}");
    assert_eq!(body["error"]["code"], "change_reason_required", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("X-Change-Reason"), "{message}");
    assert!(message.contains("production"), "{message}");
}

#[tokio::test]
async fn production_changes_need_a_reason_which_is_audited() {
    for distribution in [Distribution::OpenSearch2, Distribution::Elasticsearch7] {
        changes_need_a_reason(distribution).await;
    }
}

async fn changes_need_a_reason(distribution: Distribution) {
    let f = Guarded::start(distribution).await;
    let (status, list) = f.app.get_json("/api/clusters").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["clusters"][0]["environment"], "production", "{list}");
    assert_eq!(list["clusters"][1]["environment"], Value::Null, "{list}");

    // 1. A management change without a reason: refused, nothing done, audited as denied.
    let (status, body) = send(f.post("prod", "/indices", index_body("guard-a"))).await;
    assert_reason_required(status, &body);
    assert!(!f.exists("guard-a").await, "nothing was created");

    // 2. With a reason (percent-encoded UTF-8, as the web app sends it): done, reason audited.
    let (status, body) = send(
        f.post("prod", "/indices", index_body("guard-a"))
            .header(REASON, "INC-7%3A%20J%C3%B6rg%20needs%20it"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(f.exists("guard-a").await);

    // 3. Relayed writes: refused without, relayed with; the reason never reaches the cluster
    //    (it is not a forwarded header) and reads need none.
    let relay = |tail: &str| f.url("prod", &format!("/proxy{tail}"));
    let (status, body) = send(f.app.client.put(relay("/guard-b"))).await;
    assert_reason_required(status, &body);
    assert!(!f.exists("guard-b").await);
    let (status, body) = send(
        f.app
            .client
            .put(relay("/guard-b"))
            .json(&json!({"settings": {"number_of_replicas": 0}}))
            .header(REASON, "load test index"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    for read in [
        f.app.client.get(relay("/_cat/indices/guard-*?format=json")),
        f.app
            .client
            .post(relay("/guard-*/_search"))
            .json(&json!({"size": 0})),
        f.app
            .client
            .post(relay("/guard-*/_count"))
            .header("x-console-method", "GET")
            .json(&json!({"query": {"match_all": {}}})),
        f.app.client.get(f.url("prod", "/indices/guard-a")),
        f.app.client.get(f.url("prod", "/overview")),
    ] {
        let (status, body) = send(read).await;
        assert_eq!(status, 200, "reads need no reason: {body}");
    }

    // 4. A hostile reason is refused with a clear error and written nowhere.
    let too_long = "x".repeat(501);
    for hostile in [
        "forged%0A{\"user\":\"root\"}",
        "forged\tby tab",
        "forged%1B[2K",
        "forged%E2%80%AE",
        too_long.as_str(),
    ] {
        let (status, body) = send(
            f.delete("prod", "/indices/guard-a?confirm=guard-a")
                .header(REASON, hostile),
        )
        .await;
        assert_eq!(status, 400, "{hostile}: {body}");
        assert_eq!(body["error"]["code"], "invalid_change_reason", "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("X-Change-Reason"), "{message}");
        assert!(!message.contains("forged"), "never echoed: {message}");
    }
    assert!(f.exists("guard-a").await, "nothing was deleted");

    // 5. The same node without `environment`: unchanged, no reason asked nor recorded.
    let (status, body) = send(f.delete("dev", "/indices/guard-b?confirm=guard-b")).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = send(
        f.delete("prod", "/indices/guard-a?confirm=guard-a")
            .header(REASON, "cleanup after INC-7"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(!f.exists("guard-a").await);

    // The audit file: 1 refused create, 1 create, 1 refused PUT, 1 PUT, 5 refused deletes,
    // the delete on dev and the delete on prod.
    let lines = f.audit_lines(11).await;
    let text = std::fs::read_to_string(&f.audit).unwrap();
    assert!(
        !text.contains("forged"),
        "hostile values are never written: {text}"
    );
    assert_eq!(lines.len(), 11, "{text}");
    let summary: Vec<(String, String, u64, String, Option<String>)> = lines
        .iter()
        .map(|line| {
            (
                line["cluster"].as_str().unwrap().to_owned(),
                line["method"].as_str().unwrap().to_owned(),
                line["status"].as_u64().unwrap(),
                line["outcome"].as_str().unwrap().to_owned(),
                line["reason"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let line = |cluster: &str, method: &str, status: u64, outcome: &str, reason: Option<&str>| {
        (
            cluster.to_owned(),
            method.to_owned(),
            status,
            outcome.to_owned(),
            reason.map(str::to_owned),
        )
    };
    let mut expected = vec![
        line("prod", "POST", 428, "denied", None),
        line("prod", "POST", 200, "success", Some("INC-7: Jörg needs it")),
        line("prod", "PUT", 428, "denied", None),
        line("prod", "PUT", 200, "success", Some("load test index")),
    ];
    expected.extend((0..5).map(|_| line("prod", "DELETE", 400, "denied", None)));
    expected.push(line("dev", "DELETE", 200, "success", None));
    expected.push(line(
        "prod",
        "DELETE",
        200,
        "success",
        Some("cleanup after INC-7"),
    ));
    assert_eq!(summary, expected, "{text}");
    assert!(
        lines.iter().all(|line| line.get("reason").is_some()
            == (line["status"] == 200 && line["cluster"] == "prod")),
        "the reason key only where one was given: {text}"
    );
}
