//! The simulation loop: a fixed-step clock that moves actors along their paths or by their
//! behaviors (with their gait and clip playback), vehicles by their velocity commands, and lets a program set any object's
//! pose between steps.
//!
//! Owns: simulated time (the only time: nothing here reads a clock), object poses and their
//! evolution, the per-actor animation state. Must not touch: geometry, ray casting, sensors,
//! files. The caller turns poses and animation states into a scene (skinning, refits) and runs
//! the sensors whose time has come.
//!
//! External control: any object's pose and scale, and its parts' transforms, can be set between
//! steps ([`Simulation::set_transform`]) or replayed from timed rows ([`Simulation::set_replay`]);
//! what was applied stays readable ([`Simulation::external`]).
//!
//! Actors are kinematic, but when one starts touching a vehicle, a block or a wall of terrain the
//! step reports a [`Contact`].
//!
//! Vehicles are driven by their wheels, controllers and friction (`passerby-dynamics`); a
//! held or keyframed vehicle is placed, not driven. Not yet here: vehicles' contacts with
//! walls and blocks ([`Simulation::notices`] says so).
//!
//! Modules: MVSim paths and the turning-rate limit (`path.rs`), the `Controller` trait and
//! `Motion` (`motion.rs`), behaviors (`controllers.rs`), the gait state machine (`gait.rs`),
//! MVSim keyframes (`keyframes.rs`), ground following (`ground.rs`), moving floors
//! (`floors.rs`), replay of timed inputs (`replay.rs`), actors' capsules and contacts
//! (`contacts.rs`), vehicles and blocks through the physics, wheel odometry and outlines
//! (`vehicles.rs`), what a program sets between steps (`external.rs`).

pub mod contacts;
pub mod controllers;
mod external;
pub mod floors;
pub mod gait;
pub mod ground;
pub mod keyframes;
pub mod motion;
pub mod path;
pub mod replay;
mod vehicles;

use contacts::Footprint;
use controllers::{
    Circle, Controller, Keyframed, MavsWaypoints, Motion, Region, Straight, Walker, Wander,
};
use gait::{AnimationState, GaitMachine};
use ground::{Ground, WorldGround};
use passerby_dynamics::{Physics, Slope};
use passerby_world::{Actor, Behavior, KeyframeAnimation, Pose3, Transform, Wheel, World};
use path::{Gaits, PathFollower};
use replay::Replay;
use std::collections::{BTreeMap, HashMap, HashSet};
use vehicles::{ODOMETRY_STREAM, contact_notices, odometry_multipliers, step_bodies};

/// Why the simulation refused something.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    /// No object has this name.
    #[error("no actor, vehicle or block is named `{0}`")]
    UnknownObject(String),
    /// The name is not a vehicle's.
    #[error("`{0}` is not a vehicle")]
    NotAVehicle(String),
    /// A pose or velocity with NaN or infinite values.
    #[error("{what} for `{object}` is not finite: {values:?}")]
    NotFinite {
        /// What was given.
        what: &'static str,
        /// The object.
        object: String,
        /// The values.
        values: Vec<f64>,
    },
    /// A time step that is not positive, not finite or over [`MAX_TIMESTEP`].
    #[error("the time step must be a positive number of seconds up to {MAX_TIMESTEP}, not {0}")]
    BadTimestep(f64),
    /// A block that never moves (`<static>true</static>`) was asked to.
    #[error("block `{0}` is static (<static>true</static>): it cannot be moved")]
    Fixed(String),
    /// An actor whose speeds make no sense.
    #[error("actor `{actor}`: {message}")]
    BadActor {
        /// The actor.
        actor: String,
        /// What is wrong.
        message: String,
    },
}

/// What an external source set on an object besides its pose (a "transform set"), kept as
/// applied ("transform get").
#[derive(Clone, Debug, PartialEq)]
pub struct External {
    /// Scale of the whole body along its own axes (1 unless set).
    pub scale: [f64; 3],
    /// Per part (bone or named node), its transform relative to the body.
    pub parts: BTreeMap<String, Transform>,
}

impl Default for External {
    fn default() -> Self {
        External {
            scale: [1.0; 3],
            parts: BTreeMap::new(),
        }
    }
}

