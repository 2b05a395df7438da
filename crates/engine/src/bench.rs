//! Ray casting timed on a world's own scans: every lidar's and laser's rays from where it
//! stands at the start, cast against the built scene (`passerby bench`).

use passerby_scene::BuiltScene;
use passerby_world::World;
use std::time::Instant;

/// One sensor's scans timed.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanTiming {
    /// `vehicle/sensor` or `world/sensor`.
    pub sensor: String,
    /// Its class (`lidar3d`, `laser`).
    pub class: &'static str,
    /// Rays in one scan.
    pub rays: usize,
    /// Rays that hit something.
    pub hits: usize,
    /// Wall seconds per scan (after one warm-up scan).
    pub seconds_per_scan: f64,
}

/// Casts every scanning sensor's rays `scans` times (after a warm-up) on the current rayon
/// pool; sensors that cast no rays are left out.
pub fn time_scans(world: &World, built: &BuiltScene, scans: u32) -> Vec<ScanTiming> {
    let mut mounted = Vec::new();
    for vehicle in &world.vehicles {
        let world_from_vehicle = vehicle.common.init_pose.to_affine();
        for s in &vehicle.sensors {
            mounted.push((
                format!("{}/{}", vehicle.name, s.name),
                s,
                world_from_vehicle,
            ));
        }
    }
    for s in &world.standalone_sensors {
        mounted.push((format!("world/{}", s.name), s, glam::Affine3A::IDENTITY));
    }
    let scans = scans.max(1);
    let mut out = Vec::new();
    for (name, sensor, world_from_parent) in mounted {
        let world_from_sensor = world_from_parent * sensor.pose.to_affine();
        let rays = passerby_sensors::scan_rays(sensor, &world_from_sensor);
        if rays.is_empty() {
            continue;
        }
        let mut hits = vec![None; rays.len()];
        built.scene.closest_batch(&rays, &mut hits);
        let t = Instant::now();
        for _ in 0..scans {
            built.scene.closest_batch(&rays, &mut hits);
        }
        out.push(ScanTiming {
            sensor: name,
            class: sensor.class_name(),
            rays: rays.len(),
            hits: hits.iter().filter(|h| h.is_some()).count(),
            seconds_per_scan: t.elapsed().as_secs_f64() / f64::from(scans),
        });
    }
    out
}
