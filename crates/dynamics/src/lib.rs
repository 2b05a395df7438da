//! Vehicle dynamics as MVSim has them: each vehicle a planar rigid body (its chassis and wheels
//! as one body, as MVSim builds it in Box2D), pushed at each wheel by a friction model driven
//! by the wheel's motor torque, which a controller sets from the velocity command.
//!
//! The rigid-body part is `rapier2d` (f64, `enhanced-determinism`: the same inputs give the
//! same bits on every run and machine), with zero gravity in its plane like MVSim's Box2D
//! world; bodies are integrated as Box2D does (semi-implicit Euler about the centre of mass,
//! damping as `v / (1 + dt·c)`).
//!
//! Joints (revolute and distance) connect vehicles and blocks: a truck tows its trailer.
//! Walls (`<walls>` polylines, vertical planes) are fixed bodies; blocks are fixed, kinematic
//! (keyframed or held) or dynamic (pushed, held back by MVSim's two friction anchors to the
//! ground); vehicles collide with all of them and with each other, Box2D's way (no friction
//! on the chassis, a little restitution).
//!
//! Owns: bodies, wheels, controllers, friction. Must not touch: actors, sensors, the scene,
//! elevation (the simulation sets z, pitch and roll from the ground after each step).
//!
//! Modules: `pid.rs` (MVSim's PID), `controllers.rs`, `friction.rs`, `vehicle.rs` (a vehicle's
//! drive: from command to forces).

pub mod controllers;
pub mod drivetrain;
pub mod friction;
pub mod pid;
pub mod vehicle;

use controllers::Twist;
use passerby_world::{Block, Joint, JointKind, Pose3, World, WorldElement};
use rapier2d_f64::glamx::I64Vec2;
use rapier2d_f64::prelude::*;
pub use vehicle::{Drive, FrictionZones, Slope, WheelState, chassis_outline};

/// One vehicle in the physics world.
struct Body {
    handle: RigidBodyHandle,
    drive: Drive,
    /// Velocity of the reference point in the world frame (MVSim's `dq_`).
    velocity: Twist,
    /// The ground's slope under it, from the last step.
    slope: Slope,
    /// Touching something, or within the collision threshold of it, after the last step.
    in_collision: bool,
    /// Fixed squares where the terrain rises too steeply at its outline (reused step to step,
    /// disabled when not needed).
    terrain_steps: Vec<ColliderHandle>,
}

/// A 2D outline of a block (or anything placed): a polygon (its convex hull is what collides,
/// as in Box2D) or a circle about the object's origin.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Vertices in order.
    Polygon(Vec<[f64; 2]>),
    /// Radius.
    Circle(f64),
}

impl Shape {
    /// The farthest point from the origin (MVSim's `maxRadius`).
    pub fn reach(&self) -> f64 {
        match self {
            Shape::Circle(r) => *r,
            Shape::Polygon(pts) => pts.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max),
        }
    }

    fn collider(&self) -> ColliderBuilder {
        match self {
            Shape::Circle(r) => ColliderBuilder::ball(r.max(1e-3)),
            Shape::Polygon(pts) => {
                convex_hull(pts).unwrap_or_else(|| ColliderBuilder::ball(self.reach().max(1e-3)))
            }
        }
    }
}

/// A block in the physics world.
struct BlockBody {
    handle: RigidBodyHandle,
    /// Pushed by contacts (not static, not keyframed).
    dynamic: bool,
    mass: f64,
    /// Each of the two ground anchors holds at most this force, N.
    anchor_force: f64,
    /// The anchors' distance from the origin, along x.
    reach: f64,
}

/// The planar physics of a world's vehicles, blocks and walls.
pub struct Physics {
    world: PhysicsWorld,
    bodies: Vec<Body>,
    blocks: Vec<Option<BlockBody>>,
    /// Actors' capsules as kinematic discs: they push vehicles and blocks, nothing pushes them.
    actors: Vec<RigidBodyHandle>,
    gravity: f64,
    collision_threshold: f64,
    zones: FrictionZones,
}

