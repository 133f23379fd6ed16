//! Integration tests of the admin-console binary and application.

mod app;

test_support::binary_contract_tests!("admin-console", "/api/live");
