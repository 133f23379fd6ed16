//! The Redis store, for several replicas: one hash per kind of record (`admin-console:saved-queries`,
//! `admin-console:console-tabs`; id → JSON).
//! Each write is a Lua script that compares the stored version with the expected one and writes
//! only when they match, atomically in Redis. Every operation is bounded in time. The connection
//! pool is deadpool-redis's, as in service-kit's byte store.

use std::time::Duration;

use deadpool_redis::redis::{AsyncCommands, cmd};
use deadpool_redis::{Config, Pool, PoolConfig, Runtime, Timeouts};
use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::{Expected, Record, RecordStore, StoreError, Written, decode, encode};

/// Longest one operation (a connection included) may take.
const OPERATION_TIMEOUT: Duration = Duration::from_secs(2);

const POOL_SIZE: usize = 16;

/// KEYS[1]: the hash; ARGV: id, expected version (0: absent), the new JSON ('' deletes).
const CHECK_AND_SET: &str = r"
local current = redis.call('HGET', KEYS[1], ARGV[1])
local version = 0
if current then version = tonumber(cjson.decode(current)['version']) end
if version ~= tonumber(ARGV[2]) then
  if current then return {'conflict', current} end
  return {'conflict'}
end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
return {'ok'}
";

/// One hash (one kind of record).
pub(crate) struct RedisStore {
    pool: Pool,
    key: &'static str,
}

impl RedisStore {
    /// Builds the pool; nothing connects before the first operation.
    pub(crate) fn new(url: &str, key: &'static str) -> anyhow::Result<Self> {
        let mut config = Config::from_url(url);
        let mut pool = PoolConfig::new(POOL_SIZE);
        pool.timeouts = Timeouts {
            wait: Some(OPERATION_TIMEOUT),
            create: Some(OPERATION_TIMEOUT),
            recycle: Some(OPERATION_TIMEOUT),
        };
        config.pool = Some(pool);
        Ok(Self {
            pool: config.create_pool(Some(Runtime::Tokio1))?,
            key,
        })
    }

    async fn connection(&self) -> Result<deadpool_redis::Connection, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|error| StoreError(format!("no Redis connection for saved queries: {error}")))
    }

    async fn bounded<T>(
        &self,
        work: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        tokio::time::timeout(OPERATION_TIMEOUT, work)
            .await
            .map_err(|_| StoreError("Redis did not answer in time.".to_owned()))?
    }

    async fn check_and_set<T: Record>(
        &self,
        id: &str,
        expected: Expected,
        value: Vec<u8>,
    ) -> Result<Written<T>, StoreError> {
        self.bounded(async {
            let mut connection = self.connection().await?;
            // EVAL with the script's text (a few hundred bytes): no script cache to manage.
            let answer: Vec<String> = cmd("EVAL")
                .arg(CHECK_AND_SET)
                .arg(1)
                .arg(self.key)
                .arg(id)
                .arg(expected.as_number())
                .arg(value)
                .query_async(&mut connection)
                .await
                .map_err(redis_failed)?;
            match answer.as_slice() {
                [ok] if ok == "ok" => Ok(Written::Done),
                [_, current] => Ok(Written::Conflict(Some(Box::new(decode(
                    current.as_bytes(),
                )?)))),
                _ => Ok(Written::Conflict(None)),
            }
        })
        .await
    }
}

fn redis_failed(error: deadpool_redis::redis::RedisError) -> StoreError {
    StoreError(format!("Redis refused a saved-query operation: {error}"))
}

impl<T: Record> RecordStore<T> for RedisStore {
    fn all(&self) -> BoxFuture<'_, Result<Vec<T>, StoreError>> {
        self.bounded(async {
            let mut connection = self.connection().await?;
            let values: Vec<Vec<u8>> = connection.hvals(self.key).await.map_err(redis_failed)?;
            values.iter().map(|bytes| decode(bytes)).collect()
        })
        .boxed()
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<T>, StoreError>> {
        self.bounded(async move {
            let mut connection = self.connection().await?;
            let value: Option<Vec<u8>> =
                connection.hget(self.key, id).await.map_err(redis_failed)?;
            value.as_deref().map(decode).transpose()
        })
        .boxed()
    }

    fn put(&self, record: T, expected: Expected) -> BoxFuture<'_, Result<Written<T>, StoreError>> {
        async move {
            let bytes = encode(&record)?;
            self.check_and_set(record.id(), expected, bytes).await
        }
        .boxed()
    }

    fn delete<'a>(
        &'a self,
        id: &'a str,
        version: u64,
    ) -> BoxFuture<'a, Result<Written<T>, StoreError>> {
        self.check_and_set(id, Expected::Version(version), Vec::new())
            .boxed()
    }
}