impl std::fmt::Debug for Physics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Physics")
            .field("vehicles", &self.bodies.len())
            .finish()
    }
}

/// Marks a vehicle's body (`user_data`: the tag and the vehicle's index).
const VEHICLE_TAG: u128 = 1 << 127;

/// Box2D's polygon skin, which MVSim keeps: contacts start 2.5 mm out.
const SKIN: f64 = 2.5e-3;

/// The convex hull of `points` as a collider; `None` when they span no area (fewer than three
/// distinct points, or all on one line: parry would panic on those).
fn convex_hull(points: &[[f64; 2]]) -> Option<ColliderBuilder> {
    let finite: Vec<[f64; 2]> = (points.iter().copied())
        .filter(|p| p[0].is_finite() && p[1].is_finite())
        .collect();
    let reach = finite
        .iter()
        .map(|p| p[0].abs().max(p[1].abs()))
        .fold(0.0, f64::max);
    let first = *finite.first()?;
    let far = *finite.iter().max_by(|a, b| {
        let d = |p: &[f64; 2]| (p[0] - first[0]).hypot(p[1] - first[1]);
        d(a).total_cmp(&d(b))
    })?;
    let (ux, uy) = (far[0] - first[0], far[1] - first[1]);
    let length = ux.hypot(uy);
    // Some point must stand off the line through the two farthest apart by more than rounding.
    let off = |p: &[f64; 2]| ((p[0] - first[0]) * uy - (p[1] - first[1]) * ux).abs() / length;
    let tolerance = 1e-9 * reach.max(1.0);
    if length <= tolerance || !finite.iter().any(|p| off(p) > tolerance) {
        return None;
    }
    let points: Vec<Vector> = finite.into_iter().map(vector).collect();
    ColliderBuilder::convex_hull(&points)
}

fn vector([x, y]: [f64; 2]) -> Vector {
    Vector::new(x, y)
}

fn rotate([x, y]: [f64; 2], angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * x - s * y, s * x + c * y]
}

impl Physics {
    /// Sets each vehicle's collision flag (MVSim's `isInCollision`): a vehicle is in collision
    /// when one of its shapes is within the world's `collision_threshold` of another's, measured
    /// now, less both contact skins (the distance rapier keeps with a contact may be an earlier
    /// step's: it recycles contacts that moved little). Each pair the physics found near is
    /// measured once.
    fn update_collision_flags(&mut self) {
        let colliders = &self.world.colliders;
        let bodies = &self.world.bodies;
        let vehicle_of = |c: &Collider| {
            let data = bodies.get(c.parent()?)?.user_data;
            (data & VEHICLE_TAG != 0).then_some((data & !VEHICLE_TAG) as usize)
        };
        let mut flags = vec![false; self.bodies.len()];
        for pair in self.world.narrow_phase.contact_pairs() {
            let (Some(a), Some(b)) = (colliders.get(pair.collider1), colliders.get(pair.collider2))
            else {
                continue;
            };
            let (va, vb) = (vehicle_of(a), vehicle_of(b));
            let settled = |v: Option<usize>| v.is_none_or(|i| flags[i]);
            if settled(va) && settled(vb) || !(a.is_enabled() && b.is_enabled()) {
                continue;
            }
            if self.within_threshold(a, b, pair) {
                for i in [va, vb].into_iter().flatten() {
                    flags[i] = true;
                }
            }
        }
        for (b, flag) in self.bodies.iter_mut().zip(flags) {
            b.in_collision = flag;
        }
    }

    /// Whether two shapes are within the collision threshold, skins aside.
    fn within_threshold(&self, a: &Collider, b: &Collider, pair: &ContactPair) -> bool {
        let measured = (a.shape().is_convex() && b.shape().is_convex())
            .then(|| {
                let (p, q) = (a.position(), b.position());
                rapier2d_f64::parry::query::distance(p, a.shape(), q, b.shape()).ok()
            })
            .flatten();
        match measured {
            Some(d) => d.distance - a.contact_skin() - b.contact_skin() < self.collision_threshold,
            // Composite shapes (a grid's voxels) would be measured cell by cell: the contact's
            // own distance instead.
            None => (pair.manifolds().iter())
                .any(|m| (m.points.iter()).any(|p| p.dist < self.collision_threshold)),
        }
    }

