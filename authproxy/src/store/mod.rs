//! The key-value store behind the credential cache sessions and pending sign-ins: memory or Redis,
//! each key with its own time-to-live.

mod memory;
mod redis;

use std::time::Duration;

use futures_util::future::BoxFuture;

pub use memory::MemoryStore;
pub use redis::RedisStore;

/// The store could not be reached or answered badly; callers fail closed.
/// Why the store could not be used, with the cause it came from.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the session store is unavailable: invalid Redis configuration: {0}")]
    Config(#[source] deadpool_redis::CreatePoolError),
    #[error("the session store is unavailable: no Redis connection: {0}")]
    Connection(#[source] deadpool_redis::PoolError),
    #[error("the session store is unavailable: Redis error: {0}")]
    Redis(#[source] deadpool_redis::redis::RedisError),
    #[error("the session store is unavailable: Redis did not answer in time")]
    Timeout,
}

/// A narrow async key-value interface with per-key expiry.
pub trait KeyValueStore: Send + Sync + 'static {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>>;
    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
    /// For `/_health`.
    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>>;
}
