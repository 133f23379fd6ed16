//! The in-process store (one replica): a bounded moka cache with per-entry expiry. Its
//! operations complete at once (the sync cache; the async one costs more per look-up).

use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, ready};
use moka::Expiry;
use moka::sync::Cache;

use super::{KeyValueStore, StoreError};

/// Entries kept at most; the least recently used go first beyond it.
const MAX_ENTRIES: u64 = 100_000;

#[derive(Clone)]
struct Entry {
    value: Vec<u8>,
    ttl: Duration,
}

struct PerEntryTtl;

impl Expiry<String, Entry> for PerEntryTtl {
    fn expire_after_create(&self, _key: &String, entry: &Entry, _now: Instant) -> Option<Duration> {
        Some(entry.ttl)
    }

    fn expire_after_update(
        &self,
        _key: &String,
        entry: &Entry,
        _now: Instant,
        _remaining: Option<Duration>,
    ) -> Option<Duration> {
        Some(entry.ttl)
    }
}

pub struct MemoryStore {
    entries: Cache<String, Entry>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self {
            entries: Cache::builder()
                .max_capacity(MAX_ENTRIES)
                .expire_after(PerEntryTtl)
                .build(),
        }
    }
}

impl KeyValueStore for MemoryStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        ready(Ok(self.entries.get(key).map(|entry| entry.value))).boxed()
    }

    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.entries.insert(key.to_owned(), Entry { value, ttl });
        ready(Ok(())).boxed()
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.entries.invalidate(key);
        ready(Ok(())).boxed()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        ready(Ok(())).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn entries_expire_by_their_own_ttl() {
        let store = MemoryStore::default();
        store
            .set("short", b"a".to_vec(), Duration::from_millis(50))
            .await
            .unwrap();
        store
            .set("long", b"b".to_vec(), Duration::from_secs(60))
            .await
            .unwrap();
        // Wait (at most 5 s) for the 50 ms entry to expire.
        let deadline = Instant::now() + Duration::from_secs(5);
        while store.get("short").await.unwrap().is_some() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(store.get("short").await.unwrap(), None);
        assert_eq!(store.get("long").await.unwrap(), Some(b"b".to_vec()));
        store.delete("long").await.unwrap();
        assert_eq!(store.get("long").await.unwrap(), None);
    }
}
