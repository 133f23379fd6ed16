//! The fuzz targets' kept inputs as tests (`test_support::fuzz::replay`): every seed and every
//! input that once found a defect goes through the same entry point and oracle the fuzzer uses.

use service_kit::config::oracle;
use test_support::fuzz::replay;

#[test]
fn config_expand() {
    replay("config_expand", oracle::expand);
}
