//! Sensors: what each sensor class measures and how, from the simulation's state and the
//! ray-casting scene of the same instant.
//!
//! Owns: scan geometry (beam elevations and column azimuths of `lidar3d`, the fan of `laser`),
//! ordering conventions (MVSim's: lidar columns from +180° downwards, rings ascending from the
//! lowest beam; laser rays counter-clockwise from −fov/2), timing within a step, noise (each
//! sensor's own seeded generator), and the observations handed to sinks. Must not touch: how
//! objects move, scene building, recording formats.
//!
//! Modules: `lidar.rs` (rotating or flash sweeps), `laser.rs` (3D or MVSim's 2D mode over
//! `flat.rs` footprints and occupancy grids), `imu.rs`, `gnss.rs`, `camera.rs` with its
//! `lens.rs` (projection, distortion, pixel order), `raster.rs` (primary visibility by
//! rasterising), `shading.rs`, `boxes.rs` (actors' 2D boxes), `rgbd.rs`, seeded noise
//! (`noise.rs`), short parallel passes (`tasks.rs`), when each sensor measures (`schedule.rs`),
//! all of a world's sensors (`rig.rs`).

pub mod boxes;
pub mod camera;
pub mod flat;
pub mod gnss;
pub mod imu;
pub mod laser;
pub mod lens;
pub mod lidar;
pub mod noise;
pub mod raster;
pub mod rgbd;
mod rig;
pub mod schedule;
mod shading;
pub mod tasks;
mod unit;

pub use rig::{Observation, ReachPlan, Rig};

use glam::{Affine3A, Vec3A};
use passerby_raycast::Ray;
use passerby_scene::BuiltScene;
use passerby_world::{Sensor, SensorKind};
use rayon::prelude::*;

/// Unit directions of one scan in the sensor frame, in scan order (a lidar's column-major,
/// rings ascending, beams that skip a column left out), with their range gates `(min, max)`;
/// `None` for sensors that cast no rays.
pub fn scan_directions(sensor: &Sensor) -> Option<(Vec<Vec3A>, f32, f32)> {
    match &sensor.kind {
        SensorKind::Lidar3d(l) => {
            let grid = lidar::beam_grid(l);
            let dirs = grid.firing().map(|i| grid.dirs[i]).collect();
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

/// The rays of one scan placed in the world by `world_from_sensor`, in the order the sensor
/// casts them (a lidar's in packet tiles, [`lidar::packet_order`]).
pub fn scan_rays(sensor: &Sensor, world_from_sensor: &Affine3A) -> Vec<Ray> {
    let (dirs, min, max) = match &sensor.kind {
        SensorKind::Lidar3d(l) => {
            let grid = lidar::beam_grid(l);
            let order = lidar::packet_order(grid.columns, grid.rings, grid.steps.0, grid.steps.1);
            let dirs: Vec<Vec3A> = order
                .into_iter()
                .filter(|&i| grid.fires(i))
                .map(|i| grid.dirs[i])
                .collect();
            (dirs, l.min_range as f32, l.max_range as f32)
        }
        _ => match scan_directions(sensor) {
            Some(scan) => scan,
            None => return Vec::new(),
        },
    };
    let origin = world_from_sensor.translation;
    dirs.iter()
        .filter_map(|&d| Ray::new(origin, world_from_sensor.transform_vector3a(d), min, max).ok())
        .collect()
}

/// The scene of one instant as sensors see it: geometry plus what each part of it is.
#[derive(Clone, Copy)]
pub struct SceneView<'a> {
    /// The committed scene and its objects.
    pub built: &'a BuiltScene,
}

/// What a beam hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// Distance along the (unit) beam, metres.
    pub t: f32,
    /// Unit geometric normal, world frame.
    pub normal: Vec3A,
    /// Instance id of the object.
    pub instance: u32,
    /// Class id of the object.
    pub label: u16,
    /// Where on the scene's geometry: instance index, triangle, barycentric `(u, v)` (for
    /// [`SceneView::colour`]).
    pub surface: (u32, u32, [f32; 2]),
}

/// Whether a cast makes its targets' normals (a lidar without intensities reads none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normals {
    /// Unit world normals.
    Made,
    /// Zero normals, at less cost.
    Skipped,
}

/// How far past an ignored hit a beam continues (metres).
const PASS_THROUGH: f32 = 1e-4;

