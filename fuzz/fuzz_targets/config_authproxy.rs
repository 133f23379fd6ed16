#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use service_fuzz::config_oracle::{AUTHPROXY_TEMPLATES, load};
    load::<authproxy::Settings>("AUTHPROXY", AUTHPROXY_TEMPLATES, data)
});
