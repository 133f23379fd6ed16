//! The circuit breaker in front of the Kubernetes API, behind our own small trait.
//!
//! failsafe's state machine does the closed → open → half-open moves. Its own time-window
//! policy is an EWMA, so the policy here is a plain sliding window ("at least half of the calls
//! in the last 30 s failed, with a minimum number of calls"), and since failsafe lets every call
//! through while half-open, this wrapper admits a single probe. Time comes from failsafe's clock,
//! which tests freeze and advance.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use failsafe::{FailurePolicy, Instrument, StateMachine, clock};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    Closed,
    Open,
    HalfOpen,
}

impl BreakerState {
    pub fn as_str(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half_open",
        }
    }

    fn from_u8(value: u8) -> Self {
        match value {
            1 => BreakerState::Open,
            2 => BreakerState::HalfOpen,
            _ => BreakerState::Closed,
        }
    }
}

/// What callers need from a circuit breaker.
pub trait CircuitBreaker: Send + Sync {
    /// Whether a call may go ahead now; each `true` must be followed by one [`Self::record`].
    fn try_acquire(&self) -> bool;
    /// The outcome of an admitted call: `false` for a failure of the API itself.
    fn record(&self, success: bool);
    /// An admitted call that was abandoned before it answered: nothing is recorded, and a
    /// half-open breaker lets another probe through.
    fn release(&self);
    fn state(&self) -> BreakerState;
    /// How long until a probe is let through, when open.
    fn retry_after(&self) -> Duration;
}

#[derive(Debug, Clone)]
pub struct BreakerSettings {
    pub failure_rate: f64,
    pub window: Duration,
    pub min_calls: usize,
    pub open_for: Duration,
}

/// Sliding-window failure rate over the last `window`.
#[derive(Debug, Clone)]
struct SlidingWindow {
    settings: BreakerSettings,
    calls: VecDeque<(Instant, bool)>,
}

impl SlidingWindow {
    fn push(&mut self, success: bool) {
        let now = clock::now();
        self.calls.push_back((now, success));
        while let Some((at, _)) = self.calls.front() {
            if now.duration_since(*at) > self.settings.window {
                self.calls.pop_front();
            } else {
                break;
            }
        }
    }
}

impl FailurePolicy for SlidingWindow {
    fn record_success(&mut self) {
        self.push(true);
    }

    fn mark_dead_on_failure(&mut self) -> Option<Duration> {
        self.push(false);
        let calls = self.calls.len();
        let failures = self.calls.iter().filter(|(_, success)| !success).count();
        let tripped = calls >= self.settings.min_calls
            && failures as f64 >= self.settings.failure_rate * calls as f64;
        tripped.then_some(self.settings.open_for)
    }

    fn revived(&mut self) {
        self.calls.clear();
    }
}

/// Mirrors failsafe's state into an atomic (for health and `/_metrics`).
#[derive(Debug, Clone, Default)]
struct StateMirror(Arc<AtomicU8>);

impl StateMirror {
    fn set(&self, state: BreakerState) {
        self.0.store(state as u8, Ordering::SeqCst);
        metrics::gauge!("ingress_dash_circuit_breaker_state").set(match state {
            BreakerState::Closed => 0.0,
            BreakerState::Open => 1.0,
            BreakerState::HalfOpen => 2.0,
        });
    }
}

impl Instrument for StateMirror {
    fn on_call_rejected(&self) {
        metrics::counter!("ingress_dash_circuit_breaker_rejections_total").increment(1);
    }

    fn on_open(&self) {
        tracing::warn!("circuit breaker opened: the Kubernetes API is failing");
        self.set(BreakerState::Open);
    }

    fn on_half_open(&self) {
        self.set(BreakerState::HalfOpen);
    }

    fn on_closed(&self) {
        self.set(BreakerState::Closed);
    }
}

pub struct FailsafeBreaker {
    machine: StateMachine<SlidingWindow, StateMirror>,
    state: StateMirror,
    probe_in_flight: AtomicBool,
    opened_at: std::sync::Mutex<Option<Instant>>,
    open_for: Duration,
}

