//! Fault injection, set by a run at any time: 403 per namespace, a burst
//! of 5xx answers (503 unless told), added latency, watches answered with an ERROR 410 event,
//! watch connections cut in the middle of an event line, watch requests answered with any error
//! status (403, 401, 404, 429, 5xx) while lists keep working, and request counters.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use actix_web::HttpResponse;

use crate::kind::Kind;
use crate::wire;

#[derive(Debug, Default)]
pub struct Faults {
    forbidden_namespaces: Mutex<HashSet<String>>,
    unavailable_remaining: AtomicU64,
    /// The status of the burst's answers; 0 means 503.
    unavailable_status: AtomicU64,
    expire_watches_remaining: AtomicU64,
    failing_watches_remaining: AtomicU64,
    failing_watches_status: AtomicU64,
    cut_events_remaining: AtomicU64,
    latency_ms: AtomicU64,
    pub(crate) list_requests: AtomicU64,
    pub(crate) watch_requests: AtomicU64,
}

impl Faults {
    /// Every request for a namespaced kind in `namespace` (ingresses, services, secrets, events,
    /// endpoint slices, custom resources) answers 403 (RBAC denies them). One kind alone:
    /// [`crate::Cluster::forbid`].
    pub fn forbid_namespace(&self, namespace: &str) {
        self.lock().insert(namespace.to_owned());
    }

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

    /// The next `count` watch requests (lists are not affected) answer `code` with the `Status`
    /// body the API server sends for it: 401 Unauthorized, 403 Forbidden (RBAC's message), 404
    /// NotFound, 429 TooManyRequests (with `Retry-After: 1`), or a 5xx as
    /// [`Self::fail_next_with`]. The request is counted as a watch request.
    pub fn fail_next_watches(&self, count: u64, code: u16) {
        self.failing_watches_status
            .store(u64::from(code), Ordering::SeqCst);
        self.failing_watches_remaining
            .store(count, Ordering::SeqCst);
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

    pub(crate) fn is_namespace_forbidden(&self, namespace: &str) -> bool {
        self.lock().contains(namespace)
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

    /// The answer of a failure injected by [`Self::fail_next_watches`], if one is left, for a
    /// watch of `kind` in `namespace` (`None`: every namespace).
    pub(crate) fn injected_watch_failure(
        &self,
        kind: Kind,
        namespace: Option<&str>,
    ) -> Option<HttpResponse> {
        if !take_one(&self.failing_watches_remaining) {
            return None;
        }
        let code = self.failing_watches_status.load(Ordering::SeqCst) as u16;
        let body = match code {
            401 => wire::status(401, "Unauthorized", "Unauthorized", None),
            403 => wire::forbidden("watch", kind, namespace),
            // A collection the API server does not serve (an API group that is not installed).
            404 => wire::status(
                404,
                "NotFound",
                "the server could not find the requested resource",
                None,
            ),
            429 => {
                let body = wire::status(
                    429,
                    "TooManyRequests",
                    "Too many requests, please try again later.",
                    Some(serde_json::json!({"retryAfterSeconds": 1})),
                );
                let mut response = wire::status_response(body);
                response.headers_mut().insert(
                    actix_web::http::header::RETRY_AFTER,
                    actix_web::http::header::HeaderValue::from_static("1"),
                );
                return Some(response);
            }
            500.. => server_error(code),
            other => wire::status(other, "BadRequest", "injected by kube-test-server", None),
        };
        Some(wire::status_response(body))
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.forbidden_namespaces
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

#[cfg(test)]
mod tests {
    use actix_web::body::MessageBody;

    use super::*;

    fn body(response: HttpResponse) -> serde_json::Value {
        let bytes = response.into_body().try_into_bytes().unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn the_next_watches_fail_with_the_status_asked_for_then_work() {
        let faults = Faults::default();
        assert!(faults.injected_watch_failure(Kind::Ingress, None).is_none());
        faults.fail_next_watches(2, 403);
        for _ in 0..2 {
            let response = faults
                .injected_watch_failure(Kind::Ingress, Some("team-a"))
                .unwrap();
            assert_eq!(response.status().as_u16(), 403);
            let status = body(response);
            assert_eq!(
                (status["kind"].as_str(), status["code"].as_u64()),
                (Some("Status"), Some(403))
            );
            let message = status["message"].as_str().unwrap();
            assert!(
                message.contains("cannot watch resource \"ingresses\""),
                "{message}"
            );
            assert!(message.contains("in the namespace \"team-a\""), "{message}");
        }
        assert!(
            faults
                .injected_watch_failure(Kind::Ingress, Some("team-a"))
                .is_none()
        );
        faults.fail_next_watches(1, 429);
        let response = faults.injected_watch_failure(Kind::Ingress, None).unwrap();
        assert_eq!(response.status().as_u16(), 429);
        assert_eq!(
            response
                .headers()
                .get("retry-after")
                .unwrap()
                .to_str()
                .unwrap(),
            "1"
        );
        for code in [401, 404, 500, 503] {
            faults.fail_next_watches(1, code);
            let response = faults.injected_watch_failure(Kind::Ingress, None).unwrap();
            assert_eq!(response.status().as_u16(), code);
            assert_eq!(body(response)["code"].as_u64(), Some(u64::from(code)));
        }
    }
}
