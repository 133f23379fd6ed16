//! Unit tests of [`super`]: due sessions, applying a refresh, the lease, and refreshes whose
//! request goes away or whose task panics.

use serde_json::Map;

use super::*;

fn record(refresh_token: Option<&str>, access_expires_at: Option<u64>) -> SessionRecord {
    SessionRecord {
        username: "alice".to_owned(),
        email: String::new(),
        name: String::new(),
        groups: Vec::new(),
        claims: Map::new(),
        id_token: None,
        expires_at: 10_000,
        refresh_token: refresh_token.map(str::to_owned),
        access_expires_at,
    }
}

#[test]
fn only_a_session_with_a_refresh_token_near_its_expiry_is_due() {
    let refresher = SessionRefresher::new(Duration::from_secs(60));
    let now = 1_000;
    assert!(refresher.is_due(&record(Some("r"), Some(1_060)), now));
    assert!(
        refresher.is_due(&record(Some("r"), Some(900)), now),
        "expired"
    );
    assert!(!refresher.is_due(&record(Some("r"), Some(1_061)), now));
    assert!(!refresher.is_due(&record(None, Some(900)), now), "no token");
    assert!(
        !refresher.is_due(&record(Some("r"), None), now),
        "no expiry"
    );
}

fn refreshed(claims: serde_json::Value, refresh_token: Option<&str>) -> Refreshed {
    Refreshed {
        claims: claims.as_object().cloned().unwrap_or_default(),
        id_token: Some("new-id-token".to_owned()),
        refresh_token: refresh_token.map(str::to_owned),
        access_expires_at: Some(2_000),
    }
}

const CLAIMS: (&str, &str) = ("preferred_username", "groups");

#[test]
fn a_refresh_brings_new_groups_and_keeps_an_unrotated_token() {
    let mut session = record(Some("old-refresh"), Some(1_000));
    let new = serde_json::json!({"sub": "1", "preferred_username": "alice", "groups": ["staff"]});
    apply(&mut session, refreshed(new.clone(), None), CLAIMS).unwrap();
    assert_eq!(session.groups, ["staff"]);
    assert_eq!(session.refresh_token.as_deref(), Some("old-refresh"));
    assert_eq!(session.id_token.as_deref(), Some("new-id-token"));
    assert_eq!(session.access_expires_at, Some(2_000));
    apply(&mut session, refreshed(new, Some("rotated")), CLAIMS).unwrap();
    assert_eq!(session.refresh_token.as_deref(), Some("rotated"));
}

#[test]
fn a_refresh_naming_another_user_or_none_is_refused() {
    let mut session = record(Some("r"), Some(1_000));
    let other = serde_json::json!({"sub": "1", "preferred_username": "mallory"});
    assert!(matches!(
        apply(&mut session, refreshed(other, None), CLAIMS),
        Err(RefreshFailure::Rejected(_))
    ));
    let nobody = serde_json::json!({"groups": ["admins"]});
    assert!(matches!(
        apply(&mut session, refreshed(nobody, None), CLAIMS),
        Err(RefreshFailure::Rejected(_))
    ));
    assert_eq!(session.username, "alice");
    assert!(session.groups.is_empty(), "unchanged");
}

#[tokio::test]
async fn a_waiter_sees_the_lease_go_or_times_out_as_its_own_outcome() {
    let store = service_kit::byte_store::MemoryStore::default();
    let wait = Duration::from_millis(200);
    assert_eq!(
        wait_for_lease(&store, "lease", wait).await.unwrap(),
        LeaseWait::Released
    );
    store
        .set_if_absent("lease", b"theirs".to_vec(), Duration::from_secs(60))
        .await
        .unwrap();
    let timed_out = wait_for_lease(&store, "lease", wait).await.unwrap();
    assert_eq!(timed_out, LeaseWait::TimedOut);
    assert_eq!(timed_out.outcome(), "wait_timeout");
    assert_eq!(LeaseWait::Released.outcome(), "shared");
}

