//! Sensors: what each sensor class measures and how. Today: the ray patterns of range
//! sensors, in the sensor's frame and placed in the world.
//!
//! Owns: scan geometry (beam elevations and column azimuths of `lidar3d`, the fan of `laser`),
//! ordering conventions (MVSim's: lidar columns from +180° downwards, rings ascending from the
//! lowest beam; laser rays counter-clockwise from −fov/2). Must not touch: scene building,
//! recording.

use glam::{Affine3A, Vec3A};
use passerby_raycast::Ray;
pub use passerby_scene::affine_from_pose;
use passerby_world::{Sensor, SensorKind};

/// Unit directions of one scan in the sensor frame, in scan order, with their range gates
/// `(min, max)`; `None` for sensors that cast no rays.
pub fn scan_directions(sensor: &Sensor) -> Option<(Vec<Vec3A>, f32, f32)> {
    match &sensor.kind {
        SensorKind::Lidar3d(l) => {
            let elevations = l.beam_elevations();
            let n = l.horz_nrays as usize;
            let mut dirs = Vec::with_capacity(n * elevations.len());
            for i in 0..n {
                let azimuth = std::f64::consts::PI - i as f64 * std::f64::consts::TAU / n as f64;
                for &el in &elevations {
                    dirs.push(Vec3A::new(
                        (el.cos() * azimuth.cos()) as f32,
                        (el.cos() * azimuth.sin()) as f32,
                        el.sin() as f32,
                    ));
                }
            }
            Some((dirs, l.min_range as f32, l.max_range as f32))
        }
        SensorKind::Laser(l) => {
            let n = l.nrays as usize;
            let step = if n > 1 { l.fov / (n - 1) as f64 } else { 0.0 };
            let dirs = (0..n)
                .map(|i| {
                    let a = -l.fov / 2.0 + i as f64 * step;
                    Vec3A::new(a.cos() as f32, a.sin() as f32, 0.0)
                })
                .collect();
            Some((dirs, 0.0, l.max_range as f32))
        }
        _ => None,
    }
}

/// The rays of one scan placed in the world by `world_from_sensor`.
pub fn scan_rays(sensor: &Sensor, world_from_sensor: &Affine3A) -> Vec<Ray> {
    let Some((dirs, min, max)) = scan_directions(sensor) else {
        return Vec::new();
    };
    let origin = world_from_sensor.translation;
    dirs.iter()
        .filter_map(|d| Ray::new(origin, world_from_sensor.transform_vector3a(*d), min, max).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use passerby_world::{Lidar3dParams, Pose3, ScanMode};

    #[test]
    fn lidar_columns_start_at_plus_180_and_rings_ascend() {
        let sensor = Sensor {
            name: "l".into(),
            pose: Pose3::default(),
            period: 0.1,
            publish: None,
            visuals: vec![],
            kind: SensorKind::Lidar3d(Lidar3dParams {
                vert_nrays: 3,
                vert_fov: 20f64.to_radians(),
                horz_nrays: 4,
                scan_mode: ScanMode::Rotating,
                ..Lidar3dParams::default()
            }),
        };
        let (dirs, _, _) = scan_directions(&sensor).unwrap();
        assert_eq!(dirs.len(), 12);
        assert!(
            (dirs[0]
                - Vec3A::new(
                    -(10f32.to_radians().cos()),
                    0.0,
                    -(10f32.to_radians().sin())
                ))
            .length()
                < 1e-6
        );
        assert!(
            dirs[0].z < dirs[1].z && dirs[1].z < dirs[2].z,
            "rings ascend"
        );
        assert!(
            (dirs[3 * 2 + 1] - Vec3A::X).length() < 1e-6,
            "column 2 of 4 looks along +X"
        );
        assert!(dirs[3 + 1].y > 0.99, "column 1 is at +90°");
    }
}
