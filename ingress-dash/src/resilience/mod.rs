//! Calls to the Kubernetes API with retries (backon) for transient errors and the circuit
//! breaker: 3 attempts in total, waits 1 s then 2 s (multiplier 2, capped at 30 s); permanent
//! errors return at once; an open breaker fails fast without a call.

pub mod breaker;

use std::sync::Arc;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};

pub use breaker::{BreakerSettings, BreakerState, CircuitBreaker, FailsafeBreaker};

use crate::config::ResilienceSettings;
use crate::kube_api::{ErrorClass, KubeError};

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

/// Retry policy and breaker shared by every list call.
#[derive(Clone)]
pub struct Resilience {
    retry: ExponentialBuilder,
    pub breaker: Arc<dyn CircuitBreaker>,
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
        Self { retry, breaker }
    }

    /// Runs `call` under the breaker, retrying transient failures with backoff.
    pub async fn call<T, F, Fut>(&self, what: &'static str, call: F) -> Result<T, CallError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, KubeError>>,
    {
        let mut call = call;
        let attempt = || {
            let breaker = self.breaker.clone();
            let future = (breaker.try_acquire()).then(&mut call);
            async move {
                let Some(future) = future else {
                    return Err(CallError::CircuitOpen {
                        retry_after: breaker.retry_after(),
                    });
                };
                let result = future.await;
                // A permanent error (403, 404) is an answer: the API itself is up.
                let api_failed =
                    matches!(&result, Err(error) if error.class() == ErrorClass::Transient);
                breaker.record(!api_failed);
                result.map_err(CallError::Kube)
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::kube_api::message_cause;

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
