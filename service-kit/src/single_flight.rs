//! Single flight: concurrent callers asking for the same key share one load and all get its
//! result, value or error. Nothing is kept once the load is done (caching is the caller's or
//! the byte store's job), unless the flights are made with [`SingleFlight::keeping_for`]: then a
//! value (never an error) is reused for that long.
//!
//! Every caller brings its own load and waits in its own future: the first one runs its load;
//! when that caller goes away (a client disconnected), the next waiter runs its own load, so
//! the others still get a result and nothing has to be spawned. Loads may therefore borrow
//! from the caller.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;

/// The flights in progress (and, with a time to keep, the values they produced), by key.
/// `T` and `E` are cloned to every caller: share big values and errors' sources through `Arc`.
pub struct SingleFlight<K, T, E> {
    slots: Mutex<HashMap<K, Slot<T, E>>>,
    keep: Option<Duration>,
}

type Flight<T, E> = Arc<OnceCell<Result<T, E>>>;

enum Slot<T, E> {
    Running(Flight<T, E>),
    /// A value kept after its flight, until `until`.
    Kept {
        value: T,
        until: Instant,
    },
}

impl<K, T, E> Default for SingleFlight<K, T, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, T, E> SingleFlight<K, T, E> {
    /// Flights that keep nothing once done.
    pub fn new() -> Self {
        Self {
            slots: Mutex::new(HashMap::new()),
            keep: None,
        }
    }

    /// Flights whose value is reused for `ttl` after it arrived (a small cache for a few keys:
    /// expired values are dropped when a flight starts). Errors are never kept.
    pub fn keeping_for(ttl: Duration) -> Self {
        Self {
            slots: Mutex::new(HashMap::new()),
            keep: Some(ttl),
        }
    }

    fn slots(&self) -> MutexGuard<'_, HashMap<K, Slot<T, E>>> {
        // A panic elsewhere cannot leave the map half-changed: every change is one call.
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<K, T, E> SingleFlight<K, T, E>
where
    K: Hash + Eq + Clone,
    T: Clone,
    E: Clone,
{
    /// Forgets what is kept or running for `key`: the next caller loads afresh (after a change
    /// that makes a kept value stale). Callers already waiting on a running flight still get
    /// its result.
    pub fn forget(&self, key: &K) {
        self.slots().remove(key);
    }

    /// The result of the flight for `key`: the one in progress (or the kept value), else a new
    /// one that runs `load`. `load` runs only when this caller leads the flight, which it also
    /// does when the caller that led it before was dropped.
    pub async fn run<F, Fut>(&self, key: K, load: F) -> Result<T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let flight = {
            let mut slots = self.slots();
            let now = Instant::now();
            match slots.get(&key) {
                Some(Slot::Kept { value, until }) if now < *until => return Ok(value.clone()),
                Some(Slot::Running(flight)) => flight.clone(),
                _ => {
                    if self.keep.is_some() {
                        slots.retain(
                            |_, slot| !matches!(slot, Slot::Kept { until, .. } if *until <= now),
                        );
                    }
                    let flight = Flight::default();
                    slots.insert(key.clone(), Slot::Running(flight.clone()));
                    flight
                }
            }
        };
        let done = Done {
            flights: self,
            key: &key,
            flight: &flight,
        };
        let result = flight.get_or_init(load).await.clone();
        drop(done);
        result
    }
}

/// Ends a caller's part in a flight, done or dropped: the first caller to see it done keeps its
/// value (with a time to keep) or forgets it; the last caller to leave an unfinished flight
/// (all of them dropped) forgets it, so a later caller starts afresh.
struct Done<'a, K: Hash + Eq, T: Clone, E> {
    flights: &'a SingleFlight<K, T, E>,
    key: &'a K,
    flight: &'a Flight<T, E>,
}

