//! Helpers shared by the test binaries (each uses some of them).
#![allow(dead_code)]

pub mod live;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Python in the virtual environment `name` (under the tests' temporary folder), made on first
/// use and given `packages` (pinned) unless `import` already works in it.
pub fn python_venv(name: &str, import: &str, packages: &[&str]) -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let python = venv.join("bin/python");
    if !python.exists() {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 is needed to check our outputs with independent readers");
        assert!(made.success(), "python3 -m venv failed");
    }
    let ready = Command::new(&python)
        .args(["-c", &format!("import {import}")])
        .stderr(Stdio::null())
        .status()
        .expect("the virtual environment's python runs");
    if !ready.success() {
        let installed = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet"])
            .args(packages)
            .status()
            .expect("pip runs");
        assert!(installed.success(), "pip install {packages:?} failed");
    }
    python
}
