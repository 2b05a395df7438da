//! What dataset makers use: `--noise-scale` / `--noiseless` and `passerby export`, checked
//! with Python's `mcap` + `mcap-ros2-support`, pykitti and numpy (installed from PyPI into
//! virtual environments under the target directory on first use).
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::{passerby, python_script, python_venv, run_script, scratch};

use std::path::{Path, PathBuf};

/// Records 2 s of sensor_rig driving a curve, with `extra` global flags.
fn drive(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    record(dir, name, "1.0,0,0.3", "2", extra)
}

/// Records `seconds` of sensor_rig with the robot's command `twist` (`vx,vy,omega`).
fn record(dir: &Path, name: &str, twist: &str, seconds: &str, extra: &[&str]) -> PathBuf {
    let commands = dir.join("commands.csv");
    std::fs::write(
        &commands,
        format!("time,vehicle,vx,vy,omega\n0,r1,{twist}\n"),
    )
    .unwrap();
    let out = dir.join(name);
    let status = passerby()
        .args(extra)
        .args([
            "run",
            "examples/sensor_rig.world.xml",
            "--duration",
            seconds,
        ])
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

/// Python with pykitti (whose package imports OpenCV) and the MCAP readers.
fn kitti_python() -> PathBuf {
    python_venv(
        "kitti-venv",
        "mcap, mcap_ros2, numpy, pykitti, PIL",
        &[
            "mcap==1.6.0",
            "mcap-ros2-support==0.6.0",
            "numpy==2.4.6",
            "pykitti==0.3.1",
            "opencv-python-headless==5.0.0.93",
            "pillow==13.0.0",
        ],
    )
}

/// `export --format semantickitti --class-map MAP`.
fn export_mapped(recording: &Path, out: &Path, map: &Path) -> std::process::Output {
    let map = map.to_str().unwrap();
    export(
        recording,
        out,
        &["--format", "semantickitti", "--class-map", map],
    )
}

/// Exports `recording` into `out` with `flags`, then runs the check `script` on the recording,
/// the export and `topics` with pykitti's Python.
fn export_and_check(recording: &Path, out: &Path, flags: &[&str], script: &str, topics: &[&str]) {
    let done = export(recording, out, flags);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    let mut args = vec![recording.as_os_str(), out.as_os_str()];
    args.extend(topics.iter().map(std::ffi::OsStr::new));
    run_script(&kitti_python(), script, &args);
}

fn export(recording: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    passerby()
        .arg("export")
        .arg(recording)
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn semantic_kitti_export_loads_in_pykitti_and_matches_the_recording() {
    let dir = scratch("semantickitti");
    let recording = drive(&dir, "drive.mcap", &[]);
    let out = dir.join("kitti");
    export_and_check(
        &recording,
        &out,
        &["--format", "semantickitti"],
        "semantickitti_check.py",
        &["/r1/vlp16_points"],
    );

    // A class map overrides the words; a bad one is refused at its place.
    let map = dir.join("map.json");
    std::fs::write(&map, r#"{"pedestrian": 31}"#).unwrap();
    let other = dir.join("mapped");
    let done = export_mapped(&recording, &other, &map);
    assert!(done.status.success());
    let about = std::fs::read_to_string(other.join("sequences/00/passerby.json")).unwrap();
    assert!(
        about.contains(r#""name":"pedestrian","semantic_kitti_id":31"#),
        "{about}"
    );
    std::fs::write(&map, "{\n  \"pedestrian\": 31,\n  \"wall\": -4\n}").unwrap();
    let refused = export_mapped(&recording, &other, &map);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("`wall`"));
    std::fs::write(&map, "{\n  \"pedestrian\": 31,,\n}").unwrap();
    let refused = export_mapped(&recording, &other, &map);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("map.json:2:"));

    // An unknown lidar names the ones there are.
    let refused = export(
        &recording,
        &other,
        &["--format", "semantickitti", "--sensor", "r1/os1"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("it has r1/vlp16"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    // Damaged recordings: cut anywhere, or bytes flipped, the export fails with a message
    // (or, cut after its last scan, succeeds), never panics.
    let bytes = std::fs::read(&recording).unwrap();
    let damaged = dir.join("damaged.mcap");
    let n = bytes.len();
    let mut cases: Vec<Vec<u8>> = [0, 7, 8, 100, n / 3, n / 2, n - 100, n - 1]
        .iter()
        .map(|&cut| bytes[..cut].to_vec())
        .collect();
    for k in 1..=8 {
        let mut flipped = bytes.clone();
        let at = n * k / 9;
        for b in &mut flipped[at..at + 64] {
            *b ^= 0x5a;
        }
        cases.push(flipped);
    }
    for (i, case) in cases.iter().enumerate() {
        std::fs::write(&damaged, case).unwrap();
        for format in [
            &["--format", "semantickitti"][..],
            &["--format", "kitti", "--sensor", "r1/cam"],
        ] {
            let done = export(&damaged, &dir.join("damaged"), format);
            let code = done.status.code();
            assert!(
                matches!(code, Some(0) | Some(2)),
                "case {i} {format:?}: {code:?} {}",
                String::from_utf8_lossy(&done.stderr)
            );
            if code == Some(2) {
                assert!(String::from_utf8_lossy(&done.stderr).contains("damaged.mcap"));
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kitti_export_matches_the_recording_per_the_devkit() {
    let dir = scratch("kitti");
    // Turning on the spot, the camera sweeps past the walking person.
    let recording = record(&dir, "spin.mcap", "0.3,0,1.2", "4", &[]);
    let out = dir.join("kitti");
    let flags = [
        "--format", "kitti", "--sensor", "r1/cam", "--lidar", "r1/vlp16",
    ];
    let topics = ["/r1/cam", "/r1/vlp16_points"];
    export_and_check(&recording, &out, &flags, "kitti_check.py", &topics);
    // Several cameras: the export asks which.
    let refused = export(&recording, &dir.join("which"), &["--format", "kitti"]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("r1/cam") && stderr.contains("r1/rgbd_rgb"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
