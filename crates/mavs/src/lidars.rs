//! Lidars by MAVS model name, with MAVS's scan patterns (`sensors/lidar/*.cpp`): beams at
//! `lo + i·step` for `i < ceil((hi − lo)/step) + 1` and columns at `lo + j·step` for
//! `j < ⌊(hi − lo)/step⌋ + 1` (MAVS's `SetScanPattern`), columns swept from −180° upwards
//! (counter-clockwise seen from above, as MAVS sweeps), MAVS's ranges and rate rules. Every beam
//! is one exact ray: MAVS's beam-spot sub-rays are not traced.
//!
//! MAVS's simulation files name `M8`, `HDL-64E`, `HDL-32E`, `VLP-16` and `LMS-291`; the others
//! are the names of MAVS's C and Python API classes. A lidar without a `Model` is read from its
//! `Input File` (MAVS's generic lidar: `Scan Pattern`, `Min Range`, `Max Range`), which is also
//! how MAVS's `PlanarLidar` (a pattern without a vertical range) is configured.

use passerby_world::{LaserParams, Lidar3dParams, Pose3, Sensor, SensorKind};

/// Model names defined here.
pub const MODELS: [&str; 16] = [
    "M8",
    "HDL-64E",
    "HDL-64E-simple",
    "HDL-32E",
    "HDL-512E",
    "VLP-16",
    "RS32",
    "OS1",
    "OS1-64",
    "OS1-16",
    "OS2",
    "OS2-64",
    "OS2-32",
    "FourPi",
    "AnvelApiLidar",
    "LMS-291",
];

/// A MAVS scan pattern, degrees: `Horizontal Range`, `Horizontal Step`, and `Vertical Range`
/// with `Vertical Step` (none for a planar lidar).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScanPattern {
    /// `(lo, hi, step)` of the columns.
    pub horizontal: (f64, f64, f64),
    /// `(lo, hi, step)` of the beams; `None` = one beam at 0°.
    pub vertical: Option<(f64, f64, f64)>,
}

impl ScanPattern {
    fn new(horizontal: (f64, f64, f64), vertical: (f64, f64, f64)) -> ScanPattern {
        ScanPattern {
            horizontal,
            vertical: Some(vertical),
        }
    }

    /// A full turn from −180° in steps of `step` (MAVS's `-180, 180 − step, step`).
    fn turn(step: f64, vertical: (f64, f64, f64)) -> ScanPattern {
        ScanPattern::new((-180.0, 180.0 - step, step), vertical)
    }

    /// Checks the steps and ranges; the message says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let (lo, hi, step) = self.horizontal;
        if !(step > 0.0 && hi >= lo && step.is_finite() && lo.is_finite() && hi.is_finite()) {
            return Err(format!(
                "horizontal range [{lo}, {hi}] with step {step}: expected lo <= hi and a positive step"
            ));
        }
        if let Some((lo, hi, step)) = self.vertical
            && !(step > 0.0 && hi >= lo && step.is_finite() && lo.is_finite() && hi.is_finite())
        {
            return Err(format!(
                "vertical range [{lo}, {hi}] with step {step}: expected lo <= hi and a positive step"
            ));
        }
        // Counted, not listed: a tiny step must be refused before anything is allocated.
        let rays = self.columns() as f64 * self.beam_count() as f64;
        if rays > 1e8 {
            return Err(format!("{rays} rays per scan: too many"));
        }
        Ok(())
    }

    /// Column count, MAVS's `(hi − lo)/step + 1` truncated (with slack for decimal steps).
    fn columns(&self) -> usize {
        let (lo, hi, step) = self.horizontal;
        ((hi - lo) / step + 1e-6).floor() as usize + 1
    }

    /// How many beams [`ScanPattern::beams`] lists.
    fn beam_count(&self) -> usize {
        match self.vertical {
            Some((lo, hi, step)) => ((hi - lo) / step - 1e-6).ceil().max(0.0) as usize + 1,
            None => 1,
        }
    }

    /// Beam elevations, degrees, ascending.
    fn beams(&self) -> Vec<f64> {
        match self.vertical {
            Some((lo, _, step)) => (0..self.beam_count())
                .map(|i| lo + i as f64 * step)
                .collect(),
            None => vec![0.0],
        }
    }

    /// The lidar of this pattern (min and max range in metres).
    pub fn lidar(&self, min_range: f64, max_range: f64) -> Lidar3dParams {
        let beams = self.beams();
        let columns = self.columns();
        let (lo, _, step) = self.horizontal;
        let first = lo.to_radians();
        let last = (lo + (columns - 1) as f64 * step).to_radians();
        Lidar3dParams {
            vert_nrays: beams.len() as u32,
            vert_fov: (beams[beams.len() - 1] - beams[0]).to_radians(),
            vertical_ray_angles: Some(beams.iter().map(|b| b.to_radians()).collect()),
            horz_nrays: columns as u32,
            azimuth_range: Some((first, last)),
            min_range,
            max_range,
            range_std_noise: 0.0,
            ..Lidar3dParams::default()
        }
    }
}

