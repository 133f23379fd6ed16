//! Real dependencies for tests, each on a free loopback port, stopped when dropped: Redis,
//! OpenSearch and Elasticsearch nodes, a kube-apiserver, Prometheus, an OpenID provider and nginx
//! as a TLS front with certificates from a private CA.
//!
//! Every server is a child process whose PID is recorded in its [`ChildGuard`]; dropping the
//! guard kills and reaps it, so a failing test never leaves a server behind. Nothing here
//! relies on a server someone else started.

mod auth_front;
pub mod binary;
mod eventually;
pub mod fuzz;
mod gate_front;
mod hosts_front;
pub mod kube_cluster;
pub mod nginx;
mod oidc;
mod otlp;
mod process;
mod search_cluster;
mod servers;
pub mod shutdown;
mod tls;
pub mod wire_types;
pub mod wrk;

pub use auth_front::AuthFront;
pub use eventually::{eventually, eventually_with};
pub use gate_front::GateFront;
pub use hosts_front::{FrontAnswer, HostsFront};
pub use oidc::OidcProvider;
pub use otlp::{OtlpReceiver, ReceivedSpan};
pub use process::{ChildGuard, TempDir, free_port, http_get, repo_root, wait_until};
pub use search_cluster::{
    Distribution, SearchCluster, SearchNode, SearchNodes, Security, TIERED_ROLES, pinned,
};
pub use servers::{Prometheus, RedisServer};
pub use tls::{TestCertificates, TlsFront};

/// Re-exported for the macros, so a test crate need not depend on it.
pub use serde_json;

/// An HTTP client for tests. reqwest is built without a bundled crypto provider (the workspace
/// uses ring only), so this installs ring first, once per process.
pub fn http_client() -> reqwest::Client {
    install_crypto_provider();
    reqwest::Client::new()
}

/// Installs ring as the process's rustls provider; later calls do nothing.
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Asserts the security headers service-kit puts on every page, asset and API answer of the
/// web-facing services (Content-Security-Policy, nosniff, no framing, no referrer); `what`
/// names the answer in the failure message.
pub fn assert_security_headers(response: &reqwest::Response, what: &str) {
    let headers = response.headers();
    let policy = headers
        .get("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy"))
        .to_str()
        .unwrap();
    for directive in [
        "default-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'self'",
    ] {
        assert!(policy.contains(directive), "{what}: {policy}");
    }
    assert_eq!(headers["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(headers["x-frame-options"], "DENY", "{what}");
    assert_eq!(headers["referrer-policy"], "no-referrer", "{what}");
}
