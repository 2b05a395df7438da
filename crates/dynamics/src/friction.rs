//! MVSim's wheel-ground friction models (`FrictionModels/*.cpp`): given a wheel's motor torque,
//! load and velocity, the force the ground puts on the chassis at that wheel, and the wheel's
//! new spin. Each decouples the lateral problem (an impulse that cancels sideways slip) from the
//! longitudinal one (the torque balance of the wheel), each bounded by what the contact holds.
//!
//! Owns: the three models and their parameters. Must not touch: bodies, controllers.

use passerby_world::Friction;

/// One wheel's state as friction needs it.
#[derive(Clone, Copy, Debug)]
pub struct WheelContact {
    /// Steering angle of the wheel in the vehicle frame, radians.
    pub yaw: f64,
    /// kg.
    pub mass: f64,
    /// Metres.
    pub diameter: f64,
    /// Moment of inertia about the axle, kg m².
    pub iyy: f64,
}

/// What the model is evaluated on.
#[derive(Clone, Copy, Debug)]
pub struct FrictionInput {
    /// Step, seconds.
    pub dt: f64,
    /// m/s².
    pub gravity: f64,
    /// Motor torque on the wheel, N m, positive forwards.
    pub motor_torque: f64,
    /// Weight of the chassis on this wheel, N.
    pub load: f64,
    /// Velocity of the wheel's centre in the vehicle frame, m/s.
    pub velocity: [f64; 2],
    /// Gravity's downhill pull on this wheel's share, in the vehicle frame, N.
    pub slope_force: [f64; 2],
    /// A friction zone's `friction_mu`, overriding the model's.
    pub mu: Option<f64>,
    /// A friction zone's `friction_C_rr`.
    pub c_rr: Option<f64>,
}

/// A friction model with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum FrictionModel {
    /// `default`: Coulomb-limited.
    #[allow(missing_docs)]
    Default { mu: f64, c_damping: f64, c_rr: f64 },
    /// `wardiagnemma`: the default plus Ward and Iagnemma's velocity-dependent rolling
    /// resistance.
    #[allow(missing_docs)]
    WardIagnemma {
        mu: f64,
        c_damping: f64,
        c_rr: f64,
        a_roll: f64,
        r1: f64,
        r2: f64,
    },
    /// `ellipse`: force limits from the friction ellipse of slip angle and slip ratio.
    #[allow(missing_docs)]
    Ellipse {
        c_damping: f64,
        c_rr: f64,
        c_alpha: f64,
        c_s: f64,
        slip_angle_saturation: f64,
        slip_ratio_saturation: f64,
        c_alpha_s: f64,
        c_s_alpha: f64,
    },
}

impl FrictionModel {
    /// The model a `<friction>` asks for, with MVSim's defaults for what it leaves out.
    pub fn of(f: &Friction) -> FrictionModel {
        let p = |name: &str, default: f64| f.params.get(name).copied().unwrap_or(default);
        match f.class.as_str() {
            "wardiagnemma" => FrictionModel::WardIagnemma {
                mu: p("mu", 0.8),
                c_damping: p("C_damping", 0.01),
                c_rr: p("C_rr", 0.0),
                a_roll: p("A_roll", 50.0),
                r1: p("R1", 0.0075),
                r2: p("R2", 0.02),
            },
            "ellipse" => FrictionModel::Ellipse {
                c_damping: p("C_damping", 0.01),
                c_rr: p("C_rr", 0.0),
                c_alpha: p("C_alpha", 8.5),
                c_s: p("C_s", 7.5),
                slip_angle_saturation: p("slip_angle_saturation", 0.1),
                slip_ratio_saturation: p("slip_ratio_saturation", 0.1),
                c_alpha_s: p("C_alpha_s", 0.5),
                c_s_alpha: p("C_s_alpha", 0.5),
            },
            _ => FrictionModel::Default {
                mu: p("mu", 0.8),
                c_damping: p("C_damping", 0.01),
                c_rr: p("C_rr", 0.0),
            },
        }
    }

    /// The ground's force on the chassis at this wheel, in the vehicle frame (N), updating the
    /// wheel's spin `w` (rad/s).
    pub fn evaluate(&self, input: &FrictionInput, wheel: &WheelContact, w: &mut f64) -> [f64; 2] {
        self.evaluate_traced(input, wheel, w, None)
    }

