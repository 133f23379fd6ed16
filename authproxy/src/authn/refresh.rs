//! Renewing browser sessions (`oidc.refresh`): a request of a session whose access token
//! expires within `before_expiry` spends the session's refresh token at the provider, reads the
//! groups and claims again and stores the renewed session, so the managed user's roles follow
//! group changes at the provider. One refresh per session at a time: in this replica a single
//! flight, across replicas a short lease in the store (Redis `SET NX PX`); whoever does not
//! hold it waits for the lease to go and reuses the renewed session, so no two replicas spend
//! one refresh token (providers that rotate them refuse a reused one and may revoke the grant).
//! A refused refresh (`invalid_grant`, a token that does not verify, another user), a provider
//! still unreachable after one more try, a token request without a usable answer (never tried
//! again: the provider may have rotated the token), or a refresh without fresh claims ends the
//! session: the caller signs in again.
//!
//! The races this closes: the refresh runs in a task of its own, so a request that goes away
//! (its client disconnected) does not take the rotated token with it; the lease holds a random
//! token and is released by compare-and-delete, and the refresh is bounded well inside the
//! lease's time, so no replica deletes another's lease; the renewed record is written only while
//! the session exists (`SET XX`), so a sign-out during the refresh stays signed out.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use service_kit::single_flight::SingleFlight;
use tokio::time::Instant;

use crate::authn::oidc::{OidcProvider, RefreshFailure, Refreshed, identity_from_claims};
use crate::authn::session::{SessionRecord, Sessions, unix_now};
use crate::error::Error;
use crate::metrics;
use crate::store::{KeyValueStore, StoreError};

/// How long one replica may hold a session's refresh.
const LEASE_TTL: Duration = Duration::from_secs(25);
/// The longest a refresh under the lease may take (two token requests and userinfo included);
/// then it counts as `unavailable` and the session ends. Below [`LEASE_TTL`] with room for
/// ending the session and releasing the lease (one store operation of at most 2 s each), so the
/// lease never runs out while its holder still works.
const REFRESH_LIMIT: Duration = Duration::from_secs(18);
/// How often a replica without the lease looks whether it is gone.
const LEASE_POLL: Duration = Duration::from_millis(50);

/// What became of a session that was due for a refresh.
#[derive(Clone, Debug)]
pub(crate) enum Renewal {
    /// The session to go on with: renewed here or elsewhere (or not due any more).
    Current(Box<SessionRecord>),
    /// The refresh failed and the session is gone: sign in again.
    Ended,
}

pub(crate) struct SessionRefresher {
    before_expiry: Duration,
    /// Requests of one session in this replica share one refresh, keyed by the store key.
    flights: SingleFlight<String, Renewal, StoreError>,
}

impl SessionRefresher {
    pub(crate) fn new(before_expiry: Duration) -> Self {
        Self {
            before_expiry,
            flights: SingleFlight::new(),
        }
    }

    /// The session holds a refresh token and its access token expires within the margin.
    pub(crate) fn is_due(&self, record: &SessionRecord, now: u64) -> bool {
        is_due(self.before_expiry, record, now)
    }

    /// Renews the session under `key` (its record `record`, due) once, however many requests
    /// and replicas ask at the same time. The refresh runs in a task of its own: it completes
    /// and stores its result even when every request waiting for it went away.
    pub(crate) async fn renew(
        &self,
        sessions: &Sessions,
        provider: &Arc<OidcProvider>,
        key: &str,
    ) -> Result<Renewal, Error> {
        self.flights
            .run(key.to_owned(), || {
                let refresh = Refresh {
                    sessions: sessions.clone(),
                    provider: provider.clone(),
                    key: key.to_owned(),
                    before_expiry: self.before_expiry,
                };
                let task = tokio::spawn(refresh.run());
                // A waiter that leads after this request went away spawns its own, which finds
                // the lease taken and waits for this task's result in the store.
                async move { task.await.unwrap_or(Ok(Renewal::Ended)) }
            })
            .await
            .map_err(Error::StoreUnavailable)
    }
}

