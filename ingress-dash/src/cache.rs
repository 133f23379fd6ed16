//! Cache of list results (memory or Redis), with concurrent identical requests sharing one
//! upstream call: while a list is in flight, later callers await the same future.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deadpool_redis::redis::AsyncCommands;
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};
use secrecy::ExposeSecret;

use crate::config::{CacheBackend, CacheSettings};
use crate::resilience::CallError;

/// Where list results are kept between requests.
pub trait ListCache: Send + Sync {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<Arc<Vec<u8>>>>;
    fn put(&self, key: String, value: Arc<Vec<u8>>) -> BoxFuture<'_, ()>;
}

pub struct MemoryCache(moka::future::Cache<String, Arc<Vec<u8>>>);

impl MemoryCache {
    pub fn new(ttl: Duration, max_entries: u64) -> Self {
        Self(
            moka::future::Cache::builder()
                .time_to_live(ttl)
                .max_capacity(max_entries)
                .build(),
        )
    }
}

impl ListCache for MemoryCache {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<Arc<Vec<u8>>>> {
        self.0.get(key).boxed()
    }

    fn put(&self, key: String, value: Arc<Vec<u8>>) -> BoxFuture<'_, ()> {
        self.0.insert(key, value).boxed()
    }
}

/// Redis, shared by replicas. A Redis failure degrades to a miss, never to a failed request.
pub struct RedisCache {
    pool: deadpool_redis::Pool,
    ttl: Duration,
}

const REDIS_PREFIX: &str = "ingress-dash:list:";

impl RedisCache {
    pub fn new(url: &str, ttl: Duration) -> anyhow::Result<Self> {
        let pool = deadpool_redis::Config::from_url(url)
            .create_pool(Some(deadpool_redis::Runtime::Tokio1))
            .map_err(|_| anyhow::anyhow!("cache.redis_url does not describe a Redis server"))?;
        Ok(Self { pool, ttl })
    }
}

impl ListCache for RedisCache {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<Arc<Vec<u8>>>> {
        async move {
            let mut connection = self.pool.get().await.ok()?;
            let value: Option<Vec<u8>> = connection
                .get(format!("{REDIS_PREFIX}{key}"))
                .await
                .inspect_err(|error| tracing::warn!(%error, "redis cache read failed"))
                .ok()?;
            value.map(Arc::new)
        }
        .boxed()
    }

    fn put(&self, key: String, value: Arc<Vec<u8>>) -> BoxFuture<'_, ()> {
        async move {
            let Ok(mut connection) = self.pool.get().await else {
                return;
            };
            let ttl_ms = self.ttl.as_millis().max(1) as u64;
            let result: Result<(), _> = connection
                .pset_ex(format!("{REDIS_PREFIX}{key}"), value.as_slice(), ttl_ms)
                .await;
            if let Err(error) = result {
                tracing::warn!(%error, "redis cache write failed");
            }
        }
        .boxed()
    }
}

pub fn build_cache(settings: &CacheSettings) -> anyhow::Result<Arc<dyn ListCache>> {
    Ok(match settings.backend {
        CacheBackend::Memory => Arc::new(MemoryCache::new(settings.ttl, settings.max_entries)),
        CacheBackend::Redis => {
            let url = settings
                .redis_url
                .as_ref()
                .map(|url| url.expose_secret().to_owned())
                .unwrap_or_default();
            Arc::new(RedisCache::new(&url, settings.ttl)?)
        }
    })
}

type InFlight = Shared<BoxFuture<'static, Result<Arc<Vec<u8>>, CallError>>>;

/// The cache plus the table of lists in flight.
pub struct CoalescingCache {
    cache: Arc<dyn ListCache>,
    in_flight: Mutex<HashMap<String, InFlight>>,
}

impl CoalescingCache {
    pub fn new(cache: Arc<dyn ListCache>) -> Self {
        Self {
            cache,
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    /// The cached bytes for `key`, else the result of `load`, run once however many callers
    /// ask at the same time.
    pub async fn get_or_load(
        &self,
        key: &str,
        load: impl FnOnce() -> BoxFuture<'static, Result<Vec<u8>, CallError>>,
    ) -> Result<Arc<Vec<u8>>, CallError> {
        if let Some(hit) = self.cache.get(key).await {
            metrics::counter!("ingress_dash_cache_hits_total").increment(1);
            return Ok(hit);
        }
        metrics::counter!("ingress_dash_cache_misses_total").increment(1);
        let (shared, leader) = {
            let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
            match in_flight.get(key) {
                Some(shared) => (shared.clone(), false),
                None => {
                    let shared = load().map(|result| result.map(Arc::new)).boxed().shared();
                    in_flight.insert(key.to_owned(), shared.clone());
                    (shared, true)
                }
            }
        };
        let result = shared.await;
        if leader {
            if let Ok(value) = &result {
                self.cache.put(key.to_owned(), value.clone()).await;
            }
            self.in_flight
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(key);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    // Paused time: the load's 50 ms pass only once every task waits on it, so all 100 join
    // the one load however slow the machine is.
    #[tokio::test(start_paused = true)]
    async fn concurrent_identical_loads_share_one_call_and_then_hit_the_cache() {
        let cache = Arc::new(CoalescingCache::new(Arc::new(MemoryCache::new(
            Duration::from_secs(60),
            10,
        ))));
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
}
