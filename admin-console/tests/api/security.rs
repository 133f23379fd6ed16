//! The attacks of the outside review, each against the running application with the shared
//! real OpenSearch 2 node behind a recording proxy (what an attack would have sent is the
//! proxy's record; the index's state is the node's own answer): cross-site requests (a form
//! another site auto-submits, a foreign `Origin`, a cross-site read through the relay), DNS
//! rebinding (a foreign `Host`), missing security headers, and the metrics-server check
//! following a redirect to another host. Index names are the suite's own (`security-…`).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster};

use crate::app::{CONSOLE_HEADER, cluster_yaml, spawn_app, spawn_app_with};
use crate::support::real::{Real, real, real_with, shared};
use crate::web_app::built_web_app;

/// A client that sends only what the test adds: no [`CONSOLE_HEADER`].
fn bare_client() -> reqwest::Client {
    test_support::http_client()
}

async fn app_for() -> Real {
    real(Distribution::OpenSearch2).await
}

/// Created on the node itself, no replica.
async fn create_index(cluster: &SearchCluster, index: &str) {
    let created = bare_client()
        .put(format!("{}/{index}", cluster.url))
        .json(&json!({"settings": {"number_of_replicas": 0}}))
        .send()
        .await
        .unwrap();
    assert!(created.status().is_success());
}

