//! Vehicles and blocks in a step: placed (keyframes, held) or moved by the physics
//! (`passerby-dynamics`), then settled on the ground, with their wheel odometry; and what of a
//! world's obstacles the physics does not have yet.
//!
//! Owns: the step of vehicles and blocks between the simulation and its physics. Must not
//! touch: actors, sensors, geometry beyond the ground.

use crate::contacts::{Footprint, Shape};
use crate::ground::{self, Ground};
use crate::{BlockState, VehicleState, keyframes, path};
use crate::{ObjectRef, SimError};
use glam::DVec3;
use passerby_dynamics::{Physics, Slope};
use passerby_world::{Pose3, World};

/// Keeps the odometry multipliers' random stream apart from the actors' (same seed, index).
pub(crate) const ODOMETRY_STREAM: u64 = 0x0D0_3E72_0000_0000;

/// The odometry multipliers of a vehicle: those given, the others drawn from N(1, 0.02²) as
/// MVSim's `OdometryNoise` does (there from an unseeded generator; here from `seed`), their
/// errors (distance from 1) times `noise_scale` (`--noise-scale`; 0: exact odometry).
pub(crate) fn odometry_multipliers(
    given: &[Option<f64>; 3],
    seed: u64,
    noise_scale: f64,
) -> [f64; 3] {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    given.map(|g| {
        // Box-Muller: both uniforms drawn whether or not the value is given, so one axis's
        // setting does not change another's draw.
        let (u1, u2) = (1.0 - rng.random::<f64>(), rng.random::<f64>());
        let normal = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let multiplier = g.unwrap_or(1.0 + 0.02 * normal);
        if noise_scale == 1.0 {
            multiplier
        } else {
            1.0 + noise_scale * (multiplier - 1.0)
        }
    })
}

/// Adds to `odometry` the planar increment from `before` to `after`, scaled per axis (MVSim's
/// `odometry_ += noise.actualDeltaToNoisyOdo(now - before)`).
fn accumulate_odometry(odometry: &mut [f64; 3], before: &Pose3, after: &Pose3, k: [f64; 3]) {
    let (s, c) = before.yaw.sin_cos();
    let (dx, dy) = (after.x - before.x, after.y - before.y);
    let local = [
        c * dx + s * dy,
        -s * dx + c * dy,
        path::wrap(after.yaw - before.yaw),
    ];
    let step = [local[0] * k[0], local[1] * k[1], local[2] * k[2]];
    let (s, c) = odometry[2].sin_cos();
    odometry[0] += c * step[0] - s * step[1];
    odometry[1] += s * step[0] + c * step[1];
    odometry[2] = path::wrap(odometry[2] + step[2]);
}

/// What of a world's obstacles vehicles do not collide with yet, one line each.
pub(crate) fn contact_notices(world: &World) -> Vec<String> {
    use passerby_world::WallSource;
    let mut notices = Vec::new();
    if (world.walls.iter()).any(|w| matches!(w.source, WallSource::Model(_))) {
        notices.push(
            "walls from model files are not read (the engine reads them): vehicles pass through"
                .into(),
        );
    }
    notices
}

/// Share of the first wheel's diameter a vehicle climbs in one step (MVSim's
/// `maxWorkableStepHeight`).
const CLIMBABLE_STEP: f64 = 0.55;

