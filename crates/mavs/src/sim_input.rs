//! MAVS simulation input files (`sims/…/*.json`: `Scene`, `Poses`, `Starting Pose`, `Sensors`):
//! the scene they name, its geodetic origin, a vehicle replaying the pose file (`poses.rs`),
//! and its sensors (`sim_sensors.rs`).

use crate::json::Value;
use crate::poses::{read_text_poses, read_vprp};
use crate::read::{Report, json_file};
use crate::scene::SceneReader;
use passerby_world::{Georeference, Pose3, TimedTransform, Transform, Vehicle};

/// The vehicle a simulation input file drives.
pub const VEHICLE: &str = "vehicle";

const KEYS: [&str; 12] = [
    "Scene",
    "Poses",
    "Starting Pose",
    "Sensors",
    "Sensor",
    "Display Sensors",
    "Save Data",
    "Output Directory",
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
        // MAVS reads `Sensors`, or a single `Sensor`.
        if let Some(sensors) = root.get("Sensors")
            && let Some(items) = self.report.array(sensors, "Sensors")
        {
            for (i, item) in items.iter().enumerate() {
                if let Some(sensor) = self.mavs_sensor(item, &format!("Sensors[{i}]"), i) {
                    vehicle.sensors.push(sensor);
                }
            }
        } else if let Some(item) = root.get("Sensor")
            && let Some(sensor) = self.mavs_sensor(item, "Sensor", 0)
        {
            vehicle.sensors.push(sensor);
        }
        if let Some(poses) = root.get("Poses") {
            // Untimed poses are one frame each of the fastest sensor, as MAVS renders every
            // sensor once per pose.
            let frame = vehicle
                .sensors
                .iter()
                .map(|s| s.period)
                .fold(f64::INFINITY, f64::min);
            self.pose_replay(poses, if frame.is_finite() { frame } else { 0.1 });
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

    fn pose_replay(&mut self, poses: &Value, frame_period: f64) {
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
        if kind != "anvel" && kind != "text" {
            let span = poses.get("Pose Type").map_or(poses.span, |t| t.span);
            let message = format!("`{kind}`: expected `anvel` or `text`");
            self.report.error(span, "Poses.Pose Type", message);
            return;
        }
        let every = match poses.get("Pose Frequency") {
            Some(v) => match self.report.number(v, "Poses.Pose Frequency") {
                Some(n) if n >= 1.0 && n.fract() == 0.0 => n as usize,
                Some(n) => {
                    let message = format!("expected a whole number of at least 1, found {n}");
                    self.report.error(v.span, "Poses.Pose Frequency", message);
                    return;
                }
                None => return,
            },
            None => 1,
        };
        let path = self.data_dir.join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                let message = format!("cannot read the pose file `{}`: {e}", path.display());
                self.report.error(file.span, "Poses.Pose File", message);
                return;
            }
        };
        let read = if kind == "text" {
            read_text_poses(&text, frame_period)
        } else {
            // `Pose Frequency` n keeps every n-th record, as MAVS's reader does.
            read_vprp(&text).map(|list| list.into_iter().step_by(every).collect())
        };
        match read {
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
                    planar: false,
                })),
            Err(e) => self.report.error(
                file.span,
                "Poses.Pose File",
                format!("{}:{}: {}", path.display(), e.line, e.message),
            ),
        }
    }
}
