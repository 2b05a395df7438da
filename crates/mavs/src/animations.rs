//! MAVS keyframe animations (`Animations`): OBJ frame sequences walked through the scene by a
//! behavior or a waypoint path (`EmbreeTracer::LoadKeyframeAnimation`, peers.md §1.2), as
//! actors with keyframe-mesh bodies.
//!
//! Given inline (an array, as MAVS documents) or as a file name relative to the data folder
//! whose `Animations` array is read (as MAVS's code does). Deliberate differences: the last
//! frame name counts without a trailing newline; frames blend linearly at `Frame Rate` with no
//! skipped frames; `circle` walks a circle (MAVS's drifts outwards); random draws are seeded.

use crate::json::{Kind, Value};
use crate::read::{Report, json_file};
use crate::scene::SceneReader;
use glam::{DMat3, DVec3};
use passerby_diag::Span;
use passerby_world::{Actor, Behavior, KeyframeMeshes, Pose3, SimulableCommon};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

const ENTRY_KEYS: [&str; 14] = [
    "Animation Folder",
    "Frame List",
    "Path",
    "Behavior",
    "Frame Rate",
    "Mesh Scale",
    "Speed",
    "Initial Position",
    "Initial Heading",
    "Rotate Y to X",
    "Rotate Y to Z",
    "Smooth Normals",
    "Bounding Box",
    "Number",
];

/// MAVS's `wander` draws goals in this square (metres).
const WANDER_HALF_SIZE: f64 = 1000.0;

