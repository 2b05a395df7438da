//! Every sensor of a world, run after each simulation step against the scene of that step.

use crate::SceneView;
use crate::camera::{Camera, Lens, Lighting, Visibility};
use crate::flat::FlatStatics;
use crate::gnss::{Gnss, GnssFix};
use crate::imu::{Imu, ImuSample};
use crate::laser::{Laser, LaserScan};
use crate::lidar::{Lidar, PointCloud};
use crate::noise::SensorRng;
use crate::rgbd::RgbdCamera;
use crate::schedule::Schedule;
use crate::unit::{Mount, Pass, Reaching, SensorUnit, StepContext};
use passerby_scene::{RaysCast, Reach};
use passerby_sim::Simulation;
use passerby_world::SensorRef;
use passerby_world::{SensorKind, World};
use rayon::prelude::*;

/// What a sensor measured.
#[derive(Clone, Debug, PartialEq)]
pub enum Observation {
    /// A lidar sweep.
    PointCloud(PointCloud),
    /// A 2D scan.
    LaserScan(LaserScan),
    /// An inertial sample.
    Imu(ImuSample),
    /// A camera frame with depth and labels.
    Camera(crate::camera::CameraFrame),
    /// An RGB-D frame.
    Rgbd(Box<crate::rgbd::RgbdFrame>),
    /// A satellite fix.
    Gnss(GnssFix),
}

impl Observation {
    /// The sensor that made it.
    pub fn sensor(&self) -> &SensorRef {
        match self {
            Observation::PointCloud(c) => &c.sensor,
            Observation::LaserScan(s) => &s.sensor,
            Observation::Imu(s) => &s.sensor,
            Observation::Camera(c) => &c.sensor,
            Observation::Rgbd(f) => &f.sensor,
            Observation::Gnss(f) => &f.sensor,
        }
    }

    /// Its stamp, simulated seconds (a sweep's start for a rotating lidar).
    pub fn stamp(&self) -> f64 {
        match self {
            Observation::PointCloud(c) => c.stamp,
            Observation::LaserScan(s) => s.stamp,
            Observation::Imu(s) => s.stamp,
            Observation::Camera(c) => c.stamp,
            Observation::Rgbd(f) => f.stamp,
            Observation::Gnss(f) => f.stamp,
        }
    }

    /// About the bytes it holds (its arrays), for bounding queues of observations.
    pub fn held_bytes(&self) -> usize {
        fn camera(c: &crate::camera::CameraFrame) -> usize {
            c.rgb.len() + 10 * c.instance.len()
        }
        match self {
            Observation::PointCloud(c) => {
                c.points.len() * std::mem::size_of::<crate::lidar::LidarPoint>()
            }
            Observation::LaserScan(s) => 4 * (s.ranges.len() + s.intensities.len()),
            Observation::Camera(c) => camera(c),
            Observation::Rgbd(f) => {
                f.colour.as_ref().map_or(0, camera)
                    + f.depth.as_ref().map_or(0, |d| 2 * d.data.len())
                    + 21 * f.points.xyz.len()
            }
            Observation::Imu(_) | Observation::Gnss(_) => 256,
        }
    }

    /// How much it measured: a cloud's points, a scan's rays, an image's pixels (an RGB-D
    /// frame's colour and depth pixels), 1 for an inertial sample or a fix.
    pub fn samples(&self) -> usize {
        match self {
            Observation::PointCloud(c) => c.points.len(),
            Observation::LaserScan(s) => s.ranges.len(),
            Observation::Imu(_) | Observation::Gnss(_) => 1,
            Observation::Camera(c) => c.depth.len(),
            Observation::Rgbd(f) => {
                f.colour.as_ref().map_or(0, |c| c.depth.len())
                    + f.depth.as_ref().map_or(0, |d| d.data.len())
            }
        }
    }
}

/// The sensors of a world with their state: every unit of every kind, by the pass it
/// measures in, each list in world order.
#[derive(Debug)]
pub struct Rig {
    spinning: Vec<Unit>,
    parallel: Vec<Unit>,
    sequential: Vec<Unit>,
    lighting: Lighting,
    flat: FlatStatics,
    /// When each sensor measures.
    schedule: Schedule,
    notices: Vec<String>,
}

/// A unit with its mount and its place in world order.
type Unit = (Mount, Box<dyn SensorUnit>, usize);

