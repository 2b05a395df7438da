//! The `Sensors` of a MAVS simulation input file (MAVS's `sensors/io/json_io.cpp`): lidars by
//! model name (`lidars.rs`) or from a lidar file, cameras by model name (`cameras.rs`) or from
//! a camera file, GPS receivers as exact GNSS fixes (MAVS's default `perfect` mode). Other types
//! (radar, IMU, compass, fisheye) are skipped with a warning; add them with `--rig`. Every sensor carries MAVS's `Offset`, `Orientation` (w, x, y, z),
//! `Repitition Rate (Hz)` (sic, default 10) and `Name` (default `Sensor`, then `Sensor2`, …).

use crate::cameras::{FocalPlane, camera_model, model_names};
use crate::json::Value;
use crate::lidars::{ScanPattern, lidar_sensor, lidar_with};
use crate::read::{Report, json_file};
use crate::scene::SceneReader;
use glam::{DQuat, DVec3};
use passerby_world::budget::{Quantity, SensorBudget};
use passerby_world::{CameraParams, GnssParams, Pose3, Sensor, SensorKind};

const SENSOR_KEYS: [&str; 10] = [
    "Type",
    "Model",
    "Input File",
    "Offset",
    "Orientation",
    "Repitition Rate (Hz)",
    "Number Processors",
    "Draw Annotations",
    "Name",
    "Comment",
];

const LIDAR_FILE_KEYS: [&str; 8] = [
    "Min Range",
    "Max Range",
    "Scan Pattern",
    "Mode",
    "Beam Properties",
    "Signal Cutoff",
    "Rotation Rate",
    "Comment",
];

const CAMERA_FILE_KEYS: [&str; 9] = [
    "Pixels",
    "FocalLength",
    "FocalPlaneDimensions",
    "Gamma",
    "Gain",
    "Exposure Time",
    "Distortion",
    "Anti Aliasing",
    "Fisheye Projection",
];

fn pose_of(offset: [f64; 3], q: DQuat) -> Pose3 {
    Pose3::from_translation_rotation(DVec3::from_array(offset), q)
}

