//! The byte store, in memory and against a real Redis: values round-trip, each key expires by
//! its own time to live, deletes delete, and an unreachable Redis is an error, fast.

use std::time::{Duration, Instant};

use deadpool_redis::redis::{self, AsyncCommands};
use service_kit::byte_store::{ByteStore, ByteStoreError, MemoryStore, RedisStore};

/// How long a test waits for a short-lived entry to expire.
const DEADLINE: Duration = Duration::from_secs(5);

/// What both stores must do.
async fn stores_expire_each_key_by_its_own_ttl(store: &dyn ByteStore) {
    store
        .set("short", b"a".to_vec(), Duration::from_millis(50))
        .await
        .unwrap();
    store
        .set("long", b"b".to_vec(), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(store.get("missing").await.unwrap(), None);
    test_support::eventually("the short-lived key to expire", DEADLINE, async || {
        store.get("short").await.unwrap().is_none()
    })
    .await;
    assert_eq!(
        store.get("long").await.unwrap().as_deref(),
        Some(&b"b".to_vec())
    );
    // A new value replaces the old one, with its own time to live.
    store
        .set("long", b"c".to_vec(), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(
        store.get("long").await.unwrap().as_deref(),
        Some(&b"c".to_vec())
    );
    store.delete("long").await.unwrap();
    assert_eq!(store.get("long").await.unwrap(), None);
    // A lease: the first caller takes it, the next does not, until it expires.
    assert!(
        store
            .set_if_absent("lease", b"1".to_vec(), Duration::from_millis(100))
            .await
            .unwrap()
    );
    assert!(
        !store
            .set_if_absent("lease", b"2".to_vec(), Duration::from_secs(60))
            .await
            .unwrap()
    );
    assert_eq!(
        store.get("lease").await.unwrap().as_deref(),
        Some(&b"1".to_vec())
    );
    test_support::eventually("the lease to expire", DEADLINE, async || {
        store.get("lease").await.unwrap().is_none()
    })
    .await;
    assert!(
        store
            .set_if_absent("lease", b"3".to_vec(), Duration::from_secs(60))
            .await
            .unwrap()
    );
    store.ping().await.unwrap();
}

/// What both stores must do for a lease of one holder and a record that may have been deleted.
async fn stores_release_only_their_own_lease_and_update_only_present_keys(store: &dyn ByteStore) {
    // Compare-and-delete: another value (a lease taken after ours expired) stays.
    let ttl = Duration::from_secs(60);
    assert!(
        store
            .set_if_absent("held", b"mine".to_vec(), ttl)
            .await
            .unwrap()
    );
    assert!(!store.delete_if_equals("held", b"theirs").await.unwrap());
    assert_eq!(
        store.get("held").await.unwrap().as_deref(),
        Some(&b"mine".to_vec())
    );
    assert!(store.delete_if_equals("held", b"mine").await.unwrap());
    assert_eq!(store.get("held").await.unwrap(), None);
    assert!(
        !store.delete_if_equals("held", b"mine").await.unwrap(),
        "gone"
    );

    // Set-if-present: an update of a deleted key does not bring it back.
    assert!(
        !store
            .set_if_present("record", b"a".to_vec(), ttl)
            .await
            .unwrap()
    );
    assert_eq!(store.get("record").await.unwrap(), None);
    store.set("record", b"a".to_vec(), ttl).await.unwrap();
    assert!(
        store
            .set_if_present("record", b"b".to_vec(), Duration::from_millis(50))
            .await
            .unwrap()
    );
    assert_eq!(
        store.get("record").await.unwrap().as_deref(),
        Some(&b"b".to_vec())
    );
    // With the new (short) time to live.
    test_support::eventually("the updated key to expire", DEADLINE, async || {
        store.get("record").await.unwrap().is_none()
    })
    .await;
    store.set("record", b"c".to_vec(), ttl).await.unwrap();
    store.delete("record").await.unwrap();
    assert!(
        !store
            .set_if_present("record", b"d".to_vec(), ttl)
            .await
            .unwrap()
    );
    assert_eq!(store.get("record").await.unwrap(), None);
}

#[tokio::test]
async fn memory_store_keeps_values_for_their_own_time() {
    stores_expire_each_key_by_its_own_ttl(&MemoryStore::default()).await;
}

#[tokio::test]
async fn memory_store_compares_before_deleting_and_updates_only_present_keys() {
    stores_release_only_their_own_lease_and_update_only_present_keys(&MemoryStore::default()).await;
}

#[tokio::test]
async fn redis_store_compares_before_deleting_and_updates_only_present_keys() {
    let server = test_support::RedisServer::start();
    let store = RedisStore::new(&server.url()).unwrap();
    stores_release_only_their_own_lease_and_update_only_present_keys(&store).await;
    // SET XX keeps the per-key expiry semantics of SET PX.
    store
        .set("kept", b"1".to_vec(), Duration::from_secs(60))
        .await
        .unwrap();
    assert!(
        store
            .set_if_present("kept", b"2".to_vec(), Duration::from_secs(30))
            .await
            .unwrap()
    );
    let mut raw = redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let ttl: i64 = raw.pttl("kept").await.unwrap();
    assert!(ttl > 0 && ttl <= 30_000, "per-key TTL, got {ttl}");
}

#[tokio::test]
async fn redis_store_keeps_values_for_their_own_time_under_the_given_key() {
    let server = test_support::RedisServer::start();
    let store = RedisStore::new(&server.url()).unwrap();
    stores_expire_each_key_by_its_own_ttl(&store).await;

    // The key is used as given, with a millisecond expiry.
    store
        .set(
            "app:thing:1",
            vec![0, 159, 146, 150],
            Duration::from_secs(30),
        )
        .await
        .unwrap();
    let mut raw = redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let stored: Vec<u8> = raw.get("app:thing:1").await.unwrap();
    assert_eq!(stored, [0, 159, 146, 150]);
    let ttl: i64 = raw.pttl("app:thing:1").await.unwrap();
    assert!(ttl > 0 && ttl <= 30_000, "per-key TTL, got {ttl}");
}

#[tokio::test]
async fn an_unreachable_redis_is_an_error_and_recovery_is_automatic() {
    let mut server = test_support::RedisServer::start();
    let store = RedisStore::new(&server.url()).unwrap();
    store
        .set("k", b"v".to_vec(), Duration::from_secs(60))
        .await
        .unwrap();

    server.stop();
    let started = Instant::now();
    let error = store.get("k").await.unwrap_err();
    assert!(
        matches!(
            error,
            ByteStoreError::Connection(_) | ByteStoreError::Redis(_) | ByteStoreError::Timeout
        ),
        "{error:?}"
    );
    // Bounded: the store gives up within its operation time-out (2 s), not the OS's.
    assert!(started.elapsed() < DEADLINE, "{:?}", started.elapsed());
    assert!(store.ping().await.is_err());
    assert!(
        store
            .set("k", b"w".to_vec(), Duration::from_secs(60))
            .await
            .is_err()
    );

    server.restart();
    test_support::eventually("Redis back", Duration::from_secs(20), async || {
        store.ping().await.is_ok()
    })
    .await;
    // A fresh (empty) server: the old value is gone, new ones are kept.
    assert_eq!(store.get("k").await.unwrap(), None);
    store
        .set("k", b"x".to_vec(), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(
        store.get("k").await.unwrap().as_deref(),
        Some(&b"x".to_vec())
    );
}

#[test]
fn a_url_that_is_not_redis_is_a_configuration_error() {
    let error = RedisStore::new("http://example.com").err().unwrap();
    assert!(matches!(error, ByteStoreError::Config(_)), "{error:?}");
    assert!(std::error::Error::source(&error).is_some());
}
