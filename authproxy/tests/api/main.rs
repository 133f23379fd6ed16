//! Integration tests of the authproxy binary and application.

mod app;
mod attacks;
mod authorization;
mod bearer_tokens;
mod explain;
mod faults;
mod forward_auth;
mod health;
mod host_rules;
mod id_tokens;
mod identity_headers;
mod key_refetch;
mod listeners;
mod logs;
mod malformed_input;
mod nginx_front;
mod oidc;
mod personal_tokens;
mod real_security;
mod redis;
mod request_id;
mod request_rules;
mod security;
mod sign_in_pages;
mod sign_in_state;
mod standalone;
mod support;
mod tls;
mod tracing;

test_support::binary_contract_tests!("authproxy", "/healthz");
