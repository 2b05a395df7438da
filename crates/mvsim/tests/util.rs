//! Helpers: load worlds from strings or files with a fixed environment, render diagnostics.

use passerby_mvsim::{Environment, LoadOptions, Loaded, load_world_file, load_world_str};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Removes `.` and `..` components without touching the disk (as the loader does).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The project root (two levels above this crate).
pub fn project_root() -> PathBuf {
    lexical(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// `../shared` beside the project.
pub fn shared() -> PathBuf {
    lexical(&project_root().join("../shared"))
}

/// Options with a fixed, empty environment (plus `vars`).
pub fn options(vars: &[(&str, &str)]) -> LoadOptions {
    let env: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    LoadOptions {
        environment: Environment::Fixed(env),
        ..LoadOptions::default()
    }
}

/// A fresh temporary directory for one test, removed when dropped (also when the test fails).
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Loads `text` as if it were the file `dir/main.world.xml`.
pub fn load_in(dir: &Path, text: &str) -> Loaded {
    load_world_str(&dir.join("main.world.xml"), text.to_owned(), &options(&[]))
}

/// Loads a world body (wrapped in `<mvsim_world>`) from a virtual file `/virtual/w.xml`.
pub fn load(body: &str) -> Loaded {
    let text = format!("<mvsim_world version=\"1.0\">\n{body}\n</mvsim_world>\n");
    load_world_str(Path::new("/virtual/w.xml"), text, &options(&[]))
}

/// Loads a file with default options and a fixed environment.
pub fn load_file(path: &Path) -> Loaded {
    load_world_file(path, &options(&[]))
}

/// Every diagnostic as a one-line `file:line:col: kind: message`, paths shortened to file names.
pub fn headlines(loaded: &Loaded) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .map(|d| {
            let line = d.headline(&loaded.sources);
            match line.find(':') {
                Some(i) => {
                    let path = Path::new(&line[..i]);
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    format!("{name}{}", &line[i..])
                }
                None => line,
            }
        })
        .collect()
}

/// Asserts that some diagnostic starts with `prefix` (after path shortening).
#[track_caller]
pub fn assert_diag(loaded: &Loaded, prefix: &str) {
    let all = headlines(loaded);
    assert!(
        all.iter().any(|h| h.starts_with(prefix)),
        "no diagnostic starts with\n  {prefix}\nfound:\n  {}",
        all.join("\n  ")
    );
}

/// The world of a load that must succeed.
#[track_caller]
pub fn world(loaded: Loaded) -> passerby_world::World {
    let msgs = headlines(&loaded).join("\n  ");
    loaded
        .value
        .unwrap_or_else(|| panic!("load failed:\n  {msgs}"))
}
