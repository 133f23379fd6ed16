//! Integration tests of the admin-console binary and application.

mod access;
mod aliases;
mod app;
mod audit;
mod clusters;
mod config;
mod console;
mod faults;
mod indices_manage;
mod metrics_external;
mod metrics_internal;
mod relay;
mod security;
mod support;
mod tls;
mod web_app;

test_support::binary_contract_tests!("admin-console", "/api/live");
