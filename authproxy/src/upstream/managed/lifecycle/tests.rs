use std::sync::Mutex;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::*;
use crate::identity::{Identity, ManagedUser};
use crate::store::MemoryStore;
use crate::upstream::cluster::UserSpec;
use crate::upstream::managed::usage::UsageRecord;

fn settings() -> LifecycleSettings {
    LifecycleSettings {
        enabled: true,
        interval: Duration::from_secs(1),
        disable_after: Duration::from_secs(10),
        delete_after: Duration::from_secs(100),
    }
}

#[test]
fn decisions_follow_the_idle_time_and_the_flavor() {
    let settings = settings();
    let secs = Duration::from_secs;
    assert_eq!(decide(&settings, secs(9), true, true), Action::Keep);
    assert_eq!(decide(&settings, secs(10), true, true), Action::Disable);
    // Already disabled (by the sweep or an operator): kept until delete_after.
    assert_eq!(decide(&settings, secs(50), false, true), Action::Keep);
    assert_eq!(decide(&settings, secs(100), false, true), Action::Delete);
    assert_eq!(decide(&settings, secs(100), true, true), Action::Delete);
    // OpenSearch cannot disable: deleted once past disable_after.
    assert_eq!(decide(&settings, secs(9), true, false), Action::Keep);
    assert_eq!(decide(&settings, secs(10), true, false), Action::Delete);
}

#[test]
fn the_credential_key_is_the_managed_users_store_key() {
    let user = ManagedUser::of(&Identity::local("ann", "", "", &[]));
    assert_eq!(credential_key("basic", "ann"), user.store_key());
}

/// Lists `users`, records what it was asked to do and does it.
#[derive(Default)]
struct FakeCluster {
    users: Mutex<Vec<ClusterUser>>,
    calls: Mutex<Vec<String>>,
    /// Disabled by an operator after the listing: a disable finds them disabled.
    disabled_meanwhile: Mutex<Vec<String>>,
    /// A disable of these times out.
    unreachable: Mutex<Vec<String>>,
}

impl SearchUsers for FakeCluster {
    fn upsert_user<'a>(&'a self, _: UserSpec<'a>) -> BoxFuture<'a, Result<(), ClusterError>> {
        async { Ok(()) }.boxed()
    }
    fn managed_users(&self) -> BoxFuture<'_, Result<Vec<ClusterUser>, ClusterError>> {
        let users = self.users.lock().unwrap().clone();
        async move { Ok(users) }.boxed()
    }
    fn disable_user<'a>(
        &'a self,
        user: &'a ClusterUser,
    ) -> BoxFuture<'a, Result<bool, ClusterError>> {
        let name = &user.name;
        self.calls.lock().unwrap().push(format!("disable {name}"));
        if self.unreachable.lock().unwrap().contains(name) {
            return async { Err(ClusterError::Timeout) }.boxed();
        }
        let mut disabled = false;
        for user in self.users.lock().unwrap().iter_mut() {
            if &user.name == name && !self.disabled_meanwhile.lock().unwrap().contains(name) {
                disabled = user.enabled;
                user.enabled = false;
            }
        }
        async move { Ok(disabled) }.boxed()
    }
    fn delete_user<'a>(
        &'a self,
        user: &'a ClusterUser,
        disabled_by_sweep: bool,
    ) -> BoxFuture<'a, Result<(), ClusterError>> {
        let name = &user.name;
        self.calls
            .lock()
            .unwrap()
            .push(format!("delete {name} {disabled_by_sweep}"));
        self.users.lock().unwrap().retain(|user| &user.name != name);
        async { Ok(()) }.boxed()
    }
    fn remove_roles<'a>(
        &'a self,
        user: &'a ClusterUser,
        roles: &'a [String],
    ) -> BoxFuture<'a, Result<(), ClusterError>> {
        self.calls
            .lock()
            .unwrap()
            .push(format!("remove {} {}", user.name, roles.join(",")));
        async { Ok(()) }.boxed()
    }
    fn health(&self) -> BoxFuture<'_, Result<(), ClusterError>> {
        async { Ok(()) }.boxed()
    }
}

fn user(name: &str, source: Option<&str>) -> ClusterUser {
    ClusterUser {
        name: name.to_owned(),
        source: source.map(str::to_owned),
        enabled: true,
        roles: Vec::new(),
    }
}

async fn put(store: &dyn KeyValueStore, key: &str, value: &[u8]) {
    store
        .set(key, value.to_vec(), Duration::from_secs(60))
        .await
        .unwrap();
}

