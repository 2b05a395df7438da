//! What a sensor costs before anything is allocated for it: rays or pixels per frame and per
//! second, and the bytes per second it adds to a recording; and the limits a world must stay
//! within ([`Limits`]), named in `docs/limits.md`.
//!
//! A world file is input like any other: `<vert_nrays>1e9</vert_nrays>` or a
//! `<sensor_period>` of a nanosecond is syntactically fine and would take the machine down
//! (an 8 GB allocation, or a recording growing by a gigabyte while simulated time stands
//! still). Loaders compute each sensor's [`SensorBudget`] as they read it and refuse one over
//! the limits at the tag that made it so; `--limits-scale` raises every limit for people who
//! mean it.
//!
//! Owns: the arithmetic and the limits. Must not touch: files, positions (the loaders map a
//! [`Quantity`] to the tag to blame).

use crate::{Sensor, SensorKind};
use serde::Serialize;

/// Bytes a recorded lidar or laser point takes (x, y, z, intensity, ring, time, instance, label).
pub const POINT_BYTES: u64 = 28;
/// Bytes a recorded camera pixel takes: RGB, and the instance and class label images.
const CAMERA_PIXEL_BYTES: u64 = 3 + 4 + 2;
/// Bytes an RGB-D depth pixel takes: the 16-bit depth image and a coloured, labelled point.
const DEPTH_PIXEL_BYTES: u64 = 2 + 22;
/// Bytes of an IMU or GNSS message with its header.
const SMALL_MESSAGE_BYTES: u64 = 400;

/// The limits a world's sensors must stay within. The defaults are far beyond the largest real
/// sensors (an OS2-128 lidar casts ~5 M rays/s, an 8K camera has 33 M pixels), yet low enough
/// that a typo cannot exhaust a machine's memory or disk.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Limits {
    /// Highest sensor rate, Hz (real IMUs reach a few kHz).
    pub max_rate_hz: f64,
    /// Most rays in one lidar sweep or laser scan.
    pub max_rays_per_frame: u64,
    /// Most pixels across or down an image.
    pub max_image_side: u64,
    /// Most pixel samples in one camera frame (pixels times antialias squared).
    pub max_samples_per_frame: u64,
    /// Most rays or pixel samples a sensor casts per simulated second.
    pub max_samples_per_second: f64,
    /// Most bytes a sensor adds to a recording per simulated second.
    pub max_bytes_per_second: f64,
    /// Most bytes the whole world's sensors add per simulated second.
    pub max_world_bytes_per_second: f64,
    /// Most `<include>`s a load may expand, counting each time a file is included.
    pub max_includes: u64,
    /// Most bytes of included text a load may read in all.
    pub max_included_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_rate_hz: 10_000.0,
            max_rays_per_frame: 10_000_000,
            max_image_side: 16_384,
            max_samples_per_frame: 40_000_000,
            max_samples_per_second: 1e9,
            max_bytes_per_second: 4e9,
            max_world_bytes_per_second: 8e9,
            max_includes: 20_000,
            max_included_bytes: 256 << 20,
        }
    }
}

impl Limits {
    /// Every limit multiplied by `factor` (the rate and sizes too); `factor` at least 1.
    pub fn scaled(factor: f64) -> Limits {
        let f = if factor.is_finite() {
            factor.max(1.0)
        } else {
            1.0
        };
        let d = Limits::default();
        let count = |n: u64| (n as f64 * f).min(u64::MAX as f64) as u64;
        Limits {
            max_rate_hz: d.max_rate_hz * f,
            max_rays_per_frame: count(d.max_rays_per_frame),
            max_image_side: count(d.max_image_side),
            max_samples_per_frame: count(d.max_samples_per_frame),
            max_samples_per_second: d.max_samples_per_second * f,
            max_bytes_per_second: d.max_bytes_per_second * f,
            max_world_bytes_per_second: d.max_world_bytes_per_second * f,
            max_includes: count(d.max_includes),
            max_included_bytes: count(d.max_included_bytes),
        }
    }

