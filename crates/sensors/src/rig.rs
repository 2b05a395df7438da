//! Every sensor of a world, run after each simulation step against the scene of that step.

use crate::SceneView;
use crate::flat::FlatStatics;
use crate::laser::{Laser, LaserScan};
use crate::lidar::{Lidar, PointCloud};
use crate::noise::SensorRng;
use glam::Affine3A;
use passerby_scene::affine_from_pose;
use passerby_sim::Simulation;
use passerby_sim::schedule::SensorRef;
use passerby_world::{SensorKind, World};

/// What a sensor measured.
#[derive(Clone, Debug, PartialEq)]
pub enum Observation {
    /// A lidar sweep.
    PointCloud(PointCloud),
    /// A 2D scan.
    LaserScan(LaserScan),
}

/// Where a sensor is mounted.
#[derive(Clone, Debug)]
struct Mount {
    sensor: SensorRef,
    parent_from_sensor: Affine3A,
}

impl Mount {
    /// Where the sensor is now (standalone sensors hang from the world frame).
    fn world_from_sensor(&self, sim: &Simulation) -> Affine3A {
        let world_from_parent = self
            .sensor
            .vehicle
            .as_deref()
            .and_then(|v| sim.pose(v))
            .map_or(Affine3A::IDENTITY, |p| affine_from_pose(&p));
        world_from_parent * self.parent_from_sensor
    }

    /// `vehicle/sensor`, or `world/sensor`.
    fn full_name(sensor: &SensorRef) -> String {
        format!(
            "{}/{}",
            sensor.vehicle.as_deref().unwrap_or("world"),
            sensor.name
        )
    }
}

/// The sensors of a world with their state.
#[derive(Clone, Debug)]
pub struct Rig {
    lidars: Vec<(Mount, Lidar)>,
    lasers: Vec<(Mount, Laser)>,
    flat: FlatStatics,
    notices: Vec<String>,
}

impl Rig {
    /// Every range sensor of `world`, each with its generator seeded from `seed` and its name.
    pub fn new(world: &World, seed: u64) -> Rig {
        let mut rig = Rig {
            lidars: Vec::new(),
            lasers: Vec::new(),
            flat: FlatStatics::new(world),
            notices: Vec::new(),
        };
        for (vehicle, s) in world.sensors() {
            let sensor = SensorRef {
                vehicle: vehicle.map(str::to_owned),
                name: s.name.clone(),
            };
            let mount = Mount {
                sensor: sensor.clone(),
                parent_from_sensor: affine_from_pose(&s.pose),
            };
            let rng = SensorRng::new(seed, &Mount::full_name(&sensor));
            match &s.kind {
                SensorKind::Lidar3d(p) => rig
                    .lidars
                    .push((mount, Lidar::new(sensor, p, s.period, rng))),
                SensorKind::Laser(p) => rig.lasers.push((mount, Laser::new(sensor, p, rng))),
                other => rig.notices.push(format!(
                    "sensor `{}` ({}) is not simulated yet",
                    Mount::full_name(&sensor),
                    match other {
                        SensorKind::Camera(_) => "camera",
                        SensorKind::RgbdCamera(_) => "rgbd_camera",
                        SensorKind::Imu(_) => "imu",
                        SensorKind::Gnss(_) => "gnss",
                        _ => "sensor",
                    }
                )),
            }
        }
        rig
    }

    /// What the world has that is not measured (one line each).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Runs every sensor for the step the simulation just took, against `view` (the scene
    /// updated to that step); returns the observations completed, lidars first, each group in
    /// world order.
    pub fn step(&mut self, sim: &Simulation, view: &SceneView<'_>) -> Vec<Observation> {
        let now = sim.time();
        let due = sim.sensors_due();
        let mut out = Vec::new();
        for (mount, lidar) in &mut self.lidars {
            let pose = mount.world_from_sensor(sim);
            let is_due = due.contains(&mount.sensor);
            out.extend(
                lidar
                    .step(view, &pose, now, is_due)
                    .into_iter()
                    .map(Observation::PointCloud),
            );
        }
        // The 2D world, built at most once per step for each `bodies_visible` setting.
        let mut flat = [None, None];
        for (mount, laser) in &mut self.lasers {
            if !due.contains(&mount.sensor) {
                continue;
            }
            let pose = mount.world_from_sensor(sim);
            let bodies = laser.bodies_visible();
            let world =
                flat[usize::from(bodies)].get_or_insert_with(|| self.flat.at(sim, view, bodies));
            out.push(Observation::LaserScan(laser.scan(view, world, &pose, now)));
        }
        out
    }
}
