//! The harness itself: each real server starts on a free port, answers, and is gone after drop.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use test_support::{OidcProvider, Prometheus, RedisServer, http_client, wait_until};

fn process_exists(pid: u32) -> bool {
    // A reaped process has no /proc entry; a zombie would still have one, so this also proves
    // the guard waited for it.
    Path::new(&format!("/proc/{pid}")).exists()
}

/// One RESP command, the reply's first line.
fn redis_command(port: u16, command: &[&str]) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut request = format!("*{}\r\n", command.len());
    for part in command {
        request.push_str(&format!("${}\r\n{part}\r\n", part.len()));
    }
    stream.write_all(request.as_bytes()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut reply = [0u8; 64];
    let read = stream.read(&mut reply).unwrap();
    String::from_utf8_lossy(&reply[..read]).to_string()
}

#[test]
fn redis_starts_answers_and_stops() {
    let redis = RedisServer::start();
    let pid = redis.pid();
    assert_eq!(
        redis_command(redis.port, &["SET", "k", "v", "EX", "60"]),
        "+OK\r\n"
    );
    assert_eq!(redis_command(redis.port, &["GET", "k"]), "$1\r\nv\r\n");
    let mut redis = redis;
    redis.stop();
    assert!(
        !process_exists(pid),
        "redis-server {pid} still runs after stop"
    );
    assert!(TcpStream::connect(("127.0.0.1", redis.port)).is_err());
    redis.restart();
    assert_eq!(
        redis_command(redis.port, &["GET", "k"]),
        "$-1\r\n",
        "a restarted Redis is empty"
    );
    let pid = redis.pid();
    drop(redis);
    assert!(
        !process_exists(pid),
        "redis-server {pid} still runs after drop"
    );
}

#[tokio::test]
async fn prometheus_scrapes_and_answers_queries() {
    let prometheus = Prometheus::start(
        |own_address| {
            format!(
                "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: ['{own_address}']\n"
            )
        },
        None,
    );
    let pid = prometheus.pid();
    let client = http_client();
    let query = format!(
        "{}/api/v1/query?query=up%7Bjob%3D%22self%22%7D",
        prometheus.url
    );
    let last: serde_json::Value = test_support::eventually_with(
        "Prometheus scraping itself",
        Duration::from_secs(30),
        async || {
            let answer: serde_json::Value = client
                .get(&query)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            match answer["data"]["result"][0]["value"][1] == "1" {
                true => Ok(answer),
                false => Err(answer),
            }
        },
    )
    .await;
    assert_eq!(last["status"], "success");
    assert_eq!(last["data"]["result"][0]["value"][1], "1", "{last}");
    drop(prometheus);
    wait_until("prometheus to be gone", Duration::from_secs(5), || {
        !process_exists(pid)
    });
}

#[tokio::test]
async fn oidc_provider_publishes_discovery_with_pkce_and_logout() {
    let provider = OidcProvider::start(&serde_json::json!({
        "clients": [{
            "client_id": "authproxy",
            "client_secret": "test-secret",
            "redirect_uris": ["http://127.0.0.1:1/auth/callback"]
        }],
        "users": {"alice": {"groups": ["admins"]}}
    }));
    let pid = provider.pid();
    let discovery: serde_json::Value = http_client()
        .get(format!(
            "{}/.well-known/openid-configuration",
            provider.issuer
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(discovery["issuer"], provider.issuer);
    assert_eq!(
        discovery["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    assert!(discovery["end_session_endpoint"].as_str().is_some());
    let jwks: serde_json::Value = http_client()
        .get(discovery["jwks_uri"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(!jwks["keys"].as_array().unwrap().is_empty());
    drop(provider);
    assert!(
        !process_exists(pid),
        "oidc-provider {pid} still runs after drop"
    );
}