fn is_due(before_expiry: Duration, record: &SessionRecord, now: u64) -> bool {
    record.refresh_token.is_some()
        && record
            .access_expires_at
            .is_some_and(|at| at <= now.saturating_add(before_expiry.as_secs()))
}

/// One refresh of one session, owning what it needs so that it runs in a task of its own.
struct Refresh {
    sessions: Sessions,
    provider: Arc<OidcProvider>,
    key: String,
    before_expiry: Duration,
}

impl Refresh {
    async fn run(self) -> Result<Renewal, StoreError> {
        let lease = lease_key(&self.key);
        let holder = lease_holder();
        let store = self.sessions.store().clone();
        if !store
            .set_if_absent(&lease, holder.clone().into_bytes(), LEASE_TTL)
            .await?
        {
            // Another replica is refreshing this session: reuse what it stores.
            let waited = wait_for_lease(store.as_ref(), &lease, LEASE_TTL).await?;
            metrics::refreshed(waited.outcome());
            return Ok(match self.sessions.read(&self.key).await? {
                Some(record) => Renewal::Current(Box::new(record)),
                None => Renewal::Ended,
            });
        }
        let outcome = match tokio::time::timeout(REFRESH_LIMIT, self.holding_lease()).await {
            Ok(outcome) => outcome,
            Err(_) => {
                metrics::refreshed("unavailable");
                tracing::warn!(
                    limit_secs = REFRESH_LIMIT.as_secs(),
                    "session refresh took too long; the session ends"
                );
                self.sessions
                    .delete(&self.key)
                    .await
                    .map(|()| Renewal::Ended)
            }
        };
        // Released whatever happened, only while it is still ours; if this fails the lease
        // expires by itself.
        let _ = store.delete_if_equals(&lease, holder.as_bytes()).await;
        outcome
    }

    async fn holding_lease(&self) -> Result<Renewal, StoreError> {
        let (sessions, provider, key) = (&self.sessions, &self.provider, self.key.as_str());
        // Read again under the lease: another replica may have renewed it a moment ago.
        let Some(mut record) = sessions.read(key).await? else {
            return Ok(Renewal::Ended);
        };
        let Some(refresh_token) = record.refresh_token.clone() else {
            return Ok(Renewal::Current(Box::new(record)));
        };
        if !is_due(self.before_expiry, &record, unix_now()) {
            metrics::refreshed("shared");
            return Ok(Renewal::Current(Box::new(record)));
        }
        let mut result = provider.refresh(&refresh_token, &record.claims).await;
        // Once more only if the request never reached the provider: one that may have reached
        // it may have spent (rotated) the token, and spending it again can revoke the grant.
        if result
            .as_ref()
            .is_err_and(RefreshFailure::worth_another_try)
        {
            result = provider.refresh(&refresh_token, &record.claims).await;
        }
        let claims = (
            provider.username_claim.as_str(),
            provider.groups_claim.as_str(),
        );
        let failure = match result.and_then(|refreshed| apply(&mut record, refreshed, claims)) {
            Ok(()) => {
                if !sessions.update(key, &record).await? {
                    tracing::info!(
                        username = %record.username,
                        "the session ended during its refresh; not stored again"
                    );
                    return Ok(Renewal::Ended);
                }
                metrics::refreshed("refreshed");
                tracing::info!(
                    username = %record.username,
                    groups = %record.groups.join(","),
                    "session refreshed"
                );
                return Ok(Renewal::Current(Box::new(record)));
            }
            Err(failure) => failure,
        };
        metrics::refreshed(failure.outcome());
        tracing::warn!(
            username = %record.username,
            reason = %failure,
            "session refresh failed; the session ends"
        );
        sessions.delete(key).await?;
        Ok(Renewal::Ended)
    }
}