/// Which object a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectRef {
    /// Index into [`Simulation::actors`].
    Actor(usize),
    /// Index into [`Simulation::vehicles`].
    Vehicle(usize),
    /// Index into [`Simulation::blocks`].
    Block(usize),
}

/// An actor as it stands after the last step.
#[derive(Debug)]
pub struct ActorState {
    /// Its name.
    pub name: String,
    /// Its pose (feet on the ground, facing +X of its frame).
    pub pose: Pose3,
    /// Ground speed in the last step, m/s.
    pub speed: f64,
    /// Whether an external source holds its pose (transform set) instead of its path.
    pub held: bool,
    /// Whether it stands on the ground below it (not with `<init_pose3d>`, 6-value waypoints or
    /// `<skip_elevation_adjust/>`).
    pub follows_ground: bool,
    /// Scale and part transforms set from outside.
    pub external: External,
    controller: Option<Box<dyn Controller>>,
    gait: GaitMachine,
    motion: Motion,
}

impl ActorState {
    /// The clip(s) it plays and their times.
    pub fn animation(&self) -> &AnimationState {
        self.gait.state()
    }

    /// Its path follower, if it has a path.
    pub fn path(&self) -> Option<&PathFollower> {
        (self.controller.as_deref()?.as_any()).downcast_ref::<PathFollower>()
    }
}

/// A vehicle as it stands after the last step.
#[derive(Clone, Debug)]
pub struct VehicleState {
    /// Its name.
    pub name: String,
    /// Its pose.
    pub pose: Pose3,
    /// Commanded body-frame velocity: vx, vy (m/s), omega (rad/s).
    pub twist: [f64; 3],
    /// Actual body-frame velocity of its reference point after the last step.
    pub velocity: [f64; 3],
    /// Whether it touches (or is within `collision_threshold` of) a wall, block or vehicle
    /// after the last step.
    pub in_collision: bool,
    /// Wheel odometry (MVSim's): the pose (x, y, yaw) integrated from the vehicle's true planar
    /// increments, each scaled by its odometry multipliers, from its initial pose.
    pub odometry: [f64; 3],
    /// The velocity the wheels' spin gives (vx, vy, omega in its frame; MVSim's
    /// `getVelocityLocalOdoEstimate`).
    pub odometry_twist: [f64; 3],
    /// The multipliers of x, y and yaw increments (`<odometry>`, or drawn per vehicle from
    /// N(1, 0.02²) like MVSim, from the run's seed).
    pub odometry_multipliers: [f64; 3],
    /// Per wheel, MVSim's wheel log of the last step (column name, value), when its wheels
    /// are traced ([`Simulation::trace_wheels`]); empty otherwise.
    pub wheel_logs: Vec<Vec<(&'static str, f64)>>,
    /// Whether an external source holds its pose.
    pub held: bool,
    /// Whether it takes z, pitch and roll from the ground under its wheels.
    pub follows_ground: bool,
    /// Scale and part transforms set from outside.
    pub external: External,
    init_pose: Pose3,
    keyframes: Option<KeyframeAnimation>,
    wheels: Vec<Wheel>,
    /// The mean height of the ground under its wheels when last settled on it.
    wheels_ground: Option<f64>,
}

/// A block as it stands after the last step.
#[derive(Clone, Debug)]
pub struct BlockState {
    /// Its name.
    pub name: String,
    /// Its pose.
    pub pose: Pose3,
    /// Whether an external source holds its pose.
    pub held: bool,
    /// Scale and part transforms set from outside.
    pub external: External,
    /// `<static>true</static>` without keyframes: it never moves.
    pub fixed: bool,
    init_pose: Pose3,
    keyframes: Option<KeyframeAnimation>,
}

/// How to run a world.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimOptions {
    /// Seconds per step; `None` for the world's (`simul_timestep`, or MVSim's automatic one).
    pub timestep: Option<f64>,
    /// Seed of every random draw (each object derives its own generator from it).
    pub seed: u64,
}

