//! The console against real single nodes of OpenSearch 2.19, OpenSearch 3, Elasticsearch 7.10
//! and Elasticsearch 8.19 with x-pack security (the versions pinned in versions.env, from Maven):
//! every view and the management routes once, with what the real server answers rather than
//! what a stand-in thinks it answers. One node per distribution is shared by the tests of this
//! module; each keeps to index, alias and template names of its own. The secured Elasticsearch 8
//! is reached over HTTPS with the harness's CA as the cluster's `tls.ca_file` and the `elastic`
//! superuser's password as its basic-auth credential; its `GET /` comes from the small
//! `root-info` plugin the install script adds (the integ-test zip has no `rest-root` module).

mod operations;
mod secured;
mod views;

use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster};

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::send;

/// Each test runs against each.
const DISTRIBUTIONS: [Distribution; 4] = [
    Distribution::OpenSearch2,
    Distribution::OpenSearch3,
    Distribution::Elasticsearch7,
    Distribution::Elasticsearch8Secured,
];

async fn console(distribution: Distribution) -> (TestApp, &'static SearchCluster) {
    let cluster = tokio::task::spawn_blocking(move || SearchCluster::shared(distribution))
        .await
        .unwrap();
    let mut yaml = cluster_yaml("real", &cluster.url);
    if let Some(security) = &cluster.security {
        yaml.push_str(&format!(
            "    auth:\n      username: {}\n      password: '{}'\n    tls:\n      ca_file: {}\n",
            security.admin_user,
            security.admin_password,
            security.ca_file.display()
        ));
    }
    let app = spawn_app(&format!("clusters:\n{yaml}")).await;
    (app, cluster)
}

fn api(app: &TestApp, tail: &str) -> String {
    app.url(&format!("/api/clusters/real{tail}"))
}

async fn get(app: &TestApp, tail: &str) -> Value {
    let (status, body) = send(app.client.get(api(app, tail))).await;
    assert_eq!(status, 200, "GET {tail}: {body}");
    body
}

async fn post(app: &TestApp, tail: &str, body: Value) -> Value {
    let (status, answer) = send(app.client.post(api(app, tail)).json(&body)).await;
    assert_eq!(status, 200, "POST {tail} {body}: {answer}");
    answer
}

async fn put(app: &TestApp, tail: &str, body: Value) -> Value {
    let (status, answer) = send(app.client.put(api(app, tail)).json(&body)).await;
    assert_eq!(status, 200, "PUT {tail} {body}: {answer}");
    answer
}

async fn create_index(app: &TestApp, name: &str, replicas: u32) {
    let created = post(
        app,
        "/indices",
        json!({
            "name": name,
            "shards": 1,
            "replicas": replicas,
            "mappings": {"properties": {"sku": {"type": "keyword"}}}
        }),
    )
    .await;
    assert_eq!(created["index"], name, "{created}");
    assert_eq!(created["acknowledged"], true, "{created}");
}
