//! Limits repeated failed Basic attempts per user name and per source address (governor token
//! buckets). Only failures take tokens; once a bucket is empty, attempts for that key are refused
//! with 429 before any password check until a token comes back.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use moka::sync::Cache;

/// Keys tracked before old, refilled buckets are dropped.
const PRUNE_ABOVE: usize = 10_000;

pub struct FailureLimiter {
    per_user: DefaultKeyedRateLimiter<String>,
    per_address: DefaultKeyedRateLimiter<IpAddr>,
    /// Keys whose bucket ran out, and until when they are refused.
    blocked_users: Cache<String, std::time::Instant>,
    blocked_addresses: Cache<IpAddr, std::time::Instant>,
    /// When the latest block of any key ends, in milliseconds since `started`. Checked first,
    /// so that while nothing is blocked (nearly always) an attempt costs one atomic load
    /// instead of two cache look-ups.
    last_block_ends_ms: AtomicU64,
    started: std::time::Instant,
    clock: DefaultClock,
}

fn quota(max_failures: u32, window: Duration) -> Quota {
    let burst = NonZeroU32::new(max_failures.max(1)).expect("at least 1");
    let period = (window / burst.get()).max(Duration::from_millis(1));
    Quota::with_period(period)
        .expect("the period is positive")
        .allow_burst(burst)
}

impl FailureLimiter {
    pub fn new(max_per_user: u32, max_per_address: u32, window: Duration) -> Self {
        Self {
            per_user: RateLimiter::keyed(quota(max_per_user, window)),
            per_address: RateLimiter::keyed(quota(max_per_address, window)),
            blocked_users: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(window)
                .build(),
            blocked_addresses: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(window)
                .build(),
            last_block_ends_ms: AtomicU64::new(0),
            started: std::time::Instant::now(),
            clock: DefaultClock::default(),
        }
    }

    fn millis_since_start(&self, instant: std::time::Instant) -> u64 {
        u64::try_from(instant.saturating_duration_since(self.started).as_millis())
            .unwrap_or(u64::MAX)
    }

    fn note_block_until(&self, until: std::time::Instant) {
        // Rounded up, so the fast path never ends a block early.
        let ends = self.millis_since_start(until).saturating_add(1);
        self.last_block_ends_ms.fetch_max(ends, Ordering::AcqRel);
    }

    /// Whether any user or address may be blocked right now.
    pub fn blocks_active(&self) -> bool {
        self.millis_since_start(std::time::Instant::now())
            < self.last_block_ends_ms.load(Ordering::Acquire)
    }

    /// Seconds to wait when `username` or `address` is currently refused.
    pub fn refused_for(&self, username: &str, address: Option<IpAddr>) -> Option<u64> {
        if !self.blocks_active() {
            return None;
        }
        let now = std::time::Instant::now();
        let by_user = self.blocked_users.get(username);
        let by_address = address.and_then(|address| self.blocked_addresses.get(&address));
        [by_user, by_address]
            .into_iter()
            .flatten()
            .filter(|until| *until > now)
            .map(|until| seconds_ceil(until - now))
            .max()
    }

    /// Records a failure; returns the seconds to wait when it used up a bucket.
    pub fn record_failure(&self, username: &str, address: Option<IpAddr>) -> Option<u64> {
        let mut refused = None;
        if let Err(not_until) = self.per_user.check_key(&username.to_owned()) {
            let wait = not_until.wait_time_from(self.clock.now());
            let until = std::time::Instant::now() + wait;
            self.note_block_until(until);
            self.blocked_users.insert(username.to_owned(), until);
            refused = Some(seconds_ceil(wait));
        }
        if let Some(address) = address
            && let Err(not_until) = self.per_address.check_key(&address)
        {
            let wait = not_until.wait_time_from(self.clock.now());
            let until = std::time::Instant::now() + wait;
            self.note_block_until(until);
            self.blocked_addresses.insert(address, until);
            refused = refused.max(Some(seconds_ceil(wait)));
        }
        if self.per_user.len() > PRUNE_ABOVE {
            self.per_user.retain_recent();
        }
        if self.per_address.len() > PRUNE_ABOVE {
            self.per_address.retain_recent();
        }
        refused
    }
}

fn seconds_ceil(duration: Duration) -> u64 {
    duration.as_millis().div_ceil(1000).max(1) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_after_the_allowed_failures_per_user_and_per_address() {
        let limiter = FailureLimiter::new(2, 3, Duration::from_secs(60));
        let address: IpAddr = "192.0.2.1".parse().unwrap();
        assert_eq!(limiter.record_failure("ann", Some(address)), None);
        assert_eq!(limiter.record_failure("ann", Some(address)), None);
        assert_eq!(limiter.refused_for("ann", Some(address)), None);
        let wait = limiter.record_failure("ann", Some(address)).unwrap();
        assert!((1..=30).contains(&wait), "{wait}");
        assert!(limiter.refused_for("ann", None).is_some());
        assert!(limiter.refused_for("bob", None).is_none());
        // The address has one failure left, then bob is refused by address.
        assert!(limiter.record_failure("bob", Some(address)).is_some());
        assert!(limiter.refused_for("bob", Some(address)).is_some());
    }
}