/// An Elasticsearch sweep over `store` and `cluster`, after it.
async fn swept(store: &Arc<dyn KeyValueStore>, cluster: &Arc<FakeCluster>) -> Lifecycle {
    let lifecycle = Lifecycle::new(
        store.clone(),
        cluster.clone(),
        settings(),
        SearchFlavor::Elasticsearch,
    );
    lifecycle.sweep_leased().await;
    lifecycle
}

async fn record(store: &dyn KeyValueStore, source: &str, name: &str, idle: u64) {
    let record = UsageRecord {
        last_used: now_secs() - idle,
    };
    let key = usage_key(source, name);
    usage::write(store, &key, record, Duration::from_secs(600))
        .await
        .unwrap();
}

/// A user this proxy upserted (its roles recorded, none) and last used `idle` seconds ago.
async fn upserted(store: &dyn KeyValueStore, source: &str, name: &str, idle: u64) {
    record(store, source, name, idle).await;
    put(store, &roles_key(source, name), b"[]").await;
}

#[tokio::test]
async fn only_recorded_users_of_a_known_source_are_swept() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let cluster = Arc::new(FakeCluster {
        users: Mutex::new(vec![
            user("idle", Some("basic")),
            user("gone", Some("oidc")),
            user("fresh", Some("basic")),
            user("unrecorded", Some("basic")),
            user("old", None),
            user("odd", Some("other")),
            user("forged", Some("basic")),
        ]),
        ..FakeCluster::default()
    });
    for (source, name, idle) in [
        ("basic", "idle", 20),
        ("oidc", "gone", 200),
        ("basic", "fresh", 1),
        ("basic", "old", 500),
        ("other", "odd", 500),
    ] {
        upserted(store.as_ref(), source, name, idle).await;
    }
    // A copied mark and a record of use, but this proxy never wrote the user (no roles key).
    record(store.as_ref(), "basic", "forged", 500).await;
    put(store.as_ref(), &credential_key("basic", "idle"), b"x").await;
    let lifecycle = swept(&store, &cluster).await;
    assert_eq!(
        *cluster.calls.lock().unwrap(),
        ["disable idle", "delete gone false"]
    );
    assert_eq!(lifecycle.counts.disabled.load(Ordering::Relaxed), 1);
    assert_eq!(lifecycle.counts.deleted.load(Ordering::Relaxed), 1);
    // The disabled user's record says so (its next upsert enables it), its credential is gone;
    // the deleted user's record is gone.
    let disabled = store.get(&disabled_key("basic", "idle")).await.unwrap();
    assert!(disabled.is_some());
    assert!(
        store
            .get(&credential_key("basic", "idle"))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        usage::read(store.as_ref(), &usage_key("oidc", "gone"))
            .await
            .unwrap()
            .is_none()
    );
    // The lease is kept for the interval: no second sweep within it, by any replica.
    assert!(store.get(LEASE_KEY).await.unwrap().is_some());
    lifecycle.sweep_leased().await;
    assert_eq!(lifecycle.counts.sweeps.load(Ordering::Relaxed), 1);

    // A sweep of the next interval: the disabled user is kept (not disabled again).
    store.delete(LEASE_KEY).await.unwrap();
    lifecycle.sweep_leased().await;
    assert_eq!(lifecycle.counts.sweeps.load(Ordering::Relaxed), 2);
    assert_eq!(cluster.calls.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn no_sweep_while_another_replica_holds_the_lease() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let cluster = Arc::new(FakeCluster {
        users: Mutex::new(vec![user("idle", Some("basic"))]),
        ..FakeCluster::default()
    });
    upserted(store.as_ref(), "basic", "idle", 20).await;
    store
        .set(LEASE_KEY, b"another".to_vec(), Duration::from_secs(60))
        .await
        .unwrap();
    let lifecycle = Lifecycle::new(
        store.clone(),
        cluster.clone(),
        settings(),
        SearchFlavor::Opensearch,
    );
    lifecycle.sweep_leased().await;
    assert!(cluster.calls.lock().unwrap().is_empty());
    assert_eq!(lifecycle.counts.sweeps.load(Ordering::Relaxed), 0);
    // The other replica's lease is left alone.
    assert_eq!(
        store.get(LEASE_KEY).await.unwrap().as_deref(),
        Some(&b"another".to_vec())
    );

    store.delete(LEASE_KEY).await.unwrap();
    lifecycle.sweep_leased().await;
    // OpenSearch: deleted, as it cannot be disabled.
    assert_eq!(*cluster.calls.lock().unwrap(), ["delete idle false"]);
}

