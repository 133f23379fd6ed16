#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| authproxy::fuzzing::basic(data));
