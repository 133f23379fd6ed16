//! A stream's maximum lifetime (`stream.max_lifetime`). Identity and groups are checked when a
//! stream opens; a stream that lived on would outlast a sign-out or a change of groups. So each
//! stream ends after its lifetime, between two events, with a short `retry:`: the browser
//! reconnects at once through the front door (signed in and authorized again) and resumes from
//! its `Last-Event-ID`, with no event missed or repeated.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::pin::Pin;
use std::time::Duration;

use tokio::time::{Instant, Sleep};

/// The `retry:` written as a stream ends of old age: the reconnect is expected and the server is
/// up, so the browser comes back at once (the new stream sets the configured `retry:` again).
pub(crate) const RESUME_RETRY: Duration = Duration::from_millis(100);

/// The share of the lifetime taken off at random, so that clients connected together (after a
/// restart) do not all come back at the same moment.
const JITTER_DIVISOR: u32 = 10;

/// The lifetime of one stream: `max` less up to a tenth of it, chosen by `random`.
pub(crate) fn jittered(max: Duration, random: u64) -> Duration {
    let jitter = max / JITTER_DIVISOR;
    let nanos = u64::try_from(jitter.as_nanos()).unwrap_or(u64::MAX);
    let taken = if nanos == 0 { 0 } else { random % nanos };
    max - Duration::from_nanos(taken)
}

/// When a stream opened now ends.
pub(crate) fn deadline(max: Duration) -> Pin<Box<Sleep>> {
    let random = RandomState::new().hash_one(Instant::now());
    Box::pin(tokio::time::sleep(jittered(max, random)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifetime_is_the_maximum_less_at_most_a_tenth() {
        let max = Duration::from_secs(300);
        for random in [0, 1, 29_999_999_999, 30_000_000_000, u64::MAX] {
            let lifetime = jittered(max, random);
            assert!(lifetime <= max && lifetime > max - max / 10, "{lifetime:?}");
        }
        assert_eq!(jittered(max, 0), max);
        assert_eq!(jittered(Duration::ZERO, 7), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_passes_within_the_lifetime() {
        let opened = Instant::now();
        deadline(Duration::from_secs(60)).await;
        let lived = opened.elapsed();
        assert!(lived >= Duration::from_secs(54) && lived <= Duration::from_secs(60));
    }
}
