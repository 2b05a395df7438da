//! See `../targets/mavs_aux.rs`.
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::mavs_aux::run(data));
