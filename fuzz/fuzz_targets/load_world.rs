//! Any bytes given as a world file (beside the shipped definitions, so includes resolve) must
//! load or fail with diagnostics, and every diagnostic must render.
#![no_main]

use libfuzzer_sys::fuzz_target;
use passerby_mvsim::{Environment, LoadOptions, load_world_str};
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let dir = passerby_mvsim::bundled_mvsim_data().join("share/mvsim/definitions");
    let opts = LoadOptions { environment: Environment::Fixed(Default::default()), ..LoadOptions::default() };
    let loaded = load_world_str(&PathBuf::from(dir).join("fuzz.world.xml"), text, &opts);
    for d in &loaded.diagnostics {
        let _ = d.render(&loaded.sources);
    }
});
