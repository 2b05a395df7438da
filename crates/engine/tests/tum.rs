//! Ground-truth trajectories as TUM files: a line per step for each vehicle and each sensor it
//! carries, the sensor's the vehicle's pose composed with its mount.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_engine::{Engine, InputOptions, load_world, model_library};
use std::path::Path;

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Each line of a TUM file as its eight numbers.
fn read(path: &Path) -> Vec<[f64; 8]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Vec<f64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            v.try_into().unwrap()
        })
        .collect()
}

#[test]
fn vehicles_and_their_sensors_leave_tum_trajectories() {
    let dir = tempfile::tempdir().unwrap();
    let world = load_world(
        &root().join("examples/sensor_rig.world.xml"),
        &InputOptions::default(),
    )
    .value
    .unwrap();
    let cache = root().join("../shared/assets/mvsim-models");
    let mut engine = Engine::build(world, &mut model_library(Some(cache), false), 3).unwrap();
    engine.tum_to(dir.path()).unwrap();
    engine.set_command("r1", [1.0, 0.0, 0.5]).unwrap();
    while engine.time() < 1.0 - 1e-9 {
        engine.step().unwrap();
    }
    let steps = engine.sim().steps() as usize;
    let last = engine.sim().vehicles()[0].pose;
    engine.finish().unwrap();

    let body = read(&dir.path().join("r1.tum"));
    assert_eq!(body.len(), steps);
    let end = body.last().unwrap();
    assert_eq!(end[0], engine.time());
    assert_eq!([end[1], end[2], end[3]], [last.x, last.y, last.z]);
    // The 2D laser sits 0.2 m ahead and 0.3 m up: its track is the body's, moved along the
    // heading; the VLP-16 0.45 m up. Quaternions are unit and w last (yaw = 2 atan2(z, w) on
    // flat ground).
    let scan = read(&dir.path().join("r1_scan.tum"));
    let vlp16 = read(&dir.path().join("r1_vlp16.tum"));
    assert_eq!((scan.len(), vlp16.len()), (steps, steps));
    for ((b, s), l) in body.iter().zip(&scan).zip(&vlp16) {
        let yaw = 2.0 * b[6].atan2(b[7]);
        assert!((s[1] - b[1] - 0.2 * yaw.cos()).abs() < 1e-3, "{b:?} {s:?}");
        assert!((s[2] - b[2] - 0.2 * yaw.sin()).abs() < 1e-3, "{b:?} {s:?}");
        assert!((s[3] - b[3] - 0.3).abs() < 1e-3 && (l[3] - b[3] - 0.45).abs() < 1e-3);
        let norm = (b[4] * b[4] + b[5] * b[5] + b[6] * b[6] + b[7] * b[7]).sqrt();
        assert!((norm - 1.0).abs() < 1e-9);
    }
    // It turned: the last heading is well away from the first.
    let turned = 2.0 * end[6].atan2(end[7]) - 2.0 * body[0][6].atan2(body[0][7]);
    assert!(turned > 0.3, "{turned}");
}
