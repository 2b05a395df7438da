//! The SemanticKITTI layout of one lidar's sweeps (`sequences/NN/`):
//!
//! - `velodyne/000000.bin`: float32 x, y, z, reflectance per point, in the lidar's frame;
//! - `labels/000000.label`: uint32 per point, the class in the lower 16 bits (SemanticKITTI's
//!   ids, `classes.rs`), the instance in the upper 16 (our instance id for things: vehicles and
//!   people; 0 for stuff);
//! - `poses.txt`: each scan's pose in the first scan's frame, 3 x 4 row-major, from the
//!   recording's `/tf_static` and `/tf` at the sweep's stamp (a sweep stamped before the first
//!   `/tf` sample, the one at 0 s, takes that sample: recordings start at the first step's end);
//! - `calib.txt`: `Tr` (velodyne to the poses' frame) is the identity, since the poses are the
//!   lidar's own; `P0`..`P3` are identity projections, as a lidar-only sequence has no camera;
//! - `times.txt`: seconds of each scan from the first;
//! - `poses/NN.txt` beside `sequences/`: the same poses where KITTI odometry's ground truth
//!   lies (what its devkit and pykitti read);
//! - `passerby.json`: the recording, topic, first stamp, and the class table with each class's
//!   SemanticKITTI id (what we chose, for anyone to check).

use crate::classes::{self, class_map, is_thing};
use crate::cloud::{self, Cloud};
use crate::read::read_messages;
use crate::tf::{Rigid, TfTree};
use crate::{ExportError, choose_sensor, recorded_classes};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What to export.
#[derive(Clone, Debug, Default)]
pub struct SemanticKittiOptions {
    /// The lidar, `vehicle/sensor` (`world/sensor` for a standalone one); needed only when the
    /// recording has several.
    pub sensor: Option<String>,
    /// The sequence's name (default `00`).
    pub sequence: Option<String>,
    /// Our class names given SemanticKITTI ids of the user's choosing.
    pub class_overrides: BTreeMap<String, u16>,
}

/// What was written.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The sequence folder.
    pub dir: PathBuf,
    /// The cloud topic read.
    pub topic: String,
    /// Scans written.
    pub scans: usize,
    /// Points written.
    pub points: u64,
}

/// Writes the SemanticKITTI layout of `recording`'s lidar into `out` (`out/sequences/NN`).
pub fn export_semantic_kitti(
    recording: &Path,
    out: &Path,
    options: &SemanticKittiOptions,
) -> Result<Exported, ExportError> {
    // First pass: the transform tree, the lidars and the class table.
    let mut tree = TfTree::default();
    let mut lidars: Vec<String> = Vec::new();
    let mut tf_index = 0;
    let metadata = read_messages(recording, |m| {
        if m.topic == "/tf" || m.topic == "/tf_static" {
            tree.add_message(m.data).map_err(|e| ExportError::Message {
                path: recording.to_owned(),
                topic: m.topic.to_owned(),
                index: tf_index,
                reason: e.to_string(),
            })?;
            tf_index += 1;
        } else if m.schema == "sensor_msgs/msg/PointCloud2" && !lidars.iter().any(|t| t == m.topic)
        {
            // Lidars' clouds have rings; RGB-D clouds do not.
            if Cloud::decode(m.data).is_ok_and(|c| c.has_field("ring")) {
                lidars.push(m.topic.to_owned());
            }
        }
        Ok(())
    })?;
    let named: Vec<(String, String)> = (lidars.iter())
        .map(|t| {
            (
                t.trim_start_matches('/')
                    .trim_end_matches("_points")
                    .to_owned(),
                t.clone(),
            )
        })
        .collect();
    let topic = choose_sensor(
        recording,
        "lidar",
        "--sensor VEHICLE/SENSOR",
        &named,
        options.sensor.as_deref(),
    )?;
    let our_classes = recorded_classes(recording, &metadata)?;
    let map = class_map(&our_classes, &options.class_overrides);

    let sequence = options.sequence.clone().unwrap_or_else(|| "00".into());
    if sequence.is_empty() || !sequence.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ExportError::Unusable(format!(
            "sequence `{sequence}`: letters and digits only"
        )));
    }
    let dir = out.join("sequences").join(&sequence);
    for path in [dir.join("velodyne"), dir.join("labels"), out.join("poses")] {
        std::fs::create_dir_all(&path).map_err(|e| ExportError::Io(path, e))?;
    }
    let mut writer = SequenceWriter {
        dir: dir.clone(),
        kitti_poses: out.join("poses").join(format!("{sequence}.txt")),
        poses: String::new(),
        times: String::new(),
        first: None,
        scans: 0,
        points: 0,
    };
    let mut index = 0;
    read_messages(recording, |m| {
        if m.topic != topic {
            return Ok(());
        }
        let message_error = |reason: String| ExportError::Message {
            path: recording.to_owned(),
            topic: topic.clone(),
            index,
            reason,
        };
        let cloud = Cloud::decode(m.data).map_err(message_error)?;
        let pose = tree
            .lookup("map", cloud.frame, cloud.stamp)
            .map_err(message_error)?;
        writer.scan(&cloud, &pose, &map).map_err(message_error)?;
        index += 1;
        Ok(())
    })?;
    writer.finish(recording, &topic, &our_classes, &map)?;
    Ok(Exported {
        dir,
        topic,
        scans: writer.scans,
        points: writer.points,
    })
}

