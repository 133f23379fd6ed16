//! Integration tests of the authproxy binary and application.

mod app;

test_support::binary_contract_tests!("authproxy", "/healthz");