impl SceneReader<'_> {
    /// The scene's `Animations` value: an inline array or the name of a file holding one.
    pub(crate) fn animations(&mut self, v: &Value) {
        match &v.kind {
            Kind::Array(entries) => self.animation_entries(entries, "Animations"),
            Kind::String(name) => {
                let path = self.data_dir.join(name);
                let named_at = Some((v.span, "Animations"));
                let file = json_file(&path, "animation file", named_at, self.report, self.sources);
                let Some(root) = file else {
                    return;
                };
                let Some(list) = self.report.required(&root, "$", "Animations") else {
                    return;
                };
                if let Some(entries) = self.report.array(list, "Animations") {
                    self.animation_entries(entries, "Animations");
                }
            }
            _ => self.report.error(
                v.span,
                "Animations",
                format!(
                    "expected an array of animations or a file name, found {}",
                    crate::read::found(v)
                ),
            ),
        }
    }

    fn animation_entries(&mut self, entries: &[Value], key: &str) {
        for (i, entry) in entries.iter().enumerate() {
            let path = format!("{key}[{i}]");
            if self.report.object(entry, &path).is_none() {
                continue;
            }
            self.report
                .unknown_members(entry, &path, "animation", &ENTRY_KEYS);
            self.animation(entry, &path, i);
        }
    }

    fn animation(&mut self, entry: &Value, path: &str, index: usize) {
        let folder = self.report.required(entry, path, "Animation Folder");
        let folder =
            folder.and_then(|f| self.report.string(f, &format!("{path}.Animation Folder")));
        let list = self.report.required(entry, path, "Frame List");
        let list_name = list.and_then(|l| self.report.string(l, &format!("{path}.Frame List")));
        let r = &mut *self.report;
        let frame_rate = r.optional(entry, path, "Frame Rate", 30.0, Report::number);
        let mesh_scale = r.optional(entry, path, "Mesh Scale", 1.0, Report::number);
        let speed = r.optional(entry, path, "Speed", 0.0, Report::number);
        let start = r.optional(
            entry,
            path,
            "Initial Position",
            [0.0; 3],
            Report::numbers::<3>,
        );
        let heading = r.optional(entry, path, "Initial Heading", 0.0, Report::number);
        let y_to_x = r.optional(entry, path, "Rotate Y to X", false, Report::boolean);
        let y_to_z = r.optional(entry, path, "Rotate Y to Z", false, Report::boolean);
        let (Some(folder), Some(list), Some(list_name)) = (folder, list, list_name) else {
            return;
        };
        let (Some(frame_rate), Some(mesh_scale), Some(speed), Some(start), Some(heading)) =
            (frame_rate, mesh_scale, speed, start, heading)
        else {
            return;
        };
        if frame_rate <= 0.0 {
            self.report.error(
                entry.span,
                &format!("{path}.Frame Rate"),
                format!("must be positive, found {frame_rate}"),
            );
            return;
        }
        let Some(frames) =
            self.frame_list(list_name, list.span, &format!("{path}.Frame List"), folder)
        else {
            return;
        };
        let body = keyframe_meshes(
            frames,
            frame_rate,
            mesh_scale,
            y_to_x == Some(true),
            y_to_z == Some(true),
        );
        // The label file names frames as `folder/name`.
        let first = body.frames[0].rsplit('/').next().unwrap_or_default();
        let label = self
            .labels
            .class_of(&format!("{folder}/{first}"))
            .map_or_else(|| "pedestrian".to_owned(), str::to_owned);
        let stem = Path::new(folder)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("animation")
            .to_owned();
        let actor = |name: String, pose: Pose3, behavior: Option<Behavior>| Actor {
            name,
            common: SimulableCommon {
                init_pose: pose,
                label: Some(label.clone()),
                ..SimulableCommon::default()
            },
            // MAVS turns at once towards its target and plays its frames at a fixed rate.
            turning_rate: None,
            walking_speed: speed.max(1e-3),
            behavior,
            keyframe_meshes: Some(body.clone()),
            ..Actor::default()
        };
        let at = |p: [f64; 3], yaw: f64| Pose3 {
            x: p[0],
            y: p[1],
            z: p[2],
            yaw,
            ..Pose3::default()
        };
        let n = self.world.actors.len();
        if let Some(p) = entry.get("Path") {
            let Some(points) = self.waypoints(p, &format!("{path}.Path")) else {
                return;
            };
            // MAVS starts at the first waypoint unless an initial position is given.
            let first = if entry.get("Initial Position").is_some() {
                start
            } else {
                [points[0][0], points[0][1], 0.0]
            };
            let behavior = Behavior::Waypoints { speed, points };
            self.world.actors.push(actor(
                format!("{stem}_{}", n + 1),
                at(first, heading),
                Some(behavior),
            ));
            return;
        }
        let Some(b) = entry.get("Behavior") else {
            self.report.warn(
                entry.span,
                path,
                "neither `Path` nor `Behavior`: skipped, as MAVS skips it",
            );
            return;
        };
        let Some(kind) = self.report.string(b, &format!("{path}.Behavior")) else {
            return;
        };
        let wander_box = || Behavior::WanderInBox {
            speed,
            min: [-WANDER_HALF_SIZE; 2],
            max: [WANDER_HALF_SIZE; 2],
        };
        match kind {
            "straight" => {
                let behavior = Behavior::Straight { speed };
                self.world.actors.push(actor(
                    format!("{stem}_{}", n + 1),
                    at(start, heading),
                    Some(behavior),
                ));
            }
            "circle" => {
                let (centre, behavior) = circle_about_origin(start, speed);
                self.world
                    .actors
                    .push(actor(format!("{stem}_{}", n + 1), centre, Some(behavior)));
            }
            "crowd" => {
                let Some(people) = self.crowd(entry, path, index, start[2], speed) else {
                    return;
                };
                for (k, (pose, behavior)) in people.into_iter().enumerate() {
                    let name = format!("{stem}_{}", n + k + 1);
                    self.world.actors.push(actor(name, pose, Some(behavior)));
                }
            }
            other => {
                if other != "wander" {
                    self.report.warn(
                        b.span,
                        &format!("{path}.Behavior"),
                        format!("unknown behavior `{other}`: MAVS makes it `wander`"),
                    );
                }
                self.world.actors.push(actor(
                    format!("{stem}_{}", n + 1),
                    at(start, heading),
                    Some(wander_box()),
                ));
            }
        }
    }

    /// A MAVS crowd: `Number` people wandering in the `Bounding Box` (default ±100 m), each
    /// placed and turned at random by the entry's own generator, at height `z`.
    fn crowd(
        &mut self,
        entry: &Value,
        path: &str,
        index: usize,
        z: f64,
        speed: f64,
    ) -> Option<Vec<(Pose3, Behavior)>> {
        let r = &mut *self.report;
        let number = r.optional(entry, path, "Number", 0.0, Report::number);
        let bounds = match entry.get("Bounding Box") {
            None => Some([[-100.0, -100.0], [100.0, 100.0]]),
            Some(bb) => {
                let bpath = format!("{path}.Bounding Box");
                r.array(bb, &bpath).and_then(|items| {
                    if items.len() != 2 {
                        r.error(
                            bb.span,
                            &bpath,
                            format!(
                                "expected [[xmin, ymin], [xmax, ymax]], found an array of {}",
                                items.len()
                            ),
                        );
                        return None;
                    }
                    Some([
                        r.numbers::<2>(&items[0], &format!("{bpath}[0]"))?,
                        r.numbers::<2>(&items[1], &format!("{bpath}[1]"))?,
                    ])
                })
            }
        };
        let (number, [lo, hi]) = (number?, bounds?);
        if number < 0.0 || number.fract() != 0.0 || number > 100_000.0 {
            r.error(
                entry.span,
                &format!("{path}.Number"),
                format!("expected a whole number of people, found {number}"),
            );
            return None;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0xC0_0D ^ ((index as u64 + 1) << 32));
        let people = (0..number as usize)
            .map(|_| {
                let p = [
                    lo[0] + (hi[0] - lo[0]) * rng.random::<f64>(),
                    lo[1] + (hi[1] - lo[1]) * rng.random::<f64>(),
                    z,
                ];
                let yaw = rng.random::<f64>() * std::f64::consts::TAU;
                let pose = Pose3 {
                    x: p[0],
                    y: p[1],
                    z: p[2],
                    yaw,
                    ..Pose3::default()
                };
                let behavior = Behavior::WanderInBox {
                    speed,
                    min: lo,
                    max: hi,
                };
                (pose, behavior)
            })
            .collect();
        Some(people)
    }

    /// The frame files named by a frame list: whitespace-separated names of files in `folder`.
    fn frame_list(
        &mut self,
        list: &str,
        span: Span,
        key: &str,
        folder: &str,
    ) -> Option<Vec<String>> {
        let file = format!("{}{list}", self.meshes_dir);
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                self.report.error(
                    span,
                    key,
                    format!("cannot read the frame list `{file}`: {e}"),
                );
                return None;
            }
        };
        let names: Vec<&str> = text.split_whitespace().collect();
        if names.is_empty() {
            self.report.error(
                span,
                key,
                format!("the frame list `{file}` names no frames"),
            );
            return None;
        }
        let mut frames = Vec::with_capacity(names.len());
        let mut ok = true;
        for name in names {
            let frame = format!("{}{folder}/{name}", self.meshes_dir);
            if Path::new(&frame).is_file() {
                frames.push(frame);
            } else {
                self.report.error(
                    span,
                    key,
                    format!("frame `{name}` (`{frame}`) does not exist"),
                );
                ok = false;
            }
        }
        ok.then_some(frames)
    }

    /// A MAVS waypoint file (`{"Waypoints": [[x, y], …]}`), relative to the data folder.
    pub(crate) fn waypoints(&mut self, v: &Value, key: &str) -> Option<Vec<[f64; 2]>> {
        let name = self.report.string(v, key)?;
        let path = self.data_dir.join(name);
        let root = json_file(
            &path,
            "waypoint file",
            Some((v.span, key)),
            self.report,
            self.sources,
        )?;
        let list = self.report.required(&root, "$", "Waypoints")?;
        let items = self.report.array(list, "Waypoints")?;
        let mut points = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            points.push(self.report.numbers::<2>(item, &format!("Waypoints[{i}]"))?);
        }
        if let Some(offset) = root.get("UTM Offset") {
            self.report.warn(
                offset.span,
                "UTM Offset",
                "ignored: waypoints are taken as local coordinates",
            );
        }
        if points.is_empty() {
            self.report
                .error(list.span, "Waypoints", "a path needs at least one waypoint");
            return None;
        }
        Some(points)
    }
}

