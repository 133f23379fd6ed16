//! Limits repeated failed Basic attempts (governor token buckets). Only failures take tokens;
//! once a bucket is empty, attempts it covers are refused with 429 before any password check
//! until a token comes back.
//!
//! Buckets are keyed so that nobody can lock out someone else:
//! - a configured user's failures count per (user, source address): guessing ann's password
//!   from one address does not block ann elsewhere, and behind a reverse proxy without
//!   `trusted_proxies` (every attempt from the proxy's address) it blocks only ann there;
//! - every failure also counts per source address, and that bucket refuses only names that are
//!   not configured users: a flood of made-up names never blocks a real user.
//!
//! Credentials that verified recently are accepted before this limiter is asked (see
//! [`super::BasicAuthenticator::remembered`]), so a user already signed in is never refused
//! because of someone else's failures.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use moka::sync::Cache;

/// Keys tracked before old, refilled buckets are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// Who an attempt is charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt<'a> {
    /// A configured local user, from `source`.
    Known {
        username: &'a str,
        source: Option<IpAddr>,
    },
    /// A name that is not a configured user, from `source`.
    Unknown { source: Option<IpAddr> },
}

impl Attempt<'_> {
    fn source(&self) -> Option<IpAddr> {
        match self {
            Self::Known { source, .. } | Self::Unknown { source } => *source,
        }
    }
}

/// A bucket's key; also the key of its block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum BlockKey {
    Account(String, Option<IpAddr>),
    Source(Option<IpAddr>),
}

pub struct FailureLimiter {
    per_account: DefaultKeyedRateLimiter<(String, Option<IpAddr>)>,
    per_source: DefaultKeyedRateLimiter<Option<IpAddr>>,
    /// Keys whose bucket ran out, and until when they are refused.
    blocked: Cache<BlockKey, Instant>,
    /// When the latest block of any key ends, in milliseconds since `started`. Checked first,
    /// so that while nothing is blocked (nearly always) an attempt costs one atomic load.
    last_block_ends_ms: AtomicU64,
    started: Instant,
    clock: DefaultClock,
}

fn quota(max_failures: u32, window: Duration) -> Quota {
    let burst = NonZeroU32::new(max_failures.max(1)).unwrap_or(NonZeroU32::MIN);
    let period = (window / burst.get()).max(Duration::from_millis(1));
    Quota::with_period(period)
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
        .allow_burst(burst)
}

impl FailureLimiter {
    /// `max_per_user` failures per (user, source) and `max_per_address` per source (which
    /// refuses unknown names only) within `window`.
    pub fn new(max_per_user: u32, max_per_address: u32, window: Duration) -> Self {
        Self {
            per_account: RateLimiter::keyed(quota(max_per_user, window)),
            per_source: RateLimiter::keyed(quota(max_per_address, window)),
            blocked: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(window)
                .build(),
            last_block_ends_ms: AtomicU64::new(0),
            started: Instant::now(),
            clock: DefaultClock::default(),
        }
    }

    fn millis_since_start(&self, instant: Instant) -> u64 {
        u64::try_from(instant.saturating_duration_since(self.started).as_millis())
            .unwrap_or(u64::MAX)
    }

    /// Whether any key may be blocked right now.
    fn blocks_active(&self) -> bool {
        self.millis_since_start(Instant::now()) < self.last_block_ends_ms.load(Ordering::Acquire)
    }

    fn wait_for(&self, key: &BlockKey) -> Option<u64> {
        let now = Instant::now();
        self.blocked
            .get(key)
            .filter(|until| *until > now)
            .map(|until| seconds_ceil(until - now))
    }

    /// Seconds to wait when `attempt` is refused before its password is checked: a known
    /// user by its (user, source) bucket, an unknown name by its source's.
    pub fn refused_for(&self, attempt: Attempt<'_>) -> Option<u64> {
        if !self.blocks_active() {
            return None;
        }
        match attempt {
            Attempt::Known { username, source } => {
                self.wait_for(&BlockKey::Account(username.to_owned(), source))
            }
            Attempt::Unknown { source } => self.wait_for(&BlockKey::Source(source)),
        }
    }