    /// The first limit `budget` exceeds, if any, in the order a user would fix them: the
    /// rate, a frame's size, then the rates that follow from both.
    pub fn exceeded(&self, budget: &SensorBudget) -> Option<Exceeded> {
        let over = |quantity, value: f64, limit: f64| {
            (value > limit).then_some(Exceeded {
                quantity,
                value,
                limit,
            })
        };
        over(Quantity::Rate, budget.rate_hz, self.max_rate_hz)
            .or_else(|| {
                over(
                    Quantity::ImageSide,
                    budget.image_side as f64,
                    self.max_image_side as f64,
                )
            })
            .or_else(|| match budget.image_side {
                0 => over(
                    Quantity::RaysPerFrame,
                    budget.samples_per_frame as f64,
                    self.max_rays_per_frame as f64,
                ),
                _ => over(
                    Quantity::SamplesPerFrame,
                    budget.samples_per_frame as f64,
                    self.max_samples_per_frame as f64,
                ),
            })
            .or_else(|| {
                over(
                    Quantity::SamplesPerSecond,
                    budget.samples_per_second(),
                    self.max_samples_per_second,
                )
            })
            .or_else(|| {
                over(
                    Quantity::BytesPerSecond,
                    budget.bytes_per_second,
                    self.max_bytes_per_second,
                )
            })
    }
}

/// Which limit was exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// The sensor's rate (`<sensor_period>`).
    Rate,
    /// An image's width or height.
    ImageSide,
    /// Rays in one lidar sweep or laser scan.
    RaysPerFrame,
    /// Pixel samples in one camera frame.
    SamplesPerFrame,
    /// Rays or samples per second (size and rate together).
    SamplesPerSecond,
    /// Recorded bytes per second (size and rate together).
    BytesPerSecond,
}

/// A limit exceeded: by how much, and what to say.
#[derive(Clone, Debug, PartialEq)]
pub struct Exceeded {
    /// Which limit.
    pub quantity: Quantity,
    /// The sensor's value.
    pub value: f64,
    /// The limit.
    pub limit: f64,
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, unit) = match self.quantity {
            Quantity::Rate => ("a rate of", " Hz"),
            Quantity::ImageSide => ("an image side of", " pixels"),
            Quantity::RaysPerFrame => ("a frame of", " rays"),
            Quantity::SamplesPerFrame => ("a frame of", " pixel samples"),
            Quantity::SamplesPerSecond => ("", " rays or pixel samples per second"),
            Quantity::BytesPerSecond => ("", " recorded bytes per second"),
        };
        let what = if what.is_empty() {
            String::new()
        } else {
            format!("{what} ")
        };
        write!(
            f,
            "{what}{}{unit} is over the limit of {}{unit} (docs/limits.md; --limits-scale raises it)",
            quantity(self.value),
            quantity(self.limit)
        )
    }
}

/// A number for a message: whole numbers in full up to a billion, fractions with two
/// decimals up to ten million, else four significant digits.
fn quantity(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e9 {
        format!("{v:.0}")
    } else if (0.01..1e7).contains(&v.abs()) {
        format!("{v:.2}")
    } else {
        format!("{v:.3e}")
    }
}

/// What one sensor costs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SensorBudget {
    /// Frames per simulated second.
    pub rate_hz: f64,
    /// Rays (range sensors) or pixel samples (cameras: pixels times antialias squared) per
    /// frame.
    pub samples_per_frame: u64,
    /// The largest image side, pixels (0 for sensors without images).
    pub image_side: u64,
    /// Bytes added to a recording per simulated second.
    pub bytes_per_second: f64,
}

impl SensorBudget {
    /// The budget of `sensor`, computed from its parameters alone (nothing is allocated).
    pub fn of(sensor: &Sensor) -> SensorBudget {
        let rate_hz = if sensor.period > 0.0 {
            1.0 / sensor.period
        } else {
            f64::INFINITY
        };
        let pixels = |i: &crate::Intrinsics| u64::from(i.ncols) * u64::from(i.nrows);
        let side = |i: &crate::Intrinsics| u64::from(i.ncols.max(i.nrows));
        let aa2 = |aa: u32| u64::from(aa.max(1)).pow(2);
        let (samples, side, bytes_per_frame) = match &sensor.kind {
            SensorKind::Laser(l) => {
                let n = u64::from(l.nrays);
                (n, 0, n * POINT_BYTES)
            }
            SensorKind::Lidar3d(l) => {
                let n = l.rays_per_sweep();
                (n, 0, n * POINT_BYTES)
            }
            SensorKind::Camera(c) => {
                let p = pixels(&c.intrinsics);
                (
                    p.saturating_mul(aa2(c.antialias)),
                    side(&c.intrinsics),
                    p * CAMERA_PIXEL_BYTES,
                )
            }
            SensorKind::RgbdCamera(c) => {
                let depth = if c.sense_depth { pixels(&c.depth) } else { 0 };
                let rgb = if c.sense_rgb { pixels(&c.rgb) } else { 0 };
                let mut side_px = 0;
                if c.sense_depth {
                    side_px = side(&c.depth);
                }
                if c.sense_rgb {
                    side_px = side_px.max(side(&c.rgb));
                }
                (
                    depth.saturating_add(rgb.saturating_mul(aa2(c.antialias))),
                    side_px,
                    depth * DEPTH_PIXEL_BYTES + rgb * CAMERA_PIXEL_BYTES,
                )
            }
            SensorKind::Imu(_) | SensorKind::Gnss(_) => (1, 0, SMALL_MESSAGE_BYTES),
        };
        SensorBudget {
            rate_hz,
            samples_per_frame: samples,
            image_side: side,
            bytes_per_second: bytes_per_frame as f64 * rate_hz,
        }
    }

