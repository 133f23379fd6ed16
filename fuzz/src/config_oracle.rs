//! The configuration oracles of service-kit (`service_kit::config::oracle`), and where
//! admin-console's equivalence check puts a value (ingress-dash and authproxy keep theirs in
//! their own `fuzzing` module). admin-console's `tests/fuzz_regressions.rs` includes
//! this file.
#![allow(unused_imports)]

pub use service_kit::config::oracle::{expand, load};

/// Where the equivalence check puts a value (`@`) for admin-console: strings, numbers,
/// durations, lists and enums, at the top and inside list items.
pub const ADMIN_CONSOLE_TEMPLATES: &[&str] = &[
    "server:\n  host: @\n",
    "server:\n  port: @\n",
    "server:\n  shutdown_timeout: @\n",
    "clusters:\n  - id: a\n    name: A\n    url: @\n",
    "clusters:\n  - id: @\n    name: A\n    url: http://127.0.0.1:9200\n",
    "clusters:\n  - id: a\n    name: A\n    url: http://127.0.0.1:9200\n    auth:\n      username: u\n      password: @\n",
    "clusters:\n  - id: a\n    name: A\n    url: http://127.0.0.1:9200\n    metrics_source: @\n",
    "internal_history:\n  retention: @\n",
];
