//! standalone mode: the proxy forwards to the search cluster itself, streaming, as the managed
//! user; the cluster is the real secured Elasticsearch 8 node behind the recording proxy.

use reqwest::Method;
use serde_json::json;

use crate::app::{ANN_PASSWORD, Cluster, Users, spawn_app, spawn_stack, unique};
use crate::real_security::Flavor;
use crate::support::basic;

#[tokio::test]
async fn forwarded_requests_reach_the_cluster_as_the_managed_user() {
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let (app, ann) = (&stack.app, &stack.users.ann);
    let response = app
        .client
        .get(app.url("/_cluster/health"))
        .header("authorization", basic(ann, ANN_PASSWORD))
        .header("x-auth-request-user", "root")
        .header("connection", "keep-alive, x-hop")
        .header("x-hop", "must-not-pass")
        .header("x-opaque-id", "kept")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let health: serde_json::Value = response.json().await.unwrap();
    assert!(health.get("status").is_some(), "{health}");
    let forwarded = stack.forwarded();
    let last = forwarded.last().unwrap();
    assert_eq!(
        last.basic_user().as_ref(),
        Some(ann),
        "the cluster saw the managed user"
    );
    assert_eq!(last.path, "/_cluster/health");
    let header = |name: &str| last.header(name).map(str::to_owned);
    assert_eq!(
        header("x-auth-request-user"),
        None,
        "client identity headers are dropped"
    );
    assert_eq!(
        header("x-hop"),
        None,
        "headers named by Connection are hop-by-hop"
    );
    assert_eq!(header("x-opaque-id").as_deref(), Some("kept"));
    assert_eq!(header("x-forwarded-for").as_deref(), Some("127.0.0.1"));

    // HEAD keeps the cluster's status and Content-Length, and has no body.
    let head = |client: reqwest::Client, url: String, authorization: String| async move {
        let response = client
            .head(url)
            .header("authorization", authorization)
            .send()
            .await
            .unwrap();
        let length = response
            .headers()
            .get("content-length")
            .map(|v| v.to_str().unwrap().to_owned());
        (response.status(), length)
    };
    let security = stack.node.security;
    let direct = head(
        security.client(),
        format!("{}/", stack.node.url),
        security.admin_authorization(),
    )
    .await;
    let proxied = head(app.client.clone(), app.url("/"), basic(ann, ANN_PASSWORD)).await;
    assert_eq!(proxied, direct);
}

#[tokio::test]
async fn a_large_bulk_request_streams_through_and_documents_are_indexed() {
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let (app, ann) = (&stack.app, &stack.users.ann);
    let index = unique("bulk-test");
    // ~3 MiB of NDJSON: larger than the replay buffer, so it streams.
    let padding = "x".repeat(1000);
    let mut body = String::new();
    let documents = 3000;
    for id in 0..documents {
        body.push_str(&format!(
            "{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{id}\"}}}}\n"
        ));
        body.push_str(&format!("{{\"n\":{id},\"pad\":\"{padding}\"}}\n"));
    }
    let length = body.len();
    assert!(length > 2 * 1024 * 1024);
    let response = app
        .client
        .post(app.url("/_bulk?refresh=true"))
        .header("authorization", basic(ann, ANN_PASSWORD))
        .header("content-type", "application/x-ndjson")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let result: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        result["errors"],
        false,
        "{}",
        &result.to_string()[..200.min(result.to_string().len())]
    );
    assert_eq!(result["items"].as_array().unwrap().len(), documents);
    let seen = stack.forwarded();
    let bulk = seen.last().unwrap();
    assert_eq!(bulk.path, "/_bulk");
    let arrived = bulk
        .body
        .as_ref()
        .and_then(|body| body.as_str())
        .unwrap_or_default();
    assert_eq!(arrived.len(), length, "the whole body arrived");

    // A large response comes back whole too.
    let search = app
        .client
        .post(app.url(&format!("/{index}/_search")))
        .header("authorization", basic(ann, ANN_PASSWORD))
        .header("content-type", "application/json")
        .body(r#"{"size": 1000, "query": {"match_all": {}}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(search.status(), 200);
    let hits: serde_json::Value = search.json().await.unwrap();
    assert_eq!(hits["hits"]["hits"].as_array().unwrap().len(), 1000);
}

