//! See `../targets/sensors_record.rs`.
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::sensors_record::run(data));
