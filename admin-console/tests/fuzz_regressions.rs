//! The fuzz targets' kept inputs as tests (`test_support::fuzz::replay`): every seed and every
//! input that once found a defect goes through the same entry point and oracle the fuzzer uses.

use test_support::fuzz::replay;

use admin_console::fuzzing;

#[test]
fn config_admin_console() {
    replay("config_admin_console", fuzzing::config);
}

#[test]
fn relay_path() {
    replay("relay_path", fuzzing::relay_path);
}

#[test]
fn time_range() {
    replay("time_range", fuzzing::time_range);
}
