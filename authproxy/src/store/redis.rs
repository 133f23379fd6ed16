//! The Redis store (several replicas) over a deadpool-redis pool. Every operation is bounded in
//! time so an unreachable Redis fails requests fast (503) instead of hanging them.

use std::time::Duration;

use deadpool_redis::redis::AsyncCommands;
use deadpool_redis::{Config, Pool, PoolConfig, Runtime, Timeouts};
use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::{KeyValueStore, StoreError};

/// Longest a single store operation (including getting a connection) may take.
const OPERATION_TIMEOUT: Duration = Duration::from_secs(2);

pub struct RedisStore {
    pool: Pool,
}

impl RedisStore {
    /// Builds the pool; no connection is made until the first operation, so the service starts
    /// (and reports the store in `/_health`) while Redis is down.
    pub fn new(url: &str) -> Result<Self, StoreError> {
        let mut config = Config::from_url(url);
        let mut pool_config = PoolConfig::new(32);
        pool_config.timeouts = Timeouts {
            wait: Some(OPERATION_TIMEOUT),
            create: Some(OPERATION_TIMEOUT),
            recycle: Some(OPERATION_TIMEOUT),
        };
        config.pool = Some(pool_config);
        let pool = config
            .create_pool(Some(Runtime::Tokio1))
            .map_err(StoreError::Config)?;
        Ok(Self { pool })
    }

    async fn run<T, F, Fut>(&self, operation: F) -> Result<T, StoreError>
    where
        F: FnOnce(deadpool_redis::Connection) -> Fut,
        Fut: Future<Output = Result<T, deadpool_redis::redis::RedisError>>,
    {
        let attempt = async {
            let connection = self.pool.get().await.map_err(StoreError::Connection)?;
            operation(connection).await.map_err(StoreError::Redis)
        };
        tokio::time::timeout(OPERATION_TIMEOUT, attempt)
            .await
            .map_err(|_| StoreError::Timeout)?
    }
}

impl KeyValueStore for RedisStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        self.run(move |mut connection| async move { connection.get(key).await })
            .boxed()
    }

    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
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

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.run(move |mut connection| async move { connection.del::<_, ()>(key).await })
            .boxed()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        self.run(|mut connection| async move {
            deadpool_redis::redis::cmd("PING")
                .query_async::<String>(&mut connection)
                .await
                .map(drop)
        })
        .boxed()
    }
}
