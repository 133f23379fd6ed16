#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| service_fuzz::config_oracle::expand(data));
