//! The byte store: values by key, each with its own time to live, in this process (memory, for
//! one replica) or in Redis (shared by replicas). Callers decide what a failure means (authproxy
//! fails closed, ingress-dash reads it as a miss); every Redis operation is bounded in time, so
//! an unreachable Redis fails fast instead of hanging requests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_redis::redis::AsyncCommands;
use deadpool_redis::{Config, Pool, PoolConfig, Runtime, Timeouts};
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, ready};
use moka::Expiry;
use moka::ops::compute::{CompResult, Op};
use moka::sync::Cache;

/// Why the store could not be used, with the cause it came from (shared, so the error can be
/// handed to every caller of a single flight).
#[derive(Debug, Clone, thiserror::Error)]
pub enum ByteStoreError {
    #[error("invalid Redis configuration: {0}")]
    Config(#[source] Arc<deadpool_redis::CreatePoolError>),
    #[error("no Redis connection: {0}")]
    Connection(#[source] Arc<deadpool_redis::PoolError>),
    #[error("Redis error: {0}")]
    Redis(#[source] Arc<deadpool_redis::redis::RedisError>),
    #[error("Redis did not answer in time")]
    Timeout,
}

/// Values are shared, not copied, on a hit in memory.
pub type Bytes = Arc<Vec<u8>>;

/// An async key-value interface with per-key expiry.
pub trait ByteStore: Send + Sync + 'static {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Bytes>, ByteStoreError>>;
    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), ByteStoreError>>;
    /// Stores `value` only when `key` holds nothing (Redis `SET NX PX`): `true` when this call
    /// stored it. A short lease that one caller among replicas takes.
    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>>;
    /// Replaces the value of `key` only when it holds one (Redis `SET XX PX`), with a new time
    /// to live: `true` when this call stored it. An update that must not bring back a key
    /// deleted meanwhile.
    fn set_if_present<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>>;
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), ByteStoreError>>;
    /// Deletes `key` only while it holds `value`, atomically (compare-and-delete): `true` when
    /// this call deleted it. Releases a lease taken with a value of the holder's own, never one
    /// another caller took after it expired.
    fn delete_if_equals<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>>;
    /// Whether the store answers (for health checks).
    fn ping(&self) -> BoxFuture<'_, Result<(), ByteStoreError>>;
}

/// The in-process store: a bounded moka cache with per-entry expiry; the least recently used
/// entries go first beyond its capacity. Its operations complete at once (the sync cache; the
/// async one costs more per look-up).
pub struct MemoryStore {
    entries: Cache<String, Entry>,
}

#[derive(Clone)]
struct Entry {
    value: Bytes,
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

impl MemoryStore {
    /// Entries kept when no other capacity is given.
    pub const DEFAULT_CAPACITY: u64 = 100_000;

    /// At most `capacity` entries.
    pub fn new(capacity: u64) -> Self {
        Self {
            entries: Cache::builder()
                .max_capacity(capacity)
                .expire_after(PerEntryTtl)
                .build(),
        }
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

impl ByteStore for MemoryStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Bytes>, ByteStoreError>> {
        ready(Ok(self.entries.get(key).map(|entry| entry.value))).boxed()
    }

    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), ByteStoreError>> {
        let entry = Entry {
            value: Arc::new(value),
            ttl,
        };
        self.entries.insert(key.to_owned(), entry);
        ready(Ok(())).boxed()
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>> {
        let entry = self.entries.entry(key.to_owned()).or_insert(Entry {
            value: Arc::new(value),
            ttl,
        });
        ready(Ok(entry.is_fresh())).boxed()
    }

    fn set_if_present<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>> {
        let result = self
            .entries
            .entry_by_ref(key)
            .and_compute_with(|current| match current {
                Some(_) => Op::Put(Entry {
                    value: Arc::new(value),
                    ttl,
                }),
                None => Op::Nop,
            });
        ready(Ok(matches!(result, CompResult::ReplacedWith(_)))).boxed()
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), ByteStoreError>> {
        self.entries.invalidate(key);
        ready(Ok(())).boxed()
    }

    fn delete_if_equals<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>> {
        let result = self
            .entries
            .entry_by_ref(key)
            .and_compute_with(|current| match current {
                Some(entry) if entry.value().value.as_slice() == value => Op::Remove,
                _ => Op::Nop,
            });
        ready(Ok(matches!(result, CompResult::Removed(_)))).boxed()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), ByteStoreError>> {
        ready(Ok(())).boxed()
    }
}

/// Longest a single Redis operation (including getting a connection) may take.
const OPERATION_TIMEOUT: Duration = Duration::from_secs(2);

/// Compare-and-delete in one step on the server (`EVAL`, no script cache needed).
const DELETE_IF_EQUALS: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/// Connections to Redis kept at most.
const POOL_SIZE: usize = 32;

/// Redis over a deadpool-redis pool; keys are used as given.
pub struct RedisStore {
    pool: Pool,
}

impl RedisStore {
    /// Builds the pool; no connection is made until the first operation, so a service starts
    /// (and reports the store in its health check) while Redis is down.
    pub fn new(url: &str) -> Result<Self, ByteStoreError> {
        let mut config = Config::from_url(url);
        let mut pool_config = PoolConfig::new(POOL_SIZE);
        pool_config.timeouts = Timeouts {
            wait: Some(OPERATION_TIMEOUT),
            create: Some(OPERATION_TIMEOUT),
            recycle: Some(OPERATION_TIMEOUT),
        };
        config.pool = Some(pool_config);
        let pool = config
            .create_pool(Some(Runtime::Tokio1))
            .map_err(|error| ByteStoreError::Config(Arc::new(error)))?;
        Ok(Self { pool })
    }