    /// Seconds to wait while `source` is blocked for guessing; a known user's wrong password
    /// from there is answered 429 too, so the status does not tell which names exist.
    pub fn source_blocked_for(&self, source: Option<IpAddr>) -> Option<u64> {
        if !self.blocks_active() {
            return None;
        }
        self.wait_for(&BlockKey::Source(source))
    }

    fn block(&self, key: BlockKey, wait: Duration) -> u64 {
        let until = Instant::now() + wait;
        // Rounded up, so the fast path never ends a block early.
        let ends = self.millis_since_start(until).saturating_add(1);
        self.last_block_ends_ms.fetch_max(ends, Ordering::AcqRel);
        self.blocked.insert(key, until);
        seconds_ceil(wait)
    }

    /// Records a failure; returns the seconds to wait when it used up a bucket that covers
    /// this attempt (a known user's failure may use up the source's bucket, which then
    /// refuses unknown names only).
    pub fn record_failure(&self, attempt: Attempt<'_>) -> Option<u64> {
        let source = attempt.source();
        let mut refused = None;
        if let Attempt::Known { username, .. } = attempt {
            let key = (username.to_owned(), source);
            if let Err(not_until) = self.per_account.check_key(&key) {
                let wait = not_until.wait_time_from(self.clock.now());
                refused = Some(self.block(BlockKey::Account(key.0, key.1), wait));
            }
        }
        if let Err(not_until) = self.per_source.check_key(&source) {
            let wait = not_until.wait_time_from(self.clock.now());
            let seconds = self.block(BlockKey::Source(source), wait);
            if matches!(attempt, Attempt::Unknown { .. }) {
                refused = refused.max(Some(seconds));
            }
        }
        if self.per_account.len() > PRUNE_ABOVE {
            self.per_account.retain_recent();
        }
        if self.per_source.len() > PRUNE_ABOVE {
            self.per_source.retain_recent();
        }
        refused
    }
}

fn seconds_ceil(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis().div_ceil(1000))
        .unwrap_or(u64::MAX)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(username: &str, source: &str) -> Attempt<'static> {
        Attempt::Known {
            username: Box::leak(username.to_owned().into_boxed_str()),
            source: Some(source.parse().unwrap()),
        }
    }

    fn unknown(source: &str) -> Attempt<'static> {
        Attempt::Unknown {
            source: Some(source.parse().unwrap()),
        }
    }

    #[test]
    fn a_known_user_is_limited_per_source() {
        let limiter = FailureLimiter::new(2, 100, Duration::from_secs(60));
        assert_eq!(limiter.record_failure(known("ann", "192.0.2.1")), None);
        assert_eq!(limiter.record_failure(known("ann", "192.0.2.1")), None);
        assert_eq!(limiter.refused_for(known("ann", "192.0.2.1")), None);
        let wait = limiter.record_failure(known("ann", "192.0.2.1")).unwrap();
        assert!((1..=30).contains(&wait), "{wait}");
        assert!(limiter.refused_for(known("ann", "192.0.2.1")).is_some());
        // ann from elsewhere, and bob from the same address, are not refused.
        assert!(limiter.refused_for(known("ann", "192.0.2.2")).is_none());
        assert!(limiter.refused_for(known("bob", "192.0.2.1")).is_none());
    }

    #[test]
    fn made_up_names_block_their_source_for_unknown_names_only() {
        let limiter = FailureLimiter::new(2, 3, Duration::from_secs(60));
        for _ in 0..3 {
            assert_eq!(limiter.record_failure(unknown("192.0.2.1")), None);
        }
        assert!(limiter.record_failure(unknown("192.0.2.1")).is_some());
        assert!(limiter.refused_for(unknown("192.0.2.1")).is_some());
        assert!(
            limiter
                .source_blocked_for(Some("192.0.2.1".parse().unwrap()))
                .is_some()
        );
        assert!(limiter.refused_for(unknown("192.0.2.2")).is_none());
        // A configured user from the blocked source is still checked.
        assert!(limiter.refused_for(known("ann", "192.0.2.1")).is_none());
    }
}
