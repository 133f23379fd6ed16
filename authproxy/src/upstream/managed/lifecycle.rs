//! The lifecycle sweep: every `user_management.lifecycle.interval` one replica (the holder of a
//! lease in the store) lists the cluster users this proxy created and, for those with a usage
//! record of their own ([`super::usage`]), disables the ones unused for `disable_after`
//! (Elasticsearch; OpenSearch cannot disable an internal user, so there they are deleted then)
//! and deletes the ones unused for `delete_after`. Each action drops the user's cached
//! credential, so its next request upserts (creates or enables) it again. A user without the
//! `managed_by` mark, without a record of use or without the roles record this proxy writes
//! only after the cluster took its upsert (the mark alone can be copied) is never touched.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rand::RngExt;
use rand::distr::Alphanumeric;

use super::usage::{self, credential_key, disabled_key, now_secs, roles_key, usage_key};
use crate::config::SearchFlavor;
use crate::config::lifecycle::LifecycleSettings;
use crate::error::{ClusterError, Error};
use crate::metrics;
use crate::store::KeyValueStore;
use crate::upstream::cluster::{ClusterUser, SearchUsers};

/// The store key of the lease one sweep at a time holds.
const LEASE_KEY: &str = "authproxy:lifecycle:lease";
/// The longest a sweep may take; it is abandoned after.
const SWEEP_TIMEOUT: Duration = Duration::from_secs(300);
/// The lease outlives the sweep's time limit, so it never expires under a running sweep; after
/// the sweep it is kept for the rest of the interval.
const LEASE_TTL: Duration = Duration::from_secs(360);
/// After a sweep the lease is kept for the interval less a tenth of it, at most this much
/// less: the holder's next tick finds it free, another replica's tick within the interval
/// finds it held.
const LEASE_SLACK: Duration = Duration::from_secs(5);

/// What the sweep does with one managed user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Keep,
    Disable,
    Delete,
}

impl Action {
    fn label(self) -> &'static str {
        match self {
            Self::Keep => "kept",
            Self::Disable => "disabled",
            Self::Delete => "deleted",
        }
    }
}

/// The decision for a user unused for `idle`, `enabled` on a cluster that `can_disable`.
pub(crate) fn decide(
    settings: &LifecycleSettings,
    idle: Duration,
    enabled: bool,
    can_disable: bool,
) -> Action {
    if idle >= settings.delete_after || (idle >= settings.disable_after && !can_disable) {
        Action::Delete
    } else if idle >= settings.disable_after && enabled {
        Action::Disable
    } else {
        Action::Keep
    }
}

/// The actions this replica took (for tests and logs; the metric counts all replicas').
#[derive(Debug, Default)]
pub struct LifecycleCounts {
    pub disabled: AtomicU64,
    pub deleted: AtomicU64,
    pub repaired: AtomicU64,
    pub failed: AtomicU64,
    /// Sweeps this replica made (it held the lease).
    pub sweeps: AtomicU64,
}

pub(crate) struct Lifecycle {
    store: Arc<dyn KeyValueStore>,
    cluster: Arc<dyn SearchUsers>,
    settings: LifecycleSettings,
    flavor: SearchFlavor,
    pub(crate) counts: LifecycleCounts,
}

