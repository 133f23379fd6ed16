//! The fuzz targets' kept inputs as tests (`test_support::fuzz::replay`): every seed and every
//! input that once found a defect goes through the same entry point and oracle the fuzzer uses.

use test_support::fuzz::replay;

#[allow(dead_code)]
#[path = "../../fuzz/src/config_oracle.rs"]
mod config_oracle;

#[test]
fn config_expand() {
    replay("config_expand", config_oracle::expand);
}