impl Rig {
    /// Every range sensor of `world`, each with its generator seeded from `seed` and its name.
    pub fn new(world: &World, seed: u64) -> Rig {
        let mut rig = Rig {
            spinning: Vec::new(),
            parallel: Vec::new(),
            sequential: Vec::new(),
            lighting: Lighting::of_world(world),
            flat: FlatStatics::new(world),
            schedule: Schedule::new(world),
            notices: Vec::new(),
        };
        rig.notices = rig.schedule.starved(world.effective_timestep());
        for (index, (vehicle, s)) in world.sensors().enumerate() {
            let sensor = SensorRef {
                vehicle: vehicle.map(str::to_owned),
                name: s.name.clone(),
            };
            let mount = Mount {
                sensor: sensor.clone(),
                parent_from_sensor: s.pose.to_affine(),
                pose: s.pose,
            };
            let rng = SensorRng::new(seed, &Mount::full_name(&sensor));
            let unit: Box<dyn SensorUnit> = match &s.kind {
                SensorKind::Lidar3d(p) => Box::new(Lidar::new(sensor, p, s.period, rng)),
                SensorKind::Laser(p) => Box::new(Laser::new(sensor, p, rng)),
                SensorKind::Imu(p) => {
                    let enu =
                        (world.georeference.as_ref()).map_or(0.0, |g| g.world_to_enu_rotation);
                    Box::new(Imu::new(sensor, p, world.params.gravity, enu, rng))
                }
                SensorKind::Gnss(p) => {
                    let gnss = Gnss::new(sensor.clone(), p, world, rng);
                    if !gnss.has_reference() {
                        rig.notices.push(format!(
                            "gnss `{}`: the world has no <georeference>, so it measures nothing",
                            Mount::full_name(&sensor)
                        ));
                    }
                    Box::new(gnss)
                }
                SensorKind::Camera(p) => match Lens::new(&p.intrinsics) {
                    Ok(lens) => Box::new(Camera {
                        sensor,
                        lens,
                        antialias: p.antialias,
                        visibility: Visibility::default(),
                    }),
                    Err(e) => {
                        let name = Mount::full_name(&sensor);
                        rig.notices.push(format!("camera `{name}`: {e}"));
                        continue;
                    }
                },
                SensorKind::RgbdCamera(p) => match RgbdCamera::new(sensor.clone(), p, rng) {
                    Ok(camera) => Box::new(camera),
                    Err(e) => {
                        let name = Mount::full_name(&sensor);
                        rig.notices.push(format!("rgbd_camera `{name}`: {e}"));
                        continue;
                    }
                },
            };
            let list = match unit.pass() {
                Pass::Spinning => &mut rig.spinning,
                Pass::Parallel => &mut rig.parallel,
                Pass::Sequential => &mut rig.sequential,
            };
            list.push((mount, unit, index));
        }
        rig
    }

    /// Where the sensors are, how far they reach and which rays they cast in the step the
    /// simulation has just made (after `sim.step()`, before [`Rig::step`]), for sparing work
    /// on bodies none of them can see.
    pub fn reach(&self, sim: &Simulation) -> Vec<Reach> {
        self.reach_plan().reach(sim)
    }

    /// What [`Rig::reach`] of the step after the one `sim` has just made will depend on, as it
    /// will stand once [`Rig::step`] has run this one: for finding that reach while it runs.
    pub fn next_reach_plan(&self, sim: &Simulation) -> ReachPlan {
        let mut plan = self.reach_plan();
        for (_, reaching) in &mut plan.sensors {
            if let Reaching::Lidar(lidar) = reaching {
                *lidar = lidar.clone().after(sim.time());
            }
        }
        plan
    }

    fn reach_plan(&self) -> ReachPlan {
        // Lidars, then the others in world order (the reach's order does not matter).
        let units = self
            .spinning
            .iter()
            .chain(&self.parallel)
            .chain(&self.sequential);
        ReachPlan {
            sensors: units
                .filter_map(|(m, u, _)| Some((m.clone(), u.reaching()?)))
                .collect(),
            schedule: self.schedule.clone(),
        }
    }

    /// How every camera finds what its pixels see (rasterised by default).
    pub fn set_camera_visibility(&mut self, visibility: Visibility) {
        for (_, unit, _) in self.units_mut() {
            unit.set_visibility(visibility);
        }
    }

