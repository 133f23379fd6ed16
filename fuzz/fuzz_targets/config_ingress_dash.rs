#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use service_fuzz::config_oracle::{INGRESS_DASH_TEMPLATES, load};
    load::<ingress_dash::Settings>("INGRESS_DASH", INGRESS_DASH_TEMPLATES, data)
});
