//! Every upstream MVSim tutorial world simulates (vehicles with their dynamics, contacts,
//! joints, actors) for a second without a panic, and its vehicles stay finite and on the map.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_sim::Simulation;
use std::path::{Path, PathBuf};

#[test]
fn every_tutorial_world_simulates_a_second() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tutorial = dir.join("../../../shared/worlds/mvsim/mvsim_tutorial");
    let opts = passerby_mvsim::LoadOptions {
        mvsim_data: dir.join("../../data/mvsim"),
        ..Default::default()
    };
    let mut worlds: Vec<PathBuf> = std::fs::read_dir(&tutorial)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".world.xml"))
        .collect();
    worlds.sort();
    assert!(worlds.len() >= 15, "{worlds:?}");
    for path in worlds {
        let world = (passerby_mvsim::load_world_file(&path, &opts).value)
            .unwrap_or_else(|| panic!("{} loads", path.display()));
        let mut sim = Simulation::new(&world).unwrap();
        sim.run_until(1.0);
        for v in sim.vehicles() {
            let p = v.pose;
            assert!(
                [p.x, p.y, p.z, p.yaw]
                    .iter()
                    .all(|c| c.is_finite() && c.abs() < 1e4),
                "{}: {} at {p:?}",
                path.display(),
                v.name
            );
        }
    }
}
