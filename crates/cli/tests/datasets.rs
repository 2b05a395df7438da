//! What dataset makers use: `--noise-scale` / `--noiseless`, checked with Python's `mcap` +
//! `mcap-ros2-support` (installed from PyPI into a virtual environment under the target
//! directory on first use).
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::{passerby, python_script};

use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Records 2 s of sensor_rig driving a curve, with `extra` global flags.
fn drive(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let commands = dir.join("commands.csv");
    std::fs::write(&commands, "time,vehicle,vx,vy,omega\n0,r1,1.0,0,0.3\n").unwrap();
    let out = dir.join(name);
    let status = passerby()
        .args(extra)
        .args(["run", "examples/sensor_rig.world.xml", "--duration", "2"])
        .arg("--commands")
        .arg(&commands)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    out
}

#[test]
fn noise_scale_multiplies_every_noise_and_changes_nothing_else() {
    let dir = scratch("noise");
    let k0 = drive(&dir, "k0.mcap", &["--noise-scale", "0"]);
    let noiseless = drive(&dir, "noiseless.mcap", &["--noiseless"]);
    assert!(std::fs::read(&k0).unwrap() == std::fs::read(&noiseless).unwrap());
    std::fs::remove_file(&noiseless).unwrap();
    let k1 = drive(&dir, "k1.mcap", &[]);
    let k2 = drive(&dir, "k2.mcap", &["--noise-scale", "2"]);
    python_script(
        "noise_check.py",
        &[k0.as_os_str(), k1.as_os_str(), k2.as_os_str()],
    );
    // Refused before anything runs.
    for bad in ["-1", "nan", "inf", "x"] {
        let out = passerby()
            .arg(format!("--noise-scale={bad}"))
            .args(["check", "examples/sensor_rig.world.xml"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--noise-scale"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