/// An actor that started touching something during a step (reported once per touch, when it
/// begins).
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    /// Simulated time at the end of the step, seconds.
    pub time: f64,
    /// The actor.
    pub object: String,
    /// What it touched: another object's name, or `ground` for a wall of terrain.
    pub other: String,
    /// Where, in the world frame.
    pub point: [f64; 3],
}

/// The longest time step, seconds: MVSim recommends 1 to 20 ms, and a step of 1e308 s made an
/// actor's path loop (and the run) endless.
pub const MAX_TIMESTEP: f64 = 1.0;

/// A world in motion.
pub struct Simulation {
    timestep: f64,
    steps: u64,
    actors: Vec<ActorState>,
    vehicles: Vec<VehicleState>,
    blocks: Vec<BlockState>,
    names: HashMap<String, ObjectRef>,
    notices: Vec<String>,
    ground: Box<dyn Ground>,
    /// Horizontal planes that move (elevators), part of the ground.
    floors: floors::Floors,
    contacts: Vec<Contact>,
    /// (object, part) set since the last step, to warn when two sources set the same one.
    set_since_step: HashSet<(String, Option<String>)>,
    warnings: Vec<String>,
    replay: Option<Replay>,
    vehicle_footprints: Vec<Footprint>,
    /// The vehicles' bodies, wheels and controllers.
    physics: Physics,
    /// Vehicles whose controller refused a velocity command (warned once).
    refused_commands: HashSet<usize>,
    /// Blocks and vehicles whose outline comes from their visual and has not been given yet
    /// ([`Simulation::set_outline`]).
    outlines_pending: std::collections::BTreeSet<String>,
    block_footprints: Vec<Option<Footprint>>,
    /// Per actor: capsule radius and height.
    actor_capsules: Vec<(f64, f64)>,
    /// (actor, other) pairs touching after the last step.
    touching: HashSet<(usize, String)>,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("time", &self.time())
            .field("actors", &self.actors.len())
            .field("vehicles", &self.vehicles.len())
            .field("blocks", &self.blocks.len())
            .finish_non_exhaustive()
    }
}

impl Simulation {
    /// Sets a world in motion at t = 0 with the world's time step and seed 0.
    pub fn new(world: &World) -> Result<Simulation, SimError> {
        Simulation::with_options(world, &SimOptions::default())
    }

