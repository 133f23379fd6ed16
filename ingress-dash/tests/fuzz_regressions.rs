//! The fuzz targets' kept inputs as tests (`test_support::fuzz::replay`): every seed and every
//! input that once found a defect goes through the same entry point and oracle the fuzzer uses.

use ingress_dash::fuzzing;
use test_support::fuzz::replay;

#[test]
fn config_ingress_dash() {
    replay("config_ingress_dash", fuzzing::config);
}

#[test]
fn namespaces() {
    replay("namespaces", fuzzing::namespaces);
}

#[test]
fn labels() {
    replay("labels", fuzzing::labels);
}

#[test]
fn last_event_id() {
    replay("last_event_id", fuzzing::last_event_id);
}
