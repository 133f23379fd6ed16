//! The console relay against osmem-server, and against an echo server to see what is sent.

use serde_json::{Value, json};
use test_support::Osmem;

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::cluster_stub::{ClusterStub, NodeUsage};
use crate::support::echo::EchoServer;
use crate::support::{closed_port_url, raw_console_get};

async fn app_for(osmem: &Osmem) -> TestApp {
    spawn_app(&format!("clusters:\n{}", cluster_yaml("os", &osmem.url))).await
}

#[tokio::test]
async fn every_method_is_relayed_with_status_and_body_unchanged() {
    let osmem = Osmem::start();
    let app = app_for(&osmem).await;
    let proxy = |path: &str| app.url(&format!("/api/clusters/os/proxy{path}"));

    let put = app
        .client
        .put(proxy("/books"))
        .json(&json!({"settings": {"number_of_replicas": 0}}))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 200);
    assert!(
        put.headers()["server-timing"]
            .to_str()
            .unwrap()
            .starts_with("upstream;dur=")
    );
    let post = app
        .client
        .post(proxy("/books/_doc/1?refresh=true"))
        .json(&json!({"title": "Dune"}))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 201);
    let patch = app.client.patch(proxy("/books")).send().await.unwrap();
    let direct_patch = app
        .client
        .patch(format!("{}/books", osmem.url))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status(), direct_patch.status());
    assert_eq!(
        patch.text().await.unwrap(),
        direct_patch.text().await.unwrap()
    );

    let get = app.client.get(proxy("/books/_doc/1")).send().await.unwrap();
    assert_eq!(get.status(), 200);
    assert!(
        get.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let relayed = get.text().await.unwrap();
    let direct = app
        .client
        .get(format!("{}/books/_doc/1", osmem.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(relayed, direct, "the body comes back byte for byte");

    let search = app
        .client
        .get(proxy("/books/_search?q=title:dune&size=1"))
        .send()
        .await
        .unwrap();
    let hits: Value = search.json().await.unwrap();
    assert_eq!(
        hits["hits"]["total"]["value"], 1,
        "the query string is kept"
    );

    let head = app.client.head(proxy("/books")).send().await.unwrap();
    assert_eq!(head.status(), 200);
    let head_missing = app
        .client
        .head(proxy("/nothing-here"))
        .send()
        .await
        .unwrap();
    assert_eq!(head_missing.status(), 404);

    let delete = app.client.delete(proxy("/books")).send().await.unwrap();
    assert_eq!(delete.status(), 200);
    assert_eq!(delete.json::<Value>().await.unwrap()["acknowledged"], true);

    let options = app
        .client
        .request(reqwest::Method::OPTIONS, proxy("/"))
        .send()
        .await
        .unwrap();
    assert_eq!(options.status(), 405);
}

#[tokio::test]
async fn ndjson_bulk_and_a_large_response_are_streamed_through() {
    let osmem = Osmem::start();
    let app = app_for(&osmem).await;
    let proxy = |path: &str| app.url(&format!("/api/clusters/os/proxy{path}"));
    let mut bulk = String::new();
    for n in 0..2_000 {
        bulk.push_str(&format!(
            "{{\"index\":{{\"_index\":\"big\",\"_id\":\"{n}\"}}}}\n{{\"n\":{n},\"text\":\"{}\"}}\n",
            "x".repeat(2_000)
        ));
    }
    let response = app
        .client
        .post(proxy("/_bulk?refresh=true"))
        .header("content-type", "application/x-ndjson")
        .body(bulk)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["errors"], false);
    assert_eq!(answer["items"].as_array().unwrap().len(), 2_000);

    // About 4 MB of hits.
    let path = "/big/_search?size=2000&sort=n:asc";
    let relayed = app.client.get(proxy(path)).send().await.unwrap();
    assert_eq!(relayed.status(), 200);
    let relayed = relayed.bytes().await.unwrap();
    let direct = app
        .client
        .get(format!("{}{path}", osmem.url))
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
    let osmem = Osmem::start();
    let stub = ClusterStub::start(&osmem.url, NodeUsage::default());
    let dead = closed_port_url();
    let app = spawn_app(&format!(
        "clusters:\n{}{}",
        cluster_yaml("os", &stub.url),
        cluster_yaml("dead", &dead)
    ))
    .await;

    let missing = app
        .client
        .get(app.url("/api/clusters/os/proxy/no-such-index/_search"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(
        body["error"]["type"], "index_not_found_exception",
        "the cluster's own body: {body}"
    );

    stub.set_unavailable(true);
    let unavailable = app
        .client
        .get(app.url("/api/clusters/os/proxy/_cluster/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(unavailable.status(), 503);
    let body: Value = unavailable.json().await.unwrap();
    assert_eq!(body["error"]["type"], "cluster_block_exception");

    let unreachable = app
        .client
        .get(app.url("/api/clusters/dead/proxy/_cluster/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(unreachable.status(), 503);
    let body: Value = unreachable.json().await.unwrap();
    assert_eq!(body["error"]["code"], "upstream_unreachable");
}

#[tokio::test]
async fn traversal_and_absolute_urls_are_refused() {
    let echo = EchoServer::start();
    let app = spawn_app(&format!(
        "clusters:\n{}",
        cluster_yaml("echo", &format!("{}/base", echo.url))
    ))
    .await;
    let host_port = app.address.trim_start_matches("http://").to_owned();
    for bad in [
        "/api/clusters/echo/proxy/../../secret",
        "/api/clusters/echo/proxy/%2e%2e/secret",
        "/api/clusters/echo/proxy//evil.example/x",
        "/api/clusters/echo/proxy/http://evil.example/",
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
    let (status, body) = app
        .get_json("/api/clusters/echo/proxy/_cat/indices?v&s=index")
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["path"], "/base/_cat/indices",
        "the configured path prefix is kept"
    );
    assert_eq!(body["query"], "v&s=index");

    // The echo answers HEAD with the length of the JSON it would send for GET.
    let relayed = app
        .client
        .head(app.url("/api/clusters/echo/proxy/x"))
        .send()
        .await
        .unwrap();
    assert_eq!(relayed.status(), 200);
    let length: u64 = relayed.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        length > 100,
        "HEAD keeps the length GET would have: {length}"
    );
    assert!(relayed.bytes().await.unwrap().is_empty());
}

async fn echoed_headers(app: &TestApp, cluster: &str) -> Value {
    let response = app
        .client
        .post(app.url(&format!("/api/clusters/{cluster}/proxy/_search")))
        .header("authorization", "Basic YnJvd3Nlcjp4")
        .header("cookie", "session=abc")
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["bodyLength"], 5);
    assert_eq!(body["headers"]["content-type"], "text/plain");
    assert!(
        body["headers"].get("cookie").is_none(),
        "browser cookies stay in the console"
    );
    body["headers"].clone()
}

#[tokio::test]
async fn configured_credentials_are_applied_server_side() {
    let echo = EchoServer::start();
    let yaml = format!(
        "clusters:\n{}    auth:\n      username: admin\n      password: s3cret\n{}    auth:\n      api_key: a2V5OnZhbHVl\n{}    auth:\n      bearer_token: tok.en\n{}",
        cluster_yaml("basic", &echo.url),
        cluster_yaml("apikey", &echo.url),
        cluster_yaml("bearer", &echo.url),
        cluster_yaml("none", &echo.url),
    );
    let app = spawn_app(&yaml).await;
    assert_eq!(
        echoed_headers(&app, "basic").await["authorization"],
        "Basic YWRtaW46czNjcmV0"
    );
    assert_eq!(
        echoed_headers(&app, "apikey").await["authorization"],
        "ApiKey a2V5OnZhbHVl"
    );
    assert_eq!(
        echoed_headers(&app, "bearer").await["authorization"],
        "Bearer tok.en"
    );
    assert!(
        echoed_headers(&app, "none")
            .await
            .get("authorization")
            .is_none(),
        "the browser's credentials are not forwarded"
    );
}

#[tokio::test]
async fn browser_responses_are_gzipped_when_asked() {
    let osmem = Osmem::start();
    let app = app_for(&osmem).await;
    let response = app
        .client
        .get(app.url("/api/clusters/os/proxy/_cluster/health"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-encoding"], "gzip");
    assert!(response.headers().contains_key("server-timing"));
    let response = app
        .client
        .get(app.url("/api/clusters"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
}