/// How waiting for another replica's lease ended.
#[derive(Debug, PartialEq, Eq)]
enum LeaseWait {
    /// It went: the other replica's refresh is done (or gave up).
    Released,
    /// Still there at the deadline.
    TimedOut,
}

impl LeaseWait {
    /// Its `outcome` in `proxy_session_refreshes_total`.
    fn outcome(&self) -> &'static str {
        match self {
            Self::Released => "shared",
            Self::TimedOut => "wait_timeout",
        }
    }
}

/// Waits, at most `deadline`, for the lease `lease` to go.
async fn wait_for_lease(
    store: &dyn KeyValueStore,
    lease: &str,
    deadline: Duration,
) -> Result<LeaseWait, StoreError> {
    let until = Instant::now() + deadline;
    while store.get(lease).await?.is_some() {
        if Instant::now() >= until {
            return Ok(LeaseWait::TimedOut);
        }
        tokio::time::sleep(LEASE_POLL).await;
    }
    Ok(LeaseWait::Released)
}

/// A random value naming this lease's holder, so that only it releases the lease.
fn lease_holder() -> String {
    URL_SAFE_NO_PAD.encode(rand::random::<[u8; 16]>())
}

/// The renewed tokens and identity in `record`; another user (a changed user name claim) is
/// refused, never switched to.
fn apply(
    record: &mut SessionRecord,
    refreshed: Refreshed,
    (username_claim, groups_claim): (&str, &str),
) -> Result<(), RefreshFailure> {
    let identity = identity_from_claims(refreshed.claims, username_claim, groups_claim)
        .ok_or_else(|| RefreshFailure::Rejected("the new claims name no usable user".into()))?;
    if identity.username != record.username {
        return Err(RefreshFailure::Rejected(
            "the new claims name another user".into(),
        ));
    }
    record.email = identity.email;
    record.name = identity.name;
    record.groups = identity.groups;
    record.claims = identity.claims;
    if let Some(id_token) = refreshed.id_token {
        record.id_token = Some(id_token);
    }
    if let Some(refresh_token) = refreshed.refresh_token {
        record.refresh_token = Some(refresh_token);
    }
    record.access_expires_at = refreshed.access_expires_at;
    Ok(())
}

/// `authproxy:session-refresh:<sha256(id) hex>`, beside the session's own key.
fn lease_key(session_key: &str) -> String {
    let hash = session_key.rsplit(':').next().unwrap_or(session_key);
    format!("authproxy:session-refresh:{hash}")
}

#[cfg(test)]
mod tests {
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
        let new =
            serde_json::json!({"sub": "1", "preferred_username": "alice", "groups": ["staff"]});
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

    #[tokio::test]
    async fn a_refresh_whose_request_is_dropped_still_runs_to_its_end() {
        use futures_util::poll;

        use crate::authn::cookies::CookieSigner;
        use crate::authn::session::store_key;
        use crate::crypto::CredentialCipher;

        const DEADLINE: Duration = Duration::from_secs(10);
        let (issuer, release) = silent_provider().await;
        let callback = "http://127.0.0.1:1/auth/callback";
        let provider = Arc::new(
            OidcProvider::new(&crate::config::OidcSettings {
                enabled: true,
                issuer_url: issuer,
                client_id: "c".to_owned(),
                redirect_url: callback.to_owned(),
                ..Default::default()
            })
            .unwrap(),
        );
        let store: Arc<dyn KeyValueStore> =
            Arc::new(service_kit::byte_store::MemoryStore::default());
        let signer = CookieSigner::new(&[7; 32], "", callback).unwrap();
        let sessions = Sessions::new(
            store.clone(),
            CredentialCipher::ephemeral(),
            signer,
            "s",
            Duration::from_secs(3600),
        );
        let key = store_key("the-session-id");
        let mut due = record(Some("r"), Some(unix_now()));
        due.expires_at = unix_now() + 3600;
        sessions.write(&key, &due).await.unwrap();
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
}
