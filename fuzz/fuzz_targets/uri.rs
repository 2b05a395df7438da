//! Any text as a model URI, resolved against a small archive: an error or a file inside the
//! cache or the private extraction folder, never a crash or a path outside them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use passerby_assets::Resolver;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let uri = String::from_utf8_lossy(data);
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/assets/mvsim-models");
    let mut resolver = Resolver::new(cache);
    resolver.extract_dir = std::env::temp_dir().join("passerby-fuzz-uri");
    if let Ok(path) = resolver.resolve(&uri, Path::new("/nonexistent-base")) {
        assert!(path.is_file());
    }
});