impl<K: Hash + Eq, T: Clone, E> Drop for Done<'_, K, T, E> {
    fn drop(&mut self) {
        let mut slots = self.flights.slots();
        let Some(slot) = slots.get_mut(self.key) else {
            return;
        };
        let Slot::Running(current) = slot else {
            return;
        };
        if !Arc::ptr_eq(current, self.flight) {
            return;
        }
        match (self.flight.get(), self.flights.keep) {
            (Some(Ok(value)), Some(ttl)) => {
                *slot = Slot::Kept {
                    value: value.clone(),
                    until: Instant::now() + ttl,
                };
            }
            (Some(_), _) => {
                slots.remove(self.key);
            }
            // Unfinished: forgotten when no other caller waits on it (the map and this caller
            // hold the only references; new ones are only taken under the lock held here).
            (None, _) if Arc::strong_count(self.flight) == 2 => {
                slots.remove(self.key);
            }
            (None, _) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures_util::future::{join_all, pending};
    use futures_util::poll;
    use tokio::sync::oneshot;

    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct Failed(u32);

    /// The deadline of a test that would otherwise hang on a regression.
    const DEADLINE: Duration = Duration::from_secs(10);

    impl<K, T, E> SingleFlight<K, T, E> {
        fn slot_count(&self) -> usize {
            self.slots().len()
        }
    }

    #[tokio::test]
    async fn concurrent_identical_loads_make_one_call() {
        let flights = SingleFlight::<&str, Arc<String>, Failed>::new();
        let calls = AtomicUsize::new(0);
        let (release, released) = oneshot::channel::<()>();
        let released = tokio::sync::Mutex::new(Some(released));
        let callers = (0..20).map(|_| {
            flights.run("k", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                // Held open until every caller has joined.
                let gate = released.lock().await.take().expect("one load only");
                gate.await.unwrap();
                Ok(Arc::new("v".to_owned()))
            })
        });
        let (results, ()) = tokio::join!(join_all(callers), async {
            // join! polled every caller once before this: all of them are in the flight.
            tokio::task::yield_now().await;
            release.send(()).unwrap();
        });
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(
            results
                .iter()
                .all(|result| result.as_deref().map(String::as_str) == Ok("v"))
        );
        // Done: nothing is kept, the next caller loads again.
        assert_eq!(flights.slot_count(), 0);
        let again = flights
            .run("k", || async { Ok(Arc::new("w".to_owned())) })
            .await;
        assert_eq!(again.unwrap().as_str(), "w");
    }

    #[tokio::test]
    async fn a_forgotten_key_loads_afresh() {
        let flights = SingleFlight::<&str, u32, Failed>::keeping_for(Duration::from_secs(3600));
        assert_eq!(flights.run("k", || async { Ok(1) }).await, Ok(1));
        assert_eq!(flights.run("k", || async { Ok(2) }).await, Ok(1), "kept");
        flights.forget(&"k");
        assert_eq!(flights.run("k", || async { Ok(3) }).await, Ok(3));
    }

    #[tokio::test]
    async fn different_keys_do_not_block_each_other() {
        let flights = SingleFlight::<&str, u32, Failed>::new();
        let mut stuck = std::pin::pin!(flights.run("a", pending));
        assert!(poll!(&mut stuck).is_pending());
        let other = tokio::time::timeout(DEADLINE, flights.run("b", || async { Ok(2) })).await;
        assert_eq!(other.expect("key b waited for key a"), Ok(2));
        assert!(poll!(&mut stuck).is_pending());
    }

    #[tokio::test]
    async fn an_error_reaches_every_waiter_and_is_not_kept() {
        for flights in [
            SingleFlight::<&str, u32, Failed>::new(),
            SingleFlight::keeping_for(Duration::from_secs(3600)),
        ] {
            let calls = AtomicUsize::new(0);
            let callers = (0..5).map(|_| {
                flights.run("k", || async {
                    calls.fetch_add(1, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                    Err(Failed(7))
                })
            });
            let results = join_all(callers).await;
            assert_eq!(calls.load(Ordering::SeqCst), 1);
            assert!(results.iter().all(|result| *result == Err(Failed(7))));
            assert_eq!(flights.slot_count(), 0);
            assert_eq!(flights.run("k", || async { Ok(1) }).await, Ok(1));
        }
    }

    #[tokio::test]
    async fn a_dropped_leader_hands_the_load_to_a_waiter() {
        let flights = SingleFlight::<&str, u32, Failed>::new();
        let led = AtomicUsize::new(0);
        let mut leader = Box::pin(flights.run("k", || {
            led.fetch_add(1, Ordering::SeqCst);
            pending()
        }));
        assert!(poll!(&mut leader).is_pending());
        let mut waiter = std::pin::pin!(flights.run("k", || async { Ok(2) }));
        assert!(
            poll!(&mut waiter).is_pending(),
            "the waiter joins the leader's flight"
        );
        // The leader's client disconnects: the waiter still gets a result, from its own load.
        drop(leader);
        let result = tokio::time::timeout(DEADLINE, waiter).await;
        assert_eq!(result.expect("the waiter was left waiting"), Ok(2));
        assert_eq!(led.load(Ordering::SeqCst), 1);
        assert_eq!(flights.slot_count(), 0);
    }

    #[tokio::test]
    async fn a_flight_everyone_left_is_forgotten() {
        let flights = SingleFlight::<&str, u32, Failed>::new();
        for _ in 0..2 {
            let mut caller = Box::pin(flights.run("k", pending));
            assert!(poll!(&mut caller).is_pending());
        }
        assert_eq!(flights.slot_count(), 0);
        assert_eq!(flights.run("k", || async { Ok(3) }).await, Ok(3));
    }

    #[tokio::test]
    async fn a_value_is_kept_for_its_time_only_in_keeping_mode() {
        let calls = AtomicUsize::new(0);
        let load = || async { Ok::<_, Failed>(calls.fetch_add(1, Ordering::SeqCst)) };
        let kept = SingleFlight::<(), usize, Failed>::keeping_for(Duration::from_secs(3600));
        assert_eq!(kept.run((), load).await, Ok(0));
        assert_eq!(kept.run((), load).await, Ok(0));
        let expired = SingleFlight::<(), usize, Failed>::keeping_for(Duration::ZERO);
        assert_eq!(expired.run((), load).await, Ok(1));
        assert_eq!(expired.run((), load).await, Ok(2));
        assert_eq!(
            expired.slot_count(),
            1,
            "the expired value, until the next flight"
        );
        let plain = SingleFlight::<(), usize, Failed>::new();
        assert_eq!(plain.run((), load).await, Ok(3));
        assert_eq!(plain.run((), load).await, Ok(4));
    }
}
