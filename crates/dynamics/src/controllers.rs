//! MVSim's vehicle controllers (`VehicleDynamics/*_Controller*.cpp`): from a setpoint to wheel
//! torques and a steering angle, each step.
//!
//! - `raw`: torques (and for Ackermann a steering angle) as set, from the XML or the API.
//! - `twist_ideal`: no torques; the body is given the commanded twist after each step.
//! - `twist_pid` (differential): a PID per side on the wheel speeds the twist asks for,
//!   against the speeds the wheels' odometry gives.
//! - `twist_front_steer_pid` (Ackermann): steering from the turning radius, a PID per front
//!   wheel on its speed along itself.
//! - `front_steer_pid` (Ackermann): a speed and a fixed steering angle, through the above.
//!
//! Owns: controller parameters and state. Must not touch: bodies, friction.

use crate::pid::{Pid, PidGains};
use passerby_world::DynamicsClass;
use std::collections::BTreeMap;

/// A velocity setpoint in the vehicle frame: vx, vy (m/s), omega (rad/s).
pub type Twist = [f64; 3];

/// What a controller needs of its vehicle for one step.
#[derive(Clone, Copy, Debug)]
pub struct ControlInput {
    /// Step, seconds.
    pub dt: f64,
    /// The vehicle's velocity as its wheels' odometry estimates it.
    pub odometry_twist: Twist,
    /// Torque per driven wheel that holds the vehicle on its slope (for feed-forward).
    pub slope_torque: f64,
    /// Ackermann: the front wheels' steering angles at the end of the last step.
    pub front_yaws: [f64; 2],
}

/// The geometry the controllers steer and drive by.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// Differential: y of the left wheel minus y of the right one. Ackermann: the front track.
    pub track: f64,
    /// Ackermann: rear to front axle.
    pub wheelbase: f64,
    /// Ackermann: x and y of the front-left wheel (the right one mirrors it in y).
    pub front_left: [f64; 2],
    /// Ackermann: maximum steering angle.
    pub max_steer: f64,
}

/// A controller's output: torques on the left and right (driven) wheels and the equivalent
/// steering angle (Ackermann).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControlOutput {
    /// Torque on the left (or front-left) driven wheels, N m, positive forwards.
    pub left: f64,
    /// Torque on the right (or front-right) driven wheels.
    pub right: f64,
    /// Equivalent steering angle, radians (Ackermann).
    pub steer: f64,
}

/// The controller of a vehicle, with its state.
#[derive(Clone, Debug)]
pub enum Controller {
    /// `raw`: torques and steering as set.
    Raw {
        /// Left (front-left) torque.
        left: f64,
        /// Right (front-right) torque.
        right: f64,
        /// Steering angle (Ackermann).
        steer: f64,
    },
    /// `twist_ideal`.
    TwistIdeal {
        /// The commanded twist.
        setpoint: Twist,
    },
    /// `twist_pid` (differential).
    TwistPid(TwistPid),
    /// `ackermann_drivetrain`'s `twist_front_steer_pid`, or with `fixed` set, its
    /// `front_steer_pid`: one PID on the vehicle's speed gives the motor torque (`left`).
    SpeedPid {
        /// The twist it tracks (its speed and, through the steering, its turn).
        setpoint: Twist,
        /// `front_steer_pid`'s speed and steering-angle setpoint.
        fixed: Option<(f64, f64)>,
        /// The PID on the speed, as a one-sided [`TwistPid`].
        pid: Box<TwistPid>,
    },
    /// `twist_front_steer_pid`, or with `fixed` set, `front_steer_pid`.
    FrontSteerPid {
        /// The wheel-speed PIDs and the twist they track.
        pid: TwistPid,
        /// `front_steer_pid`'s speed and steering-angle setpoint.
        fixed: Option<(f64, f64)>,
    },
}

/// PIDs on the left and right wheel speeds (differential) or front wheels (Ackermann).
#[derive(Clone, Debug)]
pub struct TwistPid {
    /// The commanded twist.
    pub setpoint: Twist,
    gains: PidGains,
    feedforward_gain: Option<f64>,
    zero_threshold: f64,
    stop_threshold: f64,
    pids: [Pid; 2],
}

impl TwistPid {
    fn new(p: &BTreeMap<String, f64>, default_kp: f64, setpoint: Twist) -> TwistPid {
        let get = |name: &str, default: f64| p.get(name).copied().unwrap_or(default);
        let flag = |name: &str| get(name, 0.0) != 0.0;
        TwistPid {
            setpoint,
            gains: PidGains {
                kp: get("KP", default_kp),
                ki: get("KI", 0.0),
                kd: get("KD", 0.0),
                n: get("N", 0.0),
                max_out: get("max_torque", 100.0),
                antiwindup: flag("enable_antiwindup"),
                reference_filter: flag("enable_reference_filter"),
                reference_filter_tau: get("reference_filter_tau", 0.1),
                reference_filter_order: get("reference_filter_order", 1.0).max(1.0) as u32,
            },
            feedforward_gain: flag("enable_feedforward").then(|| get("feedforward_gain", 1.0)),
            zero_threshold: get("zero_threshold", 0.001),
            stop_threshold: get("stop_threshold", 0.05),
            pids: [Pid::new(), Pid::new()],
        }
    }