/// Where the terrain at a vehicle's outline rises more than it can climb (MVSim's collisions
/// due to steep slopes): each vertex of its outline, at 1.05 times its top and in its tilted
/// frame, looks down for the ground; where that is more than [`CLIMBABLE_STEP`] of a wheel's
/// diameter above the mean height under its wheels (when last settled), a square obstacle
/// stands, its half side growing with speed (so a fast vehicle does not pass through), its
/// centre snapped to a grid of that size ([`terrain_step_half_side`]). Returns the centres,
/// world frame.
fn terrain_steps(ground: &dyn Ground, v: &VehicleState, outline: &Footprint) -> Vec<[f64; 2]> {
    let (Some(first), Some(mean)) = (v.wheels.first(), v.wheels_ground) else {
        return Vec::new();
    };
    let half = terrain_step_half_side(v);
    let height = 1.05 * outline.zmax;
    let vertices: Vec<[f64; 2]> = match &outline.shape {
        Shape::Polygon(pts) => pts.clone(),
        // A round chassis: eight points of its rim.
        Shape::Circle(r) => (0..8)
            .map(|k| {
                let (s, c) = (f64::from(k) * std::f64::consts::FRAC_PI_4).sin_cos();
                [r * c, r * s]
            })
            .collect(),
    };
    let (rotation, origin) = (v.pose.rotation(), v.pose.translation());
    let snap = |x: f64| (x / half).round() * half;
    // Only ground higher than the vehicle climbs matters: the probe stops there (a short ray is
    // a cheap one).
    let highest_climbable = mean + CLIMBABLE_STEP * first.diameter;
    vertices
        .iter()
        .filter_map(|&[x, y]| {
            let p = origin + rotation * DVec3::new(x, y, height);
            let depth = p.z - highest_climbable;
            let z = ground.surface_below(p.x, p.y, p.z, depth.max(0.0))?;
            (z > highest_climbable).then(|| [snap(p.x), snap(p.y)])
        })
        .collect()
}

/// The half side of a vehicle's terrain-step obstacles: 1 cm plus 7 cm per m/s (MVSim's).
fn terrain_step_half_side(v: &VehicleState) -> f64 {
    0.01 + 0.07 * v.velocity[0].hypot(v.velocity[1])
}

/// Vehicles and blocks: keyframed and held ones are placed, the others moved by the physics
/// (vehicles driven, dynamic blocks pushed); then vehicles that follow the ground take z,
/// pitch and roll from it; steep terrain at a vehicle's outline stops it. `(dt, t)`: the step
/// and the time it ends at; `outlines`: the vehicles' chassis.
pub(crate) fn step_bodies(
    (vehicles, outlines): (&mut [VehicleState], &[Footprint]),
    blocks: &mut [BlockState],
    physics: &mut Physics,
    (dt, t): (f64, f64),
    ground: &dyn Ground,
) {
    for (i, b) in blocks.iter_mut().enumerate() {
        if let (Some(k), false) = (&b.keyframes, b.held) {
            b.pose = keyframes::pose_at(&b.init_pose, k, t).unwrap_or(b.pose);
        }
        if b.held || b.keyframes.is_some() {
            physics.set_block_pose(i, &b.pose);
        }
    }
    // Odometry counts every move since the last step: driven, keyframed or set from outside.
    let before: Vec<Pose3> = vehicles.iter().map(|v| v.pose).collect();
    let mut driven = Vec::with_capacity(vehicles.len());
    for (i, v) in vehicles.iter_mut().enumerate() {
        if let (Some(k), false) = (&v.keyframes, v.held) {
            v.pose = keyframes::pose_at(&v.init_pose, k, t).unwrap_or(v.pose);
        }
        let placed = v.held || v.keyframes.is_some();
        if placed {
            v.wheels_ground = None;
            physics.set_pose(i, &v.pose);
            physics.stop(i);
        }
        driven.push(!placed);
        let steps = match (placed, v.follows_ground) {
            (false, true) => terrain_steps(ground, v, &outlines[i]),
            _ => Vec::new(),
        };
        physics.set_terrain_steps(i, &steps, terrain_step_half_side(v));
    }
    physics.step(dt, &driven);
    for (i, b) in blocks.iter_mut().enumerate() {
        if let (true, false, Some([x, y, yaw])) =
            (physics.block_is_dynamic(i), b.held, physics.block_pose(i))
        {
            (b.pose.x, b.pose.y, b.pose.yaw) = (x, y, yaw);
        }
    }
    for (i, v) in vehicles.iter_mut().enumerate() {
        v.in_collision = physics.in_collision(i);
        let drive = physics.drive(i);
        v.odometry_twist = drive.odometry_twist();
        if drive.trace_wheels {
            v.wheel_logs.resize(drive.wheels.len(), Vec::new());
            for (log, wheel) in v.wheel_logs.iter_mut().zip(&drive.wheels) {
                log.clone_from(&wheel.trace);
            }
        }
        if !driven[i] {
            v.velocity = [0.0; 3];
            accumulate_odometry(&mut v.odometry, &before[i], &v.pose, v.odometry_multipliers);
            continue;
        }
        let [x, y, yaw] = physics.pose(i);
        (v.pose.x, v.pose.y, v.pose.yaw) = (x, y, yaw);
        v.velocity = physics.velocity(i);
        if v.follows_ground {
            (v.pose, v.wheels_ground) = ground::settle_vehicle(ground, &v.wheels, &v.pose);
            physics.set_slope(i, Slope::of(v.pose.pitch, v.pose.roll));
        }
        accumulate_odometry(&mut v.odometry, &before[i], &v.pose, v.odometry_multipliers);
    }
}

