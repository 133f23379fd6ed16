//! HTTP Basic credentials against the configured local users (bcrypt).
//!
//! bcrypt is slow on purpose, so a successful verification is remembered in memory for
//! `basic_auth.verified_ttl` (keyed by a salted SHA-256 of the `Authorization` value, never the
//! password itself). An unknown user is checked against a dummy hash of the same cost, so it takes as long
//! as a wrong password; that hash is made off the start path, so a start does not wait for one
//! bcrypt run. Concurrent checks of the same `Authorization` value share one bcrypt run (single
//! flight): when `verified_ttl` runs out under load, the waiting requests of one credential cost
//! one run, not one each. Failures are limited per (user, source address), and per source address
//! for names that are not configured users ([`limiter`]); credentials that verified recently are
//! accepted before any limit is consulted, so nobody's failures lock out a signed-in user.

mod header;
mod limiter;

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};

use moka::sync::Cache;
use secrecy::ExposeSecret;
use service_kit::single_flight::SingleFlight;
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

pub use header::{AuthorizationHeader, BasicCredentials, basic_header_value, parse_authorization};
pub use limiter::{Attempt, FailureLimiter};

use crate::config::BasicAuthSettings;
use crate::identity::Identity;

/// Cost of the dummy hash when no user is configured (nothing to hide then).
const MIN_COST: u32 = 4;

/// Why Basic credentials were not accepted.
#[derive(Debug, PartialEq, Eq)]
pub enum BasicRejection {
    /// Unknown user or wrong password (indistinguishable on purpose).
    Invalid,
    /// Too many failures for this user or address; seconds to wait.
    Limited(u64),
}

/// Accepted credentials.
#[derive(Debug)]
pub struct Verified {
    /// Shared with the verification cache: a cache hit allocates nothing.
    pub identity: Arc<Identity>,
    /// True when a recent verification was reused (no bcrypt run).
    pub from_cache: bool,
}

pub struct BasicAuthenticator {
    users: HashMap<String, crate::config::LocalUser>,
    /// Made on a thread of its own at start; the first unknown user waits for it if needed.
    dummy_hash: Arc<OnceLock<String>>,
    dummy_cost: u32,
    salt: [u8; 32],
    verified: Cache<[u8; 32], Arc<Identity>>,
    limiter: FailureLimiter,
    /// bcrypt runs on the blocking pool; this bounds how many at once, so a flood of wrong
    /// passwords cannot take every core.
    bcrypt_slots: Semaphore,
    /// One bcrypt run per credential (header fingerprint) at a time, shared by its waiters.
    checks: SingleFlight<[u8; 32], bool, Infallible>,
    /// bcrypt runs so far (tests).
    runs: std::sync::atomic::AtomicU64,
}

impl BasicAuthenticator {
    pub fn new(settings: &BasicAuthSettings) -> Self {
        let users: HashMap<_, _> = settings
            .users
            .iter()
            .map(|user| (user.username.clone(), user.clone()))
            .collect();
        let cost = users
            .values()
            .filter_map(|user| user.password_hash.parse::<bcrypt::HashParts>().ok())
            .map(|parts| parts.get_cost())
            .max()
            .unwrap_or(MIN_COST);
        let dummy_hash = Arc::new(OnceLock::new());
        let filling = dummy_hash.clone();
        std::thread::spawn(move || {
            filling.get_or_init(|| dummy_hash_of_cost(cost));
        });
        let parallelism = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self {
            users,
            dummy_hash,
            dummy_cost: cost,
            salt: rand::random(),
            verified: Cache::builder()
                .max_capacity(10_000)
                .time_to_live(settings.verified_ttl)
                .build(),
            limiter: FailureLimiter::new(
                settings.max_failures_per_user,
                settings.max_failures_per_address,
                settings.failure_window,
            ),
            bcrypt_slots: Semaphore::new(parallelism),
            checks: SingleFlight::new(),
            runs: Default::default(),
        }
    }

    /// The identity verified before for exactly this `Authorization` value, answered without
    /// decoding it. Blocks do not apply: these exact credentials were proven right within
    /// `verified_ttl`, so failures by others (from the same reverse proxy, or guessing this
    /// user's password) never refuse them.
    pub fn remembered(&self, header_value: &[u8]) -> Option<Arc<Identity>> {
        self.verified.get(&self.fingerprint(header_value))
    }