    /// Torques (positive forwards) for wheel speed setpoints and measurements, left and right.
    fn torques(&mut self, wanted: [f64; 2], actual: [f64; 2], input: &ControlInput) -> [f64; 2] {
        let g = self.gains;
        let wanted = [0, 1].map(|i| self.pids[i].filter_reference(&g, wanted[i], input.dt));
        let feedforward = self
            .feedforward_gain
            .map_or(0.0, |k| k * input.slope_torque);
        let zero = wanted.iter().all(|w| w.abs() < self.zero_threshold);
        if zero && actual.iter().all(|a| a.abs() < self.stop_threshold) {
            // Stopped and asked to stay: no torque, and no integral left to push it off.
            self.pids.iter_mut().for_each(Pid::reset);
            return [0.0; 2];
        }
        [0, 1].map(|i| {
            let torque = self.pids[i].compute(&g, wanted[i] - actual[i], input.dt, feedforward);
            // Braking to zero: only oppose the motion, so the integral cannot make it rebound.
            match (zero, actual[i]) {
                (true, a) if a > 0.0 => torque.min(0.0),
                (true, a) if a < 0.0 => torque.max(0.0),
                _ => torque,
            }
        })
    }
}

impl Controller {
    /// The controller a `<controller>` describes; `initial` is the twist it starts with when
    /// it takes twists (`<init_vel>`, else its `V` and `W`).
    pub fn new(
        c: &passerby_world::Controller,
        class: DynamicsClass,
        initial: Option<Twist>,
    ) -> Controller {
        let p = &c.params;
        let get = |name: &str| p.get(name).copied().unwrap_or(0.0);
        let from_xml = [get("V"), 0.0, get("W")];
        let setpoint = initial.unwrap_or(from_xml);
        let ackermann = matches!(
            class,
            DynamicsClass::Ackermann | DynamicsClass::AckermannDrivetrain
        );
        if class == DynamicsClass::AckermannDrivetrain {
            let fixed = (c.class == "front_steer_pid").then(|| (get("V"), get("STEER_ANG")));
            return match c.class.as_str() {
                "twist_ideal" => Controller::TwistIdeal { setpoint },
                "twist_front_steer_pid" | "front_steer_pid" => Controller::SpeedPid {
                    setpoint,
                    fixed,
                    pid: Box::new(TwistPid::new(p, 100.0, setpoint)),
                },
                _ => Controller::Raw {
                    left: get("torque"),
                    right: 0.0,
                    steer: get("steer_ang_deg"),
                },
            };
        }
        match (c.class.as_str(), ackermann) {
            ("twist_ideal", _) => Controller::TwistIdeal { setpoint },
            ("twist_pid", false) => Controller::TwistPid(TwistPid::new(p, 10.0, setpoint)),
            ("twist_front_steer_pid", true) => Controller::FrontSteerPid {
                pid: TwistPid::new(p, 100.0, setpoint),
                fixed: None,
            },
            ("front_steer_pid", true) => Controller::FrontSteerPid {
                pid: TwistPid::new(p, 100.0, setpoint),
                fixed: Some((get("V"), get("STEER_ANG"))),
            },
            _ if ackermann => Controller::Raw {
                left: get("fl_torque"),
                right: get("fr_torque"),
                steer: get("steer_ang_deg"),
            },
            _ => Controller::Raw {
                left: 0.0,
                right: 0.0,
                steer: 0.0,
            },
        }
    }

    /// Whether it imposes the twist on the body instead of driving the wheels.
    pub fn is_ideal(&self) -> bool {
        matches!(self, Controller::TwistIdeal { .. })
    }

    /// Takes a twist command; false if this controller does not take twists.
    pub fn set_twist(&mut self, twist: Twist) -> bool {
        match self {
            Controller::TwistIdeal { setpoint } => *setpoint = twist,
            Controller::TwistPid(pid) => pid.setpoint = twist,
            Controller::FrontSteerPid { pid, fixed: None } => pid.setpoint = twist,
            Controller::SpeedPid {
                setpoint,
                fixed: None,
                ..
            } => *setpoint = twist,
            _ => return false,
        }
        true
    }

    /// The twist it is tracking, if it tracks one.
    pub fn setpoint(&self) -> Option<Twist> {
        match self {
            Controller::TwistIdeal { setpoint } => Some(*setpoint),
            Controller::TwistPid(pid) => Some(pid.setpoint),
            Controller::FrontSteerPid { pid, .. } => Some(pid.setpoint),
            Controller::SpeedPid { setpoint, .. } => Some(*setpoint),
            Controller::Raw { .. } => None,
        }
    }

