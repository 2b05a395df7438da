//! Vehicle dynamics as MVSim has them: each vehicle a planar rigid body (its chassis and wheels
//! as one body, as MVSim builds it in Box2D), pushed at each wheel by a friction model driven
//! by the wheel's motor torque, which a controller sets from the velocity command.
//!
//! The rigid-body part is `rapier2d` (f64, `enhanced-determinism`: the same inputs give the
//! same bits on every run and machine), with zero gravity in its plane like MVSim's Box2D
//! world; bodies are integrated as Box2D does (semi-implicit Euler about the centre of mass,
//! damping as `v / (1 + dt·c)`).
//!
//! Owns: bodies, wheels, controllers, friction. Must not touch: actors, sensors, the scene,
//! elevation (the simulation sets z, pitch and roll from the ground after each step).
//!
//! Modules: `pid.rs` (MVSim's PID), `controllers.rs`, `friction.rs`, `vehicle.rs` (a vehicle's
//! drive: from command to forces).

pub mod controllers;
pub mod friction;
pub mod pid;
pub mod vehicle;

use controllers::Twist;
use passerby_world::{Pose3, Vehicle};
use rapier2d_f64::prelude::*;
pub use vehicle::{Drive, FrictionZones, NoZones, WheelState, chassis_outline};

/// One vehicle in the physics world.
struct Body {
    handle: RigidBodyHandle,
    drive: Drive,
    /// Velocity of the reference point in the world frame (MVSim's `dq_`).
    velocity: Twist,
}

/// The planar physics of every vehicle in a world.
pub struct Physics {
    world: PhysicsWorld,
    bodies: Vec<Body>,
    gravity: f64,
}

impl std::fmt::Debug for Physics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Physics")
            .field("vehicles", &self.bodies.len())
            .finish()
    }
}

/// Box2D's polygon skin, which MVSim keeps: contacts start 2.5 mm out.
const SKIN: f64 = 2.5e-3;

fn vector([x, y]: [f64; 2]) -> Vector {
    Vector::new(x, y)
}

fn rotate([x, y]: [f64; 2], angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * x - s * y, s * x + c * y]
}