    /// Rays or pixel samples per simulated second.
    pub fn samples_per_second(&self) -> f64 {
        self.samples_per_frame as f64 * self.rate_hz
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CameraParams, Intrinsics, LaserParams, Lidar3dParams};

    fn sensor(period: f64, kind: SensorKind) -> Sensor {
        Sensor {
            name: "s".into(),
            pose: Default::default(),
            period,
            publish: None,
            visuals: Vec::new(),
            kind,
        }
    }

    #[test]
    fn real_sensors_are_within_the_limits() {
        // An Ouster OS1-128 at 2048 columns, 20 Hz; a 4K camera at 30 Hz, an 8K one at 2 Hz;
        // a 1 kHz IMU.
        let os1 = Lidar3dParams {
            vert_nrays: 128,
            horz_nrays: 2048,
            ..Lidar3dParams::default()
        };
        let cam = |ncols, nrows| CameraParams {
            intrinsics: Intrinsics {
                ncols,
                nrows,
                ..Intrinsics::default()
            },
            antialias: 1,
        };
        let limits = Limits::default();
        for s in [
            sensor(0.05, SensorKind::Lidar3d(os1)),
            sensor(1.0 / 30.0, SensorKind::Camera(cam(3840, 2160))),
            sensor(0.5, SensorKind::Camera(cam(7680, 4320))),
            sensor(0.001, SensorKind::Imu(Default::default())),
        ] {
            let b = SensorBudget::of(&s);
            assert_eq!(limits.exceeded(&b), None, "{b:?}");
        }
    }

    #[test]
    fn each_kind_of_excess_is_named() {
        let limits = Limits::default();
        let huge_lidar = Lidar3dParams {
            vert_nrays: 1_000_000_000,
            ..Lidar3dParams::default()
        };
        let b = SensorBudget::of(&sensor(0.1, SensorKind::Lidar3d(huge_lidar)));
        assert_eq!(b.samples_per_frame, 1_000_000_000 * 180);
        assert_eq!(
            limits.exceeded(&b).unwrap().quantity,
            Quantity::RaysPerFrame
        );
        let laser = |nrays| LaserParams {
            nrays,
            ..LaserParams::default()
        };
        let b = SensorBudget::of(&sensor(1e-9, SensorKind::Laser(laser(181))));
        assert_eq!(limits.exceeded(&b).unwrap().quantity, Quantity::Rate);
        // 5 M rays at 1 kHz: each within its limit, too many per second together.
        let b = SensorBudget::of(&sensor(1e-3, SensorKind::Laser(laser(5_000_000))));
        assert_eq!(b.samples_per_second(), 5e9);
        let e = limits.exceeded(&b).unwrap();
        assert_eq!(e.quantity, Quantity::SamplesPerSecond);
        assert!(e.to_string().contains("over the limit"), "{e}");
        let wide = CameraParams {
            intrinsics: Intrinsics {
                ncols: 1_000_000,
                ..Intrinsics::default()
            },
            antialias: 1,
        };
        let b = SensorBudget::of(&sensor(0.1, SensorKind::Camera(wide)));
        assert_eq!(limits.exceeded(&b).unwrap().quantity, Quantity::ImageSide);
        let b = SensorBudget::of(&sensor(1e-9, SensorKind::Laser(laser(181))));
        assert_eq!(Limits::scaled(1e6).exceeded(&b), None);
    }
}
