//! A recording and fault proxy before real Elasticsearch/OpenSearch nodes, for tests.
//!
//! [`Proxy`] records every request and sends it on unchanged to a real node (HTTPS with the
//! node's CA and basic auth when it is secured), answers 503 on demand, or refuses one user's
//! requests with 401: the admin-console and authproxy suites that run against real clusters
//! assert what the client under test sent from its record, and see how it takes a cluster that
//! does not answer. The front for osmem-server that emulated nodes, tasks, snapshots and
//! allocation is gone: every suite and the browser tests run against real nodes.

mod forward;
mod proxy;
mod record;
mod wire;

use std::sync::{Mutex, MutexGuard};

pub use proxy::{Proxy, Upstream};
pub use record::Recorded;

/// Locks a mutex, going on after a panic elsewhere (the state stays usable for the test).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// rustls's `ring` provider as the process default, once (reqwest is built without one).
pub(crate) fn install_crypto_provider() {
    static CRYPTO: std::sync::Once = std::sync::Once::new();
    CRYPTO.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
