//! Real parts for the tests: osmem seeded with indices, the `_nodes/stats` front, an echo
//! server that shows what the relay sends, elasticsearch_exporter, and backfilled history.

pub mod cluster_stub;
pub mod echo;
pub mod exporter;

use serde_json::json;

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
