//! Integration tests of the ingress-dash binary and application.

mod app;

test_support::binary_contract_tests!("ingress-dash", "/api/live");