#[test]
fn extra_roles_are_those_beyond_the_recorded_ones() {
    let roles = |list: &[&str]| {
        list.iter()
            .map(|role| (*role).to_owned())
            .collect::<Vec<_>>()
    };
    assert!(extra_roles(&roles(&["a", "b"]), &roles(&["b", "a"])).is_empty());
    assert!(extra_roles(&roles(&[]), &roles(&[])).is_empty());
    assert_eq!(
        extra_roles(&roles(&["a"]), &roles(&["superuser", "a", "superuser"])),
        ["superuser"]
    );
    // A role the user lacks is no drift to repair.
    assert!(extra_roles(&roles(&["a"]), &roles(&[])).is_empty());
}

/// Roles added by hand are taken away; a role taken away by hand (an operator's emergency cut,
/// or a record older than a revocation) is never given back.
#[tokio::test]
async fn drift_repair_only_removes_roles_added_by_hand() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let with = |name: &str, roles: &[&str]| ClusterUser {
        roles: roles.iter().map(|role| (*role).to_owned()).collect(),
        ..user(name, Some("basic"))
    };
    let cluster = Arc::new(FakeCluster {
        users: Mutex::new(vec![
            with("added", &["reader", "superuser"]),
            with("unrecorded", &["superuser"]),
            with("same", &[]),
            with("cut", &[]),
            with("partly", &["writer"]),
        ]),
        ..FakeCluster::default()
    });
    for name in ["added", "unrecorded", "same", "cut", "partly"] {
        record(store.as_ref(), "basic", name, 1).await;
    }
    for (name, roles) in [
        ("added", r#"["reader"]"#),
        ("same", "[]"),
        ("cut", r#"["reader"]"#),
        ("partly", r#"["reader","writer"]"#),
    ] {
        put(store.as_ref(), &roles_key("basic", name), roles.as_bytes()).await;
    }
    let lifecycle = swept(&store, &cluster).await;
    assert_eq!(*cluster.calls.lock().unwrap(), ["remove added superuser"]);
    assert_eq!(lifecycle.counts.repaired.load(Ordering::Relaxed), 1);
}

/// An operator's lock-out is never taken over: a user disabled meanwhile gets no idle key (its
/// next sign-in must not enable it), one disabled without the key is not deleted; a disable
/// that fails after the key was written leaves the key (never a disable without one).
#[tokio::test]
async fn an_operators_lock_out_is_neither_marked_nor_deleted() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let disabled = |name: &str| ClusterUser {
        enabled: false,
        ..user(name, Some("basic"))
    };
    let cluster = Arc::new(FakeCluster {
        users: Mutex::new(vec![
            user("meanwhile", Some("basic")),
            user("timeout", Some("basic")),
            disabled("locked"),
            disabled("swept"),
        ]),
        disabled_meanwhile: Mutex::new(vec!["meanwhile".to_owned()]),
        unreachable: Mutex::new(vec!["timeout".to_owned()]),
        ..FakeCluster::default()
    });
    upserted(store.as_ref(), "basic", "meanwhile", 20).await;
    upserted(store.as_ref(), "basic", "timeout", 20).await;
    upserted(store.as_ref(), "basic", "locked", 200).await;
    upserted(store.as_ref(), "basic", "swept", 200).await;
    put(store.as_ref(), &disabled_key("basic", "swept"), b"1").await;
    let lifecycle = swept(&store, &cluster).await;
    assert_eq!(
        *cluster.calls.lock().unwrap(),
        ["disable meanwhile", "disable timeout", "delete swept true"]
    );
    let key = |name: &str| disabled_key("basic", name);
    assert!(store.get(&key("meanwhile")).await.unwrap().is_none());
    assert!(store.get(&key("timeout")).await.unwrap().is_some());
    assert!(store.get(&key("swept")).await.unwrap().is_none());
    assert_eq!(lifecycle.counts.disabled.load(Ordering::Relaxed), 0);
    assert_eq!(lifecycle.counts.deleted.load(Ordering::Relaxed), 1);
    assert_eq!(lifecycle.counts.failed.load(Ordering::Relaxed), 1);
}

/// The lease is kept for the rest of the interval after a sweep, then expires.
#[tokio::test]
async fn the_lease_is_kept_for_the_interval() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let cluster = Arc::new(FakeCluster::default());
    let lifecycle = swept(&store, &cluster).await;
    let other = Lifecycle::new(
        store.clone(),
        cluster.clone(),
        settings(),
        SearchFlavor::Elasticsearch,
    );
    other.sweep_leased().await;
    assert_eq!(other.counts.sweeps.load(Ordering::Relaxed), 0);
    // settings().interval is 1 s.
    test_support::eventually("the lease expires", Duration::from_secs(5), async || {
        other.sweep_leased().await;
        other.counts.sweeps.load(Ordering::Relaxed) == 1
    })
    .await;
    assert_eq!(lifecycle.counts.sweeps.load(Ordering::Relaxed), 1);
}