    /// Sets a world in motion at t = 0.
    pub fn with_options(world: &World, options: &SimOptions) -> Result<Simulation, SimError> {
        let timestep = options
            .timestep
            .unwrap_or_else(|| world.effective_timestep());
        if !(timestep > 0.0 && timestep <= MAX_TIMESTEP) {
            return Err(SimError::BadTimestep(timestep));
        }
        let mut notices = Vec::new();
        let mut names = HashMap::new();
        let actors = world
            .actors
            .iter()
            .enumerate()
            .map(|(i, a)| {
                names.insert(a.name.clone(), ObjectRef::Actor(i));
                actor_state(a, object_seed(options.seed, i as u64))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let vehicles = world
            .vehicles
            .iter()
            .enumerate()
            .map(|(i, v)| {
                names.insert(v.name.clone(), ObjectRef::Vehicle(i));
                VehicleState {
                    name: v.name.clone(),
                    pose: v.common.init_pose,
                    twist: v.common.init_vel,
                    velocity: v.common.init_vel,
                    in_collision: false,
                    odometry: {
                        let p = &v.common.init_pose;
                        [p.x, p.y, p.yaw]
                    },
                    odometry_twist: [0.0; 3],
                    odometry_multipliers: odometry_multipliers(
                        &v.odometry_multipliers,
                        object_seed(options.seed ^ ODOMETRY_STREAM, i as u64),
                        world.params.odometry_noise_scale,
                    ),
                    held: false,
                    follows_ground: !v.common.init_pose_is_3d && !v.common.skip_elevation_adjust,
                    external: External::default(),
                    init_pose: v.common.init_pose,
                    keyframes: v.common.keyframes.clone(),
                    wheels: v.dynamics.wheels.clone(),
                    wheels_ground: None,
                    wheel_logs: Vec::new(),
                }
            })
            .collect();
        if !world.vehicles.is_empty() {
            notices.extend(contact_notices(world));
        }
        let blocks = world
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                names.insert(b.name.clone(), ObjectRef::Block(i));
                BlockState {
                    name: b.name.clone(),
                    pose: b.common.init_pose,
                    held: false,
                    external: External::default(),
                    fixed: b.is_fixed(),
                    init_pose: b.common.init_pose,
                    keyframes: b.common.keyframes.clone(),
                }
            })
            .collect();
        let block_footprints: Vec<Option<Footprint>> =
            world.blocks.iter().map(Footprint::of_block).collect();
        let block_shapes: Vec<Option<passerby_dynamics::Shape>> = (block_footprints.iter())
            .map(|f| f.as_ref().map(|f| f.shape.clone()))
            .collect();
        let mut sim = Simulation {
            timestep,
            steps: 0,
            actors,
            vehicles,
            blocks,
            names,
            notices,
            ground: Box::new(WorldGround::new(world)),
            floors: floors::Floors::new(world),
            contacts: Vec::new(),
            set_since_step: HashSet::new(),
            warnings: Vec::new(),
            replay: None,
            vehicle_footprints: world.vehicles.iter().map(Footprint::of_vehicle).collect(),
            block_footprints,
            physics: Physics::new(world, &block_shapes),
            refused_commands: HashSet::new(),
            outlines_pending: (world.blocks.iter())
                .filter(|b| {
                    !b.intangible && matches!(b.shape, passerby_world::BlockShape::FromVisual)
                })
                .map(|b| b.name.clone())
                .chain(
                    (world.vehicles.iter())
                        .filter(|v| v.dynamics.chassis.shape_from_visual)
                        .map(|v| v.name.clone()),
                )
                .collect(),
            actor_capsules: world
                .actors
                .iter()
                .map(|a| (a.collision_radius, a.collision_height))
                .collect(),
            touching: HashSet::new(),
        };
        if let Some(n) = sim.pending_outline_notice() {
            sim.notices.push(n);
        }
        // Poses the world brings itself (a MAVS simulation's) replay from the start.
        if !world.replay.is_empty() {
            sim.set_replay(world.replay.clone(), Vec::new())?;
        }
        Ok(sim)
    }

    /// Simulated seconds since the start (a whole number of steps).
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.timestep
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The fixed step, seconds.
    pub fn timestep(&self) -> f64 {
        self.timestep
    }

    /// What the world asks for that is not simulated (one line each).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Puts the vehicles and actors that follow the ground on it, before the first step moves
    /// them (`ground::start_height`): the ground is known only once [`Simulation::set_ground`]
    /// has been called.
    fn start_on_ground(&mut self) {
        let ground = &floors::WithFloors {
            ground: self.ground.as_ref(),
            floors: &self.floors,
        };
        for (i, v) in self.vehicles.iter_mut().enumerate() {
            if v.follows_ground && v.keyframes.is_none() && !v.held {
                v.pose.z = ground::start_height(ground, &v.pose);
                (v.pose, v.wheels_ground) = ground::settle_vehicle(ground, &v.wheels, &v.pose);
                self.physics
                    .set_slope(i, Slope::of(v.pose.pitch, v.pose.roll));
            }
        }
        for a in self.actors.iter_mut() {
            if a.follows_ground && !a.held {
                a.pose.z = ground::start_height(ground, &a.pose);
            }
        }
    }

    /// Replaces the ground that actors and vehicles stand on (by default the world's horizontal
    /// planes and elevation maps).
    pub fn set_ground(&mut self, ground: Box<dyn Ground>) {
        self.ground = ground;
    }

    /// Whether some actor touches the object named `name` after the last step.
    pub fn is_touched(&self, name: &str) -> bool {
        self.touching.iter().any(|(_, other)| other == name)
    }

    /// What touched what during the last step.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Actors, in world order.
    pub fn actors(&self) -> &[ActorState] {
        &self.actors
    }

    /// Vehicles, in world order.
    pub fn vehicles(&self) -> &[VehicleState] {
        &self.vehicles
    }

    /// Blocks, in world order.
    pub fn blocks(&self) -> &[BlockState] {
        &self.blocks
    }

