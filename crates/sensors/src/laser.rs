//! `laser`: a 2D scanner, a fan of `nrays` beams over `fov` counter-clockwise from −fov/2 (MVSim's
//! order), measured all at once when the sensor is due.
//!
//! With `raytrace_3d` the fan is cast in 3D against the full scene (it sees everything, actors'
//! skinned bodies included, at the sensor's height). Without it (MVSim's default, cheap mode) the
//! fan is intersected with the 2D footprints of what stands at the sensor's height: walls, blocks,
//! vehicles and, unlike MVSim, actors' collision circles (see [`crate::flat`]).
//!
//! Noise: each beam's angle is perturbed by `angle_std_noise` before casting, its range by
//! `range_std_noise` after; a beam without a return (or whose noisy range leaves (0, max_range])
//! reads +∞, as ROS's LaserScan expects.

use crate::Observation;
use crate::SceneView;
use crate::flat::FlatWorld;
use crate::noise::SensorRng;
use crate::unit::{Mount, Pass as UnitPass, Reaching, SensorUnit, StepContext};
use glam::{Affine3A, Vec3A};
use passerby_world::LaserParams;
use passerby_world::SensorRef;

/// One scan.
#[derive(Clone, Debug, PartialEq)]
pub struct LaserScan {
    /// The sensor.
    pub sensor: SensorRef,
    /// Simulated seconds.
    pub stamp: f64,
    /// Angle of the first beam, radians (−fov/2).
    pub angle_min: f32,
    /// Angle of the last beam (+fov/2).
    pub angle_max: f32,
    /// Between beams.
    pub angle_increment: f32,
    /// Metres.
    pub range_max: f32,
    /// Per beam, metres; +∞ without a return.
    pub ranges: Vec<f32>,
    /// Per beam, |cos θ| of the incidence (0 without a return).
    pub intensities: Vec<f32>,
    /// Per beam, instance id of what was hit (0: nothing).
    pub instances: Vec<u32>,
    /// Per beam, class id (0: nothing).
    pub labels: Vec<u16>,
}

/// A laser's pattern and state.
#[derive(Clone, Debug)]
pub struct Laser {
    sensor: SensorRef,
    params: LaserParams,
    rng: SensorRng,
}

impl Laser {
    /// A laser.
    pub fn new(sensor: SensorRef, params: &LaserParams, rng: SensorRng) -> Laser {
        Laser {
            sensor,
            params: params.clone(),
            rng,
        }
    }

    /// Metres.
    pub fn max_range(&self) -> f32 {
        self.params.max_range as f32
    }

    /// Whether it sees blocks, vehicles and actors in 2D mode (walls always).
    pub fn bodies_visible(&self) -> bool {
        self.params.bodies_visible
    }

    fn angle(&self, i: u32) -> f64 {
        let n = self.params.nrays.max(1);
        let step = if n > 1 {
            self.params.fov / f64::from(n - 1)
        } else {
            0.0
        };
        -self.params.fov / 2.0 + f64::from(i) * step
    }

    /// Measures a scan at `stamp` from `world_from_sensor`: in the scene with `raytrace_3d`,
    /// else in `flat` (nothing is seen without it).
    pub fn scan(
        &mut self,
        view: &SceneView<'_>,
        flat: Option<&FlatWorld>,
        world_from_sensor: &Affine3A,
        stamp: f64,
    ) -> LaserScan {
        let n = self.params.nrays.max(1);
        let angles: Vec<f64> = (0..n)
            .map(|i| self.angle(i) + self.rng.gaussian(self.params.angle_std_noise))
            .collect();
        let max_range = self.params.max_range as f32;
        let ignore = self
            .params
            .ignore_parent_body
            .then_some(self.sensor.vehicle.as_deref())
            .flatten();
        let dirs: Vec<Vec3A> = angles
            .iter()
            .map(|a| {
                world_from_sensor.transform_vector3a(Vec3A::new(
                    a.cos() as f32,
                    a.sin() as f32,
                    0.0,
                ))
            })
            .collect();
        let targets = if self.params.raytrace_3d {
            view.cast(world_from_sensor.translation, &dirs, max_range, ignore)
        } else if let Some(flat) = flat {
            flat.cast(world_from_sensor.translation, &dirs, max_range, ignore)
        } else {
            vec![None; dirs.len()]
        };
        let mut scan = LaserScan {
            sensor: self.sensor.clone(),
            stamp,
            angle_min: self.angle(0) as f32,
            angle_max: self.angle(n - 1) as f32,
            angle_increment: if n > 1 {
                (self.params.fov / f64::from(n - 1)) as f32
            } else {
                0.0
            },
            range_max: max_range,
            ranges: Vec::with_capacity(n as usize),
            intensities: Vec::with_capacity(n as usize),
            instances: Vec::with_capacity(n as usize),
            labels: Vec::with_capacity(n as usize),
        };
        for (target, dir) in targets.into_iter().zip(&dirs) {
            let noise = self.rng.gaussian(self.params.range_std_noise);
            let hit = target
                .map(|t| (t, f64::from(t.t) + noise))
                .filter(|(_, r)| *r > 0.0 && *r <= self.params.max_range);
            match hit {
                Some((t, range)) => {
                    scan.ranges.push(range as f32);
                    scan.intensities.push(t.normal.dot(*dir).abs().min(1.0));
                    scan.instances.push(t.instance);
                    scan.labels.push(t.label);
                }
                None => {
                    scan.ranges.push(f32::INFINITY);
                    scan.intensities.push(0.0);
                    scan.instances.push(0);
                    scan.labels.push(0);
                }
            }
        }
        scan
    }
}

impl SensorUnit for Laser {
    fn pass(&self) -> UnitPass {
        UnitPass::Sequential
    }

    fn rank(&self) -> u8 {
        1
    }

    fn reaching(&self) -> Option<Reaching> {
        Some(Reaching::WhenDue(self.max_range()))
    }

    fn measure(&mut self, cx: &StepContext<'_>, mount: &Mount, due: bool) -> Vec<Observation> {
        if !due {
            return Vec::new();
        }
        let pose = mount.world_from_sensor(cx.sim);
        // The 2D world only where the laser casts in it.
        let flat = (!self.params.raytrace_3d)
            .then(|| cx.flat.world(cx.sim, cx.view, self.bodies_visible()));
        vec![Observation::LaserScan(
            self.scan(cx.view, flat, &pose, cx.now),
        )]
    }
}
