//! The key-value store behind the credential cache sessions and pending sign-ins: memory or Redis,
//! each key with its own time-to-live.

mod memory;
mod redis;

use std::time::Duration;

use futures_util::future::BoxFuture;

pub use memory::MemoryStore;
pub use redis::RedisStore;

/// The store could not be reached or answered badly; callers fail closed.
#[derive(Debug, thiserror::Error)]
#[error("the session store is unavailable: {0}")]
pub struct StoreError(pub String);

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
    /// Gets and deletes in one step, so of two concurrent takers only one gets the value
    /// (one-time sign-in records).
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>>;
    /// For `/_health`.
    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>>;
}
