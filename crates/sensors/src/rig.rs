//! Every sensor of a world, run after each simulation step against the scene of that step.

use crate::SceneView;
use crate::camera::{Camera, Lens, Lighting, Visibility};
use crate::flat::FlatStatics;
use crate::gnss::{Gnss, GnssFix};
use crate::imu::{Imu, ImuSample};
use crate::laser::{Laser, LaserScan};
use crate::lidar::{Lidar, LidarReach, PointCloud};
use crate::noise::SensorRng;
use crate::rgbd::RgbdCamera;
use crate::schedule::Schedule;
use glam::{Affine3A, DQuat, DVec3};
use passerby_scene::{RaysCast, Reach};
use passerby_sim::Simulation;
use passerby_world::SensorRef;
use passerby_world::{Pose3, SensorKind, World};
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

/// Where a sensor is mounted.
#[derive(Clone, Debug)]
struct Mount {
    sensor: SensorRef,
    parent_from_sensor: Affine3A,
    /// The same in double precision (inertial sensors difference positions).
    pose: Pose3,
}

impl Mount {
    /// Where the sensor is now (standalone sensors hang from the world frame).
    fn world_from_sensor(&self, sim: &Simulation) -> Affine3A {
        let world_from_parent = self
            .sensor
            .vehicle
            .as_deref()
            .and_then(|v| sim.pose(v))
            .map_or(Affine3A::IDENTITY, |p| p.to_affine());
        world_from_parent * self.parent_from_sensor
    }