    /// [`FrictionModel::evaluate`], also writing to `trace` the model's own columns of MVSim's
    /// wheel log, by MVSim's names.
    pub fn evaluate_traced(
        &self,
        input: &FrictionInput,
        wheel: &WheelContact,
        w: &mut f64,
        trace: Option<&mut Vec<(&'static str, f64)>>,
    ) -> [f64; 2] {
        let (s, c) = wheel.yaw.sin_cos();
        let to_wheel = |v: [f64; 2]| [c * v[0] + s * v[1], -s * v[0] + c * v[1]];
        let vel = to_wheel(input.velocity);
        let slope = to_wheel(input.slope_force);
        let partial_mass = input.load / input.gravity + wheel.mass;
        let normal = partial_mass * input.gravity;
        let radius = 0.5 * wheel.diameter;
        let (c_damping, c_rr) = match *self {
            FrictionModel::Default {
                c_damping, c_rr, ..
            }
            | FrictionModel::WardIagnemma {
                c_damping, c_rr, ..
            }
            | FrictionModel::Ellipse {
                c_damping, c_rr, ..
            } => (c_damping, input.c_rr.unwrap_or(c_rr)),
        };
        // The lateral and longitudinal bounds on the contact force.
        let (max_lateral, max_longitudinal, slip) = match *self {
            FrictionModel::Default { mu, .. } | FrictionModel::WardIagnemma { mu, .. } => {
                let max = input.mu.unwrap_or(mu) * normal;
                (max, max, None)
            }
            FrictionModel::Ellipse { .. } => {
                let (lateral, longitudinal, slip) =
                    self.ellipse_limits(vel, wheel.yaw, *w, radius, normal);
                (lateral, longitudinal, Some(slip))
            }
        };
        let lateral =
            (-vel[1] * partial_mass / input.dt - slope[1]).clamp(-max_lateral, max_lateral);
        // Spin that rolls without slipping, and the torque balance that would reach it.
        let desired_alpha = (vel[0] / radius - *w) / input.dt;
        let rolling_resistance = if c_rr > 0.0 && w.abs() > 1e-4 {
            c_rr * normal * radius * (*w * 100.0).tanh()
        } else {
            0.0
        };
        let torque = input.motor_torque - c_damping * *w - rolling_resistance;
        let terrain_drag = match *self {
            FrictionModel::WardIagnemma { a_roll, r1, r2, .. } => {
                // MRPT's sign(0) is +1.
                let sign = if vel[0] < 0.0 { -1.0 } else { 1.0 };
                -sign * normal * (r1 * (1.0 - (-a_roll * vel[0].abs()).exp()) + r2 * vel[0].abs())
            }
            _ => 0.0,
        };
        let mut longitudinal = ((torque - wheel.iyy * desired_alpha) / radius + terrain_drag)
            .clamp(-max_longitudinal, max_longitudinal);
        let actual_alpha = (torque - radius * longitudinal) / wheel.iyy;
        // Gravity's pull along the wheel takes what capacity the contact has left.
        let remaining = max_longitudinal - longitudinal.abs();
        longitudinal -= slope[0].clamp(-remaining, remaining);
        if let Some(trace) = trace {
            trace.extend([
                ("actual_wheel_alpha", actual_alpha),
                ("motor_torque", input.motor_torque),
                ("wheel_long_friction", longitudinal),
            ]);
            match (self, slip) {
                (FrictionModel::Default { .. }, _) => trace.extend([
                    ("desired_wheel_alpha", desired_alpha),
                    ("desired_wheel_w_impulse", desired_alpha * input.dt),
                    ("F_friction_lon", longitudinal),
                    ("wheel_lateral_friction", lateral),
                ]),
                (FrictionModel::WardIagnemma { .. }, _) => trace.extend([
                    ("F_rr", terrain_drag),
                    ("desired_wheel_alpha", desired_alpha),
                ]),
                (FrictionModel::Ellipse { .. }, Some([angle, ratio, ground_speed])) => trace
                    .extend([
                        ("wheel_lateral_friction", lateral),
                        ("slip_angle", angle),
                        ("slip_ratio", ratio),
                        ("wheel_ground_point_vel", ground_speed),
                        ("vel_w_x", vel[0]),
                        ("vel_w_y", vel[1]),
                    ]),
                _ => {}
            }
        }
        *w += actual_alpha * input.dt;
        [
            c * longitudinal - s * lateral,
            s * longitudinal + c * lateral,
        ]
    }

    /// The ellipse model's (lateral, longitudinal) force bounds, and its slip angle, slip ratio
    /// and the wheel's rim speed. MVSim clamps by the signed products, which for a negative slip
    /// makes the lower bound exceed the upper; here the bounds are their magnitudes.
    fn ellipse_limits(
        &self,
        vel: [f64; 2],
        yaw: f64,
        w: f64,
        radius: f64,
        normal: f64,
    ) -> (f64, f64, [f64; 3]) {
        let FrictionModel::Ellipse {
            c_alpha,
            c_s,
            slip_angle_saturation: alpha_s,
            slip_ratio_saturation: ratio_s,
            c_alpha_s,
            c_s_alpha,
            ..
        } = *self
        else {
            return (0.0, 0.0, [0.0; 3]);
        };
        let heading = if vel[1].abs() > 1e-3 || vel[0].abs() > 1e-3 {
            vel[1].atan2(vel[0])
        } else {
            0.0
        };
        let mut slip_angle = angle_difference(heading, yaw);
        if slip_angle.abs() > std::f64::consts::FRAC_PI_2 {
            slip_angle = angle_difference(heading, yaw + std::f64::consts::PI);
        }
        let ground_speed = if w.abs() > 1e-5 { w * radius } else { 1e-5 };
        let slip_ratio = ((ground_speed - vel[0]) / ground_speed.abs()).clamp(-1.0, 1.0);
        let saturate = |x: f64, max: f64| x.clamp(-max, max);
        let root = |x: f64| x.max(0.0).sqrt();
        let longitudinal = normal
            * c_s
            * saturate(slip_ratio, ratio_s)
            * root(1.0 - c_s_alpha * (saturate(slip_angle, alpha_s) / alpha_s).powi(2));
        let lateral = normal
            * c_alpha
            * saturate(slip_angle, alpha_s)
            * root(1.0 - c_alpha_s * (saturate(slip_ratio, ratio_s) / ratio_s).powi(2));
        (
            lateral.abs(),
            longitudinal.abs(),
            [slip_angle, slip_ratio, ground_speed],
        )
    }
}

/// `b - a`... MRPT's `angDistance(a, b)`: the shortest signed angle from `a` to `b`.
fn angle_difference(a: f64, b: f64) -> f64 {
    let d = b - a;
    d.sin().atan2(d.cos())
}
