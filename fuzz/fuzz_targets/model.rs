//! Any bytes as a model file of each format: an error or a model, never a crash. The first
//! byte picks the format; the models must also pose without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use passerby_assets::{Pose, Poser, Wrap, load_model_bytes};
use std::path::Path;

static QUIET_HOOK: std::sync::Once = std::sync::Once::new();

fuzz_target!(|data: &[u8]| {
    // The importers run third-party parsers behind catch_unwind and turn their panics into
    // errors; libFuzzer's hook would abort on those caught panics too. A panic that escapes
    // the loader still fails the run (libfuzzer-sys checks the closure's result).
    QUIET_HOOK.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Some((&kind, bytes)) = data.split_first() else { return };
    let name = ["m.stl", "m.obj", "m.dae", "m.glb", "m.gltf", "m.fbx"][kind as usize % 6];
    if let Ok(model) = load_model_bytes(Path::new("/nonexistent").join(name).as_path(), bytes) {
        let mut pose = Pose::rest(&model);
        if let Some(clip) = model.clips.first() {
            pose.sample(&model, clip, 0.37, Wrap::Loop);
        }
        let _ = Poser::new().posed_vertices(&model, &pose);
    }
});