impl SceneReader<'_> {
    /// Sensor `index` of the file at JSON path `path`; `None` when skipped, wrong or over the
    /// limits on sizes and rates (reported).
    pub(crate) fn mavs_sensor(&mut self, item: &Value, path: &str, index: usize) -> Option<Sensor> {
        let sensor = self.mavs_sensor_unchecked(item, path, index)?;
        let budget = SensorBudget::of(&sensor);
        if let Some(exceeded) = self.limits.exceeded(&budget) {
            let key = match exceeded.quantity {
                Quantity::Rate => "Repitition Rate (Hz)",
                _ if item.get("Input File").is_some() => "Input File",
                _ => "Model",
            };
            let span = item.get(key).map_or(item.span, |v| v.span);
            let message = format!("{} `{}`: {exceeded}", sensor.class_name(), sensor.name);
            self.report.error(span, &format!("{path}.{key}"), message);
            return None;
        }
        Some(sensor)
    }

    fn mavs_sensor_unchecked(&mut self, item: &Value, path: &str, index: usize) -> Option<Sensor> {
        self.report.object(item, path)?;
        self.report
            .unknown_members(item, path, "sensor", &SENSOR_KEYS);
        let r = &mut *self.report;
        let kind = r
            .required(item, path, "Type")
            .and_then(|t| r.string(t, &format!("{path}.Type")))?;
        let model = match item.get("Model") {
            Some(m) => Some(r.string(m, &format!("{path}.Model"))?),
            None => None,
        };
        let name = match item.get("Name") {
            Some(n) => r.string(n, &format!("{path}.Name"))?.to_owned(),
            None if index == 0 => "Sensor".to_owned(),
            None => format!("Sensor{}", index + 1),
        };
        let offset = r.optional(item, path, "Offset", [0.0; 3], Report::numbers::<3>)?;
        let [w, x, y, z] = r.optional(
            item,
            path,
            "Orientation",
            [1.0, 0.0, 0.0, 0.0],
            Report::numbers::<4>,
        )?;
        let rate = r.optional(item, path, "Repitition Rate (Hz)", 10.0, Report::number)?;
        if rate <= 0.0 {
            r.error(
                item.span,
                &format!("{path}.Repitition Rate (Hz)"),
                format!("must be positive, found {rate}"),
            );
            return None;
        }
        let q = DQuat::from_xyzw(x, y, z, w);
        if q.length() <= 1e-9 {
            let span = item.get("Orientation").map_or(item.span, |o| o.span);
            r.error(span, &format!("{path}.Orientation"), "a zero quaternion");
            return None;
        }
        let q = q.normalize();
        match (kind, model) {
            ("lidar", Some(model)) => match lidar_sensor(model, &name, pose_of(offset, q), rate) {
                Ok(sensor) => Some(sensor),
                Err(message) => {
                    let span = item.get("Model").map_or(item.span, |m| m.span);
                    r.error(span, &format!("{path}.Model"), message);
                    None
                }
            },
            ("lidar", None) => {
                let file = self.sensor_file(item, path, "lidar file")?;
                let params = self.lidar_file(&file)?;
                let kind = SensorKind::Lidar3d(params);
                Some(lidar_with(kind, &name, pose_of(offset, q), rate))
            }
            ("camera", model) => {
                let params = match model {
                    Some(m) => match camera_model(m) {
                        Some(params) => params,
                        None => {
                            let span = item.get("Model").map_or(item.span, |m| m.span);
                            let message = format!(
                                "camera model `{m}` is not one we know ({}): skipped, as MAVS skips it",
                                model_names().join(", ")
                            );
                            self.report.warn(span, &format!("{path}.Model"), message);
                            return None;
                        }
                    },
                    None => {
                        let file = self.sensor_file(item, path, "camera file")?;
                        self.camera_file(&file)?
                    }
                };
                // MAVS cameras look along their mount's +X with +Z up; ours are optical
                // frames (+Z forward, +X right, +Y down).
                let optical = q
                    * DQuat::from_rotation_z(-std::f64::consts::FRAC_PI_2)
                    * DQuat::from_rotation_x(-std::f64::consts::FRAC_PI_2);
                Some(Sensor {
                    name,
                    pose: pose_of(offset, optical),
                    period: 1.0 / rate,
                    publish: None,
                    visuals: Vec::new(),
                    kind: SensorKind::Camera(params),
                })
            }
            // MAVS's `Gps()` starts in its `perfect` mode: the true position, no error.
            ("gps", _) => Some(Sensor {
                name,
                pose: pose_of(offset, q),
                period: 1.0 / rate,
                publish: None,
                visuals: Vec::new(),
                kind: SensorKind::Gnss(GnssParams {
                    horizontal_std_noise: 0.0,
                    vertical_std_noise: 0.0,
                }),
            }),
            (other, _) => {
                let message = format!(
                    "`{other}` sensors are not built from MAVS files yet: skipped (add them with --rig)"
                );
                self.report.warn(item.span, path, message);
                None
            }
        }
    }

    /// The parsed `Input File` of a sensor (relative to the MAVS data folder).
    fn sensor_file(&mut self, item: &Value, path: &str, what: &str) -> Option<Value> {
        let key = format!("{path}.Input File");
        let input = self.report.required(item, path, "Input File")?;
        let name = self.report.string(input, &key)?;
        let file = self.data_dir.join(name);
        json_file(
            &file,
            what,
            Some((input.span, &key)),
            self.report,
            self.sources,
        )
    }

    /// MAVS's generic lidar (`Lidar::Load`): `Scan Pattern`, `Min Range` (1), `Max Range`
    /// (100). Beam spots and return modes have no counterpart: each beam is one exact ray.
    fn lidar_file(&mut self, root: &Value) -> Option<passerby_world::Lidar3dParams> {
        let r = &mut *self.report;
        r.object(root, "$")?;
        r.unknown_members(root, "$", "lidar file", &LIDAR_FILE_KEYS);
        for key in ["Mode", "Beam Properties", "Signal Cutoff"] {
            if let Some(v) = root.get(key) {
                r.warn_once(
                    key,
                    v.span,
                    format!(
                        "`{key}`: every beam is one exact ray here (no beam spot or return modes)"
                    ),
                );
            }
        }
        let min = r.optional(root, "$", "Min Range", 1.0, Report::number)?;
        let max = r.optional(root, "$", "Max Range", 100.0, Report::number)?;
        if !(min >= 0.0 && max > min) {
            r.error(
                root.span,
                "$.Max Range",
                format!("expected 0 <= Min Range < Max Range, found {min} and {max}"),
            );
            return None;
        }
        let pattern = r.required(root, "$", "Scan Pattern")?;
        r.object(pattern, "$.Scan Pattern")?;
        let p = "$.Scan Pattern";
        let [lo, hi] = r
            .required(pattern, p, "Horizontal Range")
            .and_then(|v| r.numbers::<2>(v, &format!("{p}.Horizontal Range")))?;
        let step = r
            .required(pattern, p, "Horizontal Step")
            .and_then(|v| r.number(v, &format!("{p}.Horizontal Step")))?;
        let vertical = match (pattern.get("Vertical Range"), pattern.get("Vertical Step")) {
            (Some(range), Some(step)) => {
                let [vlo, vhi] = r.numbers::<2>(range, &format!("{p}.Vertical Range"))?;
                let vstep = r.number(step, &format!("{p}.Vertical Step"))?;
                Some((vlo, vhi, vstep))
            }
            _ => None,
        };
        let scan = ScanPattern {
            horizontal: (lo, hi, step),
            vertical,
        };
        if let Err(message) = scan.validate() {
            r.error(pattern.span, p, message);
            return None;
        }
        Some(scan.lidar(min, max))
    }

    /// MAVS's camera file (`Camera::Load`). MAVS compares `FocalPlaneDimensions` with the
    /// number 2 instead of checking its length, so it never reads it; here it is read.
    fn camera_file(&mut self, root: &Value) -> Option<CameraParams> {
        let r = &mut *self.report;
        r.object(root, "$")?;
        r.unknown_members(root, "$", "camera file", &CAMERA_FILE_KEYS);
        let mut plane = FocalPlane::default();
        if let Some(v) = root.get("Pixels") {
            let [nx, ny] = r.numbers::<2>(v, "$.Pixels")?;
            if !(nx >= 1.0 && ny >= 1.0 && nx.fract() == 0.0 && ny.fract() == 0.0 && nx * ny <= 1e8)
            {
                r.error(
                    v.span,
                    "$.Pixels",
                    format!("expected two whole pixel counts, found {nx} x {ny}"),
                );
                return None;
            }
            plane.pixels = (nx as u32, ny as u32);
        }
        plane.focal_length =
            r.optional(root, "$", "FocalLength", plane.focal_length, Report::number)?;
        if let Some(v) = root.get("FocalPlaneDimensions") {
            let [w, h] = r.numbers::<2>(v, "$.FocalPlaneDimensions")?;
            plane.size = (w, h);
        }
        if !(plane.focal_length > 0.0 && plane.size.0 > 0.0 && plane.size.1 > 0.0) {
            r.error(
                root.span,
                "$",
                format!(
                    "focal length {} m on a {} x {} m focal plane: expected positive sizes",
                    plane.focal_length, plane.size.0, plane.size.1
                ),
            );
            return None;
        }
        let mut intrinsics = plane.intrinsics();
        if let Some(d) = root.get("Distortion") {
            r.object(d, "$.Distortion")?;
            if let Some(cc) = d.get("CC") {
                [intrinsics.cx, intrinsics.cy] = r.numbers::<2>(cc, "$.Distortion.CC")?;
            }
            if let Some(fc) = d.get("FC") {
                [intrinsics.fx, intrinsics.fy] = r.numbers::<2>(fc, "$.Distortion.FC")?;
            }
            if let Some(kc) = d.get("KC") {
                intrinsics.distortion = r.numbers::<5>(kc, "$.Distortion.KC")?;
            }
            if let Some(alpha) = d.get("alpha") {
                let skew = r.number(alpha, "$.Distortion.alpha")?;
                if skew != 0.0 {
                    r.warn(
                        alpha.span,
                        "$.Distortion.alpha",
                        "pixel skew is not modelled: ignored",
                    );
                }
            }
        }
        if let Some(v) = root.get("Fisheye Projection") {
            r.warn(
                v.span,
                "$.Fisheye Projection",
                "fisheye projections are not modelled: rendered as a pinhole",
            );
        }
        let mut antialias = 1;
        if let Some(aa) = root.get("Anti Aliasing") {
            r.object(aa, "$.Anti Aliasing")?;
            let kind = match aa.get("Type") {
                Some(t) => r.string(t, "$.Anti Aliasing.Type")?,
                None => "none",
            };
            let samples = r.optional(
                aa,
                "$.Anti Aliasing",
                "Samples Per Pixel",
                1.0,
                Report::number,
            )?;
            if kind != "none" {
                antialias = samples.clamp(1.0, 16.0) as u32;
            }
        }
        Some(CameraParams {
            intrinsics,
            antialias,
        })
    }
}
