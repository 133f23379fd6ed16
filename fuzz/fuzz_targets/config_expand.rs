#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| service_kit::config::oracle::expand(data));
