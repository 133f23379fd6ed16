#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| authproxy::fuzzing::config(data));
