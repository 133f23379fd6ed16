//! A value computed at most once per interval, however many callers ask: callers that arrive
//! while it is being computed wait for that computation and share its result. `/_health` uses it
//! so that anonymous requests cannot fan out to Redis, the identity provider and the cluster.

use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Reused<T> {
    ttl: Duration,
    /// The last value and when its computation started.
    last: tokio::sync::Mutex<Option<(Instant, Arc<T>)>>,
}

impl<T> Reused<T> {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            last: tokio::sync::Mutex::new(None),
        }
    }

    /// The last value when its computation started less than `ttl` ago or after this call
    /// arrived (it waited for that computation); else a new one from `compute`, which callers
    /// arriving meanwhile wait for and share.
    pub async fn get_with<F, Fut>(&self, compute: F) -> Arc<T>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        let arrived = Instant::now();
        let mut last = self.last.lock().await;
        if let Some((started, value)) = last.as_ref()
            && (*started >= arrived || started.elapsed() < self.ttl)
        {
            return value.clone();
        }
        let started = Instant::now();
        let value = Arc::new(compute().await);
        *last = Some((started, value.clone()));
        value
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn concurrent_and_later_callers_share_one_computation_per_interval() {
        let reused = Reused::new(Duration::from_secs(3600));
        let counter = AtomicUsize::new(0);
        let runs = &counter;
        let compute = move || async move {
            tokio::task::yield_now().await;
            runs.fetch_add(1, Ordering::SeqCst)
        };
        let values =
            futures_util::future::join_all((0..50).map(|_| reused.get_with(compute))).await;
        for _ in 0..50 {
            assert_eq!(*reused.get_with(compute).await, 0);
        }
        assert!(values.iter().all(|value| **value == 0));
        assert_eq!(counter.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn without_reuse_each_later_caller_computes_again() {
        let reused = Reused::new(Duration::ZERO);
        let counter = AtomicUsize::new(0);
        let runs = &counter;
        let compute = move || async move { runs.fetch_add(1, Ordering::SeqCst) };
        assert_eq!(*reused.get_with(compute).await, 0);
        assert_eq!(*reused.get_with(compute).await, 1);
    }
}
