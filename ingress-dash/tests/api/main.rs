//! Integration tests of the ingress-dash binary and application.

mod access;
mod app;
mod backends;
mod certificates;
mod client_address;
mod cold_start;
mod faults;
mod health;
mod helm_rbac;
mod hosts;
mod listeners;
mod migration;
mod objects;
mod properties;
mod real_kube;
mod resilience;
mod route_diagnosis;
mod secret_logs;
mod security_headers;
mod shutdown;
mod situations;
mod snapshot;
mod static_files;
mod stream;
mod watcher_limits;

test_support::binary_contract_tests!("ingress-dash", "/api/live");
