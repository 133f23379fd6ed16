//! Where saved queries (and the console's tabs) live: one trait, [`RecordStore`], with an
//! embedded store (redb, one file, for one replica) and a Redis store (several replicas), each
//! record kind in its own table or hash ([`Place`]). Every write names the version it
//! started from and is refused, with the current query, when that is no longer the stored one:
//! the last writer gets a conflict, never a silent overwrite.

mod embedded;
mod redis;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub(crate) use embedded::EmbeddedStore;
pub(crate) use redis::RedisStore;

use super::SavedQuery;
use crate::config::{SavedQueriesSettings, SavedQueryStoreKind};

/// Why the store could not be used (the message names the store, never a secret).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(crate) struct StoreError(pub(crate) String);

/// A stored record: found by its id, written only over the version it names.
pub(crate) trait Record: Serialize + DeserializeOwned + Send + Sync + 'static {
    fn id(&self) -> &str;
    fn version(&self) -> u64;
}

impl Record for SavedQuery {
    fn id(&self) -> &str {
        &self.id
    }
    fn version(&self) -> u64 {
        self.version
    }
}

/// Where one kind of record is kept: a redb table, a Redis hash.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub(crate) table: &'static str,
    pub(crate) redis_key: &'static str,
}

/// The saved queries' place.
pub(crate) const SAVED_QUERIES: Place = Place {
    table: "saved_queries",
    redis_key: "admin-console:saved-queries",
};

/// What a write expects to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expected {
    /// A new id: nothing stored under it.
    Absent,
    /// The stored query's version.
    Version(u64),
}

impl Expected {
    fn holds_for<T: Record>(self, stored: Option<&T>) -> bool {
        match (self, stored) {
            (Self::Absent, None) => true,
            (Self::Version(version), Some(stored)) => stored.version() == version,
            _ => false,
        }
    }

    /// The number the Redis script compares with (0: absent).
    fn as_number(self) -> u64 {
        match self {
            Self::Absent => 0,
            Self::Version(version) => version,
        }
    }
}

/// The outcome of a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Written<T = SavedQuery> {
    Done,
    /// Not written: what is stored now (`None`: nothing, it was deleted).
    Conflict(Option<Box<T>>),
}

/// The records of one kind (saved queries of every user, tabs of every user), by id.
pub(crate) trait RecordStore<T: Record>: Send + Sync + 'static {
    fn all(&self) -> BoxFuture<'_, Result<Vec<T>, StoreError>>;
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<T>, StoreError>>;
    /// Stores `record` under its id if `expected` holds.
    fn put(&self, record: T, expected: Expected) -> BoxFuture<'_, Result<Written<T>, StoreError>>;
    /// Removes the record if it is at `version`.
    fn delete<'a>(
        &'a self,
        id: &'a str,
        version: u64,
    ) -> BoxFuture<'a, Result<Written<T>, StoreError>>;
}

/// The configured store. Neither opens anything yet: the embedded file is opened at the first
/// use, Redis connects at the first operation.
pub(crate) fn configured<T: Record>(
    settings: &SavedQueriesSettings,
    place: Place,
) -> anyhow::Result<Arc<dyn RecordStore<T>>> {
    Ok(match settings.store {
        SavedQueryStoreKind::Embedded => {
            Arc::new(EmbeddedStore::new(settings.path.clone(), place.table))
        }
        SavedQueryStoreKind::Redis => {
            Arc::new(RedisStore::new(&settings.redis.url, place.redis_key)?)
        }
    })
}

fn encode<T: Record>(record: &T) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(record)
        .map_err(|error| StoreError(format!("cannot encode a record: {error}")))
}

fn decode<T: Record>(bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes)
        .map_err(|error| StoreError(format!("a stored record cannot be read: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::saved::Visibility;

    pub(super) fn sample(id: &str, version: u64) -> SavedQuery {
        SavedQuery {
            id: id.to_owned(),
            name: "Health".to_owned(),
            tags: vec![],
            text: "GET _cluster/health".to_owned(),
            cluster: "all".to_owned(),
            visibility: Visibility::Private,
            owner: "vera".to_owned(),
            version,
            updated_at: "2026-11-28T12:00:00Z".to_owned(),
        }
    }

    #[test]
    fn expectations_hold_only_for_the_state_they_name() {
        let stored = sample("a", 2);
        assert!(Expected::Absent.holds_for::<SavedQuery>(None));
        assert!(!Expected::Absent.holds_for(Some(&stored)));
        assert!(Expected::Version(2).holds_for(Some(&stored)));
        assert!(!Expected::Version(1).holds_for(Some(&stored)));
        assert!(!Expected::Version(2).holds_for::<SavedQuery>(None));
    }

    /// What both stores must do: refuse a stale or absent version with what is stored, and let
    /// exactly one of several concurrent writes from the same version through.
    async fn keeps_the_contract(store: &dyn RecordStore<SavedQuery>) {
        assert_eq!(
            store.put(sample("a", 1), Expected::Absent).await.unwrap(),
            Written::Done
        );
        assert!(matches!(
            store.put(sample("a", 1), Expected::Absent).await.unwrap(),
            Written::Conflict(Some(_))
        ));
        assert_eq!(
            store
                .put(sample("a", 2), Expected::Version(1))
                .await
                .unwrap(),
            Written::Done
        );
        assert_eq!(
            store
                .put(sample("a", 2), Expected::Version(1))
                .await
                .unwrap(),
            Written::Conflict(Some(Box::new(sample("a", 2))))
        );
        assert_eq!(
            store
                .put(sample("gone", 2), Expected::Version(1))
                .await
                .unwrap(),
            Written::Conflict(None)
        );
        let racing = (0..8).map(|n| {
            let mut edit = sample("a", 3);
            edit.text = format!("GET _cat/indices?n={n}");
            store.put(edit, Expected::Version(2))
        });
        let outcomes = futures_util::future::join_all(racing).await;
        let done = outcomes
            .iter()
            .filter(|outcome| matches!(outcome, Ok(Written::Done)))
            .count();
        assert_eq!(done, 1, "{outcomes:?}");
        assert!(matches!(
            store.delete("a", 2).await.unwrap(),
            Written::Conflict(Some(_))
        ));
        assert_eq!(store.delete("a", 3).await.unwrap(), Written::Done);
        assert_eq!(store.get("a").await.unwrap(), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_embedded_store_keeps_the_contract_and_its_data_across_reopening() {
        let dir = test_support::TempDir::new("saved-queries-unit");
        let path = dir.path().join("q.redb");
        {
            let store = EmbeddedStore::new(path.clone(), SAVED_QUERIES.table);
            keeps_the_contract(&store).await;
            store
                .put(sample("kept", 1), Expected::Absent)
                .await
                .unwrap();
        }
        let reopened = EmbeddedStore::new(path, SAVED_QUERIES.table);
        let all: Vec<SavedQuery> = reopened.all().await.unwrap();
        assert_eq!(all, vec![sample("kept", 1)]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_redis_store_keeps_the_contract_on_a_real_redis() {
        let redis = test_support::RedisServer::start();
        let store = RedisStore::new(&redis.url(), SAVED_QUERIES.redis_key).unwrap();
        keeps_the_contract(&store).await;
    }
}
