#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ingress_dash::fuzzing::config(data));
