//! The console relay against real nodes: the shared OpenSearch 2 node (plain HTTP) and the
//! secured Elasticsearch 8 node (HTTPS with its CA and a credential of the console's), through
//! a recording proxy of each test's own ([`crate::support::real`]) that shows what the relay
//! sent and can stop answering. What the relay hands back is compared with what the node
//! answers the same request sent to it directly. The nodes are shared with other suites: each
//! test keeps to index names of its own (`relay-…`).

use reqwest::{Method, Response};
use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster};

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{REAL, Real, direct, direct_json, real, real_with, shared};
use crate::support::{closed_port_url, raw_console_get};

fn relayed(f: &Real, path: &str) -> String {
    f.url(&format!("/proxy{path}"))
}

/// `method path` through the relay, without a body.
async fn call(f: &Real, method: Method, path: &str) -> Response {
    let request = f.app.client.request(method, relayed(f, path));
    request.send().await.unwrap()
}

#[tokio::test]
async fn every_method_is_relayed_with_status_and_body_unchanged() {
    for distribution in REAL {
        let f = real(distribution).await;
        let proxy = |path: &str| relayed(&f, path);

        let put = f
            .app
            .client
            .put(proxy("/relay-books"))
            .json(&json!({"settings": {"number_of_replicas": 0}}))
            .send()
            .await
            .unwrap();
        assert_eq!(put.status(), 200, "{distribution:?}");
        assert!(
            put.headers()["server-timing"]
                .to_str()
                .unwrap()
                .starts_with("upstream;dur=")
        );
        let sent = f.sent("/relay-books");
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(sent[0].method, "PUT");
        assert_eq!(
            sent[0].body,
            Some(json!({"settings": {"number_of_replicas": 0}})),
            "the body reaches the node as sent"
        );

        let post = f
            .app
            .client
            .post(proxy("/relay-books/_doc/1?refresh=true"))
            .json(&json!({"title": "Dune"}))
            .send()
            .await
            .unwrap();
        assert_eq!(post.status(), 201, "{distribution:?}");
        let patch = call(&f, Method::PATCH, "/relay-books").await;
        let direct_patch = direct(f.cluster, Method::PATCH, "/relay-books")
            .send()
            .await
            .unwrap();
        assert_eq!(patch.status(), direct_patch.status());
        assert_eq!(
            patch.text().await.unwrap(),
            direct_patch.text().await.unwrap()
        );

        let get = call(&f, Method::GET, "/relay-books/_doc/1").await;
        assert_eq!(get.status(), 200);
        assert!(
            get.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        let relayed = get.text().await.unwrap();
        let direct_get = direct(f.cluster, Method::GET, "/relay-books/_doc/1")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(relayed, direct_get, "the body comes back byte for byte");

        let search = call(&f, Method::GET, "/relay-books/_search?q=title:dune&size=1").await;
        let hits: Value = search.json().await.unwrap();
        assert_eq!(
            hits["hits"]["total"]["value"], 1,
            "the query string is kept: {hits}"
        );

        let head = call(&f, Method::HEAD, "/relay-books").await;
        assert_eq!(head.status(), 200);
        let head_missing = call(&f, Method::HEAD, "/relay-nothing-here").await;
        assert_eq!(head_missing.status(), 404);

        let delete = call(&f, Method::DELETE, "/relay-books").await;
        assert_eq!(delete.status(), 200);
        assert_eq!(delete.json::<Value>().await.unwrap()["acknowledged"], true);

        let before = f.proxy.requests().len();
        let options = call(&f, Method::OPTIONS, "/").await;
        assert_eq!(options.status(), 405);
        assert!(
            !f.proxy.requests()[before..]
                .iter()
                .any(|r| r.method == "OPTIONS"),
            "a method the relay does not take never reaches the node"
        );
    }
}

#[tokio::test]
async fn ndjson_bulk_and_a_large_response_are_streamed_through() {
    let f = real(Distribution::OpenSearch2).await;
    let mut bulk = String::new();
    for n in 0..2_000 {
        bulk.push_str(&format!(
            "{{\"index\":{{\"_index\":\"relay-big\",\"_id\":\"{n}\"}}}}\n{{\"n\":{n},\"text\":\"{}\"}}\n",
            "x".repeat(2_000)
        ));
    }
    let response = f
        .app
        .client
        .post(relayed(&f, "/_bulk?refresh=true"))
        .header("content-type", "application/x-ndjson")
        .body(bulk.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["errors"], false);
    assert_eq!(answer["items"].as_array().unwrap().len(), 2_000);
    let sent = f.sent("/_bulk");
    assert_eq!(
        sent[0].body,
        Some(Value::String(bulk)),
        "the NDJSON reaches the node as sent"
    );

    // About 4 MB of hits.
    let path = "/relay-big/_search?size=2000&sort=n:asc";
    let relayed = f.app.client.get(relayed(&f, path)).send().await.unwrap();
    assert_eq!(relayed.status(), 200);
    let relayed = relayed.bytes().await.unwrap();
    let direct = direct(f.cluster, Method::GET, path)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(relayed.len() > 4_000_000, "{}", relayed.len());
    let (relayed, direct): (Value, Value) = (
        serde_json::from_slice(&relayed).unwrap(),
        serde_json::from_slice(&direct).unwrap(),
    );
    assert_eq!(relayed["hits"], direct["hits"]);
}

#[tokio::test]
async fn cluster_errors_come_back_unchanged_and_transport_errors_in_the_common_body() {
    let dead = closed_port_url();
    let f = real_with(Distribution::OpenSearch2, |main| {
        format!("clusters:\n{main}{}", cluster_yaml("dead", &dead))
    })
    .await;

    let missing = f
        .app
        .client
        .get(relayed(&f, "/relay-no-such-index/_search"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    let direct_body = direct_json(f.cluster, "/relay-no-such-index/_search").await;
    assert_eq!(
        body["error"]["type"], "index_not_found_exception",
        "the cluster's own body: {body}"
    );
    assert_eq!(body, direct_body);

    f.proxy.set_unavailable(true);
    let unavailable = f
        .app
        .client
        .get(relayed(&f, "/_cluster/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(unavailable.status(), 503);
    let body: Value = unavailable.json().await.unwrap();
    assert_eq!(body["error"]["type"], "cluster_block_exception");

    let unreachable = f
        .app
        .client
        .get(f.app.url("/api/clusters/dead/proxy/_cluster/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(unreachable.status(), 503);
    let body: Value = unreachable.json().await.unwrap();
    assert_eq!(body["error"]["code"], "upstream_unreachable");
}

#[tokio::test]
async fn traversal_and_absolute_urls_are_refused() {
    let f = real_with(Distribution::OpenSearch2, |main| {
        let prefixed = cluster_yaml("prefixed", &format!("{}/base", proxy_url_of(main)));
        format!("clusters:\n{main}{prefixed}")
    })
    .await;
    let host_port = f.app.address.trim_start_matches("http://").to_owned();
    for bad in [
        "/api/clusters/prefixed/proxy/../../secret",
        "/api/clusters/prefixed/proxy/%2e%2e/secret",
        "/api/clusters/prefixed/proxy//evil.example/x",
        "/api/clusters/prefixed/proxy/http://evil.example/",
    ] {
        // Raw HTTP: a client library would normalise the dot segments away before sending.
        let host_port = host_port.clone();
        let (status, body) = tokio::task::spawn_blocking(move || raw_console_get(&host_port, bad))
            .await
            .unwrap();
        assert_eq!(status, 400, "{bad}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"]["code"], "forbidden_path", "{bad}");
    }
    // The console's own polls of the cluster reach it; nothing of the refused paths does.
    let leaked: Vec<_> = f
        .proxy
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("secret") || r.path.contains("evil"))
        .collect();
    assert!(leaked.is_empty(), "refused, yet sent: {leaked:?}");

    f.app
        .get_json("/api/clusters/prefixed/proxy/_cat/indices?v&s=index")
        .await;
    let sent = f.sent("/base/_cat");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        sent[0].path, "/base/_cat/indices",
        "the configured path prefix is kept"
    );
    assert_eq!(sent[0].query, "v&s=index");

    // The node answers HEAD / with the length of the JSON it would send for GET.
    let relayed = f.app.client.head(relayed(&f, "/")).send().await.unwrap();
    assert_eq!(relayed.status(), 200);
    let length = |response: &reqwest::Response| -> u64 {
        response.headers()["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    let relayed_length = length(&relayed);
    let direct_head = direct(f.cluster, Method::HEAD, "/").send().await.unwrap();
    assert_eq!(
        relayed_length,
        length(&direct_head),
        "HEAD keeps the length the node gave"
    );
    assert!(relayed_length > 100, "{relayed_length}");
    assert!(relayed.bytes().await.unwrap().is_empty());
}

/// The `url:` of the one cluster entry `yaml`.
fn proxy_url_of(yaml: &str) -> &str {
    yaml.lines()
        .find_map(|line| line.trim().strip_prefix("url: "))
        .unwrap()
}

/// Who the node says the relay's request authenticated as (`GET /_security/_authenticate`),
/// the browser sending the admin's own valid credential and a cookie: `(status, answer)`.
async fn authenticated_as(app: &TestApp, cluster: &str, browser: &str) -> (u16, Value) {
    let response = app
        .client
        .get(app.url(&format!(
            "/api/clusters/{cluster}/proxy/_security/_authenticate"
        )))
        .header("authorization", browser)
        .header("cookie", "session=abc")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The answer of the admin's `POST path` to the node itself.
async fn made_by_the_admin(cluster: &SearchCluster, path: &str, body: Option<Value>) -> Value {
    let mut request = direct(cluster, Method::POST, path);
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn configured_credentials_are_applied_server_side() {
    let cluster = shared(Distribution::Elasticsearch8Secured).await;
    let security = cluster.security.as_ref().unwrap();
    let admin = security.admin_authorization();
    let key = made_by_the_admin(
        cluster,
        "/_security/api_key",
        Some(json!({"name": "relay-console-key"})),
    )
    .await;
    // A service account's token: the bearer credential a basic licence issues.
    let token = made_by_the_admin(
        cluster,
        "/_security/service/elastic/fleet-server/credential/token/relay-console-token",
        None,
    )
    .await;
    let (Some(encoded_key), Some(access_token)) =
        (key["encoded"].as_str(), token["token"]["value"].as_str())
    else {
        panic!("an API key and a token from the node: {key} {token}");
    };
    let tls = format!("    tls:\n      ca_file: {}\n", security.ca_file.display());
    let yaml = format!(
        "clusters:\n{}    auth:\n      username: {}\n      password: '{}'\n{tls}{}    auth:\n      api_key: {encoded_key}\n{tls}{}    auth:\n      bearer_token: {access_token}\n{tls}{}{tls}",
        cluster_yaml("basic", &cluster.url),
        security.admin_user,
        security.admin_password,
        cluster_yaml("apikey", &cluster.url),
        cluster_yaml("bearer", &cluster.url),
        cluster_yaml("none", &cluster.url),
    );
    let app = spawn_app(&yaml).await;
    let browser = "Basic YnJvd3Nlcjp4";

    let (status, basic) = authenticated_as(&app, "basic", browser).await;
    assert_eq!(status, 200, "{basic}");
    assert_eq!(basic["username"], security.admin_user.as_str(), "{basic}");
    assert_eq!(basic["authentication_type"], "realm", "{basic}");

    let (status, apikey) = authenticated_as(&app, "apikey", browser).await;
    assert_eq!(status, 200, "{apikey}");
    assert_eq!(apikey["authentication_type"], "api_key", "{apikey}");
    assert_eq!(apikey["api_key"]["name"], "relay-console-key", "{apikey}");

    let (status, bearer) = authenticated_as(&app, "bearer", browser).await;
    assert_eq!(status, 200, "{bearer}");
    assert_eq!(bearer["authentication_type"], "token", "{bearer}");
    assert_eq!(bearer["username"], "elastic/fleet-server", "{bearer}");

    let (status, none) = authenticated_as(&app, "none", &admin).await;
    assert_eq!(
        status, 401,
        "the browser's credentials are not forwarded, valid as they are: {none}"
    );
}

#[tokio::test]
async fn only_the_headers_describing_the_body_reach_the_node() {
    let f = real(Distribution::OpenSearch2).await;
    f.app
        .client
        .post(relayed(&f, "/relay-headers/_search"))
        .header("authorization", "Basic YnJvd3Nlcjp4")
        .header("cookie", "session=abc")
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .unwrap();
    let sent = f.sent("/relay-headers/_search");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].body, Some(Value::String("hello".to_owned())));
    assert_eq!(sent[0].header("content-type"), Some("text/plain"));
    assert_eq!(
        sent[0].header("cookie"),
        None,
        "browser cookies stay in the console"
    );
    assert_eq!(
        sent[0].header("authorization"),
        None,
        "the browser's credentials are not forwarded"
    );
}

#[tokio::test]
async fn browser_responses_are_gzipped_when_asked() {
    let f = real(Distribution::OpenSearch2).await;
    let response = f
        .app
        .client
        .get(relayed(&f, "/_cluster/health"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-encoding"], "gzip");
    assert!(response.headers().contains_key("server-timing"));
    let response = f
        .app
        .client
        .get(f.app.url("/api/clusters"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
}
