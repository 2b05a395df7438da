//! The bodies of the fuzz targets, shared by the libFuzzer binaries (`../fuzz_targets/`) and
//! the corpus replay that `cargo test` runs on the stable toolchain
//! (`crates/cli/tests/fuzz_corpus.rs`). Each `run` must return normally for any input: errors
//! are fine, panics, hangs and unbounded memory are not.

#![allow(dead_code)] // each binary uses one target

pub mod mavs_aux;
pub mod mavs_scene;
pub mod sensors_record;

use std::path::{Path, PathBuf};

/// A scratch folder of `target` for this process (a fuzzer runs one input at a time per
/// process); the corpus replay removes it when done.
pub fn scratch(target: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("passerby-fuzz-{}", std::process::id()))
        .join(target);
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Writes `bytes` at `dir/rel`, making folders.
pub fn put(dir: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let _ = std::fs::write(&path, bytes);
    path
}

/// A one-triangle OBJ mesh.
pub const TRIANGLE_OBJ: &[u8] = b"v 0 0 0\nv 1 0 0\nv 0 1 1\nf 1 2 3\n";

/// Renders every diagnostic (rendering must not panic either).
pub fn render_all(diagnostics: &[passerby_diag::Diagnostic], sources: &passerby_diag::SourceMap) {
    for d in diagnostics {
        let _ = d.render(sources);
    }
}