impl crate::Simulation {
    /// Gives a block or a vehicle's chassis the outline its visual has (`<shape_from_visual/>`),
    /// in its own frame, once the models are loaded: what contacts use from then on.
    pub fn set_outline(&mut self, name: &str, outline: &[[f64; 2]]) -> Result<(), SimError> {
        let shape = passerby_dynamics::Shape::Polygon(outline.to_vec());
        match self.find(name) {
            Some(ObjectRef::Block(i)) => {
                self.physics.set_block_shape(i, &shape);
                if let Some(f) = &mut self.block_footprints[i] {
                    *f = f.with_shape(shape);
                }
            }
            Some(ObjectRef::Vehicle(i)) => {
                self.physics.set_chassis_outline(i, outline);
                let f = &mut self.vehicle_footprints[i];
                *f = f.with_shape(shape);
            }
            Some(ObjectRef::Actor(_)) => return Err(SimError::NotAVehicle(name.into())),
            None => return Err(SimError::UnknownObject(name.into())),
        }
        if self.outlines_pending.remove(name) {
            self.notices.retain(|n| !n.contains("<shape_from_visual/>"));
            self.notices.extend(self.pending_outline_notice());
        }
        Ok(())
    }

    /// The notice about outlines still waiting for their visual's, if any.
    pub(crate) fn pending_outline_notice(&self) -> Option<String> {
        let pending = self.outlines_pending.len();
        (pending > 0).then(|| {
            format!(
                "{pending} block(s) or chassis take their outline from their visual \
                 (`<shape_from_visual/>`) and have none yet: a 1 m square or the class's default \
                 outline collides instead"
            )
        })
    }

    /// Makes each step keep a vehicle's wheel logs ([`VehicleState::wheel_logs`]: MVSim's
    /// per-wheel CSV columns) from the next step on.
    pub fn trace_wheels(&mut self, vehicle: usize) {
        if vehicle < self.physics.len() {
            self.physics.drive_mut(vehicle).trace_wheels = true;
        }
    }

    /// A vehicle's drive: its wheels (spin, steering) and controller.
    pub fn vehicle_drive(&self, vehicle: usize) -> &passerby_dynamics::Drive {
        self.physics.drive(vehicle)
    }

    /// A vehicle's velocity as its wheels' spin estimates it (vx, vy, omega in its frame).
    pub fn vehicle_odometry_twist(&self, vehicle: usize) -> [f64; 3] {
        self.physics.drive(vehicle).odometry_twist()
    }
}

/// Settles an object a 2D trajectory placed (x, y and yaw set) on the ground under it, as when
/// it moves on its own: a vehicle on its wheels' contacts (its slope given to the physics), an
/// actor on the ground below it. Blocks do not follow the ground.
pub(crate) fn settle_planar(
    object: ObjectRef,
    (vehicles, actors, physics): (&mut [VehicleState], &mut [crate::ActorState], &mut Physics),
    ground: &dyn Ground,
    first_step: bool,
) {
    match object {
        ObjectRef::Vehicle(i) => {
            let v = &mut vehicles[i];
            if first_step {
                v.pose.z = ground::start_height(ground, &v.pose);
            }
            (v.pose, v.wheels_ground) = ground::settle_vehicle(ground, &v.wheels, &v.pose);
            physics.set_slope(i, Slope::of(v.pose.pitch, v.pose.roll));
        }
        ObjectRef::Actor(i) => {
            let a = &mut actors[i];
            a.pose.z = if first_step {
                ground::start_height(ground, &a.pose)
            } else {
                ground::follow(ground, &a.pose, a.pose.z).unwrap_or(a.pose.z)
            };
        }
        ObjectRef::Block(_) => {}
    }
}