/// `open` or `close`, read from the cluster itself.
async fn index_status(cluster: &SearchCluster, index: &str) -> String {
    let rows: Value = bare_client()
        .get(format!(
            "{}/_cat/indices/{index}?format=json&h=status",
            cluster.url
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    rows[0]["status"].as_str().unwrap().to_owned()
}

async fn assert_refused(response: reqwest::Response, what: &str) {
    assert_eq!(response.status(), 403, "{what}");
    assert_eq!(response.headers()["cache-control"], "no-store", "{what}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["error"]["code"], "cross_site_request",
        "{what}: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("X-Requested-By"),
        "{what}: the message says how a script gets through: {body}"
    );
}

#[tokio::test]
async fn a_cross_site_form_cannot_close_an_index() {
    let f = app_for().await;
    let app = &f.app;
    create_index(f.cluster, "security-orders").await;

    // What a browser sends when a page on evil.example auto-submits
    // <form method=post action=".../proxy/security-orders/_close">.
    let response = bare_client()
        .post(app.url("/api/clusters/main/proxy/security-orders/_close"))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("sec-fetch-site", "cross-site")
        .header("sec-fetch-mode", "navigate")
        .header("origin", "https://evil.example")
        .body("")
        .send()
        .await
        .unwrap();
    assert_refused(response, "cross-site form post").await;
    assert_eq!(index_status(f.cluster, "security-orders").await, "open");

    // The same form from a sibling sub-domain, or from a browser that sends only Origin.
    for (name, value) in [
        ("sec-fetch-site", "same-site"),
        ("origin", "https://evil.example"),
        ("origin", "null"),
    ] {
        let response = bare_client()
            .post(app.url("/api/clusters/main/proxy/security-orders/_close"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header(name, value)
            .send()
            .await
            .unwrap();
        assert_refused(response, &format!("{name}: {value}")).await;
    }
    assert_eq!(index_status(f.cluster, "security-orders").await, "open");
    assert_eq!(f.writes(), [], "nothing reached the node");
}

#[tokio::test]
async fn a_foreign_origin_is_refused_on_every_state_changing_endpoint() {
    let f = app_for().await;
    let app = &f.app;
    let evil = bare_client();
    let attempts = [
        evil.post(app.url("/api/clusters/main/proxy/security-logs/_doc"))
            .json(&json!({"x": 1})),
        evil.put(app.url("/api/clusters/main/allocation"))
            .json(&json!({"enable": "none"})),
        evil.post(app.url("/api/metrics_server/validate"))
            .json(&json!({"url": f.cluster.url})),
        evil.delete(app.url("/api/clusters/main/proxy/security-logs")),
    ];
    for attempt in attempts {
        // Even with the custom header: a page that could set it had to pass a CORS
        // preflight, which the console never grants, so a foreign Origin is the stronger sign.
        let response = attempt
            .header("origin", "https://evil.example")
            .header(CONSOLE_HEADER.0, CONSOLE_HEADER.1)
            .send()
            .await
            .unwrap();
        assert_refused(response, "foreign Origin").await;
    }
    assert_eq!(f.writes(), [], "nothing reached the node");
}

#[tokio::test]
async fn a_cross_site_read_through_the_relay_is_refused() {
    let f = app_for().await;
    let app = &f.app;
    for site in ["cross-site", "same-site"] {
        let response = bare_client()
            .get(app.url("/api/clusters/main/proxy/_cluster/health"))
            .header("sec-fetch-site", site)
            .send()
            .await
            .unwrap();
        assert_refused(response, site).await;
    }
    // A relayed GET with nothing that says where it comes from: an <img> or <script> tag on
    // another site in a browser too old to send Sec-Fetch-Site.
    let response = bare_client()
        .get(app.url("/api/clusters/main/proxy/_cluster/health"))
        .send()
        .await
        .unwrap();
    assert_refused(response, "no header at all").await;
    // HEAD and OPTIONS are relay requests too.
    let head = bare_client()
        .head(app.url("/api/clusters/main/proxy/_cluster/health"))
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 403);
    assert_eq!(
        f.sent("/_cluster/health")
            .iter()
            .filter(|r| r.method == "HEAD")
            .count(),
        0,
        "the refused HEAD never reached the node"
    );
}

#[tokio::test]
async fn same_origin_requests_and_the_custom_header_pass() {
    let f = app_for().await;
    let app = &f.app;
    create_index(f.cluster, "security-books").await;
    let own_origin = app.address.clone();

    // A script or curl: no Origin, no Sec-Fetch-*, only the header.
    let closed = bare_client()
        .post(app.url("/api/clusters/main/proxy/security-books/_close"))
        .header(CONSOLE_HEADER.0, CONSOLE_HEADER.1)
        .send()
        .await
        .unwrap();
    assert_eq!(closed.status(), 200);
    assert_eq!(index_status(f.cluster, "security-books").await, "close");

    // A browser on the console's own page.
    let opened = bare_client()
        .post(app.url("/api/clusters/main/proxy/security-books/_open"))
        .header("sec-fetch-site", "same-origin")
        .header("origin", &own_origin)
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), 200);
    assert_eq!(index_status(f.cluster, "security-books").await, "open");

    // A browser that sends Origin but not Sec-Fetch-Site, on a management endpoint.
    let created = bare_client()
        .post(app.url("/api/clusters/main/indices"))
        .header("origin", &own_origin)
        .json(&json!({"name": "security-created", "shards": 1, "replicas": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 200);
    assert_eq!(index_status(f.cluster, "security-created").await, "open");

    // Typed into the address bar (Sec-Fetch-Site: none).
    let typed = bare_client()
        .get(app.url("/api/clusters/main/proxy/_cluster/health"))
        .header("sec-fetch-site", "none")
        .send()
        .await
        .unwrap();
    assert_eq!(typed.status(), 200);

    // Reads outside the relay change nothing and need nothing.
    let clusters = bare_client()
        .get(app.url("/api/clusters"))
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(clusters.status(), 200);
}

#[tokio::test]
async fn a_foreign_host_is_refused_when_allowed_hosts_is_set() {
    let f = real_with(Distribution::OpenSearch2, |main| {
        format!("  allowed_hosts: [console.example.com, '*.console.internal']\nclusters:\n{main}")
    })
    .await;
    let app = &f.app;
    let client = crate::app::console_client();
    // DNS rebinding: evil.example now resolves to the console, so the browser's page on
    // evil.example is "same-origin" with it, but it still says Host: evil.example.
    for host in [
        "evil.example",
        "evil.example:80",
        "console.example.com.evil.example",
    ] {
        let response = client
            .get(app.url("/api/clusters/main/proxy/_cluster/health"))
            .header("host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{host}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "host_not_allowed", "{host}");
        let index = client
            .get(app.url("/"))
            .header("host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(index.status(), 403, "{host}: the web app too");
    }
    for host in [
        "console.example.com",
        "CONSOLE.example.com:8443",
        "a.console.internal",
    ] {
        let response = client
            .get(app.url("/api/clusters/main/proxy/_cluster/health"))
            .header("host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{host}");
    }
    // Probes and scrapes address the pod by IP: liveness is exempt.
    let live = client
        .get(app.url("/api/live"))
        .header("host", "10.1.2.3:8080")
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), 200);
}

#[tokio::test]
async fn pages_assets_and_api_answers_carry_the_security_headers() {
    let cluster = shared(Distribution::OpenSearch2).await;
    let dir = built_web_app();
    let app = spawn_app_with(&format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  static_dir: {}\nclusters:\n{}",
        dir.path().display(),
        cluster_yaml("main", &cluster.url)
    ))
    .await;
    for path in [
        "/",
        "/clusters/main/indices",
        "/assets/index-3f9a1c.js",
        "/api/clusters",
        "/api/clusters/main/proxy/_cluster/health",
        "/api/clusters/nope",
        "/assets/missing.js",
    ] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        test_support::assert_security_headers(&response, path);
    }
    let refused = bare_client()
        .post(app.url("/api/metrics_server/validate"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    test_support::assert_security_headers(&refused, "a refusal");
}

/// A listener that answers every request with `answer` and counts connections.
fn counting_server(answer: String) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (port, hits)
}

#[tokio::test]
async fn validation_does_not_follow_a_redirect_to_another_host() {
    let body = r#"{"status":"success","data":{"version":"3.0.0"}}"#;
    let (target_port, target_hits) = counting_server(format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    let (redirector_port, redirector_hits) = counting_server(format!(
        "HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:{target_port}/api/v1/status/buildinfo\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    ));
    let app = spawn_app("").await;
    let response = app
        .client
        .post(app.url("/api/metrics_server/validate"))
        .json(&json!({"url": format!("http://127.0.0.1:{redirector_port}")}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert!(redirector_hits.load(Ordering::SeqCst) > 0);
    assert_eq!(
        target_hits.load(Ordering::SeqCst),
        0,
        "the other host was contacted: {answer}"
    );
    assert_eq!(answer["status"], "error", "{answer}");
    assert_eq!(answer["reachable"], false, "{answer}");
    assert!(
        answer["message"].as_str().unwrap().contains("redirect"),
        "{answer}"
    );
}
