use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::*;
use crate::config::RoleMapping;
use crate::error::ClusterError;
use crate::store::MemoryStore;
use crate::upstream::cluster::ClusterUser;

/// Counts upserts and answers slowly, so concurrent callers overlap; fails them while
/// `failing` is set.
#[derive(Default)]
struct CountingCluster {
    upserts: AtomicUsize,
    last_roles: Mutex<Vec<String>>,
    failing: AtomicBool,
}

impl SearchUsers for CountingCluster {
    fn upsert_user<'a>(&'a self, user: UserSpec<'a>) -> BoxFuture<'a, Result<(), ClusterError>> {
        async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            self.upserts.fetch_add(1, Ordering::SeqCst);
            if self.failing.load(Ordering::SeqCst) {
                return Err(ClusterError::Timeout);
            }
            *self.last_roles.lock().unwrap() = user.roles.to_vec();
            Ok(())
        }
        .boxed()
    }

    fn managed_users(&self) -> BoxFuture<'_, Result<Vec<ClusterUser>, ClusterError>> {
        async { Ok(Vec::new()) }.boxed()
    }

    fn disable_user<'a>(&'a self, _: &'a ClusterUser) -> BoxFuture<'a, Result<bool, ClusterError>> {
        async { Ok(true) }.boxed()
    }

    fn delete_user<'a>(
        &'a self,
        _: &'a ClusterUser,
        _: bool,
    ) -> BoxFuture<'a, Result<(), ClusterError>> {
        async { Ok(()) }.boxed()
    }

    fn remove_roles<'a>(
        &'a self,
        _: &'a ClusterUser,
        _: &'a [String],
    ) -> BoxFuture<'a, Result<(), ClusterError>> {
        async { Ok(()) }.boxed()
    }

    fn health(&self) -> BoxFuture<'_, Result<(), ClusterError>> {
        async { Ok(()) }.boxed()
    }
}

fn managed(store: Arc<dyn KeyValueStore>, cluster: Arc<CountingCluster>) -> ManagedUsers {
    let mapper = RoleMapper::new(
        &[RoleMapping {
            claim: "groups".to_owned(),
            pattern: "admin*".to_owned(),
            search_roles: vec!["superuser".to_owned()],
        }],
        &["reader".to_owned()],
    );
    ManagedUsers::new(
        store,
        CredentialCipher::new(&[1u8; 32]).unwrap(),
        cluster,
        mapper,
        ManagedOptions {
            ttl: Duration::from_secs(60),
            password_length: 32,
            min_refresh_interval: Duration::from_secs(60),
            local_names: HashSet::new(),
            lifecycle: None,
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_first_requests_make_one_upsert() {
    let cluster = Arc::new(CountingCluster::default());
    let users = Arc::new(managed(Arc::new(MemoryStore::default()), cluster.clone()));
    let identity = Identity::local("ann", "", "", &["admins".to_owned()]);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let users = users.clone();
            let identity = identity.clone();
            tokio::spawn(async move { users.credential_for(&identity).await.unwrap() })
        })
        .collect();
    let mut passwords = Vec::new();
    for task in tasks {
        passwords.push(task.await.unwrap().password.expose_secret().to_owned());
    }
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 1);
    assert!(
        passwords
            .iter()
            .all(|p| p == &passwords[0] && p.len() == 32)
    );
    assert_eq!(*cluster.last_roles.lock().unwrap(), ["superuser"]);
}

#[tokio::test]
async fn tampered_entries_are_misses_and_refresh_replaces_the_password() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let cluster = Arc::new(CountingCluster::default());
    let users = managed(store.clone(), cluster.clone());
    let identity = Identity::local("bob", "", "", &[]);
    let first = users.credential_for(&identity).await.unwrap();
    assert_eq!(first.roles, ["reader"]);
    store
        .set(
            &ManagedUser::of(&identity).store_key(),
            b"garbage".to_vec(),
            Duration::from_secs(60),
        )
        .await
        .unwrap();
    let second = users.credential_for(&identity).await.unwrap();
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 2);
    let refreshed = users.refresh(&identity, &second).await.unwrap().unwrap();
    assert_ne!(
        refreshed.password.expose_secret(),
        second.password.expose_secret()
    );
    // A refresh with an already replaced credential reuses the replacement.
    let again = users.refresh(&identity, &second).await.unwrap().unwrap();
    assert_eq!(
        again.password.expose_secret(),
        refreshed.password.expose_secret()
    );
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 3);
    // The replacement rejected too, within min_refresh_interval: no new upsert.
    assert!(users.refresh(&identity, &again).await.unwrap().is_none());
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn changed_roles_make_a_new_credential_and_sources_do_not_share_one() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let cluster = Arc::new(CountingCluster::default());
    let users = managed(store.clone(), cluster.clone());
    let admin = Identity::local("dan", "", "", &["admins".to_owned()]);
    let first = users.credential_for(&admin).await.unwrap();
    assert_eq!(first.roles, ["superuser"]);
    // dan left the admins group: the cached superuser credential is not reused.
    let demoted = Identity::local("dan", "", "", &[]);
    let second = users.credential_for(&demoted).await.unwrap();
    assert_eq!(second.roles, ["reader"]);
    assert_eq!(*cluster.last_roles.lock().unwrap(), ["reader"]);
    assert_ne!(
        first.password.expose_secret(),
        second.password.expose_secret()
    );
    // An OIDC identity with the same name does not get the local user's cached credential.
    let mut from_idp = admin.clone();
    from_idp.method = crate::identity::AuthMethod::Oidc;
    assert_ne!(
        ManagedUser::of(&from_idp).store_key(),
        ManagedUser::of(&admin).store_key()
    );
    let upserts = cluster.upserts.load(Ordering::SeqCst);
    users.credential_for(&from_idp).await.unwrap();
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), upserts + 1);
}

