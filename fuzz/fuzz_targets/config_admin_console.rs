#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| admin_console::fuzzing::config(data));
