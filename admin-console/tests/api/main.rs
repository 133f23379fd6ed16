//! Integration tests of the admin-console binary and application.

mod access;
mod aliases;
mod analysis;
mod app;
mod audit;
mod cluster_settings;
mod clusters;
mod config;
mod console;
mod data_streams;
mod faults;
mod front_door;
mod indices_manage;
mod listeners;
mod metrics_external;
mod metrics_internal;
mod node_detail;
mod operations;
mod production;
mod real_clusters;
mod real_prometheus;
mod real_shards;
mod real_tiers;
mod relay;
mod saved_queries;
mod security;
mod shards;
mod snapshots;
mod support;
mod tasks;
mod templates;
mod tls;
mod viewer_set;
mod web_app;

test_support::binary_contract_tests!("admin-console", "/api/live");