#[tokio::test]
async fn a_rejected_credential_is_refreshed_once_and_the_request_retried() {
    // Elasticsearch: OpenSearch refuses concurrent changes of its users (any test's) with 409,
    // which the proxy tries again; that would be counted here too.
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let (app, node, ann) = (&stack.app, &stack.node, &stack.users.ann);
    let get = || app.get_as("/_cluster/health", ann, ANN_PASSWORD);
    assert_eq!(get().await.status(), 200);
    let upserts = stack.upserts(ann);
    // An operator changes the password behind the proxy's back: the cached one is now wrong.
    let operators = "Changed-By-An-Operator-5821";
    let (status, body) = node
        .admin(
            Method::POST,
            &format!("/_security/user/{ann}/_password"),
            Some(json!({"password": operators})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let retried = get().await;
    assert_eq!(retried.status(), 200);
    assert_eq!(stack.upserts(ann), upserts + 1, "one refresh");
    assert_eq!(
        node.who(&basic(ann, operators)).await.0,
        401,
        "the proxy set a password of its own again"
    );
    let last = stack.forwarded().pop().unwrap();
    assert_eq!(last.path, "/_cluster/health");
    assert_eq!(last.basic_user().as_ref(), Some(ann));
}

#[tokio::test]
async fn an_unreachable_cluster_is_503_with_the_common_body() {
    let closed_port = test_support::free_port();
    let users = Users::new();
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, mode: standalone}}\n{}",
        users.yaml_towards(&format!("http://127.0.0.1:{closed_port}"))
    );
    let app = spawn_app(&yaml).await;
    let response = app
        .get_as("/_cluster/health", &users.ann, ANN_PASSWORD)
        .await;
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "search_unreachable");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unreachable")
    );
}

#[tokio::test]
async fn without_credentials_the_root_redirects_and_api_paths_are_challenged() {
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    let root = app.client.get(app.url("/")).send().await.unwrap();
    assert_eq!(root.status(), 302);
    assert_eq!(root.headers()["location"], "/auth/start?rd=%2F");
    let api = app
        .client
        .get(app.url("/_cat/indices"))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 401);
    assert!(
        stack.recorder.requests().is_empty(),
        "nothing reached the cluster"
    );
    // Sign-in without OIDC: a Basic challenge, then back to a local path only.
    let start = app
        .client
        .get(app.url("/auth/start?rd=/app"))
        .send()
        .await
        .unwrap();
    assert_eq!(start.status(), 401);
    let signed_in = app
        .client
        .get(app.url("/auth/start?rd=//evil.example"))
        .header("authorization", basic(&stack.users.ann, ANN_PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 302);
    assert_eq!(signed_in.headers()["location"], "/");
}

#[tokio::test]
async fn rejected_admin_credentials_are_502_with_a_clear_message() {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, mode: standalone}}\n{}",
        cluster.search_yaml(&users).replace(
            &format!(
                "admin_password: \"{}\"",
                cluster.node.security.admin_password
            ),
            "admin_password: \"not-the-admin-password\""
        )
    );
    let app = spawn_app(&yaml).await;
    let response = app
        .get_as("/_cluster/health", &users.ann, ANN_PASSWORD)
        .await;
    assert_eq!(response.status(), 502);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "search_admin_rejected");
    assert!(!body.to_string().contains("not-the-admin-password"));
    assert!(
        cluster.cluster_user(&users.ann).await.is_none(),
        "nothing was made"
    );
}

#[tokio::test]
async fn a_cluster_that_does_not_answer_is_504() {
    // Accepts connections and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let app = spawn_app(&unmanaged_standalone(port, ", write_timeout: 1s")).await;
    let response = app.get_as("/_cluster/health", "ann", ANN_PASSWORD).await;
    assert_eq!(response.status(), 504);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "search_timeout");
    drop(silent);
}

#[tokio::test]
async fn a_redirect_from_the_cluster_reaches_the_client_unfollowed() {
    // Answers every request with a redirect elsewhere; following it would send the managed
    // credential to whatever the Location names.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut connection in listener.incoming().flatten() {
            let mut request = [0u8; 4096];
            let _ = connection.read(&mut request);
            let _ = connection.write_all(
                b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://192.0.2.1/elsewhere\r\n\
                  Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    let app = spawn_app(&unmanaged_standalone(port, "")).await;
    let response = app.get_as("/_cluster/health", "ann", ANN_PASSWORD).await;
    assert_eq!(response.status(), 307);
    assert_eq!(response.headers()["location"], "http://192.0.2.1/elsewhere");
}

/// Standalone mode towards a cluster on `port` without user management (ann's own Basic
/// credentials authenticate her); `server_extra` adds keys to `server`.
fn unmanaged_standalone(port: u16, server_extra: &str) -> String {
    format!(
        "server: {{host: 127.0.0.1, port: 0, mode: standalone{server_extra}}}\n\
         user_management: {{enabled: false}}\n\
         search: {{url: \"http://127.0.0.1:{port}\"}}\n\
         basic_auth:\n  users: [{{username: ann, password_hash: \"{}\"}}]\n",
        crate::support::bcrypt_hash(ANN_PASSWORD)
    )
}
