//! Lidars by MAVS model name, with MAVS's scan patterns (`sensors/lidar/*.cpp`, as recorded in
//! `shared/reference/peers.md` §1.5): beams at `lo + i·step` for `i < ceil((hi − lo)/step) + 1`
//! (MAVS's `SetScanPattern`), columns at the model's horizontal step over 360°, MAVS's ranges.
//! Models whose horizontal pattern the notes do not give (M8, HDL-64E, OS2, HDL-512E) have no
//! definition yet and are refused by name rather than guessed.

use passerby_world::{LaserParams, Lidar3dParams, Pose3, Sensor, SensorKind};

/// Model names defined here.
pub const MODELS: [&str; 6] = ["HDL-32E", "VLP-16", "RS32", "OS1-64", "OS1-16", "LMS-291"];

/// A spinning lidar's pattern: vertical range and step, horizontal step (degrees), ranges (m).
struct Pattern {
    vertical: (f64, f64, f64),
    horizontal_step: f64,
    range: (f64, f64),
}

fn pattern(model: &str, rate_hz: f64) -> Option<Pattern> {
    Some(match model {
        "HDL-32E" => Pattern {
            vertical: (-30.6623, 10.67, 1.3333),
            horizontal_step: 0.17,
            range: (1.0, 100.0),
        },
        // The horizontal step grows with the rotation rate: 0.02° per Hz.
        "VLP-16" => Pattern {
            vertical: (-15.0, 15.0, 2.0),
            horizontal_step: 0.02 * rate_hz,
            range: (1.0, 100.0),
        },
        "RS32" => Pattern {
            vertical: (-25.0, 15.0, 1.29),
            horizontal_step: 0.18,
            range: (1.0, 200.0),
        },
        "OS1-64" => Pattern {
            vertical: (-15.8, 15.8, 31.6 / 63.0),
            horizontal_step: 360.0 / 1024.0,
            range: (0.5, 125.0),
        },
        "OS1-16" => Pattern {
            vertical: (-16.6, 16.6, 33.2 / 15.0),
            horizontal_step: 360.0 / 1024.0,
            range: (0.8, 125.0),
        },
        _ => return None,
    })
}

/// The sensor of a MAVS lidar `model` named `name`, mounted at `pose`, scanning at `rate_hz`.
pub fn lidar_sensor(model: &str, name: &str, pose: Pose3, rate_hz: f64) -> Result<Sensor, String> {
    let kind = if model == "LMS-291" {
        // Planar, ±90° at 0.5°.
        SensorKind::Laser(LaserParams {
            fov: std::f64::consts::PI,
            nrays: 361,
            max_range: 80.0,
            range_std_noise: 0.0,
            ..LaserParams::default()
        })
    } else {
        let Some(p) = pattern(model, rate_hz) else {
            return Err(format!(
                "MAVS lidar model `{model}` has no definition of ours yet; known: {}",
                MODELS.join(", ")
            ));
        };
        let (lo, hi, step) = p.vertical;
        let beams = ((hi - lo) / step - 1e-9).ceil() as usize + 1;
        let angles: Vec<f64> = (0..beams)
            .map(|i| (lo + i as f64 * step).to_radians())
            .collect();
        SensorKind::Lidar3d(Lidar3dParams {
            vert_nrays: beams as u32,
            vert_fov: (hi - lo).to_radians(),
            vertical_ray_angles: Some(angles),
            horz_nrays: (360.0 / p.horizontal_step).round() as u32,
            min_range: p.range.0,
            max_range: p.range.1,
            range_std_noise: 0.0,
            ..Lidar3dParams::default()
        })
    };
    Ok(Sensor {
        name: name.to_owned(),
        pose,
        period: 1.0 / rate_hz,
        publish: None,
        visuals: Vec::new(),
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(model: &str, rate: f64) -> (usize, u32) {
        match lidar_sensor(model, "l", Pose3::default(), rate)
            .unwrap()
            .kind
        {
            SensorKind::Lidar3d(l) => (l.beam_elevations().len(), l.horz_nrays),
            SensorKind::Laser(l) => (1, l.nrays),
            _ => (0, 0),
        }
    }

    #[test]
    fn beams_and_columns_follow_mavss_scan_patterns() {
        assert_eq!(counts("HDL-32E", 10.0), (32, 2118));
        assert_eq!(counts("VLP-16", 10.0), (16, 1800));
        assert_eq!(counts("VLP-16", 5.0), (16, 3600));
        // ceil(40 / 1.29) + 1: MAVS's formula gives the RS32 33 beams.
        assert_eq!(counts("RS32", 10.0), (33, 2000));
        assert_eq!(counts("OS1-64", 10.0), (64, 1024));
        assert_eq!(counts("OS1-16", 10.0), (16, 1024));
        assert_eq!(counts("LMS-291", 75.0), (1, 361));
        assert!(lidar_sensor("M8", "l", Pose3::default(), 10.0).is_err());
    }
}
