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

/// The project's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `passerby --quiet` in the project's root, offline: tests never reach the network (remote
/// models not in the cache get placeholders).
pub fn passerby() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_passerby"));
    c.current_dir(repo())
        .env("PASSERBY_OFFLINE", "1")
        .arg("--quiet");
    c
}

/// Python with the readers we check our outputs with, in a virtual environment made (or
/// completed) on first use; once per test binary, since tests run in parallel.
pub fn readers_python() -> PathBuf {
    static READERS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    READERS
        .get_or_init(|| {
            python_venv(
                "readers-venv",
                "mcap, mcap_ros2, rosbags, pypcd4, numpy",
                &[
                    "mcap==1.6.0",
                    "mcap-ros2-support==0.6.0",
                    "rosbags==0.11.9",
                    "pypcd4==1.5.1",
                ],
            )
        })
        .clone()
}

/// Runs `crates/cli/tests/SCRIPT` with the readers' Python; its output, once it succeeded.
pub fn python_script(script: &str, args: &[&std::ffi::OsStr]) -> String {
    run_script(&readers_python(), script, args)
}

/// Runs `crates/cli/tests/SCRIPT` with `python`; its output, once it succeeded.
pub fn run_script(python: &Path, script: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(python)
        .arg(repo().join("crates/cli/tests").join(script))
        .args(args)
        .output()
        .expect("the readers' python runs");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// An empty folder `name` under the tests' temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}
