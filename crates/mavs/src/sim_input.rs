//! MAVS simulation input files (`sims/…/*.json`: `Scene`, `Poses`, `Starting Pose`, `Sensors`):
//! the scene they name, its geodetic origin, a vehicle replaying the pose file, and the lidars
//! by MAVS model name (`lidars.rs` holds their scan patterns).

use crate::json::Value;
use crate::lidars::lidar_sensor;
use crate::poses::read_vprp;
use crate::read::{Report, json_file};
use crate::scene::SceneReader;
use glam::{DQuat, EulerRot};
use passerby_world::{Georeference, Pose3, Sensor, TimedTransform, Transform, Vehicle};

/// The vehicle a simulation input file drives.
pub const VEHICLE: &str = "vehicle";

const KEYS: [&str; 8] = [
    "Scene",
    "Poses",
    "Starting Pose",
    "Sensors",
    "Vehicle",
    "Controller",
    "Environment",
    "Time Step",
];

/// Whether a parsed file is a simulation input file rather than a scene.
pub(crate) fn is_sim_input(root: &Value) -> bool {
    root.get("Scene")
        .is_some_and(|s| s.get("Input File").is_some())
        && root.get("Objects").is_none()
}

impl SceneReader<'_> {
    pub(crate) fn sim_input(&mut self, root: &Value) {
        self.report.unknown_members(root, "$", "simulation", &KEYS);
        let Some(scene) = root.get("Scene") else {
            return;
        };
        if self.report.object(scene, "Scene").is_none() {
            return;
        }
        if let Some(origin) = scene.get("Origin")
            && let Some([lat, lon, alt]) = self.report.numbers::<3>(origin, "Scene.Origin")
        {
            self.world.georeference = Some(Georeference {
                latitude_deg: lat,
                longitude_deg: lon,
                height: alt,
                ..Georeference::default()
            });
        }
        let Some(input) = self.report.required(scene, "Scene", "Input File") else {
            return;
        };
        let Some(name) = self.report.string(input, "Scene.Input File") else {
            return;
        };
        let path = self.data_dir.join(name);
        let named_at = Some((input.span, "Scene.Input File"));
        let Some(scene_root) = json_file(&path, "scene", named_at, self.report, self.sources)
        else {
            return;
        };
        self.read(&scene_root);
        let mut vehicle = Vehicle {
            name: VEHICLE.into(),
            ..Vehicle::default()
        };
        if let Some(start) = root.get("Starting Pose") {
            let r = &mut *self.report;
            let p = r.optional(
                start,
                "Starting Pose",
                "Position",
                [0.0; 3],
                Report::numbers::<3>,
            );
            let h = r.optional(start, "Starting Pose", "Heading", 0.0, Report::number);
            if let (Some(p), Some(h)) = (p, h) {
                vehicle.common.init_pose = Pose3 {
                    x: p[0],
                    y: p[1],
                    z: p[2],
                    yaw: h,
                    ..Pose3::default()
                };
            }
        }
        if let Some(poses) = root.get("Poses") {
            self.pose_replay(poses);
        }
        if let Some(sensors) = root.get("Sensors")
            && let Some(items) = self.report.array(sensors, "Sensors")
        {
            for (i, item) in items.iter().enumerate() {
                if let Some(sensor) = self.mavs_sensor(item, &format!("Sensors[{i}]")) {
                    vehicle.sensors.push(sensor);
                }
            }
        }
        for (key, why) in [
            ("Vehicle", "not simulated: the vehicle follows its poses"),
            ("Controller", "not simulated: the vehicle follows its poses"),
            ("Environment", "not simulated (date, sky and weather)"),
        ] {
            if let Some(v) = root.get(key) {
                self.report.warn(v.span, key, why);
            }
        }
        self.world.vehicles.push(vehicle);
    }

    fn pose_replay(&mut self, poses: &Value) {
        let key = "Poses";
        if self.report.object(poses, key).is_none() {
            return;
        }
        let kind = match poses.get("Pose Type") {
            Some(t) => self.report.string(t, "Poses.Pose Type").unwrap_or("anvel"),
            None => "anvel",
        };
        let Some(file) = self.report.required(poses, key, "Pose File") else {
            return;
        };
        let Some(name) = self.report.string(file, "Poses.Pose File") else {
            return;
        };
        if kind != "anvel" {
            self.report.error(
                poses.span,
                "Poses.Pose Type",
                format!("`{kind}` pose files are not read yet (ANVEL `.vprp` files are)"),
            );
            return;
        }
        let path = self.data_dir.join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                let message = format!("cannot read the pose file `{}`: {e}", path.display());
                self.report.error(file.span, "Poses.Pose File", message);
                return;
            }
        };
        match read_vprp(&text) {
            Ok(list) => self
                .world
                .replay
                .extend(list.into_iter().map(|p| TimedTransform {
                    time: p.time,
                    object: VEHICLE.into(),
                    part: None,
                    transform: Transform {
                        translation: p.position,
                        yaw_pitch_roll: p.yaw_pitch_roll,
                        scale: [1.0; 3],
                    },
                })),
            Err(e) => self.report.error(
                file.span,
                "Poses.Pose File",
                format!("{}:{}: {}", path.display(), e.line, e.message),
            ),
        }
    }

    fn mavs_sensor(&mut self, item: &Value, path: &str) -> Option<Sensor> {
        self.report.object(item, path)?;
        let r = &mut *self.report;
        let kind = r
            .required(item, path, "Type")
            .and_then(|t| r.string(t, &format!("{path}.Type")))?;
        let model = match item.get("Model") {
            Some(m) => r.string(m, &format!("{path}.Model"))?,
            None => "",
        };
        let name = r
            .required(item, path, "Name")
            .and_then(|n| r.string(n, &format!("{path}.Name")))?;
        let offset = r.optional(item, path, "Offset", [0.0; 3], Report::numbers::<3>)?;
        let [w, x, y, z] = r.optional(
            item,
            path,
            "Orientation",
            [1.0, 0.0, 0.0, 0.0],
            Report::numbers::<4>,
        )?;
        let rate = r.optional(item, path, "Repitition Rate (Hz)", 10.0, Report::number)?;
        if kind != "lidar" {
            r.warn(item.span, path, format!("`{kind}` sensors are not built from MAVS models yet: skipped (add them with --rig)"));
            return None;
        }
        if rate <= 0.0 {
            r.error(
                item.span,
                &format!("{path}.Repitition Rate (Hz)"),
                format!("must be positive, found {rate}"),
            );
            return None;
        }
        let (yaw, pitch, roll) = DQuat::from_xyzw(x, y, z, w)
            .normalize()
            .to_euler(EulerRot::ZYX);
        let pose = Pose3 {
            x: offset[0],
            y: offset[1],
            z: offset[2],
            yaw,
            pitch,
            roll,
        };
        match lidar_sensor(model, name, pose, rate) {
            Ok(sensor) => Some(sensor),
            Err(message) => {
                let span = item.get("Model").map_or(item.span, |m| m.span);
                r.error(span, &format!("{path}.Model"), message);
                None
            }
        }
    }
}
