#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use service_fuzz::config_oracle::{ADMIN_CONSOLE_TEMPLATES, load};
    load::<admin_console::Settings>("ADMIN_CONSOLE", ADMIN_CONSOLE_TEMPLATES, data)
});
