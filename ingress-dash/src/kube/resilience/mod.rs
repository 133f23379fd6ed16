//! Calls to the Kubernetes API with retries (backon) for transient errors and the circuit
//! breaker: 3 attempts in total, waits 1 s then 2 s (multiplier 2, capped at 30 s); permanent
//! errors return at once; an open breaker fails fast without a call.
//!
//! Lists go through [`Resilience::call`]. The watchers (`hub::watch_loop`) make their list and
//! watch calls one [`Resilience::attempt`] at a time, under the same breaker, and pace their
//! retries with the same schedule ([`Resilience::retries`]).

pub mod breaker;

use std::sync::Arc;
use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder, Retryable};

pub use breaker::{BreakerSettings, BreakerState, CircuitBreaker, FailsafeBreaker};

use crate::config::ResilienceSettings;
use crate::kube::client::{ErrorClass, KubeError};

#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    #[error(transparent)]
    Kube(#[from] KubeError),
    #[error("The Kubernetes API is failing; calls are paused for {}s (circuit breaker open).", .retry_after.as_secs())]
    CircuitOpen { retry_after: Duration },
}

impl CallError {
    pub fn code(&self) -> &'static str {
        match self {
            CallError::Kube(error) => error.code(),
            CallError::CircuitOpen { .. } => "circuit_open",
        }
    }
}

/// Retry policy and breaker shared by every call to the Kubernetes API, lists and watches.
#[derive(Clone)]
pub struct Resilience {
    retry: ExponentialBuilder,
    pub breaker: Arc<dyn CircuitBreaker>,
    /// The breaker's open period: how long a watcher that used up its attempts waits when the
    /// breaker itself has not opened.
    open_for: Duration,
}

impl Resilience {
    pub fn new(settings: &ResilienceSettings) -> Self {
        let breaker = FailsafeBreaker::new(BreakerSettings {
            failure_rate: settings.breaker_failure_rate,
            window: settings.breaker_window,
            min_calls: settings.breaker_min_calls,
            open_for: settings.breaker_open_for,
        });
        Self::with_breaker(settings, Arc::new(breaker))
    }

    pub fn with_breaker(settings: &ResilienceSettings, breaker: Arc<dyn CircuitBreaker>) -> Self {
        let retry = ExponentialBuilder::default()
            .with_min_delay(settings.retry_initial_delay)
            .with_max_delay(settings.retry_max_delay)
            .with_factor(settings.retry_multiplier)
            .with_max_times(settings.retry_max_attempts.saturating_sub(1));
        Self {
            retry,
            breaker,
            open_for: settings.breaker_open_for,
        }
    }

    /// The waits before each retry of one failing call (1 s, 2 s, ... capped at 30 s), as many
    /// as the attempts allow: `None` when they are used up.
    pub fn retries(&self) -> ExponentialBackoff {
        self.retry.build()
    }

    /// The same waits without an end, to pace what is no error (a watch the server ends at
    /// once, again and again).
    pub fn pacing(&self) -> ExponentialBackoff {
        self.retry.without_max_times().build()
    }

    /// How long a watcher that used up its attempts waits before it tries again: until the
    /// breaker lets a probe through when it is open, else the breaker's open period, so that
    /// a failing API sees one attempt per period from each watcher, never a tight loop.
    pub fn after_failed_attempts(&self) -> Duration {
        match self.breaker.state() {
            BreakerState::Open => self.breaker.retry_after(),
            BreakerState::Closed | BreakerState::HalfOpen => self.open_for,
        }
    }

    /// One try of `call` under the breaker, without retry: the breaker counts a transient
    /// error as a failure and any answer of the API (a permanent error or 410 included) as a
    /// success. An open breaker answers [`CallError::CircuitOpen`] without calling.
    pub async fn attempt<T, Fut>(&self, call: impl FnOnce() -> Fut) -> Result<T, CallError>
    where
        Fut: Future<Output = Result<T, KubeError>>,
    {
        self.admit()?.finish(call()).await
    }

    /// The breaker's permission for one call.
    fn admit(&self) -> Result<Admitted<'_>, CallError> {
        if self.breaker.try_acquire() {
            Ok(Admitted(Some(self.breaker.as_ref())))
        } else {
            Err(CallError::CircuitOpen {
                retry_after: self.breaker.retry_after(),
            })
        }
    }

    /// Runs `call` under the breaker, retrying transient failures with backoff.
    pub async fn call<T, F, Fut>(&self, what: &'static str, call: F) -> Result<T, CallError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, KubeError>>,
    {
        let mut call = call;
        let attempt = || {
            // The call is made only when the breaker admits it.
            let admitted = self.admit().map(|admitted| (admitted, call()));
            async move {
                let (admitted, future) = admitted?;
                admitted.finish(future).await
            }
        };
        attempt
            .retry(self.retry)
            .sleep(tokio::time::sleep)
            .when(|error: &CallError| {
                matches!(error, CallError::Kube(kube) if kube.class() == ErrorClass::Transient)
            })
            .notify(|error, wait| {
                metrics::counter!("ingress_dash_kubernetes_retries_total", "call" => what).increment(1);
                tracing::info!(%error, ?wait, call = what, "retrying a Kubernetes API call");
            })
            .await
    }
}

/// An admitted call: recorded once, or released when dropped unanswered (its watcher stopped),
/// so that it does not keep a half-open breaker's single probe taken.
struct Admitted<'a>(Option<&'a dyn CircuitBreaker>);

