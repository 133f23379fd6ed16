//! Integration tests of the authproxy binary and application.

mod app;
mod forward_auth;
mod health;
mod logs;
mod malformed_input;
mod redis;
mod standalone;
mod support;

test_support::binary_contract_tests!("authproxy", "/healthz");