    /// The vehicles, blocks and walls of a world at their initial poses; `block_shapes` are
    /// the blocks' outlines in world order (`None`: intangible).
    pub fn new(world: &World, block_shapes: &[Option<Shape>]) -> Physics {
        let mut physics = Physics {
            world: PhysicsWorld::new(),
            bodies: Vec::new(),
            blocks: Vec::new(),
            actors: Vec::new(),
            gravity: world.params.gravity,
            collision_threshold: world.params.collision_threshold,
            zones: FrictionZones::of(world),
        };
        physics.world.gravity = Vector::ZERO;
        // Contacts are found this far apart: at least as far as the world's collision
        // threshold reaches (MVSim measures that distance itself for every contact it has).
        let reach = world.params.collision_threshold + 2.0 * SKIN;
        let parameters = &mut physics.world.integration_parameters;
        parameters.normalized_prediction_distance =
            (parameters.normalized_prediction_distance).max(reach / parameters.length_unit);
        for v in &world.vehicles {
            physics.add_vehicle(v);
        }
        for (b, shape) in world.blocks.iter().zip(block_shapes) {
            let body = shape.as_ref().map(|s| physics.add_block(b, s));
            physics.blocks.push(body);
        }
        for j in &world.joints {
            physics.add_joint(world, j);
        }
        for a in &world.actors {
            let p = &a.common.init_pose;
            let body = physics.world.bodies.insert(
                RigidBodyBuilder::kinematic_position_based().translation(Vector::new(p.x, p.y)),
            );
            physics.world.colliders.insert_with_parent(
                ColliderBuilder::ball(a.collision_radius.max(0.01)),
                body,
                &mut physics.world.bodies,
            );
            physics.actors.push(body);
        }
        physics.add_occupancy_grids(world);
        let walls = passerby_world::wall_outlines(world);
        if !walls.is_empty() {
            let fixed = physics.world.bodies.insert(RigidBodyBuilder::fixed());
            for w in walls {
                // A wall of zero length spans no area and is left out.
                if let Some(c) = convex_hull(&w.corners) {
                    physics.world.colliders.insert_with_parent(
                        c.friction(0.5).contact_skin(SKIN),
                        fixed,
                        &mut physics.world.bodies,
                    );
                }
            }
        }
        physics
    }

