//! `imu`: angular velocity and specific force of the IMU's own frame (mount offset and rotation
//! included: a lever arm sees centripetal and tangential accelerations), from the full 3D motion
//! of that frame over the last simulation steps; optional orientation.
//!
//! Kinematics from the frame's world poses at the last four step ends (`dt` apart): angular
//! velocity from the rotation over the last step (exact for a constant rate; the mean rate over
//! that step otherwise), acceleration by the third-order backward difference
//! `(2p₀ − 5p₁ + 4p₂ − p₃)/dt²` (exact for cubic motion), so nothing lags behind the stamp for
//! smooth motion. Specific force `f = Rᵀ(a + g·ẑ)`: at rest, level, it reads +g on z. Before four
//! steps exist the IMU reads as if at rest.
//!
//! Noise (Forster et al. 2016, per axis): white noise `N(0, σ_w²)` plus a bias doing a random
//! walk `b ← b + N(0, σ_rw²·Δt)`, with `Δt` the time since the previous sample (MVSim uses the
//! physics step even when the IMU samples less often, which understates drift). Orientation, when
//! measured: `Rz(world_to_enu) · R · Exp(N(0, σ_ori² I))`, a quaternion in ENU.

use crate::Observation;
use crate::noise::SensorRng;
use crate::unit::{Mount, Pass as UnitPass, Reaching, SensorUnit, StepContext};
use glam::{DQuat, DVec3};
use passerby_world::ImuParams;
use passerby_world::SensorRef;
use std::collections::VecDeque;

/// One IMU sample.
#[derive(Clone, Debug, PartialEq)]
pub struct ImuSample {
    /// The sensor.
    pub sensor: SensorRef,
    /// Simulated seconds.
    pub stamp: f64,
    /// rad/s, IMU frame.
    pub angular_velocity: [f64; 3],
    /// m/s², IMU frame (specific force).
    pub linear_acceleration: [f64; 3],
    /// ENU orientation quaternion (x, y, z, w), when measured.
    pub orientation: Option<[f64; 4]>,
    /// Variances of each angular velocity axis (white noise), (rad/s)².
    pub angular_velocity_variance: f64,
    /// Variances of each acceleration axis (white noise), (m/s²)².
    pub linear_acceleration_variance: f64,
    /// Variance of each orientation angle, rad².
    pub orientation_variance: f64,
}

/// An IMU's history and noise state.
#[derive(Clone, Debug)]
pub struct Imu {
    sensor: SensorRef,
    params: ImuParams,
    gravity: f64,
    world_to_enu: f64,
    rng: SensorRng,
    /// (time, position, rotation) of the IMU frame at the last step ends, newest first.
    history: VecDeque<(f64, DVec3, DQuat)>,
    gyro_bias: DVec3,
    accel_bias: DVec3,
    last_sample: Option<f64>,
}

impl Imu {
    /// An IMU under `gravity` (m/s²) in a world rotated `world_to_enu` radians from ENU.
    pub fn new(
        sensor: SensorRef,
        params: &ImuParams,
        gravity: f64,
        world_to_enu: f64,
        rng: SensorRng,
    ) -> Imu {
        Imu {
            sensor,
            params: params.clone(),
            gravity,
            world_to_enu,
            rng,
            history: VecDeque::with_capacity(4),
            gyro_bias: DVec3::ZERO,
            accel_bias: DVec3::ZERO,
            last_sample: None,
        }
    }

    /// Records where the IMU frame is at the end of a step (call every step).
    pub fn record(&mut self, time: f64, position: DVec3, rotation: DQuat) {
        if self.history.len() == 4 {
            self.history.pop_back();
        }
        self.history.push_front((time, position, rotation));
    }

    /// The true angular velocity and specific force at the newest recorded pose.
    pub fn truth(&self) -> (DVec3, DVec3) {
        let g = DVec3::new(0.0, 0.0, self.gravity);
        let Some(&(t0, p0, q0)) = self.history.front() else {
            return (DVec3::ZERO, g);
        };
        let at_rest = (DVec3::ZERO, q0.inverse() * g);
        if self.history.len() < 4 {
            return at_rest;
        }
        let (t1, p1, q1) = self.history[1];
        let (_, p2, _) = self.history[2];
        let (_, p3, _) = self.history[3];
        let dt = t0 - t1;
        if dt <= 0.0 {
            return at_rest;
        }
        // Body-frame rate: R1ᵀR0 = Exp(ω dt).
        let omega = (q1.inverse() * q0).to_scaled_axis() / dt;
        let accel = (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) / (dt * dt);
        (omega, q0.inverse() * (accel + g))
    }

    /// A sample at `stamp` (the time of the newest recorded pose).
    pub fn sample(&mut self, stamp: f64) -> ImuSample {
        let (omega, force) = self.truth();
        let dt_bias = self.last_sample.map_or(0.0, |t| (stamp - t).max(0.0));
        self.last_sample = Some(stamp);
        let p = &self.params;
        let walk = |rng: &mut SensorRng, sigma: f64| {
            DVec3::new(
                rng.gaussian(sigma * dt_bias.sqrt()),
                rng.gaussian(sigma * dt_bias.sqrt()),
                rng.gaussian(sigma * dt_bias.sqrt()),
            )
        };
        let white = |rng: &mut SensorRng, sigma: f64| {
            DVec3::new(
                rng.gaussian(sigma),
                rng.gaussian(sigma),
                rng.gaussian(sigma),
            )
        };
        self.gyro_bias += walk(&mut self.rng, p.angular_velocity_random_walk);
        self.accel_bias += walk(&mut self.rng, p.linear_acceleration_random_walk);
        let gyro = omega + self.gyro_bias + white(&mut self.rng, p.angular_velocity_white_noise);
        let accel =
            force + self.accel_bias + white(&mut self.rng, p.linear_acceleration_white_noise);
        let orientation = p.measure_orientation.then(|| {
            let q = self.history.front().map_or(DQuat::IDENTITY, |h| h.2);
            let noise = white(&mut self.rng, p.orientation_std_noise);
            let q = DQuat::from_rotation_z(self.world_to_enu) * q * DQuat::from_scaled_axis(noise);
            let q = q.normalize();
            [q.x, q.y, q.z, q.w]
        });
        ImuSample {
            sensor: self.sensor.clone(),
            stamp,
            angular_velocity: gyro.to_array(),
            linear_acceleration: accel.to_array(),
            orientation,
            angular_velocity_variance: p.angular_velocity_white_noise.powi(2),
            linear_acceleration_variance: p.linear_acceleration_white_noise.powi(2),
            orientation_variance: p.orientation_std_noise.powi(2),
        }
    }

    /// The sensor.
    pub fn sensor(&self) -> &SensorRef {
        &self.sensor
    }
}

impl SensorUnit for Imu {
    fn pass(&self) -> UnitPass {
        UnitPass::Sequential
    }

    fn rank(&self) -> u8 {
        2
    }

    fn reaching(&self) -> Option<Reaching> {
        None
    }

    /// Integrates every step; samples when due.
    fn measure(&mut self, cx: &StepContext<'_>, mount: &Mount, due: bool) -> Vec<Observation> {
        let (position, rotation) = mount.world_pose(cx.sim);
        self.record(cx.now, position, rotation);
        if !due {
            return Vec::new();
        }
        vec![Observation::Imu(self.sample(cx.now))]
    }
}