    /// Checks `credentials`, decoded from `header_value`.
    pub async fn verify(
        &self,
        header_value: &[u8],
        credentials: &BasicCredentials,
        source: Option<IpAddr>,
    ) -> Result<Verified, BasicRejection> {
        let fingerprint = self.fingerprint(header_value);
        if let Some(identity) = self.verified.get(&fingerprint) {
            return Ok(Verified {
                identity,
                from_cache: true,
            });
        }
        let user = self.users.get(&credentials.username);
        let attempt = match user {
            Some(user) => Attempt::Known {
                username: &user.username,
                source,
            },
            None => Attempt::Unknown { source },
        };
        if let Some(wait) = self.limiter.refused_for(attempt) {
            return Err(BasicRejection::Limited(wait));
        }
        let matched = self
            .checks
            .run(fingerprint, || self.bcrypt(user, credentials))
            .await
            .unwrap_or_else(|never| match never {});
        match user {
            Some(user) if matched => {
                let identity = Arc::new(Identity::local(
                    &user.username,
                    &user.email,
                    &user.name,
                    &user.groups,
                ));
                self.verified.insert(fingerprint, identity.clone());
                Ok(Verified {
                    identity,
                    from_cache: false,
                })
            }
            _ => match self
                .limiter
                .record_failure(attempt)
                .or_else(|| self.limiter.source_blocked_for(source))
            {
                Some(wait) => Err(BasicRejection::Limited(wait)),
                None => Err(BasicRejection::Invalid),
            },
        }
    }

    /// One bcrypt run of `credentials` against `user`'s hash, or the dummy hash for an unknown
    /// user, on the blocking pool within the slots.
    async fn bcrypt(
        &self,
        user: Option<&crate::config::LocalUser>,
        credentials: &BasicCredentials,
    ) -> Result<bool, Infallible> {
        let hash = user.map(|user| user.password_hash.clone());
        let dummy = (self.dummy_hash.clone(), self.dummy_cost);
        let password = credentials.password.expose_secret().to_owned();
        let _slot = self.bcrypt_slots.acquire().await;
        self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(tokio::task::spawn_blocking(move || {
            let hash = hash.unwrap_or_else(|| {
                let (dummy, cost) = dummy;
                dummy.get_or_init(|| dummy_hash_of_cost(cost)).clone()
            });
            bcrypt::verify(password, &hash).unwrap_or(false)
        })
        .await
        .unwrap_or(false))
    }

    /// A salted hash of the whole header value: it decodes to exactly one user and password,
    /// so the value identifies the credentials without being kept.
    fn fingerprint(&self, header_value: &[u8]) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(self.salt);
        hasher.update(header_value);
        hasher.finalize().into()
    }
}