    fn add_vehicle(&mut self, v: &passerby_world::Vehicle) {
        let world = &mut self.world;
        let p = &v.common.init_pose;
        let body = RigidBodyBuilder::dynamic()
            .pose(Pose::new(Vector::new(p.x, p.y), p.yaw))
            .linear_damping(v.dynamics.chassis.linear_damping)
            .angular_damping(v.dynamics.chassis.angular_damping)
            .can_sleep(false)
            .user_data(VEHICLE_TAG | self.bodies.len() as u128)
            .build();
        let handle = world.bodies.insert(body);
        let chassis = Shape::Polygon(chassis_outline(v)).collider();
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
            slope: Slope::default(),
            terrain_steps: Vec::new(),
            in_collision: false,
        };
        set_reference_velocity(&mut world.bodies, &mut body, v.common.init_vel, p.yaw);
        self.bodies.push(body);
    }

    /// A `<joint>` between two vehicles or blocks (MVSim's Box2D revolute or distance joint,
    /// the connected bodies not colliding with each other). One naming nothing with a body is
    /// left out (the loader has reported it).
    fn add_joint(&mut self, world: &World, j: &Joint) {
        let handle = |name: &str| {
            if let Some(i) = world.vehicles.iter().position(|v| v.name == name) {
                return Some(self.bodies[i].handle);
            }
            let i = world.blocks.iter().position(|b| b.name == name)?;
            Some(self.blocks.get(i)?.as_ref()?.handle)
        };
        let (Some(a), Some(b)) = (handle(&j.body_a), handle(&j.body_b)) else {
            return;
        };
        let (anchor_a, anchor_b) = (vector(j.anchor_a), vector(j.anchor_b));
        let joint: GenericJoint = match j.kind {
            JointKind::Revolute => {
                let mut joint = RevoluteJointBuilder::new()
                    .local_anchor1(anchor_a)
                    .local_anchor2(anchor_b)
                    .contacts_enabled(false);
                if j.enable_limit {
                    joint = joint.limits([j.lower_angle, j.upper_angle]);
                }
                let mut joint = joint.build().data;
                // Box2D's reference angle: the limits count from the angle between the bodies
                // as they start.
                let bodies = &self.world.bodies;
                let reference = bodies[b].rotation().angle() - bodies[a].rotation().angle();
                joint.set_local_frame1(Pose::new(anchor_a, reference));
                joint
            }
            JointKind::Distance if j.stiffness > 0.0 => {
                SpringJointBuilder::new(j.max_length, j.stiffness, j.damping)
                    .local_anchor1(anchor_a)
                    .local_anchor2(anchor_b)
                    .contacts_enabled(false)
                    .build()
                    .data
            }
            JointKind::Distance => {
                RopeJointBuilder::new(j.max_length)
                    .local_anchor1(anchor_a)
                    .local_anchor2(anchor_b)
                    .contacts_enabled(false)
                    .build()
                    .data
            }
        };
        self.world.impulse_joints.insert(a, b, joint, true);
    }

    /// Occupied cells of occupancy grids as fixed square voxels (MVSim adds the cells near
    /// each vehicle as Box2D boxes every step; all of them, once, is the same to a vehicle).
    fn add_occupancy_grids(&mut self, world: &World) {
        for e in &world.elements {
            let WorldElement::OccupancyGrid(g) = &e.element else {
                continue;
            };
            let Some(cells) = &g.cells else { continue };
            let keys: Vec<I64Vec2> = (0..cells.rows)
                .flat_map(|row| (0..cells.cols).map(move |col| (col, row)))
                .filter(|&(col, row)| cells.is_occupied(col as i64, row as i64))
                .map(|(col, row)| I64Vec2::new(col as i64, row as i64))
                .collect();
            if keys.is_empty() || cells.resolution <= 0.0 {
                continue;
            }
            let body = self
                .world
                .bodies
                .insert(RigidBodyBuilder::fixed().pose(Pose::new(vector(cells.origin), cells.yaw)));
            let size = Vector::splat(cells.resolution);
            self.world.colliders.insert_with_parent(
                ColliderBuilder::voxels(size, &keys).friction(0.5),
                body,
                &mut self.world.bodies,
            );
        }
    }

    /// Gives a block a new outline (its visual's, once models are loaded), keeping its mass.
    pub fn set_block_shape(&mut self, block: usize, shape: &Shape) {
        let Some(Some(b)) = self.blocks.get(block) else {
            return;
        };
        let (handle, mass) = (b.handle, b.mass);
        self.replace_first_collider(handle, shape, mass);
        if let Some(Some(b)) = self.blocks.get_mut(block) {
            b.reach = shape.reach();
        }
    }

    /// Gives a vehicle's chassis a new outline, keeping its mass.
    pub fn set_chassis_outline(&mut self, vehicle: usize, outline: &[[f64; 2]]) {
        let Some(b) = self.bodies.get(vehicle) else {
            return;
        };
        let (handle, mass) = (b.handle, b.drive.chassis_mass());
        self.replace_first_collider(handle, &Shape::Polygon(outline.to_vec()), mass);
    }

    /// Replaces a body's first collider (its chassis or block shape) by `shape` of `mass`,
    /// with the same friction and restitution.
    fn replace_first_collider(&mut self, handle: RigidBodyHandle, shape: &Shape, mass: f64) {
        let Some(&old) = self.world.bodies[handle].colliders().first() else {
            return;
        };
        let Some(removed) = self.world.colliders.remove(
            old,
            &mut self.world.islands,
            &mut self.world.bodies,
            &mut self.world.soft_bodies,
            true,
        ) else {
            return;
        };
        let collider = shape.collider();
        let area = collider.shape.mass_properties(1.0).mass().max(1e-9);
        self.world.colliders.insert_with_parent(
            collider
                .density(mass / area)
                .friction(removed.friction())
                .restitution(removed.restitution())
                .contact_skin(SKIN),
            handle,
            &mut self.world.bodies,
        );
    }

    /// Moves the actors' discs to where the actors stand (world order), for the next step.
    pub fn set_actor_positions(&mut self, positions: impl IntoIterator<Item = [f64; 2]>) {
        for (&handle, p) in self.actors.iter().zip(positions) {
            self.world.bodies[handle].set_next_kinematic_translation(vector(p));
        }
    }

    fn add_block(&mut self, b: &Block, shape: &Shape) -> BlockBody {
        let p = &b.common.init_pose;
        let dynamic = !b.is_static && b.common.keyframes.is_none();
        let builder = if b.is_static && b.common.keyframes.is_none() {
            RigidBodyBuilder::fixed()
        } else if dynamic {
            RigidBodyBuilder::dynamic().can_sleep(false)
        } else {
            RigidBodyBuilder::kinematic_position_based()
        };
        let handle = self.world.bodies.insert(
            builder
                .pose(Pose::new(Vector::new(p.x, p.y), p.yaw))
                .linear_damping(b.linear_damping)
                .angular_damping(b.angular_damping),
        );
        let collider = shape.collider();
        let area = collider.shape.mass_properties(1.0).mass().max(1e-9);
        self.world.colliders.insert_with_parent(
            collider
                .density(b.mass / area)
                .friction(b.lateral_friction)
                .restitution(b.restitution)
                .contact_skin(SKIN),
            handle,
            &mut self.world.bodies,
        );
        BlockBody {
            handle,
            dynamic,
            mass: b.mass,
            anchor_force: b.ground_friction * b.mass * self.gravity / 2.0,
            reach: shape.reach(),
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

    /// A block's planar pose (x, y, yaw); `None` if it is intangible.
    pub fn block_pose(&self, block: usize) -> Option<[f64; 3]> {
        let b = self.blocks.get(block)?.as_ref()?;
        let body = &self.world.bodies[b.handle];
        let t = body.translation();
        Some([t.x, t.y, body.rotation().angle()])
    }

    /// Whether a block is pushed around by contacts.
    pub fn block_is_dynamic(&self, block: usize) -> bool {
        matches!(self.blocks.get(block), Some(Some(b)) if b.dynamic)
    }

    /// Places a block (keyframes, an external pose); a dynamic one stops there.
    pub fn set_block_pose(&mut self, block: usize, pose: &Pose3) {
        let Some(Some(b)) = self.blocks.get(block) else {
            return;
        };
        let body = &mut self.world.bodies[b.handle];
        let to = Pose::new(Vector::new(pose.x, pose.y), pose.yaw);
        if body.is_kinematic() {
            body.set_next_kinematic_position(to);
        } else {
            body.set_position(to, true);
            body.set_linvel(Vector::ZERO, true);
            body.set_angvel(0.0, true);
        }
    }

    /// Whether a vehicle touches something, or comes within the world's
    /// `collision_threshold` of it (MVSim's `isInCollision`), after the last step.
    pub fn in_collision(&self, vehicle: usize) -> bool {
        self.bodies[vehicle].in_collision
    }

    /// Places the terrain steps a vehicle's outline meets (MVSim's obstacles from steep
    /// slopes): a fixed square of half-side `half` centred at each of `centres` (world frame),
    /// for its next step. Those of the last step are removed.
    pub fn set_terrain_steps(&mut self, vehicle: usize, centres: &[[f64; 2]], half: f64) {
        let half = half.max(1e-3);
        let pool = &mut self.bodies[vehicle].terrain_steps;
        while pool.len() < centres.len() {
            // MVSim's steps: Box2D's 1 mm skin, friction 0.5, restitution 0.1.
            let square = ColliderBuilder::cuboid(half, half)
                .friction(0.5)
                .restitution(0.1)
                .contact_skin(1e-3)
                .enabled(false);
            pool.push(self.world.colliders.insert(square));
        }
        for (k, &handle) in pool.iter().enumerate() {
            let collider = &mut self.world.colliders[handle];
            let Some(&centre) = centres.get(k) else {
                if collider.is_enabled() {
                    collider.set_enabled(false);
                }
                continue;
            };
            if collider.shape().as_cuboid().map(|c| c.half_extents.x) != Some(half) {
                collider.set_shape(SharedShape::cuboid(half, half));
            }
            collider.set_translation(vector(centre));
            collider.set_enabled(true);
        }
    }

    /// Sets the slope a vehicle stands on (from the ground under its wheels), for its next
    /// steps.
    pub fn set_slope(&mut self, vehicle: usize, slope: Slope) {
        self.bodies[vehicle].slope = slope;
    }

    /// Advances every vehicle whose `moves` is true by `dt` seconds: controllers, friction,
    /// then the rigid bodies. The others stay where they are set.
    pub fn step(&mut self, dt: f64, moves: &[bool]) {
        let zones = &self.zones;
        let gravity = self.gravity;
        for (i, b) in self.bodies.iter_mut().enumerate() {
            let body = &mut self.world.bodies[b.handle];
            body.reset_forces(true);
            let moving = moves.get(i).copied().unwrap_or(true);
            let wanted = if moving {
                RigidBodyType::Dynamic
            } else {
                RigidBodyType::KinematicPositionBased
            };
            // Changing the type makes rapier update the body's bookkeeping: only on a change.
            if body.body_type() != wanted {
                body.set_body_type(wanted, true);
            }
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
            let forces = b
                .drive
                .forces(dt, gravity, local, &b.slope, to_world, zones);
            if b.drive.is_ideal() {
                continue;
            }
            for (force, at) in forces {
                let f = vector(rotate(force, yaw));
                body.add_force_at_point(f, pose.transform_point(vector(at)), true);
            }
        }
        self.hold_blocks_to_the_ground(dt);
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
        self.update_collision_flags();
    }
}

impl Physics {
    /// MVSim's two friction joints between a dynamic block and the ground, at (±reach, 0): each
    /// cancels its point's velocity with at most μ m g / 2. Here as forces that would stop half
    /// the block's mass at the point within the step.
    fn hold_blocks_to_the_ground(&mut self, dt: f64) {
        for b in self.blocks.iter().flatten().filter(|b| b.dynamic) {
            let body = &mut self.world.bodies[b.handle];
            body.reset_forces(true);
            let pose = *body.position();
            let (v, w, com) = (body.linvel(), body.angvel(), body.center_of_mass());
            for x in [b.reach, -b.reach] {
                let at = pose.transform_point(Vector::new(x, 0.0));
                let r = at - com;
                let velocity = Vector::new(v.x - w * r.y, v.y + w * r.x);
                let mut force = velocity * (-0.5 * b.mass / dt);
                let size = force.length();
                if size > b.anchor_force {
                    force *= b.anchor_force / size;
                }
                body.add_force_at_point(force, at, true);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outlines_without_area_make_no_hull_instead_of_a_panic() {
        assert!(convex_hull(&[]).is_none());
        assert!(convex_hull(&[[1.0, 1.0]; 4]).is_none());
        assert!(convex_hull(&[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [0.5, 0.5]]).is_none());
        assert!(convex_hull(&[[0.0, 0.0], [f64::NAN, 1.0], [2.0, 0.0]]).is_none());
        assert!(convex_hull(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]).is_some());
        // A polygon that collapses to a segment falls back to a disc.
        let shape = Shape::Polygon(vec![[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]);
        assert!(shape.collider().shape.as_ball().is_some());
    }
}