/// The sweeping task; it stops when this is dropped (with the application's state).
pub(crate) struct LifecycleTask {
    pub(crate) lifecycle: Arc<Lifecycle>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for LifecycleTask {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Lifecycle {
    pub(crate) fn new(
        store: Arc<dyn KeyValueStore>,
        cluster: Arc<dyn SearchUsers>,
        settings: LifecycleSettings,
        flavor: SearchFlavor,
    ) -> Self {
        Self {
            store,
            cluster,
            settings,
            flavor,
            counts: LifecycleCounts::default(),
        }
    }

    /// Sweeps every `interval` on the current Tokio runtime; `None` outside one.
    pub(crate) fn spawn(self) -> Option<LifecycleTask> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let lifecycle = Arc::new(self);
        let sweeper = lifecycle.clone();
        let task = runtime.spawn(async move {
            let mut ticks = tokio::time::interval(sweeper.settings.interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                sweeper.sweep_leased().await;
            }
        });
        Some(LifecycleTask { lifecycle, task })
    }

    /// One sweep if this replica takes the lease. The lease is kept until about `interval` after
    /// it was taken (so replicas, whose ticks are not aligned, make one sweep per interval among
    /// them, not one each); released at once (compare-and-delete) only when the sweep failed
    /// to finish, so another replica may try.
    pub(crate) async fn sweep_leased(&self) {
        let token: String = rand::rng()
            .sample_iter(Alphanumeric)
            .take(32)
            .map(char::from)
            .collect();
        match self
            .store
            .set_if_absent(LEASE_KEY, token.clone().into_bytes(), LEASE_TTL)
            .await
        {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => {
                tracing::warn!(%error, "managed-user lifecycle: the lease could not be taken");
                return;
            }
        }
        let taken = tokio::time::Instant::now();
        self.counts.sweeps.fetch_add(1, Ordering::Relaxed);
        let finished = tokio::time::timeout(SWEEP_TIMEOUT, self.sweep())
            .await
            .is_ok();
        if !finished {
            tracing::warn!("managed-user lifecycle: a sweep took too long and was abandoned");
        }
        // Expiring a little before this replica's next tick, so that tick finds it free.
        let slack = (self.settings.interval / 10).min(LEASE_SLACK);
        let rest = self
            .settings
            .interval
            .saturating_sub(slack)
            .saturating_sub(taken.elapsed());
        let kept = finished
            && !rest.is_zero()
            && self
                .store
                .set_if_present(LEASE_KEY, token.clone().into_bytes(), rest)
                .await
                .is_ok_and(|kept| kept);
        if !kept
            && let Err(error) = self
                .store
                .delete_if_equals(LEASE_KEY, token.as_bytes())
                .await
        {
            tracing::warn!(%error, "managed-user lifecycle: the lease could not be released");
        }
    }

    async fn sweep(&self) {
        let users = match self.cluster.managed_users().await {
            Ok(users) => users,
            Err(error) => {
                tracing::warn!(%error, "managed-user lifecycle: the users could not be listed");
                return;
            }
        };
        let now = now_secs();
        for user in users {
            if let Err(error) = self.sweep_user(&user, now).await {
                self.counted("failed", &self.counts.failed);
                tracing::warn!(
                    username = %user.name,
                    %error,
                    "managed-user lifecycle: the user was not swept"
                );
            }
        }
    }

    async fn sweep_user(&self, user: &ClusterUser, now: u64) -> Result<(), Error> {
        // Only users of a known source, with a record of this proxy's own.
        let Some(source) = user
            .source
            .as_deref()
            .filter(|source| ["basic", "oidc", "bearer"].contains(source))
        else {
            return Ok(());
        };
        // And only users this proxy wrote: the roles key is set only after the cluster took an
        // upsert, while the mark can be copied onto a user made by hand.
        let Some(recorded_roles) = self.recorded_roles(source, &user.name).await? else {
            return Ok(());
        };
        let key = usage_key(source, &user.name);
        let Some(record) = usage::read(self.store.as_ref(), &key).await? else {
            return Ok(());
        };
        let idle = Duration::from_secs(now.saturating_sub(record.last_used));
        let can_disable = self.flavor == SearchFlavor::Elasticsearch;
        let action = decide(&self.settings, idle, user.enabled, can_disable);
        if action == Action::Keep {
            let extra = extra_roles(&recorded_roles, &user.roles);
            if user.enabled && !extra.is_empty() {
                self.repair(source, user, &extra).await?;
            }
            return Ok(());
        }
        let disabled = disabled_key(source, &user.name);
        let count = match action {
            Action::Keep => return Ok(()),
            Action::Disable => {
                // The key first: a failure (or a crash) after it leaves a key without a
                // disable, which the next upsert simply removes, never a disable without a key
                // (which would count as an operator's lock-out).
                let ttl = usage::record_ttl(&self.settings);
                self.store.set(&disabled, b"1".to_vec(), ttl).await?;
                match self.cluster.disable_user(user).await {
                    Ok(true) => {}
                    // Disabled meanwhile (an operator's lock-out, which stays) or gone.
                    Ok(false) => {
                        self.store.delete(&disabled).await?;
                        return Ok(());
                    }
                    Err(error) => {
                        if matches!(
                            error,
                            ClusterError::ForeignUser(_) | ClusterError::OtherSource { .. }
                        ) {
                            self.store.delete(&disabled).await?;
                        }
                        return Err(error.into());
                    }
                }
                &self.counts.disabled
            }
            Action::Delete => {
                // A disabled user is deleted only when the sweep disabled it: an operator's
                // lock-out would be undone by the next sign-in making the user anew.
                let by_sweep = !user.enabled && self.store.get(&disabled).await?.is_some();
                if !user.enabled && !by_sweep {
                    return Ok(());
                }
                self.cluster.delete_user(user, by_sweep).await?;
                self.store.delete(&key).await?;
                self.store.delete(&disabled).await?;
                self.store.delete(&roles_key(source, &user.name)).await?;
                &self.counts.deleted
            }
        };
        // The next request makes (or enables) the user again with a new password.
        self.store
            .delete(&credential_key(source, &user.name))
            .await?;
        self.counted(action.label(), count);
        tracing::info!(
            username = %user.name,
            method = source,
            action = action.label(),
            idle_seconds = idle.as_secs(),
            "managed-user lifecycle: search-cluster user {}",
            action.label()
        );
        Ok(())
    }

    /// The roles of the user's last upsert, `None` when there is no (readable) record of
    /// them: then this proxy never wrote the user, or the record was lost.
    async fn recorded_roles(&self, source: &str, name: &str) -> Result<Option<Vec<String>>, Error> {
        Ok(self
            .store
            .get(&roles_key(source, name))
            .await?
            .and_then(|bytes| serde_json::from_slice(&bytes).ok()))
    }

    /// Takes `extra` (added by hand in the cluster) away.
    async fn repair(
        &self,
        source: &str,
        user: &ClusterUser,
        extra: &[String],
    ) -> Result<(), Error> {
        self.cluster.remove_roles(user, extra).await?;
        self.counted("repaired", &self.counts.repaired);
        tracing::info!(
            username = %user.name,
            method = source,
            action = "repaired",
            found = %user.roles.join(","),
            removed = %extra.join(","),
            "managed-user lifecycle: roles added by hand removed from a search-cluster user"
        );
        Ok(())
    }

    fn counted(&self, action: &'static str, count: &AtomicU64) {
        count.fetch_add(1, Ordering::Relaxed);
        metrics::lifecycle_action(action);
    }
}

/// The roles in `found` that are not in `recorded`, each once.
pub(crate) fn extra_roles(recorded: &[String], found: &[String]) -> Vec<String> {
    let mut extra: Vec<String> = found
        .iter()
        .filter(|role| !recorded.contains(role))
        .cloned()
        .collect();
    extra.sort();
    extra.dedup();
    extra
}

#[cfg(test)]
mod tests;
