//! Waiting for something a test cannot be told about, with a deadline and a clear message: the
//! one helper every suite polls with (no fixed sleeps). It sleeps with tokio's clock, so a test
//! on paused time waits no wall-clock time at all.

use std::fmt::Display;
use std::time::Duration;

/// How often a probe is asked again.
const EVERY: Duration = Duration::from_millis(50);

/// Asks `ready` every 50 ms until it says yes; panics after `within` naming `what`.
pub async fn eventually(what: &str, within: Duration, mut ready: impl AsyncFnMut() -> bool) {
    eventually_with(
        what,
        within,
        async || {
            if ready().await { Ok(()) } else { Err("no") }
        },
    )
    .await;
}

/// Asks `probe` every 50 ms until it answers `Ok`, and returns that; panics after `within`
/// naming `what` and the last `Err` it answered (what it saw instead).
pub async fn eventually_with<T, Seen: Display>(
    what: &str,
    within: Duration,
    mut probe: impl AsyncFnMut() -> Result<T, Seen>,
) -> T {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match probe().await {
            Ok(value) => return value,
            Err(seen) => assert!(
                tokio::time::Instant::now() < deadline,
                "{what}: not within {within:?}; last seen: {seen}"
            ),
        }
        tokio::time::sleep(EVERY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn returns_what_the_probe_found_once_it_is_there() {
        let mut asked = 0;
        let found = eventually_with("the third answer", Duration::from_secs(1), async || {
            asked += 1;
            if asked == 3 { Ok(asked) } else { Err(asked) }
        })
        .await;
        assert_eq!(found, 3);
    }

    #[tokio::test(start_paused = true)]
    #[should_panic(expected = "the cluster to be green: not within 1s; last seen: yellow")]
    async fn names_what_it_waited_for_and_what_it_saw() {
        eventually_with(
            "the cluster to be green",
            Duration::from_secs(1),
            async || Err::<(), _>("yellow"),
        )
        .await;
    }

    #[tokio::test(start_paused = true)]
    #[should_panic(expected = "the flag: not within 200ms")]
    async fn a_condition_that_never_holds_fails() {
        eventually("the flag", Duration::from_millis(200), async || false).await;
    }
}