    /// This step's torques and steering.
    pub fn step(
        &mut self,
        geometry: &Geometry,
        ackermann: bool,
        input: &ControlInput,
    ) -> ControlOutput {
        match self {
            Controller::Raw { left, right, steer } => ControlOutput {
                left: *left,
                right: *right,
                steer: *steer,
            },
            Controller::TwistIdeal { setpoint } if ackermann => ControlOutput {
                steer: ideal_steer(setpoint, geometry),
                ..ControlOutput::default()
            },
            Controller::TwistIdeal { .. } => ControlOutput::default(),
            Controller::TwistPid(pid) => {
                let half = 0.5 * geometry.track;
                let [vx, _, w] = pid.setpoint;
                let [ox, _, ow] = input.odometry_twist;
                let [left, right] = pid.torques(
                    [vx - w * half, vx + w * half],
                    [ox - ow * half, ox + ow * half],
                    input,
                );
                ControlOutput {
                    left,
                    right,
                    steer: 0.0,
                }
            }
            Controller::SpeedPid {
                setpoint,
                fixed,
                pid,
            } => {
                if let Some((v, steer)) = *fixed {
                    *setpoint = [v, 0.0, turn_rate(v, steer, geometry)];
                }
                let [v, _, w] = *setpoint;
                let steer = match *fixed {
                    Some((_, steer)) => steer,
                    None if w == 0.0 => 0.0,
                    None => (geometry.wheelbase / (v / w)).atan(),
                };
                // One drive torque for the whole vehicle: the slope's hold on four wheels.
                let whole = ControlInput {
                    slope_torque: 2.0 * input.slope_torque,
                    ..*input
                };
                let [torque, _] = pid.torques([v, 0.0], [input.odometry_twist[0], 0.0], &whole);
                ControlOutput {
                    left: torque,
                    right: 0.0,
                    steer,
                }
            }
            Controller::FrontSteerPid { pid, fixed } => {
                if let Some((v, steer)) = *fixed {
                    pid.setpoint = [v, 0.0, turn_rate(v, steer, geometry)];
                }
                let [v, _, w] = pid.setpoint;
                let steer = match *fixed {
                    Some((_, steer)) => steer,
                    None if w == 0.0 => 0.0,
                    None => (geometry.wheelbase / (v / w)).atan(),
                };
                let (fl, fr) = front_wheel_angles(steer, geometry);
                let along = |twist: Twist, angle: f64, [x, y]: [f64; 2]| {
                    // A wheel's velocity, turned into the wheel's own frame: its x.
                    let (vx, vy) = (twist[0] - twist[2] * y, twist[1] + twist[2] * x);
                    angle.cos() * vx + angle.sin() * vy
                };
                let [x, y] = geometry.front_left;
                let wanted = [
                    along(pid.setpoint, fl, [x, y]),
                    along(pid.setpoint, fr, [x, -y]),
                ];
                // Measured along the wheels as they stand, before this step steers them.
                let [fl_now, fr_now] = input.front_yaws;
                let actual = [
                    along(input.odometry_twist, fl_now, [x, y]),
                    along(input.odometry_twist, fr_now, [x, -y]),
                ];
                let [left, right] = pid.torques(wanted, actual, input);
                ControlOutput { left, right, steer }
            }
        }
    }
}

/// The turn rate of an Ackermann vehicle at speed `v` with steering angle `steer`.
fn turn_rate(v: f64, steer: f64, g: &Geometry) -> f64 {
    if steer == 0.0 {
        0.0
    } else {
        v * steer.tan() / g.wheelbase
    }
}

/// `twist_ideal` on an Ackermann vehicle: the steering angle of the commanded turn.
fn ideal_steer(setpoint: &Twist, g: &Geometry) -> f64 {
    let [vx, _, w] = *setpoint;
    let steer = if vx.abs() > 1e-3 {
        (w * g.wheelbase / vx).atan()
    } else {
        w.signum() * (w * g.wheelbase).abs().min(g.max_steer)
    };
    steer.clamp(-g.max_steer, g.max_steer)
}

/// Ackermann geometry: the front-left and front-right wheel angles for an equivalent steering
/// angle (the inner wheel turns more), limited to the maximum angle.
pub fn front_wheel_angles(steer: f64, g: &Geometry) -> (f64, f64) {
    let delta = steer.abs().clamp(0.0, g.max_steer.min(1.5));
    if delta == 0.0 {
        return (0.0, 0.0);
    }
    let ratio = g.track / g.wheelbase;
    let cot_outer = 1.0 / delta.tan() + 0.5 * ratio;
    let cot_inner = cot_outer - ratio;
    let (inner, outer) = ((1.0 / cot_inner).atan(), (1.0 / cot_outer).atan());
    if steer < 0.0 {
        (-outer, -inner)
    } else {
        (inner, outer)
    }
}
