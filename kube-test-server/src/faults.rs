//! Fault injection, set by tests at any time: 403 per namespace or at cluster scope, a burst
//! of 503 answers, added latency, and request counters.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use actix_web::HttpResponse;

use crate::wire;

#[derive(Debug, Default)]
pub struct Faults {
    forbidden_namespaces: Mutex<HashSet<String>>,
    cluster_scope_forbidden: AtomicBool,
    unavailable_remaining: AtomicU64,
    latency_ms: AtomicU64,
    pub(crate) list_requests: AtomicU64,
    pub(crate) watch_requests: AtomicU64,
}

impl Faults {
    /// Lists, watches and gets of ingresses in `namespace` answer 403 (RBAC denies them).
    pub fn forbid_namespace(&self, namespace: &str) {
        self.lock().insert(namespace.to_owned());
    }

    pub fn allow_namespace(&self, namespace: &str) {
        self.lock().remove(namespace);
    }

    /// Cluster-wide lists and watches (all namespaces, and namespaces themselves) answer 403, as
    /// for a namespace-scoped service account.
    pub fn forbid_cluster_scope(&self, forbidden: bool) {
        self.cluster_scope_forbidden
            .store(forbidden, Ordering::SeqCst);
    }

    /// The next `count` API requests answer 503 ServiceUnavailable.
    pub fn fail_next(&self, count: u64) {
        self.unavailable_remaining.store(count, Ordering::SeqCst);
    }

    /// Every API request waits this long before it is answered.
    pub fn set_latency(&self, latency: Duration) {
        self.latency_ms
            .store(latency.as_millis() as u64, Ordering::SeqCst);
    }

    pub(crate) fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms.load(Ordering::SeqCst))
    }

    pub(crate) fn is_namespace_forbidden(&self, namespace: &str) -> bool {
        self.lock().contains(namespace)
    }

    pub(crate) fn is_cluster_scope_forbidden(&self) -> bool {
        self.cluster_scope_forbidden.load(Ordering::SeqCst)
    }

    /// The answer of an injected fault, if one applies now: latency and 503 bursts apply to
    /// every resource request.
    pub(crate) async fn injected(&self) -> Option<HttpResponse> {
        let latency = self.latency();
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        self.take_unavailable()
            .then(|| wire::status_response(wire::unavailable()))
    }

    /// Takes one 503 from the burst, if any is left.
    pub(crate) fn take_unavailable(&self) -> bool {
        self.unavailable_remaining
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.forbidden_namespaces
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