/// A keyframe body as MAVS places its frames: scaled by `mesh_scale`, then its base rotation
/// (Y to Z is Rx(-90°), Y to X is Rz(+90°); both: Rz·Rx).
fn keyframe_meshes(
    frames: Vec<String>,
    frame_rate: f64,
    mesh_scale: f64,
    y_to_x: bool,
    y_to_z: bool,
) -> KeyframeMeshes {
    let mut base = DMat3::IDENTITY;
    if y_to_z {
        base = DMat3::from_rotation_x(-std::f64::consts::FRAC_PI_2) * base;
    }
    if y_to_x {
        base = DMat3::from_rotation_z(std::f64::consts::FRAC_PI_2) * base;
    }
    let linear = base * DMat3::from_diagonal(DVec3::splat(mesh_scale));
    let row = |i: usize| [linear.x_axis[i], linear.y_axis[i], linear.z_axis[i], 0.0];
    KeyframeMeshes {
        frames,
        frame_rate,
        object_from_model: [row(0), row(1), row(2)],
    }
}

/// MAVS's "circle": about the origin, through the start (from the origin MAVS jumps to
/// (10, 0)). Our circle controller is centred on the initial pose and starts to the right of
/// its heading: the pose is the origin, heading the start's bearing + 90°.
fn circle_about_origin(start: [f64; 3], speed: f64) -> (Pose3, Behavior) {
    let radius = start[0].hypot(start[1]);
    let (bearing, radius) = if radius > 0.0 {
        (start[1].atan2(start[0]), radius)
    } else {
        (0.0, 10.0)
    };
    let centre = Pose3 {
        z: start[2],
        yaw: bearing + std::f64::consts::FRAC_PI_2,
        ..Pose3::default()
    };
    (centre, Behavior::Circle { speed, radius })
}
