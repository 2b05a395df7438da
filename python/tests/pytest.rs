//! The Python package's own tests (`python/tests/test_*.py`, pytest), run by `cargo test`:
//! a virtual environment with maturin, NumPy, pytest, the `mcap` readers and Ray from PyPI, the
//! package built into it with `maturin develop`, then pytest.

use std::path::Path;
use std::process::Command;

fn run(what: &str, command: &mut Command) {
    let status = command.status().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(status.success(), "{what} failed: {status}");
}

#[test]
fn the_python_package_passes_its_pytest_suite() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-package-venv");
    let bin = venv.join("bin");
    let ready = bin.join("python").exists()
        && Command::new(bin.join("python"))
            .args(["-c", "import pytest, numpy, mcap_ros2, ray"])
            .status()
            .is_ok_and(|s| s.success());
    if !ready {
        run(
            "python3 -m venv",
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
        );
        run(
            "pip install",
            Command::new(bin.join("python")).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "maturin>=1.7,<2",
                "numpy",
                "pytest",
                "mcap",
                "mcap-ros2-support",
                // passerby.sweep(engine="ray") against a real local cluster.
                "ray==2.60.0",
            ]),
        );
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    run(
        "maturin develop",
        Command::new(bin.join("maturin"))
            .args(["develop", "--quiet", "--manifest-path"])
            .arg(package.join("Cargo.toml"))
            .env("VIRTUAL_ENV", &venv)
            .env("PATH", &path),
    );
    run(
        "pytest",
        Command::new(bin.join("python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(package.join("tests"))
            .env("PATH", &path)
            // The CLI, for `passerby sweep --engine ray` (built by `cargo test --workspace`).
            .env("PASSERBY_BIN", passerby_binary()),
    );
}

/// The `passerby` binary of this build (beside the tests' temporary folder), which
/// `cargo test --workspace` builds; alone, run `cargo build -p passerby` first.
fn passerby_binary() -> std::path::PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let bin = tmp.with_file_name("debug").join("passerby");
    assert!(
        bin.exists(),
        "{} is missing: cargo build -p passerby (cargo test --workspace builds it)",
        bin.display()
    );
    bin
}