/// An Ouster of `mode` columns (MAVS's defaults: 1024, the OS1-16 2048), `beams` over
/// ±`half_fov`°. Its column count does not depend on the rate.
fn ouster(half_fov: f64, beams: usize, mode: f64) -> ScanPattern {
    let step = 2.0 * half_fov / (beams - 1) as f64;
    ScanPattern::turn(360.0 / mode, (-half_fov, half_fov, step))
}

/// The pattern, range gates (m) and ring column strides of a spinning model at `rate_hz`.
fn model(name: &str, rate_hz: f64) -> Option<Lidar3dParams> {
    Some(match name {
        "M8" => {
            let res = 0.006857 * rate_hz.clamp(5.0, 20.0);
            ScanPattern::turn(res, (-18.22, 3.2, 3.06)).lidar(1.0, 150.0)
        }
        "HDL-64E" => return Some(hdl64e(rate_hz)),
        "HDL-64E-simple" => {
            let delta = 0.0187 * rate_hz - 0.015;
            ScanPattern::turn(delta, (-24.8, 2.0, 0.425396825)).lidar(1.0, 120.0)
        }
        "HDL-32E" => {
            ScanPattern::new((-180.0, 180.0, 0.17), (-30.6623, 10.67, 1.3333)).lidar(1.0, 100.0)
        }
        // Beams over the whole vertical circle, as MAVS defines it: every direction is
        // scanned twice a turn.
        "HDL-512E" => ScanPattern::turn(0.16, (-180.0, 180.0, 0.705078125)).lidar(1.0, 70.0),
        // The horizontal step grows with the rotation rate: 0.02° per Hz.
        "VLP-16" => {
            let res = 0.02 * rate_hz.clamp(5.0, 20.0);
            ScanPattern::turn(res, (-15.0, 15.0, 2.0)).lidar(1.0, 100.0)
        }
        "RS32" => ScanPattern::turn(0.18, (-25.0, 15.0, 1.29)).lidar(1.0, 200.0),
        "OS1" | "OS1-64" => ouster(15.8, 64, 1024.0).lidar(0.5, 125.0),
        "OS1-16" => ouster(16.6, 16, 2048.0).lidar(0.8, 360.0),
        "OS2" | "OS2-64" => ouster(11.25, 64, 1024.0).lidar(1.0, 250.0),
        "OS2-32" => ouster(11.25, 32, 1024.0).lidar(1.0, 250.0),
        "FourPi" => ScanPattern::turn(0.25, (-90.0, 90.0, 0.25)).lidar(0.0, 1000.0),
        // The lidar MAVS stands in for ANVEL's: a VLP-16's beams at 1° columns.
        "AnvelApiLidar" => ScanPattern::turn(1.0, (-15.0, 15.0, 2.0)).lidar(1.0, 100.0),
        _ => return None,
    })
}

/// The HDL-64E: two blocks of 32 lasers. The lower (−24.8° to −11.6127°) fires
/// `⌊250000/rate/32⌋` times a turn, the upper (−11.1873° to 2°) four times as often; here the
/// columns are the upper block's and the lower rings fire on every fourth.
fn hdl64e(rate_hz: f64) -> Lidar3dParams {
    let rate = rate_hz.clamp(5.0, 15.0);
    let lower_columns = (250000.0 / rate / 32.0).floor();
    let columns = 4.0 * lower_columns;
    let res = 360.0 / (columns - 1.0);
    let block = |lo: f64, hi: f64| -> Vec<f64> {
        (0..32)
            .map(|i| (lo + i as f64 * (hi - lo) / 31.0).to_radians())
            .collect()
    };
    let mut elevations = block(-24.8, -11.6127);
    elevations.extend(block(-11.1873, 2.0));
    let step = (360.0 - res) / (columns - 1.0);
    Lidar3dParams {
        vert_nrays: 64,
        vert_fov: 26.8f64.to_radians(),
        vertical_ray_angles: Some(elevations),
        horz_nrays: columns as u32,
        azimuth_range: Some((
            -std::f64::consts::PI,
            (-180.0 + (columns - 1.0) * step).to_radians(),
        )),
        ring_column_stride: Some((0..64).map(|r| if r < 32 { 4 } else { 1 }).collect()),
        min_range: 1.0,
        max_range: 90.0,
        range_std_noise: 0.0,
        ..Lidar3dParams::default()
    }
}

/// A MAVS lidar sensor named `name` at `pose`, scanning at `rate_hz`, of kind `kind`.
pub fn lidar_with(kind: SensorKind, name: &str, pose: Pose3, rate_hz: f64) -> Sensor {
    Sensor {
        name: name.to_owned(),
        pose,
        period: 1.0 / rate_hz,
        publish: None,
        visuals: Vec::new(),
        kind,
    }
}

