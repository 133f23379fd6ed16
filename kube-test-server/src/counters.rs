//! Request counters, for the benchmark (how many lists and watches a dashboard asks for).

use std::sync::atomic::AtomicU64;

#[derive(Debug, Default)]
pub struct Counters {
    pub(crate) list_requests: AtomicU64,
    pub(crate) watch_requests: AtomicU64,
}
