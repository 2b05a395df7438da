//! See `../targets/mavs_scene.rs`.
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::mavs_scene::run(data));
