//! The seam sensor kinds plug into. A kind is one module of this crate with a type that
//! implements [`SensorUnit`] (and a line in the rig's factory, [`crate::rig`], that makes it
//! from its world parameters); the rig runs every unit of every kind through this trait, in
//! world order within each kind, so adding a kind touches no list of kinds.
//!
//! A unit says in which pass of a step it measures ([`Pass`]: spinning parallel tasks for the
//! lidars' many short passes, a parallel pass for cameras, a sequential pass for light sensors
//! that share per-step work), where its observations come in a step's list ([`SensorUnit::rank`]:
//! recordings keep one order), and what its rays reach (so the scene poses the actors it may
//! see).

use crate::camera::{Lighting, Visibility};
use crate::flat::{FlatStatics, FlatWorld};
use crate::lidar::LidarReach;
use crate::{Observation, SceneView};
use glam::{Affine3A, DQuat, DVec3};
use passerby_sim::Simulation;
use passerby_world::{Pose3, SensorRef};
use std::sync::OnceLock;

/// Where a sensor is mounted.
#[derive(Clone, Debug)]
pub(crate) struct Mount {
    pub(crate) sensor: SensorRef,
    pub(crate) parent_from_sensor: Affine3A,
    /// The same in double precision (inertial sensors difference positions).
    pub(crate) pose: Pose3,
}

impl Mount {
    /// Where the sensor is now (standalone sensors hang from the world frame).
    pub(crate) fn world_from_sensor(&self, sim: &Simulation) -> Affine3A {
        let world_from_parent = (self.sensor.vehicle.as_deref())
            .and_then(|v| sim.pose(v))
            .map_or(Affine3A::IDENTITY, |p| p.to_affine());
        world_from_parent * self.parent_from_sensor
    }

    /// Where the sensor is now, double precision: position and rotation.
    pub(crate) fn world_pose(&self, sim: &Simulation) -> (DVec3, DQuat) {
        let (pt, pq) = (self.sensor.vehicle.as_deref())
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
    pub(crate) fn full_name(sensor: &SensorRef) -> String {
        format!(
            "{}/{}",
            sensor.vehicle.as_deref().unwrap_or("world"),
            sensor.name
        )
    }
}

/// Which pass of a step a unit measures in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Each unit a task among workers that spin between its short parallel passes (lidars).
    Spinning,
    /// Units side by side in a parallel pass, beside the spinning one (cameras).
    Parallel,
    /// One after another, after the parallel passes (light sensors sharing per-step work).
    Sequential,
}

/// What a unit's rays reach, for sparing actors no sensor can see.
#[derive(Clone, Debug)]
pub(crate) enum Reaching {
    /// A lidar, from where its sweep stands.
    Lidar(LidarReach),
    /// Everything within this range when due, nothing otherwise.
    WhenDue(f32),
}

/// What every unit reads in a step.
pub(crate) struct StepContext<'a> {
    /// The simulation, as the step left it.
    pub(crate) sim: &'a Simulation,
    /// The scene of that step.
    pub(crate) view: &'a SceneView<'a>,
    /// The step's end, the stamp of what is measured now.
    pub(crate) now: f64,
    /// The world's lights, for cameras.
    pub(crate) lighting: &'a Lighting,
    /// The 2D world of the step (MVSim's cheap laser mode), made on first use.
    pub(crate) flat: FlatCache<'a>,
}

impl<'a> StepContext<'a> {
    /// What the units read at the end of the step `sim` has just made, against `view`.
    pub(crate) fn new(
        sim: &'a Simulation,
        view: &'a SceneView<'a>,
        lighting: &'a Lighting,
        flat: &'a FlatStatics,
    ) -> StepContext<'a> {
        StepContext {
            sim,
            view,
            now: sim.time(),
            lighting,
            flat: FlatCache::new(flat),
        }
    }
}

/// The 2D world of a step, built at most once for each `bodies_visible` setting.
pub(crate) struct FlatCache<'a> {
    statics: &'a FlatStatics,
    worlds: [OnceLock<FlatWorld>; 2],
}

impl<'a> FlatCache<'a> {
    pub(crate) fn new(statics: &'a FlatStatics) -> FlatCache<'a> {
        FlatCache {
            statics,
            worlds: [OnceLock::new(), OnceLock::new()],
        }
    }

    /// The 2D world with or without bodies, as the step stands.
    pub(crate) fn world(&self, sim: &Simulation, view: &SceneView<'_>, bodies: bool) -> &FlatWorld {
        self.worlds[usize::from(bodies)].get_or_init(|| self.statics.at(sim, view, bodies))
    }
}

/// One sensor of a rig, of any kind.
pub(crate) trait SensorUnit: Send + Sync + std::fmt::Debug {
    /// The pass it measures in.
    fn pass(&self) -> Pass;

    /// Where its observations come in a step's list, before those of higher ranks (each rank
    /// in world order).
    fn rank(&self) -> u8;

    /// What its rays reach; `None` for a sensor that casts none.
    fn reaching(&self) -> Option<Reaching>;

    /// Runs for the step (every step: some sensors integrate between measurements); `due`
    /// says whether its period has come. What it completed (a rotating lidar may complete two
    /// sweeps in a long step).
    fn measure(&mut self, cx: &StepContext<'_>, mount: &Mount, due: bool) -> Vec<Observation>;

    /// Measures now whatever its schedule (a single `render`); `None` for kinds that cannot.
    fn capture(&mut self, _cx: &StepContext<'_>, _mount: &Mount) -> Option<Observation> {
        None
    }

    /// How it finds what its pixels see, for kinds with pixels.
    fn set_visibility(&mut self, _visibility: Visibility) {}
}
