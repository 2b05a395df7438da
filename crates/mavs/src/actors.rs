//! MAVS actor files (`--mavs-actors FILE`): rigid meshes driven along waypoint files
//! (`Environment::LoadActors`, peers.md §1.3), as actors whose body is that one mesh.
//!
//! Differences from MAVS, on purpose: every instance of an entry is loaded (MAVS exits with
//! more than one), `Initial Position` is honoured (MAVS reads it under another name), the
//! waypoint tolerance is the controller's `2·speed·dt` rather than 0.1 m, `Offset` turns with
//! the actor (only its height is exactly MAVS's), and a mesh that is missing gives the
//! placeholder body with a warning.

use crate::json::Value;
use crate::read::{Report, json_file};
use crate::scene::SceneReader;
use glam::{DMat3, DVec3};
use passerby_world::{Actor, Behavior, KeyframeMeshes, Pose3, SimulableCommon};
use std::path::Path;

/// MAVS's default actor speed, m/s.
const DEFAULT_SPEED: f64 = 1.4;

impl SceneReader<'_> {
    /// Reads an actor file and adds its actors.
    pub(crate) fn actor_file(&mut self, path: &Path) {
        let Some(root) = json_file(path, "actor file", None, self.report, self.sources) else {
            return;
        };
        if self.report.object(&root, "$").is_none() {
            return;
        }
        let Some(list) = self.report.required(&root, "$", "Actors") else {
            return;
        };
        let Some(entries) = self.report.array(list, "Actors") else {
            return;
        };
        for (i, entry) in entries.iter().enumerate() {
            let key = format!("Actors[{i}]");
            if self.report.object(entry, &key).is_some() {
                self.actor_entry(entry, &key);
            }
        }
    }

    fn actor_entry(&mut self, entry: &Value, key: &str) {
        self.report.unknown_members(
            entry,
            key,
            "actor",
            &[
                "Mesh",
                "Rotate Y to Z",
                "Rotate X to Y",
                "Rotate Y to X",
                "Locked to Ground",
                "Instances",
            ],
        );
        let mesh = self.report.required(entry, key, "Mesh");
        let name = mesh.and_then(|m| self.report.string(m, &format!("{key}.Mesh")));
        let swaps = self.swaps(entry, key);
        let locked = self
            .report
            .optional(entry, key, "Locked to Ground", false, Report::boolean)
            .unwrap_or(false);
        let (Some(mesh), Some(name)) = (mesh, name) else {
            return;
        };
        let file = format!("{}{name}", self.meshes_dir);
        let file = if Path::new(&file).is_file() {
            Some(file)
        } else {
            self.report.warn(
                mesh.span,
                &format!("{key}.Mesh"),
                format!("mesh file `{file}` does not exist; the actor gets the placeholder body"),
            );
            None
        };
        let class = self.labels.class_of(name).unwrap_or("actor").to_owned();
        let stem = Path::new(name)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("actor")
            .to_owned();
        let Some(instances) = self.report.required(entry, key, "Instances") else {
            return;
        };
        let Some(items) = self.report.array(instances, &format!("{key}.Instances")) else {
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let ikey = format!("{key}.Instances[{i}]");
            if self.report.object(item, &ikey).is_none() {
                continue;
            }
            self.report.unknown_members(
                item,
                &ikey,
                "actor instance",
                &[
                    "Initial Position",
                    "Offset",
                    "Scale",
                    "Speed",
                    "Waypoints File",
                ],
            );
            let r = &mut *self.report;
            let start = r.optional(
                item,
                &ikey,
                "Initial Position",
                [0.0; 3],
                Report::numbers::<3>,
            );
            let offset = r.optional(item, &ikey, "Offset", [0.0; 3], Report::numbers::<3>);
            let scale = r
                .optional(item, &ikey, "Scale", [1.0; 3], Report::numbers::<3>)
                .filter(|s| crate::scene::scale_within_bounds(r, item, &ikey, s));
            let speed = r.optional(item, &ikey, "Speed", DEFAULT_SPEED, Report::number);
            let waypoints = r.required(item, &ikey, "Waypoints File");
            let points =
                waypoints.and_then(|w| self.waypoints(w, &format!("{ikey}.Waypoints File")));
            let (Some(start), Some(offset), Some(scale), Some(speed), Some(points)) =
                (start, offset, scale, speed, points)
            else {
                continue;
            };
            let linear = DMat3::from_diagonal(DVec3::from(scale)) * swaps.matrix();
            let row = |k: usize| {
                [
                    linear.x_axis[k],
                    linear.y_axis[k],
                    linear.z_axis[k],
                    offset[k],
                ]
            };
            let body = file.as_ref().map(|f| KeyframeMeshes {
                frames: vec![f.clone()],
                frame_rate: 1.0,
                object_from_model: [row(0), row(1), row(2)],
            });
            let n = self.world.actors.len();
            self.world.actors.push(Actor {
                name: format!("{stem}_{}", n + 1),
                common: SimulableCommon {
                    init_pose: Pose3 {
                        x: start[0],
                        y: start[1],
                        z: start[2],
                        ..Pose3::default()
                    },
                    skip_elevation_adjust: !locked,
                    label: Some(class.clone()),
                    ..SimulableCommon::default()
                },
                turning_rate: None,
                walking_speed: speed.max(1e-3),
                behavior: Some(Behavior::Waypoints { speed, points }),
                keyframe_meshes: body,
                ..Actor::default()
            });
        }
    }
}
