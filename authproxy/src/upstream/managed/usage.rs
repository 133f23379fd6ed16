//! When each managed user was last used, as the lifecycle sweep reads it: a small record in the
//! store per managed user, `authproxy:last-used:<source>:<name>`. It is written after the
//! cluster took an upsert (never for a refused one) and, for a cached credential, at most once per
//! [`LifecycleSettings::touch_every`] per user and replica (not a store write per request), so
//! a record is at most that much older than the user's last request. A second key,
//! `authproxy:idle-disabled:<source>:<name>`, says the sweep disabled the user; the next upsert
//! enables it again and removes the key (an operator's lock-out has no such key and stays).
//! A third, `authproxy:managed-roles:<source>:<name>`, keeps the roles of the user's last upsert
//! (written only after the cluster took it: the sweep acts only on users that have one)
//! for drift repair, which only takes away roles added beyond them by hand.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::lifecycle::LifecycleSettings;
use crate::identity::ManagedUser;
use crate::store::{KeyValueStore, StoreError};

/// Users whose last write is remembered before the least recently touched are forgotten
/// (and simply written again on their next request).
const TOUCHED_CAPACITY: u64 = 100_000;

/// The stored record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct UsageRecord {
    /// Seconds since the Unix epoch.
    pub(crate) last_used: u64,
}

/// The record's key for the cluster user `name` of `source` (`basic`, `oidc`, `bearer`).
pub(crate) fn usage_key(source: &str, name: &str) -> String {
    format!("authproxy:last-used:{source}:{name}")
}

/// The key that says the sweep disabled the cluster user `name` of `source`.
pub(crate) fn disabled_key(source: &str, name: &str) -> String {
    format!("authproxy:idle-disabled:{source}:{name}")
}

/// The key of the roles the user `name` of `source` was last upserted with.
pub(crate) fn roles_key(source: &str, name: &str) -> String {
    format!("authproxy:managed-roles:{source}:{name}")
}

/// The cached credential's key, as [`ManagedUser::store_key`] makes it, for a cluster user the
/// sweep found (it has no identity to build a [`ManagedUser`] from).
pub(crate) fn credential_key(source: &str, name: &str) -> String {
    format!("authproxy:credential:{source}:{name}")
}

pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|since| since.as_secs())
        .unwrap_or_default()
}

/// How long a record is kept: past `delete_after` (when the sweep deletes the user and the
/// record), with room for sweeps that were missed.
pub(crate) fn record_ttl(settings: &LifecycleSettings) -> Duration {
    settings
        .delete_after
        .saturating_mul(2)
        .saturating_add(settings.interval)
}

pub(crate) async fn read(
    store: &dyn KeyValueStore,
    key: &str,
) -> Result<Option<UsageRecord>, StoreError> {
    Ok(store
        .get(key)
        .await?
        .and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

pub(crate) async fn write(
    store: &dyn KeyValueStore,
    key: &str,
    record: UsageRecord,
    ttl: Duration,
) -> Result<(), StoreError> {
    let bytes = serde_json::to_vec(&record).unwrap_or_default();
    store.set(key, bytes, ttl).await
}

/// Records use of managed users for the sweep.
pub(crate) struct Usage {
    store: Arc<dyn KeyValueStore>,
    ttl: Duration,
    /// The users this replica wrote a record for within `touch_every`.
    touched: moka::sync::Cache<String, ()>,
}

impl Usage {
    pub(crate) fn new(store: Arc<dyn KeyValueStore>, settings: &LifecycleSettings) -> Self {
        Self {
            store,
            ttl: record_ttl(settings),
            touched: moka::sync::Cache::builder()
                .max_capacity(TOUCHED_CAPACITY)
                .time_to_live(settings.touch_every().max(Duration::from_millis(1)))
                .build(),
        }
    }

    /// A cached credential of `user` was used: recorded unless it was within `touch_every`.
    /// A store failure is logged, not the request's error.
    pub(crate) async fn touch(&self, user: &ManagedUser) {
        let key = usage_key(user.source().as_str(), user.name());
        if self.touched.contains_key(&key) {
            return;
        }
        self.used(user).await;
    }

    /// The cluster took an upsert of `user` with `roles` (so it is enabled, and this proxy's):
    /// used now; the roles kept, which is also the sweep's proof that this proxy wrote the user
    /// (the `managed_by` mark alone can be copied by anyone who may write users); no longer
    /// disabled by the sweep.
    pub(crate) async fn upserted(&self, user: &ManagedUser, roles: &[String], reenabled: bool) {
        // Throttled like a cached credential's use: many upserts of one user (its groups
        // changing, 401s) within touch_every are one store write of its last use.
        self.touch(user).await;
        let (source, name) = (user.source().as_str(), user.name());
        let roles = serde_json::to_vec(roles).unwrap_or_default();
        let key = roles_key(source, name);
        if let Err(error) = self.store.set(&key, roles, self.ttl).await {
            // The old roles must not stay: they may be ones the user's groups just lost. With
            // no record the user's roles are not repaired (nor the user swept).
            tracing::warn!(username = %user, %error, "the managed user's roles were not recorded");
            if let Err(error) = self.store.delete(&key).await {
                tracing::warn!(username = %user, %error, "the managed user's old roles were not removed");
            }
        }
        if reenabled && let Err(error) = self.store.delete(&disabled_key(source, name)).await {
            tracing::warn!(username = %user, %error, "the managed user's idle mark was not removed");
        }
    }

    /// `user` is used now.
    async fn used(&self, user: &ManagedUser) {
        let key = usage_key(user.source().as_str(), user.name());
        self.touched.insert(key.clone(), ());
        let record = UsageRecord {
            last_used: now_secs(),
        };
        if let Err(error) = write(self.store.as_ref(), &key, record, self.ttl).await {
            tracing::warn!(username = %user, %error, "the managed user's last use was not recorded");
        }
    }

    /// Whether the sweep disabled `user` (so an upsert may enable it again).
    pub(crate) async fn disabled_by_sweep(&self, user: &ManagedUser) -> Result<bool, StoreError> {
        let key = disabled_key(user.source().as_str(), user.name());
        Ok(self.store.get(&key).await?.is_some())
    }
}
