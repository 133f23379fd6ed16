//! Fault injection, set by a run at any time: a burst of 5xx answers (503 unless told), added latency, watches answered with an ERROR 410 event,
//! watch connections cut in the middle of an event line, and request counters.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use actix_web::HttpResponse;

use crate::wire;

#[derive(Debug, Default)]
pub struct Faults {
    unavailable_remaining: AtomicU64,
    /// The status of the burst's answers; 0 means 503.
    unavailable_status: AtomicU64,
    expire_watches_remaining: AtomicU64,
    cut_events_remaining: AtomicU64,
    latency_ms: AtomicU64,
    pub(crate) list_requests: AtomicU64,
    pub(crate) watch_requests: AtomicU64,
}

impl Faults {
    /// The next `count` API requests answer 503 ServiceUnavailable.
    pub fn fail_next(&self, count: u64) {
        self.fail_next_with(count, 503);
    }

    /// The next `count` API requests answer `code` (500, 502, 503 or 504) with the `Status`
    /// body the API server sends for it.
    pub fn fail_next_with(&self, count: u64, code: u16) {
        self.unavailable_status
            .store(u64::from(code), Ordering::SeqCst);
        self.unavailable_remaining.store(count, Ordering::SeqCst);
    }

    /// The next `count` watch requests are answered as the API server answers a watch from a
    /// compacted resourceVersion: 200, one `ERROR` event carrying a 410 `Expired` Status, end.
    pub fn expire_next_watches(&self, count: u64) {
        self.expire_watches_remaining.store(count, Ordering::SeqCst);
    }

    /// The next `count` change events sent on open watches are cut in the middle of their JSON
    /// line and the connection is reset, as when a load balancer drops it mid-stream: the
    /// client gets half an event and must watch again from the last version it saw.
    pub fn cut_next_events(&self, count: u64) {
        self.cut_events_remaining.store(count, Ordering::SeqCst);
    }

    /// Every API request waits this long before it is answered.
    pub fn set_latency(&self, latency: Duration) {
        self.latency_ms
            .store(latency.as_millis() as u64, Ordering::SeqCst);
    }

    pub(crate) fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms.load(Ordering::SeqCst))
    }

    /// The answer of an injected fault, if one applies now: latency and 503 bursts apply to
    /// every resource request.
    pub(crate) async fn injected(&self) -> Option<HttpResponse> {
        let latency = self.latency();
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        self.take_unavailable().then(|| {
            let code = self.unavailable_status.load(Ordering::SeqCst) as u16;
            wire::status_response(server_error(code))
        })
    }

    /// Takes one forced 410 from [`Self::expire_next_watches`], if any is left.
    pub(crate) fn take_expired_watch(&self) -> bool {
        take_one(&self.expire_watches_remaining)
    }

    /// Takes one cut from [`Self::cut_next_events`], if any is left.
    pub(crate) fn take_cut_event(&self) -> bool {
        take_one(&self.cut_events_remaining)
    }

    /// Takes one 503 from the burst, if any is left.
    pub(crate) fn take_unavailable(&self) -> bool {
        take_one(&self.unavailable_remaining)
    }
}

/// The `Status` the API server sends with a 5xx `code` (503 for 0).
fn server_error(code: u16) -> serde_json::Value {
    match code {
        0 | 503 => wire::unavailable(),
        500 => wire::status(
            500,
            "InternalError",
            "Internal error occurred: injected by kube-test-server",
            None,
        ),
        504 => wire::status(
            504,
            "Timeout",
            "Timeout: request did not complete within the allowed duration",
            None,
        ),
        other => wire::status(
            other,
            "InternalError",
            "an error on the server (\"injected\") has prevented the request from succeeding",
            None,
        ),
    }
}

fn take_one(remaining: &AtomicU64) -> bool {
    remaining
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
            left.checked_sub(1)
        })
        .is_ok()
}