/// A bcrypt hash of a random password nobody knows, at `cost`.
fn dummy_hash_of_cost(cost: u32) -> String {
    let password: [u8; 16] = rand::random();
    bcrypt::hash(password, cost).expect("bcrypt costs from valid hashes are valid")
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use secrecy::SecretString;

    use super::*;
    use crate::config::LocalUser;

    fn settings(hash: &str) -> BasicAuthSettings {
        BasicAuthSettings {
            users: vec![LocalUser {
                username: "ann".to_owned(),
                password_hash: hash.to_owned(),
                email: "ann@example.com".to_owned(),
                name: "Ann".to_owned(),
                groups: vec!["admins".to_owned()],
            }],
            max_failures_per_user: 3,
            ..BasicAuthSettings::default()
        }
    }

    fn credentials(username: &str, password: &str) -> BasicCredentials {
        BasicCredentials {
            username: username.to_owned(),
            password: SecretString::from(password),
        }
    }

    /// Verifies `username:password` as the gate does: the header value and what it decodes to.
    async fn verify(
        authenticator: &BasicAuthenticator,
        username: &str,
        password: &str,
    ) -> Result<Verified, BasicRejection> {
        let header = basic_header_value(username, password);
        authenticator
            .verify(header.as_bytes(), &credentials(username, password), None)
            .await
    }

    #[tokio::test]
    async fn verifies_once_then_remembers() {
        let hash = bcrypt::hash("right", 6).unwrap();
        let authenticator = BasicAuthenticator::new(&settings(&hash));
        let verified = verify(&authenticator, "ann", "right").await.unwrap();
        assert!(!verified.from_cache);
        let identity = verified.identity;
        assert_eq!(identity.email, "ann@example.com");
        assert_eq!(identity.groups, ["admins"]);
        // Every later verification is the cache's: no bcrypt run, the very same identity.
        for _ in 0..50 {
            let again = verify(&authenticator, "ann", "right").await.unwrap();
            assert!(again.from_cache);
            assert!(Arc::ptr_eq(&again.identity, &identity));
        }
        assert_eq!(
            verify(&authenticator, "ann", "wrong").await.unwrap_err(),
            BasicRejection::Invalid
        );
    }

    #[tokio::test]
    async fn concurrent_checks_of_one_credential_share_one_bcrypt_run() {
        let hash = bcrypt::hash("right", 8).unwrap();
        let authenticator = BasicAuthenticator::new(&settings(&hash));
        // join_all polls every check once before any can finish (bcrypt runs on the blocking
        // pool), so all 16 are waiting at once, as when `verified_ttl` runs out under load.
        let all = |password: &'static str| {
            futures_util::future::join_all((0..16).map(|_| verify(&authenticator, "ann", password)))
        };
        let runs = || {
            authenticator
                .runs
                .load(std::sync::atomic::Ordering::Relaxed)
        };
        let answers = all("right").await;
        assert!(answers.iter().all(|answer| {
            answer
                .as_ref()
                .is_ok_and(|verified| verified.identity.username == "ann")
        }));
        assert_eq!(runs(), 1, "16 waiters of one credential, one bcrypt run");
        // A wrong password: its waiters share one run too, and each is refused.
        let answers = all("wrong").await;
        assert!(answers.iter().all(Result::is_err), "{answers:?}");
        assert_eq!(runs(), 2);
    }

    #[tokio::test]
    async fn unknown_users_cost_a_bcrypt_run_and_failures_are_limited() {
        let hash = bcrypt::hash("right", 8).unwrap();
        let authenticator = BasicAuthenticator::new(&settings(&hash));
        let time = |username: String| {
            let authenticator = &authenticator;
            async move {
                let started = Instant::now();
                let _ = verify(authenticator, &username, "x").await;
                started.elapsed()
            }
        };
        // The fastest of three runs each, so a busy machine does not decide the outcome.
        let mut unknown = Duration::MAX;
        let mut known = Duration::MAX;
        for round in 0..3 {
            unknown = unknown.min(time(format!("nobody-{round}")).await);
            known = known.min(time("ann".to_owned()).await);
        }
        let ratio = unknown.as_secs_f64() / known.as_secs_f64();
        assert!(
            (0.5..2.0).contains(&ratio),
            "unknown {unknown:?} vs known {known:?}"
        );
        // ann has used the three failures allowed; the next attempt is limited, even with the
        // right password.
        assert!(matches!(
            verify(&authenticator, "ann", "x").await,
            Err(BasicRejection::Limited(_))
        ));
        assert!(matches!(
            verify(&authenticator, "ann", "right").await,
            Err(BasicRejection::Limited(_))
        ));
    }

    #[tokio::test]
    async fn a_remembered_header_passes_while_its_user_is_blocked_by_others_failures() {
        let hash = bcrypt::hash("right", 4).unwrap();
        let authenticator = BasicAuthenticator::new(&settings(&hash));
        let header = basic_header_value("ann", "right");
        assert!(authenticator.remembered(header.as_bytes()).is_none());
        verify(&authenticator, "ann", "right").await.unwrap();
        let remembered = authenticator.remembered(header.as_bytes()).unwrap();
        assert_eq!(remembered.username, "ann");
        // Another encoding of other credentials is not taken for it.
        assert!(
            authenticator
                .remembered(basic_header_value("ann", "righ").as_bytes())
                .is_none()
        );

        // Three failures are allowed; the fourth blocks ann (from this source) for guesses...
        for _ in 0..4 {
            let _ = verify(&authenticator, "ann", "wrong").await;
        }
        assert!(matches!(
            verify(&authenticator, "ann", "wrong-again").await,
            Err(BasicRejection::Limited(_))
        ));
        // ...but the credentials that verified stay accepted.
        assert!(authenticator.remembered(header.as_bytes()).is_some());
        assert!(
            verify(&authenticator, "ann", "right")
                .await
                .unwrap()
                .from_cache
        );
    }
}
