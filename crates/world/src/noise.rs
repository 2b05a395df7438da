//! One knob for every noise of a world (`--noise-scale K`, `--noiseless`): the sensors'
//! sigmas and random walks, and the vehicles' wheel-odometry errors, times `K`. Generators are
//! seeded and drawn as before, so a recording at `K` differs from one at 1 only in its noise,
//! which is `K` times as large (0: exact measurements).

use crate::{SensorKind, World};

impl World {
    /// Multiplies every noise of the world by `k` (finite and non-negative; anything else is
    /// taken as 1 and should have been refused by the front end).
    pub fn scale_noise(&mut self, k: f64) {
        if !(k.is_finite() && k >= 0.0) || k == 1.0 {
            return;
        }
        self.params.odometry_noise_scale *= k;
        let sensors = (self.vehicles.iter_mut())
            .flat_map(|v| v.sensors.iter_mut())
            .chain(self.standalone_sensors.iter_mut());
        for sensor in sensors {
            match &mut sensor.kind {
                SensorKind::Laser(p) => {
                    p.range_std_noise *= k;
                    p.angle_std_noise *= k;
                }
                SensorKind::Lidar3d(p) => p.range_std_noise *= k,
                SensorKind::Camera(_) => {}
                SensorKind::RgbdCamera(p) => p.depth_noise_sigma *= k,
                SensorKind::Imu(p) => {
                    p.angular_velocity_white_noise *= k;
                    p.linear_acceleration_white_noise *= k;
                    p.angular_velocity_random_walk *= k;
                    p.linear_acceleration_random_walk *= k;
                    p.orientation_std_noise *= k;
                }
                SensorKind::Gnss(p) => {
                    p.horizontal_std_noise *= k;
                    p.vertical_std_noise *= k;
                }
            }
        }
    }
}