    fn units_mut(&mut self) -> impl Iterator<Item = &mut Unit> {
        (self.spinning.iter_mut())
            .chain(&mut self.parallel)
            .chain(&mut self.sequential)
    }

    /// The sensors that can be captured alone (cameras and RGB-D cameras), as
    /// `vehicle/sensor` (or `world/sensor`) names, in world order.
    pub fn camera_names(&self) -> Vec<String> {
        let mut cameras: Vec<&Unit> = (self.parallel.iter())
            .filter(|(_, u, _)| matches!(u.rank(), 3 | 4))
            .collect();
        cameras.sort_by_key(|(_, u, index)| (u.rank(), *index));
        cameras
            .iter()
            .map(|(m, _, _)| Mount::full_name(&m.sensor))
            .collect()
    }

    /// Captures the camera or RGB-D camera `full_name` (`vehicle/sensor` or `world/sensor`)
    /// now, whatever its schedule; `None` if there is no such camera.
    pub fn capture(
        &mut self,
        full_name: &str,
        sim: &Simulation,
        view: &SceneView<'_>,
    ) -> Option<Observation> {
        let cx = StepContext::new(sim, view, &self.lighting, &self.flat);
        let (mount, unit, _) = (self.spinning.iter_mut())
            .chain(&mut self.parallel)
            .chain(&mut self.sequential)
            .find(|(m, _, _)| Mount::full_name(&m.sensor) == full_name)?;
        unit.capture(&cx, mount)
    }

    /// What the world has that is not measured (one line each).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Runs every sensor for the step the simulation just took, against `view` (the scene
    /// updated to that step); returns the observations completed, lidars first, each group in
    /// world order.
    pub fn step(&mut self, sim: &Simulation, view: &SceneView<'_>) -> Vec<Observation> {
        let due = self.schedule.due(sim);
        let cx = StepContext::new(sim, view, &self.lighting, &self.flat);
        let is_due = |m: &Mount| due.contains(&m.sensor);
        // Lidars and cameras due now work side by side (each is also parallel inside: together
        // they keep every core busy through each one's sequential parts); each depends only on
        // its own state, so the observations do not depend on the thread count.
        let (spun, parallel) = rayon::join(
            || {
                crate::tasks::map_spinning(&mut self.spinning, |(mount, unit, index)| {
                    (unit.rank(), *index, unit.measure(&cx, mount, is_due(mount)))
                })
            },
            || {
                (self.parallel.par_iter_mut())
                    .map(|(mount, unit, index)| {
                        (unit.rank(), *index, unit.measure(&cx, mount, is_due(mount)))
                    })
                    .collect::<Vec<_>>()
            },
        );
        let sequential = (self.sequential.iter_mut()).map(|(mount, unit, index)| {
            (unit.rank(), *index, unit.measure(&cx, mount, is_due(mount)))
        });
        let mut all: Vec<_> = spun.into_iter().chain(parallel).chain(sequential).collect();
        // Kinds in rank order, each in world order.
        all.sort_by_key(|(rank, index, _)| (*rank, *index));
        all.into_iter().flat_map(|(_, _, o)| o).collect()
    }
}

/// What the reach of the sensors in a step depends on (see [`Rig::next_reach_plan`]).
#[derive(Clone, Debug)]
pub struct ReachPlan {
    /// Lidars, lasers, cameras, RGB-D cameras, each in world order.
    sensors: Vec<(Mount, Reaching)>,
    /// When each sensor measures.
    schedule: Schedule,
}

impl ReachPlan {
    /// As [`Rig::reach`] for the step `sim` has just made.
    pub fn reach(&self, sim: &Simulation) -> Vec<Reach> {
        let now = sim.time();
        let due = self.schedule.due(sim);
        (self.sensors.iter())
            .map(|(mount, reaching)| {
                let pose = mount.world_from_sensor(sim);
                let is_due = due.contains(&mount.sensor);
                let (radius, rays) = match reaching {
                    Reaching::Lidar(lidar) => {
                        (lidar.max_range(), lidar.rays_cast(&pose, now, is_due))
                    }
                    Reaching::WhenDue(radius) if is_due => (*radius, RaysCast::All),
                    Reaching::WhenDue(radius) => (*radius, RaysCast::None),
                };
                Reach {
                    centre: pose.translation.to_array(),
                    radius,
                    rays,
                }
            })
            .collect()
    }
}