    /// Where the sensor is now, double precision: position and rotation.
    fn world_pose(&self, sim: &Simulation) -> (DVec3, DQuat) {
        let (pt, pq) = self
            .sensor
            .vehicle
            .as_deref()
            .and_then(|v| sim.pose(v))
            .map_or((DVec3::ZERO, DQuat::IDENTITY), |p| {
                (DVec3::new(p.x, p.y, p.z), p.rotation())
            });
        let s = &self.pose;
        (
            pt + pq * DVec3::new(s.x, s.y, s.z),
            (pq * s.rotation()).normalize(),
        )
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
    imus: Vec<(Mount, Imu)>,
    cameras: Vec<(Mount, Camera)>,
    rgbds: Vec<(Mount, RgbdCamera)>,
    lighting: Lighting,
    gnss: Vec<(Mount, Gnss)>,
    flat: FlatStatics,
    /// When each sensor measures.
    schedule: Schedule,
    notices: Vec<String>,
}

impl Rig {
    /// Every range sensor of `world`, each with its generator seeded from `seed` and its name.
    pub fn new(world: &World, seed: u64) -> Rig {
        let mut rig = Rig {
            lidars: Vec::new(),
            lasers: Vec::new(),
            imus: Vec::new(),
            cameras: Vec::new(),
            rgbds: Vec::new(),
            lighting: Lighting::of_world(world),
            gnss: Vec::new(),
            flat: FlatStatics::new(world),
            schedule: Schedule::new(world),
            notices: Vec::new(),
        };
        rig.notices = rig.schedule.starved(world.effective_timestep());
        for (vehicle, s) in world.sensors() {
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
            match &s.kind {
                SensorKind::Lidar3d(p) => rig
                    .lidars
                    .push((mount, Lidar::new(sensor, p, s.period, rng))),
                SensorKind::Laser(p) => rig.lasers.push((mount, Laser::new(sensor, p, rng))),
                SensorKind::Imu(p) => {
                    let enu = world
                        .georeference
                        .as_ref()
                        .map_or(0.0, |g| g.world_to_enu_rotation);
                    let imu = Imu::new(sensor, p, world.params.gravity, enu, rng);
                    rig.imus.push((mount, imu));
                }
                SensorKind::Gnss(p) => {
                    let gnss = Gnss::new(sensor.clone(), p, world, rng);
                    if !gnss.has_reference() {
                        rig.notices.push(format!(
                            "gnss `{}`: the world has no <georeference>, so it measures nothing",
                            Mount::full_name(&sensor)
                        ));
                    }
                    rig.gnss.push((mount, gnss));
                }
                SensorKind::Camera(p) => match Lens::new(&p.intrinsics) {
                    Ok(lens) => rig.cameras.push((
                        mount,
                        Camera {
                            sensor,
                            lens,
                            antialias: p.antialias,
                            visibility: Visibility::default(),
                        },
                    )),
                    Err(e) => rig
                        .notices
                        .push(format!("camera `{}`: {e}", Mount::full_name(&sensor))),
                },
                SensorKind::RgbdCamera(p) => match RgbdCamera::new(sensor.clone(), p, rng) {
                    Ok(camera) => rig.rgbds.push((mount, camera)),
                    Err(e) => rig
                        .notices
                        .push(format!("rgbd_camera `{}`: {e}", Mount::full_name(&sensor))),
                },
            }
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
        let lidars =
            (self.lidars.iter()).map(|(m, l)| (m.clone(), Reaching::Lidar(l.reach_plan())));
        let lasers =
            (self.lasers.iter()).map(|(m, l)| (m.clone(), Reaching::WhenDue(l.max_range())));
        let cameras = (self.cameras.iter()).map(|(m, c)| {
            let range = c.lens.intrinsics().clip_max as f32;
            (m.clone(), Reaching::WhenDue(range))
        });
        let rgbds = (self.rgbds.iter()).map(|(m, c)| (m.clone(), Reaching::WhenDue(c.max_range())));
        ReachPlan {
            sensors: lidars.chain(lasers).chain(cameras).chain(rgbds).collect(),
            schedule: self.schedule.clone(),
        }
    }

    /// How every camera finds what its pixels see (rasterised by default).
    pub fn set_camera_visibility(&mut self, visibility: Visibility) {
        for (_, c) in &mut self.cameras {
            c.visibility = visibility;
        }
        for (_, c) in &mut self.rgbds {
            c.visibility = visibility;
        }
    }

    /// The cameras and RGB-D cameras, as `vehicle/sensor` (or `world/sensor`) names.
    pub fn camera_names(&self) -> Vec<String> {
        let cameras = self.cameras.iter().map(|(m, _)| &m.sensor);
        let rgbds = self.rgbds.iter().map(|(m, _)| &m.sensor);
        cameras.chain(rgbds).map(Mount::full_name).collect()
    }

    /// Captures the camera or RGB-D camera `full_name` (`vehicle/sensor` or `world/sensor`)
    /// now, whatever its schedule; `None` if there is no such camera.
    pub fn capture(
        &mut self,
        full_name: &str,
        sim: &Simulation,
        view: &SceneView<'_>,
    ) -> Option<Observation> {
        let now = sim.time();
        if let Some((mount, camera)) = self
            .cameras
            .iter()
            .find(|(m, _)| Mount::full_name(&m.sensor) == full_name)
        {
            let pose = mount.world_from_sensor(sim);
            let frame = camera.render(view, &pose, &self.lighting, now);
            return Some(Observation::Camera(frame));
        }
        let (mount, camera) = self
            .rgbds
            .iter_mut()
            .find(|(m, _)| Mount::full_name(&m.sensor) == full_name)?;
        let pose = mount.world_from_sensor(sim);
        let frame = camera.capture(view, &pose, &self.lighting, now);
        Some(Observation::Rgbd(Box::new(frame)))
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
        let due = self.schedule.due(sim);
        // Lidars and cameras due now work side by side (each is also parallel inside: together
        // they keep every core busy through each one's sequential parts); each depends only on
        // its own state, so the observations do not depend on the thread count.
        let lighting = &self.lighting;
        let (lidar_scans, (frames, rgbd_frames)) = rayon::join(
            || {
                crate::tasks::map_spinning(&mut self.lidars, |(mount, lidar)| {
                    let pose = mount.world_from_sensor(sim);
                    let is_due = due.contains(&mount.sensor);
                    lidar.step(view, &pose, now, is_due)
                })
            },
            || {
                rayon::join(
                    || {
                        self.cameras
                            .par_iter()
                            .filter(|(m, _)| due.contains(&m.sensor))
                            .map(|(mount, camera)| {
                                let pose = mount.world_from_sensor(sim);
                                Observation::Camera(camera.render(view, &pose, lighting, now))
                            })
                            .collect::<Vec<_>>()
                    },
                    || {
                        self.rgbds
                            .par_iter_mut()
                            .filter(|(m, _)| due.contains(&m.sensor))
                            .map(|(mount, camera)| {
                                let pose = mount.world_from_sensor(sim);
                                let frame = camera.capture(view, &pose, lighting, now);
                                Observation::Rgbd(Box::new(frame))
                            })
                            .collect::<Vec<_>>()
                    },
                )
            },
        );
        let mut out: Vec<Observation> = (lidar_scans.into_iter().flatten())
            .map(Observation::PointCloud)
            .collect();
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
        for (mount, imu) in &mut self.imus {
            let (position, rotation) = mount.world_pose(sim);
            imu.record(now, position, rotation);
            if due.contains(&mount.sensor) {
                out.push(Observation::Imu(imu.sample(now)));
            }
        }
        out.extend(frames);
        out.extend(rgbd_frames);
        for (mount, gnss) in &mut self.gnss {
            if due.contains(&mount.sensor) {
                let (position, _) = mount.world_pose(sim);
                out.extend(gnss.fix(position, now).map(Observation::Gnss));
            }
        }
        out
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

#[derive(Clone, Debug)]
enum Reaching {
    /// A lidar, from where its sweep stands.
    Lidar(LidarReach),
    /// Everything within this range when due, nothing otherwise.
    WhenDue(f32),
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
