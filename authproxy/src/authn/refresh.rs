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

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};
use tokio::time::Instant;

use crate::authn::oidc::{OidcProvider, RefreshFailure, Refreshed, identity_from_claims};
use crate::authn::session::{SessionRecord, Sessions, unix_now};
use crate::error::{Error, ProviderFailure};
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
    /// Requests of one session in this replica share one refresh, keyed by the store key: its
    /// task, joined by every request that comes while it runs (also after all those that came
    /// before went away); the task removes its entry as it ends.
    flights: Arc<Flights>,
}

type Flights = Mutex<HashMap<String, Running>>;
type Running = Shared<BoxFuture<'static, Result<Renewal, RenewFailure>>>;

/// Why a refresh gave no renewal to go on with.
#[derive(Clone, Debug)]
enum RenewFailure {
    Store(StoreError),
    /// Its task panicked (a bug): whether the token was spent or the session ended is unknown.
    Panicked,
}

impl SessionRefresher {
    pub(crate) fn new(before_expiry: Duration) -> Self {
        Self {
            before_expiry,
            flights: Arc::default(),
        }
    }

    /// The session holds a refresh token and its access token expires within the margin.
    pub(crate) fn is_due(&self, record: &SessionRecord, now: u64) -> bool {
        is_due(self.before_expiry, record, now)
    }

    /// Renews the session under `key` (its record `record`, due) once, however many requests
    /// and replicas ask at the same time. The refresh runs in a task of its own: it completes
    /// and stores its result even when every request waiting for it went away; a request that
    /// comes while it runs joins it (never a second task waiting for the first one's lease).
    pub(crate) async fn renew(
        &self,
        sessions: &Sessions,
        provider: &Arc<OidcProvider>,
        key: &str,
    ) -> Result<Renewal, Error> {
        let running = {
            let mut flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
            match flights.get(key) {
                Some(running) => running.clone(),
                None => {
                    let refresh = Refresh {
                        sessions: sessions.clone(),
                        provider: provider.clone(),
                        key: key.to_owned(),
                        before_expiry: self.before_expiry,
                    };
                    let entry = FlightEntry {
                        flights: self.flights.clone(),
                        key: key.to_owned(),
                    };
                    // The entry goes as the task ends (a panic included), after it is inserted
                    // below: the task waits for this lock.
                    let task = tokio::spawn(async move {
                        let _entry = entry;
                        refresh.run().await
                    });
                    let running = joined(task).boxed().shared();
                    flights.insert(key.to_owned(), running.clone());
                    running
                }
            }
        };
        running.await.map_err(|failure| match failure {
            RenewFailure::Store(error) => Error::StoreUnavailable(error),
            RenewFailure::Panicked => Error::ProviderUnavailable(ProviderFailure::Other(
                "the session refresh failed".to_owned(),
            )),
        })
    }
}

/// The outcome of a refresh's task.
async fn joined(
    task: tokio::task::JoinHandle<Result<Renewal, StoreError>>,
) -> Result<Renewal, RenewFailure> {
    match task.await {
        Ok(outcome) => outcome.map_err(RenewFailure::Store),
        Err(error) => {
            // The session is neither renewed nor known to be ended: the requests fail (503);
            // the task's lease went with it (`Lease`).
            tracing::error!(%error, "the session refresh task failed");
            Err(RenewFailure::Panicked)
        }
    }
}

/// A running refresh's entry in the flights, removed when its task ends or unwinds.
struct FlightEntry {
    flights: Arc<Flights>,
    key: String,
}

impl Drop for FlightEntry {
    fn drop(&mut self) {
        self.flights
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key);
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
        let store = self.sessions.store();
        let Some(lease) = Lease::take(store, &self.key).await? else {
            // Another replica is refreshing this session: reuse what it stores.
            let waited = wait_for_lease(store.as_ref(), &lease_key(&self.key), LEASE_TTL).await?;
            metrics::refreshed(waited.outcome());
            return Ok(match self.sessions.read(&self.key).await? {
                Some(record) => Renewal::Current(Box::new(record)),
                None => Renewal::Ended,
            });
        };
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
        lease.release().await;
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

/// This replica's lease on a session's refresh: released by compare-and-delete (only while it
/// is still ours; if that fails it expires by itself) when the refresh ends, and when its task
/// panics or is aborted too, then from a task of its own (`Drop` cannot wait), so a failed
/// refresh never leaves other requests waiting out the lease's 25 s.
struct Lease {
    store: Arc<dyn KeyValueStore>,
    key: String,
    holder: String,
    released: bool,
}

impl Lease {
    /// The lease of the session under `session_key`, unless someone else holds it.
    async fn take(
        store: &Arc<dyn KeyValueStore>,
        session_key: &str,
    ) -> Result<Option<Self>, StoreError> {
        let (key, holder) = (lease_key(session_key), lease_holder());
        let taken = store
            .set_if_absent(&key, holder.clone().into_bytes(), LEASE_TTL)
            .await?;
        Ok(taken.then(|| Self {
            store: store.clone(),
            key,
            holder,
            released: false,
        }))
    }

    async fn release(mut self) {
        let _ = self
            .store
            .delete_if_equals(&self.key, self.holder.as_bytes())
            .await;
        self.released = true;
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let store = self.store.clone();
        let (key, holder) = (
            std::mem::take(&mut self.key),
            std::mem::take(&mut self.holder),
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = store.delete_if_equals(&key, holder.as_bytes()).await;
            });
        }
    }
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
mod tests;
