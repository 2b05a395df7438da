//! What the MAVS test files share: the shared data folder, load options, messages.
#![allow(dead_code, clippy::unwrap_used)] // each test file uses its part; setup failures panic

use passerby_mavs::{Loaded, Options, YprConvention};
use std::path::{Path, PathBuf};

/// `shared/scenes/mavs`, MAVS's data folder.
pub fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/mavs")
}

/// Options reading `data()` with `seed`.
pub fn options(seed: u64) -> Options {
    Options {
        data_dir: Some(data()),
        ypr: YprConvention::Current,
        seed,
        actors: None,
        limits: Default::default(),
    }
}

/// The load's diagnostics, one line each.
pub fn messages(loaded: &Loaded) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .map(|d| d.headline(&loaded.sources))
        .collect()
}

/// Asserts that some message contains `needle`.
pub fn expect(messages: &[String], needle: &str) {
    assert!(
        messages.iter().any(|m| m.contains(needle)),
        "no `{needle}` in {messages:#?}"
    );
}

/// Writes `text` at `root/rel`, making folders.
pub fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
