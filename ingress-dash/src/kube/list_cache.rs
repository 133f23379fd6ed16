//! Cache of list results in the service-kit byte store (memory or Redis), with concurrent
//! identical requests sharing one upstream call (the service-kit single flight).

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use secrecy::ExposeSecret;
use service_kit::byte_store::{ByteStore, MemoryStore, RedisStore};
use service_kit::single_flight::SingleFlight;

use crate::config::{CacheBackend, CacheSettings};
use crate::kube::resilience::CallError;

/// Prefix of every list key (in Redis, next to other applications' keys).
const KEY_PREFIX: &str = "ingress-dash:list:";

/// Where list results are kept between requests, for `cache.ttl`. A store failure (Redis)
/// degrades to a miss, never to a failed request.
pub struct ListStore {
    store: Arc<dyn ByteStore>,
    ttl: Duration,
}

impl ListStore {
    pub fn memory(ttl: Duration, max_entries: u64) -> Self {
        Self {
            store: Arc::new(MemoryStore::new(max_entries)),
            ttl,
        }
    }

    async fn get(&self, key: &str) -> Option<Arc<Vec<u8>>> {
        self.store
            .get(&format!("{KEY_PREFIX}{key}"))
            .await
            .inspect_err(|error| tracing::warn!(%error, "redis cache read failed"))
            .ok()
            .flatten()
    }

    async fn put(&self, key: &str, value: Vec<u8>) {
        let result = self
            .store
            .set(&format!("{KEY_PREFIX}{key}"), value, self.ttl)
            .await;
        if let Err(error) = result {
            tracing::warn!(%error, "redis cache write failed");
        }
    }
}

pub fn build_cache(settings: &CacheSettings) -> anyhow::Result<ListStore> {
    Ok(match settings.backend {
        CacheBackend::Memory => ListStore::memory(settings.ttl, settings.max_entries),
        CacheBackend::Redis => {
            let url = settings
                .redis_url
                .as_ref()
                .map(|url| url.expose_secret().to_owned())
                .unwrap_or_default();
            let store = RedisStore::new(&url).map_err(|error| {
                anyhow::Error::new(error)
                    .context("cache.redis_url does not describe a Redis server")
            })?;
            ListStore {
                store: Arc::new(store),
                ttl: settings.ttl,
            }
        }
    })
}

/// The list store plus the lists in flight.
pub struct CoalescingCache {
    store: ListStore,
    in_flight: SingleFlight<String, Arc<Vec<u8>>, CallError>,
}

impl CoalescingCache {
    pub fn new(store: ListStore) -> Self {
        Self {
            store,
            in_flight: SingleFlight::new(),
        }
    }

    /// The cached bytes for `key`, else the result of `load`, run once however many callers
    /// ask at the same time (and stored before they get it).
    pub async fn get_or_load(
        &self,
        key: &str,
        load: impl FnOnce() -> BoxFuture<'static, Result<Vec<u8>, CallError>>,
    ) -> Result<Arc<Vec<u8>>, CallError> {
        if let Some(hit) = self.store.get(key).await {
            metrics::counter!("ingress_dash_cache_hits_total").increment(1);
            return Ok(hit);
        }
        metrics::counter!("ingress_dash_cache_misses_total").increment(1);
        self.in_flight
            .run(key.to_owned(), || async {
                let value = load().await?;
                self.store.put(key, value.clone()).await;
                Ok(Arc::new(value))
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures_util::FutureExt;
    use futures_util::future::pending;
    use futures_util::poll;

    use super::*;

    // Paused time: the load's 50 ms pass only once every task waits on it, so all 100 join
    // the one load however slow the machine is.
    #[tokio::test(start_paused = true)]
    async fn concurrent_identical_loads_share_one_call_and_then_hit_the_cache() {
        let cache = Arc::new(CoalescingCache::new(ListStore::memory(
            Duration::from_secs(60),
            10,
        )));
        let calls = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..100)
            .map(|_| {
                let (cache, calls) = (cache.clone(), calls.clone());
                tokio::spawn(async move {
                    cache
                        .get_or_load("k", move || {
                            async move {
                                calls.fetch_add(1, Ordering::SeqCst);
                                tokio::time::sleep(Duration::from_millis(50)).await;
                                Ok(b"v".to_vec())
                            }
                            .boxed()
                        })
                        .await
                })
            })
            .collect();
        for task in tasks {
            assert_eq!(task.await.unwrap().unwrap().as_slice(), b"v");
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        let again = cache
            .get_or_load("k", || async { Ok(b"other".to_vec()) }.boxed())
            .await
            .unwrap();
        assert_eq!(again.as_slice(), b"v");
    }

    #[tokio::test]
    async fn a_list_whose_first_caller_went_away_still_reaches_the_others_and_the_cache() {
        let cache = CoalescingCache::new(ListStore::memory(Duration::from_secs(60), 10));
        let mut first = Box::pin(cache.get_or_load("k", || pending().boxed()));
        assert!(poll!(&mut first).is_pending());
        let mut second =
            std::pin::pin!(cache.get_or_load("k", || async { Ok(b"v".to_vec()) }.boxed()));
        assert!(
            poll!(&mut second).is_pending(),
            "joins the first caller's load"
        );
        // The first client disconnects: the second still gets the list, and it is cached.
        drop(first);
        assert_eq!(second.await.unwrap().as_slice(), b"v");
        let stored = cache.store.get("k").await.expect("the list was stored");
        assert_eq!(stored.as_slice(), b"v");
        let again = cache
            .get_or_load("k", || async { Ok(b"other".to_vec()) }.boxed())
            .await
            .unwrap();
        assert_eq!(again.as_slice(), b"v");
    }
}