    async fn run<T, F, Fut>(&self, operation: F) -> Result<T, ByteStoreError>
    where
        F: FnOnce(deadpool_redis::Connection) -> Fut,
        Fut: Future<Output = Result<T, deadpool_redis::redis::RedisError>>,
    {
        let attempt = async {
            let connection = self
                .pool
                .get()
                .await
                .map_err(|error| ByteStoreError::Connection(Arc::new(error)))?;
            operation(connection)
                .await
                .map_err(|error| ByteStoreError::Redis(Arc::new(error)))
        };
        tokio::time::timeout(OPERATION_TIMEOUT, attempt)
            .await
            .map_err(|_| ByteStoreError::Timeout)?
    }

    /// `SET key value <condition> PX ttl` (`NX`: only if absent, `XX`: only if present): whether
    /// it was written.
    fn set_on_condition<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
        condition: &'static str,
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>> {
        let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        self.run(move |mut connection| async move {
            let stored: Option<String> = deadpool_redis::redis::cmd("SET")
                .arg(key)
                .arg(value)
                .arg(condition)
                .arg("PX")
                .arg(millis)
                .query_async(&mut connection)
                .await?;
            Ok(stored.is_some())
        })
        .boxed()
    }
}

impl ByteStore for RedisStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Bytes>, ByteStoreError>> {
        self.run(move |mut connection| async move {
            let value: Option<Vec<u8>> = connection.get(key).await?;
            Ok(value.map(Arc::new))
        })
        .boxed()
    }

    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), ByteStoreError>> {
        // Redis expiry has millisecond resolution; never 0, which Redis rejects.
        let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        self.run(move |mut connection| async move {
            deadpool_redis::redis::cmd("SET")
                .arg(key)
                .arg(value)
                .arg("PX")
                .arg(millis)
                .query_async::<()>(&mut connection)
                .await
        })
        .boxed()
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>> {
        self.set_on_condition(key, value, ttl, "NX")
    }

    fn set_if_present<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>> {
        self.set_on_condition(key, value, ttl, "XX")
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), ByteStoreError>> {
        self.run(move |mut connection| async move { connection.del::<_, ()>(key).await })
            .boxed()
    }

    fn delete_if_equals<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, ByteStoreError>> {
        self.run(move |mut connection| async move {
            let deleted: u64 = deadpool_redis::redis::cmd("EVAL")
                .arg(DELETE_IF_EQUALS)
                .arg(1)
                .arg(key)
                .arg(value)
                .query_async(&mut connection)
                .await?;
            Ok(deleted == 1)
        })
        .boxed()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), ByteStoreError>> {
        self.run(|mut connection| async move {
            deadpool_redis::redis::cmd("PING")
                .query_async::<String>(&mut connection)
                .await
                .map(drop)
        })
        .boxed()
    }
}
