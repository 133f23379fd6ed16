//! The fuzz targets' kept inputs as tests (`test_support::fuzz::replay`): every seed and every
//! input that once found a defect goes through the same entry point and oracle the fuzzer uses.

use test_support::fuzz::replay;

#[allow(dead_code)]
#[path = "../../fuzz/src/config_oracle.rs"]
mod config_oracle;

use ingress_dash::fuzzing;

#[test]
fn config_ingress_dash() {
    replay("config_ingress_dash", |data| {
        config_oracle::load::<ingress_dash::Settings>(
            "INGRESS_DASH",
            config_oracle::INGRESS_DASH_TEMPLATES,
            data,
        )
    });
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