impl Admitted<'_> {
    /// Awaits the call and records its outcome: a transient error is a failure of the API,
    /// any answer (a permanent error such as 403 or 404, or 410) a success.
    async fn finish<T>(
        mut self,
        call: impl Future<Output = Result<T, KubeError>>,
    ) -> Result<T, CallError> {
        let result = call.await;
        let api_failed = matches!(&result, Err(error) if error.class() == ErrorClass::Transient);
        if let Some(breaker) = self.0.take() {
            breaker.record(!api_failed);
        }
        result.map_err(CallError::Kube)
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        if let Some(breaker) = self.0.take() {
            breaker.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::kube::client::message_cause;

    fn resilience() -> Resilience {
        Resilience::new(&ResilienceSettings::default())
    }

    /// Runs `answers` in order and records when each attempt started (paused tokio time).
    async fn attempts(
        answers: Vec<Result<u32, KubeError>>,
    ) -> (Result<u32, CallError>, Vec<Duration>) {
        let start = tokio::time::Instant::now();
        let answers = Mutex::new(answers.into_iter());
        let times = Mutex::new(Vec::new());
        let result = resilience()
            .call("test", || {
                times.lock().unwrap().push(start.elapsed());
                let answer = answers.lock().unwrap().next().expect("an answer is left");
                async move { answer }
            })
            .await;
        (result, times.into_inner().unwrap())
    }

    fn unavailable() -> KubeError {
        KubeError::Api {
            status: 503,
            reason: "ServiceUnavailable".into(),
            message: "down".into(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn transient_errors_are_retried_after_1s_then_2s() {
        let (result, times) = attempts(vec![
            Err(unavailable()),
            Err(KubeError::Unreachable(message_cause(
                "connection reset by peer",
            ))),
            Ok(7),
        ])
        .await;
        assert_eq!(result.unwrap(), 7);
        assert_eq!(
            times,
            [
                Duration::ZERO,
                Duration::from_secs(1),
                Duration::from_secs(3)
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn three_attempts_in_total_then_the_last_error() {
        let (result, times) = attempts(vec![
            Err(unavailable()),
            Err(KubeError::Timeout(Duration::from_secs(10))),
            Err(unavailable()),
        ])
        .await;
        assert_eq!(times.len(), 3);
        assert_eq!(result.unwrap_err().code(), "kubernetes_error");
    }

    #[tokio::test(start_paused = true)]
    async fn permanent_errors_are_not_retried() {
        for status in [401, 403, 404, 422] {
            let (result, times) = attempts(vec![Err(KubeError::Api {
                status,
                reason: "x".into(),
                message: "y".into(),
            })])
            .await;
            assert_eq!(times, [Duration::ZERO], "status {status}");
            assert!(
                matches!(result, Err(CallError::Kube(KubeError::Api { status: s, .. })) if s == status)
            );
        }
    }

    #[test]
    fn classes_follow_the_specification() {
        let api = |status| KubeError::Api {
            status,
            reason: String::new(),
            message: String::new(),
        };
        for status in [429, 500, 502, 503, 504] {
            assert_eq!(api(status).class(), ErrorClass::Transient);
        }
        for status in [400, 401, 403, 404, 410] {
            assert_eq!(api(status).class(), ErrorClass::Permanent);
        }
        assert_eq!(
            KubeError::Unreachable(message_cause("refused")).class(),
            ErrorClass::Transient
        );
        assert_eq!(
            KubeError::Timeout(Duration::ZERO).class(),
            ErrorClass::Transient
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_single_attempt_counts_transient_errors_only_and_releases_an_abandoned_probe() {
        let resilience = resilience();
        let forbidden = KubeError::Api {
            status: 403,
            reason: "Forbidden".into(),
            message: "no".into(),
        };
        for _ in 0..10 {
            let result = resilience
                .attempt(|| async { Err::<(), _>(forbidden.clone()) })
                .await;
            assert!(matches!(result, Err(CallError::Kube(_))));
        }
        assert_eq!(
            resilience.breaker.state(),
            BreakerState::Closed,
            "a 403 is an answer"
        );
        for _ in 0..10 {
            let _ = resilience
                .attempt(|| async { Err::<(), _>(unavailable()) })
                .await;
        }
        assert_eq!(resilience.breaker.state(), BreakerState::Open);
        // A call abandoned before it answered records nothing.
        let breaker = FailsafeBreaker::new(BreakerSettings {
            failure_rate: 0.5,
            window: Duration::from_secs(30),
            min_calls: 1,
            open_for: Duration::ZERO,
        });
        breaker.try_acquire();
        breaker.record(false);
        let resilience =
            Resilience::with_breaker(&ResilienceSettings::default(), Arc::new(breaker));
        let pending = resilience.attempt(std::future::pending::<Result<(), KubeError>>);
        let abandoned = tokio::time::timeout(Duration::from_secs(1), pending).await;
        assert!(abandoned.is_err());
        let probe = resilience
            .attempt(|| async { Ok::<_, KubeError>(()) })
            .await;
        assert!(probe.is_ok(), "the abandoned probe was released: {probe:?}");
        assert_eq!(resilience.breaker.state(), BreakerState::Closed);
    }

    #[tokio::test(start_paused = true)]
    async fn an_open_breaker_fails_fast_without_calling() {
        let resilience = resilience();
        for _ in 0..4 {
            let _ = resilience
                .call("test", || async { Err::<(), _>(unavailable()) })
                .await;
        }
        assert_eq!(resilience.breaker.state(), BreakerState::Open);
        let mut called = false;
        let result = resilience
            .call("test", || {
                called = true;
                async { Ok(()) }
            })
            .await;
        assert!(!called);
        assert!(matches!(result, Err(CallError::CircuitOpen { .. })));
    }
}
