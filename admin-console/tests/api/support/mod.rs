//! Real parts for the tests: the shared real nodes behind a recording proxy (`real`), indices
//! seeded in a cluster, an echo server that shows what a client sent (`front_door`),
//! elasticsearch_exporter, and backfilled history.

pub mod echo;
pub mod exporter;
pub mod real;

use serde_json::{Value, json};

/// Sends `request`; its status and JSON body (`null` when the body is not JSON).
pub async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Creates `count` indices `<prefix>-NNNN` (1 primary, 1 replica) with `docs(n)` documents each.
pub async fn seed_indices(
    cluster_url: &str,
    prefix: &str,
    count: usize,
    docs: impl Fn(usize) -> usize,
) {
    let client = test_support::http_client();
    let mut bulk = String::new();
    for n in 0..count {
        let index = format!("{prefix}-{n:04}");
        let created = client
            .put(format!("{cluster_url}/{index}"))
            .json(&json!({"settings": {"number_of_shards": 1, "number_of_replicas": 1}}))
            .send()
            .await
            .unwrap();
        assert!(
            created.status().is_success(),
            "creating {index}: {}",
            created.status()
        );
        for doc in 0..docs(n) {
            bulk.push_str(&format!(
                "{{\"index\":{{\"_index\":\"{index}\"}}}}\n{{\"n\":{doc}}}\n"
            ));
        }
    }
    if !bulk.is_empty() {
        let response = client
            .post(format!("{cluster_url}/_bulk?refresh=true"))
            .header("content-type", "application/x-ndjson")
            .body(bulk)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success());
    }
}

/// Waits until `ready` holds, failing the test after `timeout` naming `what`
/// ([`test_support::wait_until`], run off the test's runtime: the application under test runs
/// on it and must go on answering).
pub async fn wait_until(
    what: &'static str,
    timeout: std::time::Duration,
    ready: impl FnMut() -> bool + Send + 'static,
) {
    let waited =
        tokio::task::spawn_blocking(move || test_support::wait_until(what, timeout, ready)).await;
    if let Err(failed) = waited {
        std::panic::resume_unwind(failed.into_panic());
    }
}

/// The JSON answer of a plain `GET` of `url` (`http://host:port/path?query`), or `None` while
/// nothing answers 200 with JSON; for [`wait_until`]'s conditions.
pub fn get_json_blocking(url: &str) -> Option<serde_json::Value> {
    let url = reqwest::Url::parse(url).ok()?;
    let host_port = format!("{}:{}", url.host_str()?, url.port_or_known_default()?);
    let path = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    match test_support::http_get(&host_port, &path)? {
        (200, body) => serde_json::from_str(&body).ok(),
        _ => None,
    }
}

/// A loopback port nothing listens on.
pub fn closed_port_url() -> String {
    let port = test_support::free_port();
    format!("http://127.0.0.1:{port}")
}

/// A listener that accepts connections and never answers, for time-out tests. The thread
/// holds the sockets until the process ends.
pub fn silent_server_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// A raw HTTP/1.0 `GET` with the console's header, for paths a client library would normalise
/// (dot segments): `(status, body)`.
pub fn raw_console_get(host_port: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(host_port).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let (name, value) = crate::app::CONSOLE_HEADER;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {host_port}\r\n{name}: {value}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split(' ').nth(1).unwrap().parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}