    /// The object a name stands for.
    pub fn find(&self, name: &str) -> Option<ObjectRef> {
        self.names.get(name).copied()
    }

    /// An object's pose.
    pub fn pose(&self, name: &str) -> Option<Pose3> {
        Some(match self.find(name) {
            Some(ObjectRef::Actor(i)) => self.actors[i].pose,
            Some(ObjectRef::Vehicle(i)) => self.vehicles[i].pose,
            Some(ObjectRef::Block(i)) => self.blocks[i].pose,
            // A moving floor, by its element's scene name.
            None => self.floors.pose(name)?,
        })
    }

    /// Advances by one step: vehicles, then actors (path, then gait).
    pub fn step(&mut self) {
        let dt = self.timestep;
        // Keyframed poses are those of the time this step ends at.
        let t = (self.steps + 1) as f64 * dt;
        // Bodies a 2D trajectory placed this step: set on the ground once it is known.
        let mut planar = Vec::new();
        if let Some(mut replay) = self.replay.take() {
            for (object, twist) in replay.commands_due(self.time()) {
                // Names were checked when the replay was set.
                let _ = self.set_twist(object, twist);
            }
            for (object, part, transform) in replay.transforms_at(t) {
                // A planar body: only its x, y and yaw are set; height, pitch and roll stay
                // those of the ground under it (settled below).
                let planar_body = (part.is_none() && replay.is_planar(object))
                    .then(|| self.find(object))
                    .flatten()
                    .map(|o| (o, *self.placement_mut(o).0));
                let _ = self.set_transform(object, part, transform);
                if let Some((o, before)) = planar_body {
                    let pose = self.placement_mut(o).0;
                    (pose.z, pose.pitch, pose.roll) = (before.z, before.pitch, before.roll);
                    planar.push(o);
                }
            }
            self.replay = Some(replay);
        }
        self.contacts.clear();
        if self.steps == 0 {
            self.start_on_ground();
        }
        self.floors.move_to(t);
        let with_floors = floors::WithFloors {
            ground: self.ground.as_ref(),
            floors: &self.floors,
        };
        let ground: &dyn Ground = &with_floors;
        step_bodies(
            (&mut self.vehicles, &self.vehicle_footprints),
            &mut self.blocks,
            &mut self.physics,
            (dt, t),
            ground,
        );
        for object in planar {
            let first_step = self.steps == 0;
            let bodies = (
                &mut self.vehicles[..],
                &mut self.actors[..],
                &mut self.physics,
            );
            vehicles::settle_planar(object, bodies, ground, first_step);
        }
        // (actor, other, where) for everything touching after this step.
        let mut touching: Vec<(usize, String, [f64; 3])> = Vec::new();
        for (index, a) in self.actors.iter_mut().enumerate() {
            let previous_z = a.pose.z;
            a.motion = match (&mut a.controller, a.held) {
                (Some(c), false) => c.step(dt, &mut a.pose),
                _ => Motion::default(),
            };
            if a.follows_ground && !a.held {
                match ground::follow(ground, &a.pose, previous_z) {
                    Ok(z) => a.pose.z = z,
                    Err(rise) => {
                        a.pose.z = previous_z;
                        let point = [a.pose.x, a.pose.y, previous_z + rise];
                        touching.push((index, "ground".into(), point));
                    }
                }
            }
            a.speed = a.motion.speed;
            a.gait.step(dt, a.motion.speed, a.motion.yaw_rate);
        }
        self.find_touches(&mut touching);
        let mut now = HashSet::with_capacity(touching.len());
        for (actor, other, point) in touching {
            let key = (actor, other);
            if !self.touching.contains(&key) {
                self.contacts.push(Contact {
                    time: t,
                    object: self.actors[actor].name.clone(),
                    other: key.1.clone(),
                    point,
                });
            }
            now.insert(key);
        }
        self.touching = now;
        // Where the actors now stand is where their discs push vehicles and blocks to in the
        // next step.
        (self.physics).set_actor_positions(self.actors.iter().map(|a| [a.pose.x, a.pose.y]));
        self.steps += 1;
        self.set_since_step.clear();
    }