#[tokio::test]
async fn the_opened_copy_is_used_only_while_the_stored_bytes_are_unchanged() {
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let cluster = Arc::new(CountingCluster::default());
    let users = managed(store.clone(), cluster.clone());
    let identity = Identity::local("cid", "", "", &[]);
    let created = users.credential_for(&identity).await.unwrap();
    // Two hits: the second is answered from the opened copy.
    for _ in 0..2 {
        let hit = users.credential_for(&identity).await.unwrap();
        assert_eq!(
            hit.password.expose_secret(),
            created.password.expose_secret()
        );
    }
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 1);

    // One flipped bit in the stored value: not the opened copy, and it does not decrypt.
    let key = ManagedUser::of(&identity).store_key();
    let mut sealed = store.get(&key).await.unwrap().unwrap().to_vec();
    let last = sealed.len() - 1;
    sealed[last] ^= 1;
    store
        .set(&key, sealed, Duration::from_secs(60))
        .await
        .unwrap();
    let after_tampering = users.credential_for(&identity).await.unwrap();
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 2);
    assert_ne!(
        after_tampering.password.expose_secret(),
        created.password.expose_secret()
    );

    // Gone from the store: gone, whatever was opened before.
    store.delete(&key).await.unwrap();
    users.credential_for(&identity).await.unwrap();
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_upsert_reaches_every_waiting_request_and_is_not_kept() {
    let cluster = Arc::new(CountingCluster::default());
    cluster.failing.store(true, Ordering::SeqCst);
    let users = Arc::new(managed(Arc::new(MemoryStore::default()), cluster.clone()));
    let identity = Identity::local("eve", "", "", &[]);
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (users, identity) = (users.clone(), identity.clone());
            tokio::spawn(async move { users.credential_for(&identity).await })
        })
        .collect();
    for task in tasks {
        let error = task.await.unwrap().unwrap_err();
        assert!(
            matches!(error, Error::Search(ClusterError::Timeout)),
            "{error:?}"
        );
    }
    // Requests that overlapped shared the one failed upsert (at most a late one tried again).
    assert!(cluster.upserts.load(Ordering::SeqCst) < 10);
    cluster.failing.store(false, Ordering::SeqCst);
    let credential = users.credential_for(&identity).await.unwrap();
    assert_eq!(credential.roles, ["reader"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn requests_with_other_roles_do_not_take_a_shared_upsert_made_for_different_ones() {
    let cluster = Arc::new(CountingCluster::default());
    let users = Arc::new(managed(Arc::new(MemoryStore::default()), cluster.clone()));
    // The same user, half of the requests from before and half from after leaving admins.
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let users = users.clone();
            let groups = if i % 2 == 0 {
                vec!["admins".to_owned()]
            } else {
                vec![]
            };
            let identity = Identity::local("fay", "", "", &groups);
            tokio::spawn(async move {
                let credential = users.credential_for(&identity).await.unwrap();
                (groups.is_empty(), credential.roles.clone())
            })
        })
        .collect();
    for task in tasks {
        let (reader, roles) = task.await.unwrap();
        assert_eq!(roles, [if reader { "reader" } else { "superuser" }]);
    }
}

#[tokio::test]
async fn a_request_that_goes_away_does_not_stop_the_upsert_others_wait_for() {
    let cluster = Arc::new(CountingCluster::default());
    let users = managed(Arc::new(MemoryStore::default()), cluster.clone());
    let identity = Identity::local("gus", "", "", &[]);
    let mut first = Box::pin(users.credential_for(&identity));
    assert!(futures_util::poll!(&mut first).is_pending());
    let mut second = std::pin::pin!(users.credential_for(&identity));
    assert!(futures_util::poll!(&mut second).is_pending());
    drop(first);
    let credential = tokio::time::timeout(Duration::from_secs(10), second)
        .await
        .expect("the waiting request was left waiting")
        .unwrap();
    assert_eq!(credential.roles, ["reader"]);
    assert_eq!(cluster.upserts.load(Ordering::SeqCst), 1);
}

/// The sweep acts on a user only with a record of use and of roles: a refused upsert (a user
/// the proxy did not make, with a copied mark) must leave neither; a taken one leaves both.
#[tokio::test]
async fn only_an_upsert_the_cluster_took_leaves_records_for_the_sweep() {
    let cluster = Arc::new(CountingCluster::default());
    cluster.failing.store(true, Ordering::SeqCst);
    let store: Arc<dyn KeyValueStore> = Arc::new(MemoryStore::default());
    let mut users = managed(store.clone(), cluster.clone());
    users.usage = Some(Usage::new(
        store.clone(),
        &crate::config::lifecycle::LifecycleSettings::default(),
    ));
    let identity = Identity::local("eve", "", "", &[]);
    let keys = [
        usage::usage_key("basic", "eve"),
        usage::roles_key("basic", "eve"),
    ];
    users.credential_for(&identity).await.unwrap_err();
    for key in &keys {
        assert!(store.get(key).await.unwrap().is_none(), "{key}");
    }
    cluster.failing.store(false, Ordering::SeqCst);
    users.credential_for(&identity).await.unwrap();
    for key in &keys {
        assert!(store.get(key).await.unwrap().is_some(), "{key}");
    }
}
