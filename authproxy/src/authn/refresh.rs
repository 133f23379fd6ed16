//! Renewing browser sessions (`oidc.refresh`): a request of a session whose access token
//! expires within `before_expiry` spends the session's refresh token at the provider, reads the
//! groups and claims again and stores the renewed session, so the managed user's roles follow
//! group changes at the provider. One refresh per session at a time: in this replica a single
//! flight, across replicas a short lease in the store (Redis `SET NX PX`); whoever does not
//! hold it waits for the lease to go and reuses the renewed session, so no two replicas spend
//! one refresh token (providers that rotate them refuse a reused one and may revoke the grant).
//! A refused refresh (`invalid_grant`, a token that does not verify, another user) or a
//! provider still unreachable after one more try ends the session: the caller signs in again.

use std::time::{Duration, Instant};

use service_kit::single_flight::SingleFlight;

use crate::authn::oidc::{OidcProvider, RefreshFailure, Refreshed, identity_from_claims};
use crate::authn::session::{SessionRecord, Sessions, unix_now};
use crate::error::Error;
use crate::metrics;
use crate::store::StoreError;

/// How long one replica may hold a session's refresh: more than two token requests
/// (`CALL_TIMEOUT` each), so it never runs out while the refresh is still going.
const LEASE_TTL: Duration = Duration::from_secs(25);
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
        record.refresh_token.is_some()
            && record
                .access_expires_at
                .is_some_and(|at| at <= now.saturating_add(self.before_expiry.as_secs()))
    }

    /// Renews the session under `key` (its record `record`, due) once, however many requests
    /// and replicas ask at the same time.
    pub(crate) async fn renew(
        &self,
        sessions: &Sessions,
        provider: &OidcProvider,
        key: &str,
    ) -> Result<Renewal, Error> {
        self.flights
            .run(key.to_owned(), || self.renew_once(sessions, provider, key))
            .await
            .map_err(Error::StoreUnavailable)
    }

    async fn renew_once(
        &self,
        sessions: &Sessions,
        provider: &OidcProvider,
        key: &str,
    ) -> Result<Renewal, StoreError> {
        let lease = lease_key(key);
        let store = sessions.store();
        if !store
            .set_if_absent(&lease, b"1".to_vec(), LEASE_TTL)
            .await?
        {
            // Another replica is refreshing this session: reuse what it stores.
            let deadline = Instant::now() + LEASE_TTL;
            while store.get(&lease).await?.is_some() && Instant::now() < deadline {
                tokio::time::sleep(LEASE_POLL).await;
            }
            metrics::refreshed("shared");
            return Ok(match sessions.read(key).await? {
                Some(record) => Renewal::Current(Box::new(record)),
                None => Renewal::Ended,
            });
        }
        let outcome = self.refresh_holding_lease(sessions, provider, key).await;
        // Released whatever happened; if this fails the lease expires by itself.
        let _ = store.delete(&lease).await;
        outcome
    }

    async fn refresh_holding_lease(
        &self,
        sessions: &Sessions,
        provider: &OidcProvider,
        key: &str,
    ) -> Result<Renewal, StoreError> {
        // Read again under the lease: another replica may have renewed it a moment ago.
        let Some(mut record) = sessions.read(key).await? else {
            return Ok(Renewal::Ended);
        };
        let Some(refresh_token) = record.refresh_token.clone() else {
            return Ok(Renewal::Current(Box::new(record)));
        };
        if !self.is_due(&record, unix_now()) {
            metrics::refreshed("shared");
            return Ok(Renewal::Current(Box::new(record)));
        }
        let mut result = provider.refresh(&refresh_token, &record.claims).await;
        if matches!(result, Err(RefreshFailure::Unavailable(_))) {
            result = provider.refresh(&refresh_token, &record.claims).await;
        }
        let claims = (
            provider.username_claim.as_str(),
            provider.groups_claim.as_str(),
        );
        let failure = match result.and_then(|refreshed| apply(&mut record, refreshed, claims)) {
            Ok(()) => {
                sessions.write(key, &record).await?;
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
        metrics::refreshed(match failure {
            RefreshFailure::Rejected(_) => "rejected",
            RefreshFailure::Unavailable(_) => "unavailable",
        });
        tracing::warn!(
            username = %record.username,
            reason = %failure,
            "session refresh failed; the session ends"
        );
        sessions.delete(key).await?;
        Ok(Renewal::Ended)
    }
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