/// The sensor of a MAVS lidar `model` named `name`, mounted at `pose`, scanning at `rate_hz`.
pub fn lidar_sensor(
    model_name: &str,
    name: &str,
    pose: Pose3,
    rate_hz: f64,
) -> Result<Sensor, String> {
    let kind = if model_name == "LMS-291" {
        // Planar, MAVS's default one-degree resolution: ±90°, 181 rays.
        SensorKind::Laser(LaserParams {
            fov: std::f64::consts::PI,
            nrays: 181,
            max_range: 80.0,
            range_std_noise: 0.0,
            ..LaserParams::default()
        })
    } else {
        match model(model_name, rate_hz) {
            Some(params) => SensorKind::Lidar3d(params),
            None => {
                return Err(format!(
                    "MAVS lidar model `{model_name}` is not one we know; known: {}",
                    MODELS.join(", ")
                ));
            }
        }
    };
    Ok(lidar_with(kind, name, pose, rate_hz))
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
        // Clamped to 5-20 Hz for the pattern.
        assert_eq!(counts("VLP-16", 1.0), (16, 3600));
        // ceil(40 / 1.29) + 1: MAVS's formula gives the RS32 33 beams.
        assert_eq!(counts("RS32", 10.0), (33, 2000));
        assert_eq!(counts("OS1-64", 10.0), (64, 1024));
        assert_eq!(counts("OS1-16", 10.0), (16, 2048));
        assert_eq!(counts("OS2", 10.0), (64, 1024));
        assert_eq!(counts("OS2-32", 10.0), (32, 1024));
        // 21.42 / 3.06 is 7 steps: the Quanergy's 8 beams; 360 / 0.06857 columns.
        assert_eq!(counts("M8", 10.0), (8, 5250));
        assert_eq!(counts("HDL-64E-simple", 10.0), (64, 2093));
        assert_eq!(counts("HDL-512E", 10.0), (512, 2250));
        assert_eq!(counts("FourPi", 10.0), (721, 1440));
        assert_eq!(counts("AnvelApiLidar", 10.0), (16, 360));
        assert_eq!(counts("LMS-291", 75.0), (1, 181));
        let unknown = lidar_sensor("HDL-65E", "l", Pose3::default(), 10.0).unwrap_err();
        assert!(
            unknown.contains("`HDL-65E`") && unknown.contains("M8"),
            "{unknown}"
        );
    }

    #[test]
    fn columns_sweep_from_minus_180_degrees_in_mavss_steps() {
        let SensorKind::Lidar3d(l) = lidar_sensor("VLP-16", "l", Pose3::default(), 10.0)
            .unwrap()
            .kind
        else {
            panic!("a 3D lidar")
        };
        let azimuths = l.column_azimuths();
        assert!((azimuths[0].to_degrees() + 180.0).abs() < 1e-9);
        assert!((azimuths[1].to_degrees() + 179.8).abs() < 1e-9);
        assert!((azimuths[1799].to_degrees() - 179.8).abs() < 1e-9);
    }

    #[test]
    fn the_hdl64e_lower_block_fires_once_for_four_upper_columns() {
        let SensorKind::Lidar3d(l) = lidar_sensor("HDL-64E", "l", Pose3::default(), 10.0)
            .unwrap()
            .kind
        else {
            panic!("a 3D lidar")
        };
        // ⌊250000 / 10 / 32⌋ = 781 lower columns, 3124 upper.
        assert_eq!(l.horz_nrays, 3124);
        let e = l.beam_elevations();
        assert_eq!(e.len(), 64);
        assert!((e[0].to_degrees() + 24.8).abs() < 1e-9);
        assert!((e[31].to_degrees() + 11.6127).abs() < 1e-9);
        assert!((e[32].to_degrees() + 11.1873).abs() < 1e-9);
        assert!((e[63].to_degrees() - 2.0).abs() < 1e-9);
        assert!(e.windows(2).all(|w| w[0] < w[1]));
        assert!(l.fires(0, 0) && !l.fires(0, 1) && !l.fires(31, 3) && l.fires(31, 4));
        assert!((0..4).all(|c| l.fires(32, c) && l.fires(63, c)));
        assert_eq!(l.rays_per_sweep(), 32 * 781 + 32 * 3124);
        // Slower spinning, more columns; the rate is clamped to 5-15 Hz.
        assert_eq!(counts("HDL-64E", 5.0).1, 4 * 1562);
        assert_eq!(counts("HDL-64E", 50.0).1, 4 * 520);
    }

    #[test]
    fn generic_patterns_are_checked() {
        let flat = ScanPattern {
            horizontal: (-45.0, 45.0, 0.5),
            vertical: None,
        };
        let l = flat.lidar(0.5, 30.0);
        assert_eq!((l.beam_elevations(), l.horz_nrays), (vec![0.0], 181));
        let a = l.column_azimuths();
        assert!(
            (a[0].to_degrees() + 45.0).abs() < 1e-9 && (a[180].to_degrees() - 45.0).abs() < 1e-9
        );
        let bad = ScanPattern::new((10.0, -10.0, 1.0), (0.0, 1.0, 1.0));
        assert!(bad.validate().unwrap_err().contains("horizontal"));
        let bad = ScanPattern::new((-10.0, 10.0, 1.0), (0.0, 1.0, 0.0));
        assert!(bad.validate().unwrap_err().contains("vertical"));
        let huge = ScanPattern::new((-180.0, 180.0, 1e-4), (-90.0, 90.0, 1e-3));
        assert!(huge.validate().is_err());
    }
}