    /// Adds every (actor, vehicle or block) pair touching now.
    fn find_touches(&self, out: &mut Vec<(usize, String, [f64; 3])>) {
        for (i, a) in self.actors.iter().enumerate() {
            let (radius, height) = self.actor_capsules[i];
            let p = &a.pose;
            let vehicles = self
                .vehicles
                .iter()
                .zip(&self.vehicle_footprints)
                .map(|(v, f)| (&v.name, &v.pose, Some(f)));
            let blocks = self
                .blocks
                .iter()
                .zip(&self.block_footprints)
                .map(|(b, f)| (&b.name, &b.pose, f.as_ref()));
            for (name, pose, footprint) in vehicles.chain(blocks) {
                if let Some(point) =
                    footprint.and_then(|f| f.touch(pose, p.x, p.y, p.z, radius, height))
                {
                    out.push((i, name.clone(), point));
                }
            }
        }
    }

    /// Steps until the simulated time reaches `t` (to within half a step).
    pub fn run_until(&mut self, t: f64) {
        while self.time() + 0.5 * self.timestep <= t {
            self.step();
        }
    }
}

fn actor_state(a: &Actor, seed: u64) -> Result<ActorState, SimError> {
    let bad = |message: String| SimError::BadActor {
        actor: a.name.clone(),
        message,
    };
    for (what, speed) in [
        ("walking_speed", a.walking_speed),
        ("running_speed", a.running_speed),
    ] {
        if !(speed >= 0.0 && speed.is_finite()) {
            return Err(bad(format!(
                "{what} must be a non-negative number of m/s, not {speed}"
            )));
        }
    }
    if let Some(rate) = a.turning_rate
        && !(rate > 0.0 && rate.is_finite())
    {
        return Err(bad(format!(
            "turning_rate must be positive (or 0 to disable it), not {rate}"
        )));
    }
    let gaits = Gaits {
        walk: a.walking_speed,
        run: a.running_speed,
        turning_rate: a.turning_rate,
    };
    let mut pose = a.common.init_pose;
    let controller: Option<Box<dyn Controller>> = match (&a.path, &a.behavior) {
        (Some(path), _) if !path.waypoints.is_empty() => {
            Some(Box::new(PathFollower::new(path, pose, gaits)))
        }
        (_, Some(Behavior::Walker { duration, speed })) => {
            Some(Box::new(Walker::new(pose, *duration, *speed)))
        }
        (_, Some(Behavior::Straight { speed })) => Some(Box::new(Straight { speed: *speed })),
        (_, Some(Behavior::Circle { speed, radius })) => {
            let (circle, start) = Circle::new(pose, *radius, *speed);
            pose = start;
            Some(Box::new(circle))
        }
        (_, Some(Behavior::Wander { speed, radius })) => {
            let region = Region::Disc([pose.x, pose.y], *radius);
            Some(Box::new(Wander::new(pose, region, *speed, gaits, seed)))
        }
        (_, Some(Behavior::WanderInBox { speed, min, max })) => {
            let region = Region::Box(*min, *max);
            Some(Box::new(Wander::new(pose, region, *speed, gaits, seed)))
        }
        (_, Some(Behavior::Waypoints { speed, points })) => {
            if let Some(&[x, y]) = points.first() {
                (pose.x, pose.y) = (x, y);
            }
            Some(Box::new(MavsWaypoints::new(points.clone(), *speed)))
        }
        _ => a
            .common
            .keyframes
            .clone()
            .map(|k| Box::new(Keyframed::new(pose, k)) as Box<dyn Controller>),
    };
    Ok(ActorState {
        name: a.name.clone(),
        pose,
        speed: 0.0,
        held: false,
        external: External::default(),
        follows_ground: !a.common.init_pose_is_3d
            && !a.common.skip_elevation_adjust
            && !a
                .path
                .as_ref()
                .is_some_and(|p| p.waypoints.iter().any(|w| w.is_3d)),
        controller,
        gait: GaitMachine::new(a),
        motion: Motion::default(),
    })
}

/// A generator seed for object `index` under the run's seed (SplitMix64 of both), so objects
/// draw independently and adding one does not change another's draws.
fn object_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
