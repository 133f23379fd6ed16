//! The redis backend: shared between replicas, encrypted, tamper-proof, fail-closed and
//! self-healing.

use std::time::Duration;

use deadpool_redis::redis::{self, AsyncCommands};
use test_support::eventually;

use crate::app::{ANN_PASSWORD, Cluster, TestApp, Users, spawn_app};
use crate::real_security::Flavor;
use crate::support::{basic, decode_basic};

const KEY: &str = "0123456789abcdef0123456789abcdef";

/// A forward_auth proxy with the Redis cache, `users` and the real Elasticsearch 8 node.
fn redis_yaml(cluster: &Cluster, users: &Users, redis_url: &str) -> String {
    format!(
        "server: {{host: 127.0.0.1, port: 0, trusted_proxies: [127.0.0.1]}}\n\
         cache: {{backend: redis, redis_url: \"{redis_url}\", encryption_key: {KEY}}}\n{}",
        cluster.search_yaml(users)
    )
}

async fn raw(redis_url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(redis_url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

async fn managed_password(app: &TestApp, ann: &str) -> String {
    let response = app.get_as("/x", ann, ANN_PASSWORD).await;
    assert_eq!(response.status(), 200);
    decode_basic(response.headers()["authorization"].to_str().unwrap()).1
}

#[tokio::test]
async fn replicas_share_encrypted_credentials_and_tampering_is_a_miss() {
    let redis_server = test_support::RedisServer::start();
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let ann = &users.ann;
    let yaml = redis_yaml(&cluster, &users, &redis_server.url());
    let first = spawn_app(&yaml).await;
    let second = spawn_app(&yaml).await;

    let password = managed_password(&first, ann).await;
    assert_eq!(cluster.upserts(ann), 1);
    assert_eq!(cluster.node.who(&basic(ann, &password)).await.0, 200);
    // The other replica finds it in Redis: same credential, no new upsert.
    assert_eq!(managed_password(&second, ann).await, password);
    assert_eq!(cluster.upserts(ann), 1);

    let mut connection = raw(&redis_server.url()).await;
    let key = format!("authproxy:credential:basic:{ann}");
    let key = key.as_str();
    let stored: Vec<u8> = connection.get(key).await.unwrap();
    assert!(!stored.is_empty());
    assert!(
        !stored
            .windows(password.len())
            .any(|w| w == password.as_bytes()),
        "the password is stored encrypted"
    );
    let ttl: i64 = connection.pttl(key).await.unwrap();
    assert!(ttl > 0 && ttl <= 3_600_000, "per-key TTL, got {ttl}");

    // Flip one byte: the entry no longer decrypts, which is a miss, not an error.
    let mut tampered = stored.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 0x55;
    let _: () = connection.set(key, tampered).await.unwrap();
    let misses = first.counter("proxy_cred_cache_misses_total").await;
    let replaced = managed_password(&first, ann).await;
    assert_ne!(replaced, password);
    assert_eq!(cluster.upserts(ann), 2);
    // The cluster has the new password; the old one is gone.
    assert_eq!(cluster.node.who(&basic(ann, &replaced)).await.0, 200);
    assert_eq!(cluster.node.who(&basic(ann, &password)).await.0, 401);
    assert!(first.counter("proxy_cred_cache_misses_total").await >= misses + 1.0);
}

#[tokio::test]
async fn redis_down_fails_closed_and_recovery_is_automatic() {
    let mut redis_server = test_support::RedisServer::start();
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let ann = &users.ann;
    let app = spawn_app(&redis_yaml(&cluster, &users, &redis_server.url())).await;
    managed_password(&app, ann).await;

    redis_server.stop();
    let response = app.get_as("/x", ann, ANN_PASSWORD).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "session_store_unavailable");
    assert!(response_has_no_authorization(&app, ann).await);
    let health = app.client.get(app.url("/_health")).send().await.unwrap();
    assert_eq!(health.status(), 503);
    let report: serde_json::Value = health.json().await.unwrap();
    assert_eq!(report["status"], "unhealthy");
    assert_eq!(report["checks"]["session_store"], "unreachable");

    redis_server.restart();
    eventually(
        "the credential again",
        Duration::from_secs(20),
        async || app.get_as("/x", ann, ANN_PASSWORD).await.status() == 200,
    )
    .await;
    // `/_health` reuses a report for up to `observability.health_cache_ttl` (5 s).
    eventually(
        "/_health healthy again",
        Duration::from_secs(20),
        async || {
            let health = app.client.get(app.url("/_health")).send().await.unwrap();
            health.status() == 200
        },
    )
    .await;
}

/// While the store is down nothing is let through: no credential is handed out.
async fn response_has_no_authorization(app: &TestApp, ann: &str) -> bool {
    let response = app.get_as("/x", ann, ANN_PASSWORD).await;
    response.status() == 503 && !response.headers().contains_key("authorization")
}