#[test]
fn each_lease_holder_is_named_apart_and_the_refresh_ends_inside_the_lease() {
    assert_ne!(lease_holder(), lease_holder());
    assert!(lease_holder().len() >= 22, "128 random bits");
    assert!(REFRESH_LIMIT + Duration::from_secs(4) < LEASE_TTL);
}

/// A provider that takes connections and answers none until `release` is sent, then refuses
/// them: a refresh against it hangs, then fails (twice, so the session ends).
async fn silent_provider() -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let (release, mut released) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let mut held = Vec::new();
        loop {
            tokio::select! {
                Ok((socket, _)) = listener.accept() => held.push(socket),
                _ = &mut released => break,
            }
        }
    });
    (issuer, release)
}

const CALLBACK: &str = "http://127.0.0.1:1/auth/callback";

/// A provider client for `issuer` (discovered lazily: nothing is asked of it here).
fn provider_at(issuer: String) -> Arc<OidcProvider> {
    Arc::new(
        OidcProvider::new(&crate::config::OidcSettings {
            enabled: true,
            issuer_url: issuer,
            client_id: "c".to_owned(),
            redirect_url: CALLBACK.to_owned(),
            ..Default::default()
        })
        .unwrap(),
    )
}

/// Sessions in `store` holding one session due for a refresh, and its store key.
async fn one_due_session(store: Arc<dyn KeyValueStore>) -> (Sessions, String) {
    use crate::authn::cookies::CookieSigner;
    use crate::authn::session::store_key;
    use crate::crypto::CredentialCipher;

    let signer = CookieSigner::new(&[7; 32], "", CALLBACK).unwrap();
    let sessions = Sessions::new(
        store,
        CredentialCipher::ephemeral(),
        signer,
        "s",
        Duration::from_secs(3600),
    );
    let key = store_key("the-session-id");
    let mut due = record(Some("r"), Some(unix_now()));
    due.expires_at = unix_now() + 3600;
    sessions.write(&key, &due).await.unwrap();
    (sessions, key)
}

#[tokio::test]
async fn a_refresh_whose_request_is_dropped_still_runs_to_its_end() {
    use futures_util::poll;

    const DEADLINE: Duration = Duration::from_secs(10);
    let (issuer, release) = silent_provider().await;
    let provider = provider_at(issuer);
    let store: Arc<dyn KeyValueStore> = Arc::new(service_kit::byte_store::MemoryStore::default());
    let (sessions, key) = one_due_session(store.clone()).await;
    let lease = lease_key(&key);
    let refresher = SessionRefresher::new(Duration::from_secs(60));

    let mut request = Box::pin(refresher.renew(&sessions, &provider, &key));
    test_support::eventually("the refresh to take its lease", DEADLINE, async || {
        assert!(
            poll!(request.as_mut()).is_pending(),
            "the provider answers nothing"
        );
        store.get(&lease).await.unwrap().is_some()
    })
    .await;
    // The request's client goes away; then the provider fails the refresh.
    drop(request);
    release.send(()).unwrap();
    test_support::eventually(
        "the refresh to end the session and release its lease",
        DEADLINE,
        async || {
            store.get(&lease).await.unwrap().is_none()
                && sessions.read(&key).await.unwrap().is_none()
        },
    )
    .await;
}

#[test]
fn the_lease_sits_beside_the_session_key() {
    assert_eq!(
        lease_key("authproxy:session:abc123"),
        "authproxy:session-refresh:abc123"
    );
}

#[test]
fn the_record_never_shows_its_tokens() {
    let mut record = record(Some("the-refresh-token"), Some(1));
    record.id_token = Some("the-id-token".to_owned());
    let shown = format!("{record:?}");
    assert!(!shown.contains("the-refresh-token") && !shown.contains("the-id-token"));
}