impl Physics {
    /// The vehicles of a world, in its order, at their initial poses; `gravity` in m/s².
    pub fn new<'a>(vehicles: impl IntoIterator<Item = &'a Vehicle>, gravity: f64) -> Physics {
        let mut world = PhysicsWorld::new();
        world.gravity = Vector::ZERO;
        let mut bodies = Vec::new();
        for v in vehicles {
            let p = &v.common.init_pose;
            let [vx, vy, w] = v.common.init_vel;
            let velocity = [vx, vy, w];
            let body = RigidBodyBuilder::dynamic()
                .pose(Pose::new(Vector::new(p.x, p.y), p.yaw))
                .linear_damping(v.dynamics.chassis.linear_damping)
                .angular_damping(v.dynamics.chassis.angular_damping)
                .can_sleep(false)
                .build();
            let handle = world.bodies.insert(body);
            let outline: Vec<Vector> = chassis_outline(v).into_iter().map(vector).collect();
            let chassis = ColliderBuilder::convex_hull(&outline)
                .unwrap_or_else(|| ColliderBuilder::cuboid(0.3, 0.3));
            let area = chassis.shape.mass_properties(1.0).mass().max(1e-9);
            world.colliders.insert_with_parent(
                chassis
                    .density(v.dynamics.chassis.mass / area)
                    .friction(0.0)
                    .restitution(0.01)
                    .contact_skin(SKIN),
                handle,
                &mut world.bodies,
            );
            for wheel in &v.dynamics.wheels {
                let (hx, hy) = (0.5 * wheel.diameter, 0.5 * wheel.width);
                world.colliders.insert_with_parent(
                    ColliderBuilder::cuboid(hx, hy)
                        .position(Pose::new(
                            Vector::new(wheel.pose.x, wheel.pose.y),
                            wheel.pose.yaw,
                        ))
                        .density(wheel.mass / (4.0 * hx * hy).max(1e-9))
                        .friction(0.5)
                        .restitution(0.05),
                    handle,
                    &mut world.bodies,
                );
            }
            let mut body = Body {
                handle,
                drive: Drive::new(v),
                velocity: [0.0; 3],
            };
            set_reference_velocity(&mut world.bodies, &mut body, velocity, p.yaw);
            bodies.push(body);
        }
        Physics {
            world,
            bodies,
            gravity,
        }
    }

    /// Number of vehicles.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// A vehicle's drive (wheels, controller).
    pub fn drive(&self, vehicle: usize) -> &Drive {
        &self.bodies[vehicle].drive
    }

    /// A vehicle's drive, to command it.
    pub fn drive_mut(&mut self, vehicle: usize) -> &mut Drive {
        &mut self.bodies[vehicle].drive
    }

    /// A vehicle's planar pose: x, y, yaw.
    pub fn pose(&self, vehicle: usize) -> [f64; 3] {
        let body = &self.world.bodies[self.bodies[vehicle].handle];
        let t = body.translation();
        [t.x, t.y, body.rotation().angle()]
    }

    /// A vehicle's velocity in its own frame: vx, vy, omega.
    pub fn velocity(&self, vehicle: usize) -> Twist {
        let b = &self.bodies[vehicle];
        let yaw = self.pose(vehicle)[2];
        let [vx, vy] = rotate([b.velocity[0], b.velocity[1]], -yaw);
        [vx, vy, b.velocity[2]]
    }

    /// Moves a vehicle (an external pose or a hold), keeping its velocity.
    pub fn set_pose(&mut self, vehicle: usize, pose: &Pose3) {
        let body = &mut self.world.bodies[self.bodies[vehicle].handle];
        body.set_position(Pose::new(Vector::new(pose.x, pose.y), pose.yaw), true);
    }

    /// Stops a vehicle where it is (held by an external pose).
    pub fn stop(&mut self, vehicle: usize) {
        let b = &mut self.bodies[vehicle];
        let yaw = self.world.bodies[b.handle].rotation().angle();
        set_reference_velocity(&mut self.world.bodies, b, [0.0; 3], yaw);
    }

    /// Advances every vehicle whose `moves` is true by `dt` seconds: controllers, friction,
    /// then the rigid bodies. The others stay where they are set.
    pub fn step(&mut self, dt: f64, moves: &[bool], zones: &dyn FrictionZones) {
        let gravity = self.gravity;
        for (i, b) in self.bodies.iter_mut().enumerate() {
            let body = &mut self.world.bodies[b.handle];
            body.reset_forces(true);
            let moving = moves.get(i).copied().unwrap_or(true);
            body.set_body_type(
                if moving {
                    RigidBodyType::Dynamic
                } else {
                    RigidBodyType::KinematicPositionBased
                },
                true,
            );
            if !moving {
                continue;
            }
            let pose = *body.position();
            let yaw = pose.rotation.angle();
            let [gvx, gvy] = rotate([b.velocity[0], b.velocity[1]], -yaw);
            let local = [gvx, gvy, b.velocity[2]];
            let to_world = |p: [f64; 2]| {
                let q = pose.transform_point(vector(p));
                [q.x, q.y]
            };
            let forces = b.drive.forces(dt, gravity, local, 0.0, to_world, zones);
            if b.drive.is_ideal() {
                continue;
            }
            for (force, at) in forces {
                let f = vector(rotate(force, yaw));
                body.add_force_at_point(f, pose.transform_point(vector(at)), true);
            }
        }
        self.world.integration_parameters.dt = dt;
        self.world.step();
        for (i, b) in self.bodies.iter_mut().enumerate() {
            if !moves.get(i).copied().unwrap_or(true) {
                continue;
            }
            let body = &self.world.bodies[b.handle];
            let yaw = body.rotation().angle();
            // Rapier's linear velocity is its centre of mass's; the reference point's adds
            // omega × (reference − centre).
            let (v, w) = (body.linvel(), body.angvel());
            let r = body.translation() - body.center_of_mass();
            b.velocity = [v.x - w * r.y, v.y + w * r.x, w];
            if let Some(setpoint) = b.drive.controller.setpoint().filter(|_| b.drive.is_ideal()) {
                set_reference_velocity(&mut self.world.bodies, b, setpoint, yaw);
            }
            b.drive.turn_wheels(dt);
        }
    }
}

/// Gives a body the velocity whose reference point moves at `twist` (vehicle frame), as
/// MVSim's `setRefVelocityLocal`.
fn set_reference_velocity(bodies: &mut RigidBodySet, b: &mut Body, twist: Twist, yaw: f64) {
    let body = &mut bodies[b.handle];
    let com = body.local_center_of_mass();
    let [vx, vy, w] = twist;
    let com_velocity = rotate([vx - com.y * w, vy + com.x * w], yaw);
    body.set_linvel(vector(com_velocity), true);
    body.set_angvel(w, true);
    let [gx, gy] = rotate([vx, vy], yaw);
    b.velocity = [gx, gy, w];
}
