//! The recording and fault proxy before an HTTPS upstream (nginx with a private CA in front of
//! an echo server): what it sends on, the basic auth it adds, the CA it trusts, what it records
//! and its 503 mode.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use search_test_server::{Proxy, Upstream};
use serde_json::{Value, json};
use test_support::{TestCertificates, TlsFront};

/// Answers every request with what it received.
struct Echo {
    url: String,
    handle: actix_web::dev::ServerHandle,
}

impl Echo {
    fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = HttpServer::new(|| App::new().default_service(web::to(echo)))
                    .workers(1)
                    .disable_signals()
                    .listen(listener)
                    .unwrap()
                    .run();
                sender.send(server.handle()).unwrap();
                let _ = server.await;
            });
        });
        Self {
            url,
            handle: receiver.recv().unwrap(),
        }
    }
}

impl Drop for Echo {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

async fn echo(request: HttpRequest, body: web::Bytes) -> HttpResponse {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    HttpResponse::Created().json(json!({
        "method": request.method().as_str(),
        "path": request.path(),
        "query": request.query_string(),
        "authorization": header("authorization"),
        "contentType": header("content-type"),
        "body": String::from_utf8_lossy(&body),
    }))
}

#[tokio::test]
async fn it_forwards_over_https_adds_basic_auth_records_and_fails_on_demand() {
    let certificates = TestCertificates::generate();
    let echo = Echo::start();
    let front = TlsFront::start(&echo.url, &certificates);
    let proxy = Proxy::start(Upstream {
        url: front.url.clone(),
        ca_file: Some(certificates.path("ca.pem")),
        basic_auth: Some(("elastic".to_owned(), "secret-1".to_owned())),
    });
    let client = test_support::http_client();

    let response = client
        .post(format!("{}/orders/_doc/1?refresh=true", proxy.url))
        .json(&json!({"item": "book"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "the upstream's status");
    let seen: Value = response.json().await.unwrap();
    assert_eq!(
        seen,
        json!({
            "method": "POST",
            "path": "/orders/_doc/1",
            "query": "refresh=true",
            "authorization": "Basic ZWxhc3RpYzpzZWNyZXQtMQ==",
            "contentType": "application/json",
            "body": "{\"item\":\"book\"}",
        })
    );
    // A request's own credential is kept.
    let seen: Value = client
        .get(format!("{}/_cluster/health", proxy.url))
        .header("authorization", "Basic b3RoZXI6b25l")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(seen["authorization"], "Basic b3RoZXI6b25l", "{seen}");

    let recorded = proxy.requests();
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert_eq!(recorded[0].method, "POST");
    assert_eq!(recorded[0].path, "/orders/_doc/1");
    assert_eq!(recorded[0].param("refresh").as_deref(), Some("true"));
    assert_eq!(recorded[0].body, Some(json!({"item": "book"})));
    assert_eq!(recorded[1].body, None);
    assert_eq!(
        recorded[0].basic_user(),
        None,
        "the added auth is not recorded"
    );
    assert_eq!(recorded[1].basic_user().as_deref(), Some("other"));
    assert_eq!(
        recorded[1].header("authorization"),
        Some("Basic b3RoZXI6b25l")
    );

    // One user refused: 401 with the clusters' body, recorded, nothing sent on; others pass.
    proxy.reject_user("other");
    let refused_user = client
        .get(format!("{}/_cluster/health", proxy.url))
        .header("authorization", "Basic b3RoZXI6b25l")
        .send()
        .await
        .unwrap();
    assert_eq!(refused_user.status(), 401);
    assert!(refused_user.headers().contains_key("www-authenticate"));
    let body: Value = refused_user.json().await.unwrap();
    assert_eq!(body["error"]["type"], "security_exception", "{body}");
    let passed = client
        .get(format!("{}/_cluster/health", proxy.url))
        .send()
        .await
        .unwrap();
    assert_eq!(
        passed.status(),
        201,
        "the echo answered the admin's request"
    );
    assert_eq!(proxy.requests().len(), 4);
    proxy.clear_requests();
    assert!(proxy.requests().is_empty());

    // Unavailable: the clusters' 503, counted, recorded, and nothing sent on.
    let refused = proxy.refused_calls();
    proxy.set_unavailable(true);
    let response = client
        .get(format!("{}/_cluster/health", proxy.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "cluster_block_exception", "{body}");
    assert_eq!(refused(), 1);
    assert_eq!(proxy.requests().len(), 1);
    proxy.set_unavailable(false);
    let response = client
        .get(format!("{}/_cluster/health", proxy.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);

    // HEAD: the upstream's status and Content-Length, no body.
    let head = |url: String| {
        let client = client.clone();
        async move {
            let response = client
                .head(url)
                .header("authorization", "Basic ZWxhc3RpYzpzZWNyZXQtMQ==")
                .send()
                .await
                .unwrap();
            let length = response.headers().get("content-length").cloned();
            (
                response.status(),
                length,
                response.bytes().await.unwrap().len(),
            )
        }
    };
    let direct = head(format!("{}/orders", echo.url)).await;
    assert_ne!(direct.1.as_ref().map(|v| v.as_bytes()), Some(&b"0"[..]));
    assert_eq!(head(format!("{}/orders", proxy.url)).await, direct);
}

#[tokio::test]
async fn an_https_upstream_is_trusted_only_with_its_ca() {
    let certificates = TestCertificates::generate();
    let echo = Echo::start();
    let front = TlsFront::start(&echo.url, &certificates);
    let proxy = Proxy::start(Upstream {
        url: front.url.clone(),
        ..Upstream::default()
    });
    let response = test_support::http_client()
        .get(format!("{}/", proxy.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502, "no CA given, none trusted");
    assert!(
        Proxy::try_start(Upstream {
            url: front.url.clone(),
            ca_file: Some(certificates.path("missing.pem")),
            basic_auth: None,
        })
        .is_err(),
        "an unreadable CA file is a set-up error"
    );
}
