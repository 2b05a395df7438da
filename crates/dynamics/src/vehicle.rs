//! One vehicle's drive: its wheels, controller and friction, and how a step turns them into
//! forces on its body (MVSim's `VehicleBase::simul_pre_timestep` / `simul_post_timestep`).
//!
//! Owns: wheel spin, steering, the controller's state, wheel odometry. Must not touch: the
//! physics world (the caller applies the forces this computes and integrates).

use crate::controllers::{ControlInput, Controller, Geometry, Twist, front_wheel_angles};
use crate::drivetrain::Drivetrain;
use crate::friction::{FrictionInput, FrictionModel, WheelContact};
use passerby_world::{DynamicsClass, PropertyValue, Vehicle, World, WorldElement};

/// A wheel as it turns.
#[derive(Clone, Debug, PartialEq)]
pub struct WheelState {
    /// Position in the vehicle frame, metres.
    pub x: f64,
    /// Metres.
    pub y: f64,
    /// Steering angle, radians.
    pub yaw: f64,
    /// kg.
    pub mass: f64,
    /// Metres.
    pub diameter: f64,
    /// Metres.
    pub width: f64,
    /// Moment of inertia about the axle (MVSim: m r² / 2 unless given).
    pub iyy: f64,
    /// Spin, rad/s (positive rolls forwards).
    pub spin: f64,
    /// Rotation about the axle, radians.
    pub angle: f64,
    /// MVSim's wheel log of the last step, column by column (MVSim's names), when the drive
    /// traces ([`Drive::trace_wheels`]); empty otherwise.
    pub trace: Vec<(&'static str, f64)>,
}

/// Friction overrides on the floor: the world's `property_region`s named `friction_mu` and
/// `friction_C_rr` with a `value_double`. As MVSim's `getPropertyAt`, the first region (in world
/// order) whose box holds the point (at z = 0, bounds included) gives the value.
#[derive(Clone, Debug, Default)]
pub struct FrictionZones {
    /// (is μ, not C_rr; value; x_min, x_max, y_min, y_max, z_min, z_max).
    zones: Vec<(bool, f64, [f64; 6])>,
}

impl FrictionZones {
    /// The zones of a world.
    pub fn of(world: &World) -> FrictionZones {
        let zones = (world.elements.iter())
            .filter_map(|e| match &e.element {
                WorldElement::PropertyRegion(r) => match (&r.value, r.property_name.as_str()) {
                    (PropertyValue::Double(v), "friction_mu") => Some((true, *v, r.bounds)),
                    (PropertyValue::Double(v), "friction_C_rr") => Some((false, *v, r.bounds)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        FrictionZones { zones }
    }

    /// The (μ, C_rr) overrides at a point of the floor, if any.
    pub fn at(&self, x: f64, y: f64) -> (Option<f64>, Option<f64>) {
        let inside = |b: &[f64; 6]| {
            (b[0]..=b[1]).contains(&x) && (b[2]..=b[3]).contains(&y) && (b[4]..=b[5]).contains(&0.0)
        };
        let first = |mu: bool| {
            (self.zones.iter())
                .find(|(is_mu, _, b)| *is_mu == mu && inside(b))
                .map(|z| z.1)
        };
        (first(true), first(false))
    }
}

/// Where gravity pulls a vehicle on a slope: the world's down direction in the vehicle frame
/// (MVSim's `slopeDir_`; (0, 0, -1) on the level) and the pitch, for feed-forward.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slope {
    /// x and y of the down direction in the vehicle frame.
    pub down: [f64; 2],
    /// Pitch, radians (MRPT's: negative nose up).
    pub pitch: f64,
}

impl Slope {
    /// The slope of a vehicle standing at this pitch and roll.
    pub fn of(pitch: f64, roll: f64) -> Slope {
        // Rᵀ (0, 0, -1) for R = Rz(yaw) Ry(pitch) Rx(roll): minus R's third row.
        Slope {
            down: [pitch.sin(), -pitch.cos() * roll.sin()],
            pitch,
        }
    }
}

impl Default for Slope {
    fn default() -> Slope {
        Slope {
            down: [0.0, 0.0],
            pitch: 0.0,
        }
    }
}

/// A vehicle's drive train.
#[derive(Clone, Debug)]
pub struct Drive {
    /// Wheels in the class's order (differential: l, r[, caster] or lr, rr, lf, rf;
    /// Ackermann: rl, rr, fl, fr).
    pub wheels: Vec<WheelState>,
    /// Its controller.
    pub controller: Controller,
    friction: FrictionModel,
    ackermann: bool,
    /// `ackermann_drivetrain`: how the one motor torque is shared.
    drivetrain: Option<Drivetrain>,
    geometry: Geometry,
    chassis_mass: f64,
    /// Friction force of each wheel in the last step, in the vehicle frame, N.
    pub wheel_forces: Vec<[f64; 2]>,
    /// Whether each step writes its wheels' [`WheelState::trace`] (MVSim's wheel logs).
    pub trace_wheels: bool,
}

/// MVSim's default chassis outlines (`VehicleDifferential.cpp`, `VehicleAckermann.cpp`).
pub fn chassis_outline(v: &Vehicle) -> Vec<[f64; 2]> {
    if let Some(shape) = &v.dynamics.chassis.shape {
        return shape.clone();
    }
    match v.dynamics.class {
        DynamicsClass::Ackermann | DynamicsClass::AckermannDrivetrain => vec![
            [-0.8, -1.0],
            [-0.8, 1.0],
            [1.5, 0.9],
            [1.8, 0.8],
            [1.8, -0.8],
            [1.5, -0.9],
        ],
        _ => vec![
            [-0.4, -0.5],
            [-0.4, 0.5],
            [0.4, 0.5],
            [0.6, 0.3],
            [0.6, -0.3],
            [0.4, -0.5],
        ],
    }
}

impl Drive {
    /// The drive of `v`.
    pub fn new(v: &Vehicle) -> Drive {
        let d = &v.dynamics;
        let ackermann = matches!(
            d.class,
            DynamicsClass::Ackermann | DynamicsClass::AckermannDrivetrain
        );
        let wheels: Vec<WheelState> = (d.wheels.iter())
            .map(|w| WheelState {
                x: w.pose.x,
                y: w.pose.y,
                yaw: w.pose.yaw,
                mass: w.mass,
                diameter: w.diameter,
                width: w.width,
                iyy: (w.inertia)
                    .unwrap_or(w.mass * 0.25 * w.diameter * w.diameter * 0.5)
                    .max(1e-9),
                spin: 0.0,
                angle: 0.0,
                trace: Vec::new(),
            })
            .collect();
        let wheel = |i: usize| wheels.get(i).map_or([0.0, 0.0], |w| [w.x, w.y]);
        let geometry = if ackermann {
            // rl, rr, fl, fr.
            let (rl, fl, fr) = (wheel(0), wheel(2), wheel(3));
            Geometry {
                track: fl[1] - fr[1],
                wheelbase: fl[0] - rl[0],
                front_left: fl,
                max_steer: d.max_steer_ang.unwrap_or(30f64.to_radians()),
            }
        } else {
            Geometry {
                track: wheel(0)[1] - wheel(1)[1],
                wheelbase: 0.0,
                front_left: [0.0, 0.0],
                max_steer: 0.0,
            }
        };
        let [vx, vy, w] = v.common.init_vel;
        let initial = (vx != 0.0 || vy != 0.0 || w != 0.0).then_some([vx, vy, w]);
        Drive {
            controller: Controller::new(&d.controller, d.class, initial),
            drivetrain: (d.class == DynamicsClass::AckermannDrivetrain).then(|| {
                let (kind, params) = match &d.drivetrain {
                    Some(t) => (t.kind.as_str(), t.params.clone()),
                    None => ("", Default::default()),
                };
                Drivetrain::new(kind, &params)
            }),
            friction: FrictionModel::of(&v.friction),
            ackermann,
            geometry,
            chassis_mass: d.chassis.mass,
            wheel_forces: vec![[0.0; 2]; wheels.len()],
            trace_wheels: false,
            wheels,
        }
    }

    /// The vehicle's velocity as its wheels' spin gives it (MVSim's
    /// `getVelocityLocalOdoEstimate`: the first two wheels, the rear ones of an Ackermann).
    pub fn odometry_twist(&self) -> Twist {
        let (Some(l), Some(r)) = (self.wheels.first(), self.wheels.get(1)) else {
            return [0.0; 3];
        };
        let across = l.y - r.y;
        if across == 0.0 {
            return [0.0; 3];
        }
        let (vl, vr) = (l.spin * l.diameter * 0.5, r.spin * r.diameter * 0.5);
        let w = (vr - vl) / across;
        [vl + w * l.y, 0.0, w]
    }

    /// The chassis' mass, kg.
    pub fn chassis_mass(&self) -> f64 {
        self.chassis_mass
    }

    /// Whether the controller imposes the twist on the body (no friction forces applied).
    pub fn is_ideal(&self) -> bool {
        self.controller.is_ideal()
    }

    /// Runs the controller and the friction model for a step: the force on the chassis at each
    /// wheel (friction plus gravity's pull on the slope), in the vehicle frame, with the wheel's
    /// position. `velocity` is the reference point's in the vehicle frame; `to_world` maps a
    /// vehicle-frame point to the world's (for friction zones); `gravity` in m/s².
    pub fn forces(
        &mut self,
        dt: f64,
        gravity: f64,
        velocity: Twist,
        slope: &Slope,
        to_world: impl Fn([f64; 2]) -> [f64; 2],
        zones: &FrictionZones,
    ) -> Vec<([f64; 2], [f64; 2])> {
        let n = self.wheels.len();
        let mean_radius =
            self.wheels.iter().map(|w| w.diameter).sum::<f64>() * 0.5 / n.max(1) as f64;
        let input = ControlInput {
            dt,
            odometry_twist: self.odometry_twist(),
            slope_torque: self.chassis_mass * gravity * slope.pitch.sin() * mean_radius / 2.0,
            front_yaws: if self.ackermann && n >= 4 {
                [self.wheels[2].yaw, self.wheels[3].yaw]
            } else {
                [0.0; 2]
            },
        };
        let out = self.controller.step(&self.geometry, self.ackermann, &input);
        let mut torques = vec![0.0; n];
        if self.ackermann {
            if let (Some(d), true) = (&self.drivetrain, n >= 4) {
                let spin = [0, 1, 2, 3].map(|i| self.wheels[i].spin);
                let shares = d.split(spin);
                torques[..4].copy_from_slice(&shares.map(|s| s * out.left));
            } else if n >= 4 {
                (torques[2], torques[3]) = (out.left, out.right);
            }
            if n >= 4 {
                let (fl, fr) = front_wheel_angles(out.steer, &self.geometry);
                (self.wheels[2].yaw, self.wheels[3].yaw) = (fl, fr);
            }
        } else {
            // Left wheels are the even ones (l, lr, lf), right ones the odd (r, rr, rf); a
            // caster (third of three) is not driven.
            for (i, t) in torques.iter_mut().enumerate() {
                if !(n == 3 && i == 2) {
                    *t = if i % 2 == 0 { out.left } else { out.right };
                }
            }
        }
        let mass_per_wheel = self.chassis_mass / n.max(1) as f64;
        let [vx, vy, w] = velocity;
        let mut forces = Vec::with_capacity(n);
        for (i, wheel) in self.wheels.iter_mut().enumerate() {
            let [wx, wy] = to_world([wheel.x, wheel.y]);
            let (mu, c_rr) = zones.at(wx, wy);
            let pull = (mass_per_wheel + wheel.mass) * gravity;
            let slope_force = [slope.down[0] * pull, slope.down[1] * pull];
            let input = FrictionInput {
                dt,
                gravity,
                motor_torque: torques[i],
                load: mass_per_wheel * gravity,
                velocity: [vx - w * wheel.y, vy + w * wheel.x],
                slope_force,
                mu,
                c_rr,
            };
            let contact = WheelContact {
                yaw: wheel.yaw,
                mass: wheel.mass,
                diameter: wheel.diameter,
                iyy: wheel.iyy,
            };
            let mut trace = std::mem::take(&mut wheel.trace);
            trace.clear();
            let traced = self.trace_wheels.then_some(&mut trace);
            let force = (self.friction).evaluate_traced(&input, &contact, &mut wheel.spin, traced);
            if self.trace_wheels {
                // The columns MVSim's vehicle adds to its friction model's.
                trace.extend([
                    ("wheel_pos_x", wheel.x),
                    ("wheel_pos_y", wheel.y),
                    ("torque", input.motor_torque),
                    ("force_z", input.load),
                    ("velocity_x", input.velocity[0]),
                    ("velocity_y", input.velocity[1]),
                    ("friction_x", force[0]),
                    ("friction_y", force[1]),
                ]);
            }
            wheel.trace = trace;
            self.wheel_forces[i] = force;
            let total = [force[0] + slope_force[0], force[1] + slope_force[1]];
            forces.push((total, [wheel.x, wheel.y]));
        }
        forces
    }

    /// After the step: the wheels turn by their spin.
    pub fn turn_wheels(&mut self, dt: f64) {
        for w in &mut self.wheels {
            w.angle += w.spin * dt;
            if w.angle.abs() > 1e4 {
                w.angle %= std::f64::consts::TAU;
            }
        }
    }
}
