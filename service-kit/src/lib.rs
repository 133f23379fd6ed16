//! Plumbing the three services share line for line: the application shell (`app`), the command
//! line, configuration loading with `${NAME}` substitution and full validation, the common
//! settings sections, logs, the Prometheus endpoint and the mapping of each crate's error enum to
//! the common error body. Service behaviour never lives here.

// The settings macros name this crate by path (`::service_kit::...`) inside serde attributes,
// where `$crate` cannot be used; this makes that path resolve here too.
extern crate self as service_kit;

pub mod allowed_hosts;
pub mod app;
#[cfg(feature = "byte-store")]
pub mod byte_store;
pub mod cli;
pub mod client_address;
#[cfg(feature = "outbound")]
pub mod client_tls;
pub mod config;
pub mod http;
pub mod identity;
pub mod logging;
pub mod metrics;
pub mod probe;
#[cfg(feature = "outbound")]
pub mod relay_client;
pub mod same_origin;
pub mod security_headers;
pub mod server;
pub mod settings;
pub mod single_flight;
#[cfg(feature = "otel")]
pub mod telemetry;

/// Makes ring the process's rustls provider (the workspace builds rustls and reqwest without a
/// bundled one, so TLS and every reqwest client need this first). Later calls do nothing.
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only means a provider is already installed, which is what we want.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// What the exported macros expand to; not an API.
#[doc(hidden)]
pub mod __private {
    pub use humantime_serde;
    pub use serde;
}