impl SceneView<'_> {
    /// Casts unit directions from `origin` up to `max_range`; hits on the object named
    /// `ignore` (the sensor's own vehicle) are passed through. The result does not depend on
    /// the thread count.
    pub fn cast(
        &self,
        origin: Vec3A,
        dirs: &[Vec3A],
        max_range: f32,
        ignore: Option<&str>,
    ) -> Vec<Option<Target>> {
        self.cast_between(origin, dirs, 0.0, max_range, ignore)
    }

    /// As [`SceneView::cast`], seeing only what lies between `t_min` and `t_max` along each
    /// direction (a camera's clip range when the directions have unit depth).
    pub fn cast_between(
        &self,
        origin: Vec3A,
        dirs: &[Vec3A],
        t_min: f32,
        t_max: f32,
        ignore: Option<&str>,
    ) -> Vec<Option<Target>> {
        let mut out = vec![None; dirs.len()];
        // About four tasks per thread, whole packets of eight each; how rays are grouped does
        // not change any answer.
        let per_task = dirs.len().div_ceil(4 * rayon::current_num_threads());
        let chunk = per_task.next_multiple_of(8).clamp(64, 256);
        out.par_chunks_mut(chunk)
            .zip(dirs.par_chunks(chunk))
            .for_each(|(o, d)| self.cast_run(origin, d, (t_min, t_max), ignore, o));
        out
    }

    /// As [`SceneView::cast_between`] on this thread, into `out`: for runs of neighbouring
    /// directions that are already a parallel task's share.
    pub fn cast_run(
        &self,
        origin: Vec3A,
        dirs: &[Vec3A],
        range: (f32, f32),
        ignore: Option<&str>,
        out: &mut [Option<Target>],
    ) {
        self.cast_run_with(origin, dirs, range, (ignore, Normals::Made), out);
    }

    /// [`SceneView::cast_run`], with each target's normal made or not (then it is zero).
    pub fn cast_run_with(
        &self,
        origin: Vec3A,
        dirs: &[Vec3A],
        (t_min, t_max): (f32, f32),
        (ignore, normals): (Option<&str>, Normals),
        out: &mut [Option<Target>],
    ) {
        let rays: Vec<Ray> = dirs
            .iter()
            .map(|d| Ray {
                origin,
                dir: *d,
                t_min,
                t_max,
            })
            .collect();
        let scene = &self.built.scene;
        let mut hits = vec![None; rays.len()];
        match normals {
            Normals::Made => scene.closest_run(&rays, &mut hits),
            Normals::Skipped => scene.closest_run_raw(&rays, &mut hits),
        }
        let skipped = normals == Normals::Skipped;
        for ((slot, hit), ray) in out.iter_mut().zip(&hits).zip(&rays) {
            // Each target is written into its slot field by field: made apart and copied in,
            // its parts were read back in other widths than they were written, and every ray
            // stalled on the store's forwarding.
            let Some(h) = hit else {
                *slot = None;
                continue;
            };
            let Some(object) = self.built.object_of(h.instance, h.triangle) else {
                *slot = None;
                continue;
            };
            if ignore.is_some_and(|ignored| object.name.is(ignored)) {
                *slot = self.target_beyond(h.t, ray, ignore);
                if skipped && let Some(target) = slot {
                    target.normal = Vec3A::ZERO;
                }
                continue;
            }
            *slot = Some(Target {
                t: h.t,
                // (Raw, in the mesh's frame, when skipped: none is given.)
                normal: if skipped {
                    Vec3A::ZERO
                } else {
                    h.normal.into()
                },
                instance: object.id,
                label: object.class_id,
                surface: (h.instance, h.triangle, [h.u, h.v]),
            });
        }
    }

    /// What a ray sees past the ignored body it met at `t` (16 passes at most: it may be hit
    /// on entry and exit).
    #[cold]
    fn target_beyond(&self, mut t: f32, ray: &Ray, ignore: Option<&str>) -> Option<Target> {
        let scene = &self.built.scene;
        for _ in 0..16 {
            let again = Ray {
                t_min: t + PASS_THROUGH,
                ..*ray
            };
            let h = scene.closest(&again)?;
            let object = self.built.object_of(h.instance, h.triangle)?;
            if !ignore.is_some_and(|ignored| object.name.is(ignored)) {
                return Some(Target {
                    t: h.t,
                    normal: h.normal.into(),
                    instance: object.id,
                    label: object.class_id,
                    surface: (h.instance, h.triangle, [h.u, h.v]),
                });
            }
            t = h.t;
        }
        None
    }

    /// What rasterised pixels see, as rays would report it; neighbours mostly share a
    /// triangle, whose object and normal are then looked up once.
    pub fn targets_of<'h>(
        &self,
        hits: impl Iterator<Item = Option<&'h raster::RasterHit>>,
    ) -> Vec<Option<Target>> {
        let mut last: Option<((u32, u32), Option<Target>)> = None;
        hits.map(|hit| {
            let hit = hit?;
            let key = (hit.instance, hit.triangle);
            let target = match last {
                Some((k, target)) if k == key => target,
                _ => {
                    let target = self.target_of(hit);
                    last = Some((key, target));
                    target
                }
            }?;
            Some(Target {
                t: hit.depth,
                surface: (hit.instance, hit.triangle, hit.uv),
                ..target
            })
        })
        .collect()
    }

    /// What a rasterised pixel sees, as a ray would report it.
    pub fn target_of(&self, hit: &raster::RasterHit) -> Option<Target> {
        let object = self.built.object_of(hit.instance, hit.triangle)?;
        let scene = &self.built.scene;
        let inst = scene.instance(hit.instance);
        let mesh = scene.mesh(inst.mesh);
        let tri = mesh.triangles().get(hit.triangle as usize)?;
        let [a, b, c] = tri.map(|k| {
            inst.world_from_mesh()
                .transform_point3a(mesh.vertices()[k as usize])
        });
        Some(Target {
            t: hit.depth,
            normal: (b - a).cross(c - a).normalize_or_zero(),
            instance: object.id,
            label: object.class_id,
            surface: (hit.instance, hit.triangle, hit.uv),
        })
    }

    /// Texture coordinates per metre where a beam hit (0: untextured).
    pub fn texture_scale(&self, target: &Target) -> f32 {
        let (instance, triangle, _) = target.surface;
        self.built.texture_scale(instance, triangle)
    }

    /// Whether each of a run of neighbouring rays is blocked (shadow rays), on this thread.
    pub fn blocked_run(&self, rays: &[Ray], out: &mut [bool]) {
        self.built.scene.any_hit_run(rays, out);
    }
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
