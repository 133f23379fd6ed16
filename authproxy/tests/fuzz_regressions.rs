//! The fuzz targets' kept inputs as tests (`test_support::fuzz::replay`): every seed and every
//! input that once found a defect goes through the same entry point and oracle the fuzzer uses.

use test_support::fuzz::replay;

#[allow(dead_code)]
#[path = "../../fuzz/src/config_oracle.rs"]
mod config_oracle;

use authproxy::fuzzing;

#[test]
fn config_authproxy() {
    replay("config_authproxy", |data| {
        config_oracle::load::<authproxy::Settings>(
            "AUTHPROXY",
            config_oracle::AUTHPROXY_TEMPLATES,
            data,
        )
    });
}

#[test]
fn basic() {
    replay("basic", fuzzing::basic);
}

#[test]
fn cookies() {
    replay("cookies", fuzzing::cookies);
}

#[test]
fn redirect() {
    replay("redirect", fuzzing::redirect);
}
