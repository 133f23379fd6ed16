//! The fuzz targets' kept inputs as tests (`test_support::fuzz::replay`): every seed and every
//! input that once found a defect goes through the same entry point and oracle the fuzzer uses.

use authproxy::fuzzing;
use test_support::fuzz::replay;

#[test]
fn config_authproxy() {
    replay("config_authproxy", fuzzing::config);
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