/// A memory store that counts the reads of refresh leases (a waiter's polls) and, when told
/// to, panics on reading a session: a bug inside the refresh, under its lease.
#[derive(Default)]
struct WatchedStore {
    inner: service_kit::byte_store::MemoryStore,
    panic_on_session_reads: bool,
    lease_reads: std::sync::atomic::AtomicUsize,
}

type StoreFuture<'a, T> = futures_util::future::BoxFuture<'a, Result<T, StoreError>>;

impl KeyValueStore for WatchedStore {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<service_kit::byte_store::Bytes>> {
        assert!(
            !(self.panic_on_session_reads && key.starts_with("authproxy:session:")),
            "a bug in the refresh"
        );
        if key.starts_with("authproxy:session-refresh:") {
            self.lease_reads
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        self.inner.get(key)
    }

    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        self.inner.set(key, value, ttl)
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        self.inner.set_if_absent(key, value, ttl)
    }

    fn set_if_present<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        self.inner.set_if_present(key, value, ttl)
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        self.inner.delete(key)
    }

    fn delete_if_equals<'a>(&'a self, key: &'a str, value: &'a [u8]) -> StoreFuture<'a, bool> {
        self.inner.delete_if_equals(key, value)
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        self.inner.ping()
    }
}

#[tokio::test]
async fn a_refresh_task_that_panics_fails_the_request_and_releases_its_lease() {
    let watched = Arc::new(WatchedStore {
        panic_on_session_reads: true,
        ..WatchedStore::default()
    });
    let (sessions, key) = one_due_session(watched.clone()).await;
    let refresher = SessionRefresher::new(Duration::from_secs(60));
    let provider = provider_at("http://127.0.0.1:1".to_owned());

    // Not `Ended`: the session was not ended, nor renewed; the request fails as on a store
    // failure (503).
    let renewal = refresher.renew(&sessions, &provider, &key).await;
    assert!(
        matches!(renewal, Err(Error::ProviderUnavailable(_))),
        "{renewal:?}"
    );
    // The lease goes at once, not after its 25 s; the session is still stored.
    let inner = &watched.inner;
    test_support::eventually(
        "the panicked refresh's lease to be released",
        Duration::from_secs(5),
        async || inner.get(&lease_key(&key)).await.unwrap().is_none(),
    )
    .await;
    assert!(inner.get(&key).await.unwrap().is_some());
}

#[tokio::test]
async fn a_request_after_the_others_went_away_joins_the_running_refresh() {
    use futures_util::poll;

    const DEADLINE: Duration = Duration::from_secs(10);
    let (issuer, release) = silent_provider().await;
    let provider = provider_at(issuer);
    let watched = Arc::new(WatchedStore::default());
    let (sessions, key) = one_due_session(watched.clone()).await;
    let refresher = SessionRefresher::new(Duration::from_secs(60));

    let mut first = Box::pin(refresher.renew(&sessions, &provider, &key));
    test_support::eventually("the refresh to take its lease", DEADLINE, async || {
        assert!(poll!(first.as_mut()).is_pending());
        watched.inner.get(&lease_key(&key)).await.unwrap().is_some()
    })
    .await;
    drop(first);
    // A request of the same session while the refresh still runs: it gets that refresh's
    // outcome (the provider fails it twice: the session ends), and never waits for the lease.
    let second = refresher.renew(&sessions, &provider, &key);
    release.send(()).unwrap();
    let renewal = tokio::time::timeout(DEADLINE, second).await.unwrap();
    assert!(matches!(renewal, Ok(Renewal::Ended)), "{renewal:?}");
    assert_eq!(
        watched
            .lease_reads
            .load(std::sync::atomic::Ordering::Relaxed),
        0,
        "a second task polled the first one's lease"
    );
    assert!(
        refresher.flights.lock().unwrap().is_empty(),
        "the ended refresh is forgotten"
    );
}