impl FailsafeBreaker {
    pub fn new(settings: BreakerSettings) -> Self {
        let state = StateMirror::default();
        let open_for = settings.open_for;
        let policy = SlidingWindow {
            settings,
            calls: VecDeque::new(),
        };
        Self {
            machine: StateMachine::new(policy, state.clone()),
            state,
            probe_in_flight: AtomicBool::new(false),
            opened_at: std::sync::Mutex::new(None),
            open_for,
        }
    }
}

impl CircuitBreaker for FailsafeBreaker {
    fn try_acquire(&self) -> bool {
        if !self.machine.is_call_permitted() {
            return false;
        }
        if self.state() == BreakerState::HalfOpen {
            // One probe at a time; the others keep failing fast until it has answered.
            return !self.probe_in_flight.swap(true, Ordering::SeqCst);
        }
        true
    }

    fn record(&self, success: bool) {
        let was = self.state();
        if success {
            self.machine.on_success();
        } else {
            self.machine.on_error();
        }
        if was == BreakerState::HalfOpen {
            self.probe_in_flight.store(false, Ordering::SeqCst);
        }
        if self.state() == BreakerState::Open && was != BreakerState::Open {
            *self.opened_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(clock::now());
        }
    }

    fn release(&self) {
        self.probe_in_flight.store(false, Ordering::SeqCst);
    }

    fn state(&self) -> BreakerState {
        BreakerState::from_u8(self.state.0.load(Ordering::SeqCst))
    }

    fn retry_after(&self) -> Duration {
        let opened = *self.opened_at.lock().unwrap_or_else(|e| e.into_inner());
        match (self.state(), opened) {
            (BreakerState::Open, Some(at)) => self
                .open_for
                .saturating_sub(clock::now().duration_since(at))
                .max(Duration::from_secs(1)),
            _ => Duration::from_secs(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker() -> FailsafeBreaker {
        FailsafeBreaker::new(BreakerSettings {
            failure_rate: 0.5,
            window: Duration::from_secs(30),
            min_calls: 10,
            open_for: Duration::from_secs(60),
        })
    }

    fn call(breaker: &FailsafeBreaker, success: bool) -> bool {
        let admitted = breaker.try_acquire();
        if admitted {
            breaker.record(success);
        }
        admitted
    }

    #[test]
    fn opens_at_half_failures_with_enough_calls_then_probes_after_60s() {
        clock::freeze(|time| {
            let breaker = breaker();
            for _ in 0..5 {
                assert!(call(&breaker, true));
            }
            for _ in 0..4 {
                assert!(call(&breaker, false));
            }
            assert_eq!(breaker.state(), BreakerState::Closed, "4 of 9 failed");
            assert!(call(&breaker, false));
            assert_eq!(breaker.state(), BreakerState::Open, "5 of 10 failed");
            assert!(!breaker.try_acquire(), "open rejects fast");
            time.advance(Duration::from_secs(59));
            assert!(!breaker.try_acquire());
            assert_eq!(breaker.retry_after(), Duration::from_secs(1));
            time.advance(Duration::from_secs(2));
            assert!(breaker.try_acquire(), "one probe after 60 s");
            assert_eq!(breaker.state(), BreakerState::HalfOpen);
            assert!(!breaker.try_acquire(), "a single probe at a time");
            breaker.record(true);
            assert_eq!(breaker.state(), BreakerState::Closed);
            assert!(call(&breaker, true));
        });
    }

    #[test]
    fn a_failed_probe_reopens_for_another_60s() {
        clock::freeze(|time| {
            let breaker = breaker();
            for _ in 0..10 {
                call(&breaker, false);
            }
            assert_eq!(breaker.state(), BreakerState::Open);
            time.advance(Duration::from_secs(61));
            assert!(breaker.try_acquire());
            breaker.record(false);
            assert_eq!(breaker.state(), BreakerState::Open);
            time.advance(Duration::from_secs(30));
            assert!(!breaker.try_acquire());
            time.advance(Duration::from_secs(31));
            assert!(call(&breaker, true));
            assert_eq!(breaker.state(), BreakerState::Closed);
        });
    }

    #[test]
    fn failures_older_than_the_window_do_not_count() {
        clock::freeze(|time| {
            let breaker = breaker();
            for _ in 0..9 {
                call(&breaker, false);
            }
            time.advance(Duration::from_secs(31));
            for _ in 0..9 {
                call(&breaker, true);
            }
            call(&breaker, false);
            assert_eq!(breaker.state(), BreakerState::Closed);
        });
    }
}