struct SequenceWriter {
    dir: PathBuf,
    /// KITTI odometry's copy of `poses.txt`.
    kitti_poses: PathBuf,
    poses: String,
    times: String,
    /// The first scan's stamp and pose (`map_from_lidar`).
    first: Option<(u64, Rigid)>,
    scans: usize,
    points: u64,
}

impl SequenceWriter {
    /// Writes one sweep's files and its pose and time lines.
    fn scan(
        &mut self,
        cloud: &Cloud<'_>,
        pose: &Rigid,
        map: &BTreeMap<u16, u16>,
    ) -> Result<(), String> {
        let offsets =
            ["x", "y", "z", "intensity"].map(|name| cloud.field(name, cloud::FLOAT32).ok_or(name));
        let label = cloud.field("label", cloud::UINT16).ok_or("label");
        let instance = cloud.field("instance", cloud::UINT32).ok_or("instance");
        let missing: Vec<&str> = (offsets.iter().map(|o| o.err()))
            .chain([label.err(), instance.err()])
            .flatten()
            .collect();
        let (Ok(x), Ok(y), Ok(z), Ok(i), Ok(label), Ok(instance)) = (
            offsets[0], offsets[1], offsets[2], offsets[3], label, instance,
        ) else {
            return Err(format!("the cloud lacks field(s) {}", missing.join(", ")));
        };
        let mut points = Vec::with_capacity(cloud.count * 16);
        let mut labels = Vec::with_capacity(cloud.count * 4);
        for k in 0..cloud.count {
            let p = cloud.point(k);
            for offset in [x, y, z, i] {
                points.extend(cloud::word(p, offset));
            }
            let class = *map.get(&cloud::half(p, label)).unwrap_or(&0);
            let id = u32::from_le_bytes(cloud::word(p, instance));
            let id = if is_thing(class) { id } else { 0 };
            let id = u16::try_from(id)
                .map_err(|_| format!("instance id {id} does not fit SemanticKITTI's 16 bits"))?;
            labels.extend(((u32::from(id) << 16) | u32::from(class)).to_le_bytes());
        }
        let name = format!("{:06}", self.scans);
        write(
            &self.dir.join("velodyne").join(format!("{name}.bin")),
            &points,
        )?;
        write(
            &self.dir.join("labels").join(format!("{name}.label")),
            &labels,
        )?;
        let (stamp0, pose0) = *self.first.get_or_insert((cloud.stamp, *pose));
        let relative = pose0.inverse().then(pose);
        let rows = relative.rows();
        let line: Vec<String> = rows.iter().flatten().map(|v| format!("{v:e}")).collect();
        self.poses += &(line.join(" ") + "\n");
        let seconds = (cloud.stamp.saturating_sub(stamp0)) as f64 * 1e-9;
        self.times += &format!("{seconds:e}\n");
        self.scans += 1;
        self.points += cloud.count as u64;
        Ok(())
    }

    /// `poses.txt`, `times.txt`, `calib.txt` and `passerby.json`.
    fn finish(
        &self,
        recording: &Path,
        topic: &str,
        our_classes: &BTreeMap<u16, String>,
        map: &BTreeMap<u16, u16>,
    ) -> Result<(), ExportError> {
        let io = |path: PathBuf| {
            move |e: String| ExportError::Unusable(format!("{}: {e}", path.display()))
        };
        let identity = "1 0 0 0 0 1 0 0 0 0 1 0";
        let calib = format!(
            "P0: {identity}\nP1: {identity}\nP2: {identity}\nP3: {identity}\nTr: {identity}\n"
        );
        let classes: Vec<serde_json::Value> = (our_classes.iter())
            .map(|(id, name)| {
                let target = map.get(id).copied().unwrap_or(0);
                serde_json::json!({
                    "id": id, "name": name,
                    "semantic_kitti_id": target,
                    "semantic_kitti_name": classes::semantic_kitti_name(target),
                })
            })
            .collect();
        let about = serde_json::json!({
            // The file's name only: an export is the same wherever the recording lies.
            "recording": recording.file_name().map(|n| n.to_string_lossy().into_owned()),
            "topic": topic,
            "scans": self.scans,
            "points": self.points,
            "first_stamp_ns": self.first.map_or(0, |(s, _)| s),
            "classes": classes,
        });
        for (path, text) in [
            (self.dir.join("poses.txt"), self.poses.clone()),
            (self.kitti_poses.clone(), self.poses.clone()),
            (self.dir.join("times.txt"), self.times.clone()),
            (self.dir.join("calib.txt"), calib),
            (self.dir.join("passerby.json"), about.to_string() + "\n"),
        ] {
            write(&path, text.as_bytes()).map_err(io(path.clone()))?;
        }
        Ok(())
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    file.write_all(bytes)
        .map_err(|e| format!("{}: {e}", path.display()))
}
