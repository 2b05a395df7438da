//! Helpers shared by the sensor tests.

use passerby_world::World;
use std::path::Path;

/// A world from the body of an `<mvsim_world>` (relative paths from this crate's folder); panics
/// with the diagnostics when it does not load.
pub fn load(xml: &str) -> World {
    let loaded = passerby_mvsim::load_world_str(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("inline.world.xml"),
        format!("<mvsim_world version=\"1.0\">{xml}</mvsim_world>"),
        &passerby_mvsim::LoadOptions::default(),
    );
    let messages: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| d.headline(&loaded.sources))
        .collect();
    loaded.value.unwrap_or_else(|| panic!("{messages:#?}"))
}
