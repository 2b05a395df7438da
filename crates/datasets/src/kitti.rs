//! The KITTI object layout (`training/`) of one camera's frames, labelled with the actors in
//! view:
//!
//! - `image_2/000000.png`: the frame as recorded (rgb8; distorted if the camera is);
//! - `label_2/000000.txt`: a line per actor with a 2D box in the frame, as the object devkit's
//!   readme lays it out: type (`Pedestrian`, `Cyclist`, `Car`, `Van`, `Truck`, `Tram` or
//!   `Misc`, from the class name), truncated (the share of the 3D box's projection outside the
//!   image), occluded (0, 1 or 2 for a visible fraction of at least 0.8, at least 0.5, less),
//!   alpha, the 2D box (the recorded one), height, width, length, the box's bottom centre in
//!   the camera frame and rotation_y, from the recorded ground-truth boxes and transforms;
//! - `calib/000000.txt`: `P0`..`P3` all the camera's `P` (there is one camera), `R0_rect` the
//!   identity (images are not rectified), `Tr_velo_to_cam` the lidar's frame to the camera's
//!   optical frame (identity without `--lidar`), `Tr_imu_to_velo` the identity (not exported);
//! - `velodyne/000000.bin` with `--lidar`: the sweep stamped nearest the frame;
//! - `ImageSets/train.txt` beside `training/`: the frames' indices.
//!
//! Ground-truth boxes are around the actors' collision capsules; heads may rise above them.

use crate::classes::semantic_kitti_id;
use crate::cloud::{self, Cloud};
use crate::messages::{self, Box2d, Box3d, CameraInfo, Image};
use crate::read::read_messages;
use crate::tf::{Rigid, TfTree};
use crate::{ExportError, choose_sensor};
use glam::DVec3;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What to export.
#[derive(Clone, Debug, Default)]
pub struct KittiOptions {
    /// The camera, `vehicle/camera` (an RGB-D camera's colour half: `vehicle/rgbd_rgb`); needed
    /// only when the recording has several.
    pub camera: Option<String>,
    /// A lidar whose sweeps go into `velodyne/`, `vehicle/sensor`.
    pub lidar: Option<String>,
    /// The first frame's index in the file names.
    pub first_index: usize,
}

/// What was written.
#[derive(Clone, Debug)]
pub struct KittiExported {
    /// The `training` folder.
    pub dir: PathBuf,
    /// The image topic read.
    pub topic: String,
    /// Frames written.
    pub frames: usize,
    /// Label lines written.
    pub objects: usize,
}

/// Writes the KITTI object layout of `recording`'s camera into `out` (`out/training`).
pub fn export_kitti(
    recording: &Path,
    out: &Path,
    options: &KittiOptions,
) -> Result<KittiExported, ExportError> {
    let bad = |topic: &str, index: usize, reason: String| ExportError::Message {
        path: recording.to_owned(),
        topic: topic.to_owned(),
        index,
        reason,
    };
    let mut tree = TfTree::default();
    let mut cameras: Vec<String> = Vec::new();
    let mut infos: BTreeMap<String, CameraInfo> = BTreeMap::new();
    let mut boxes_2d: BTreeMap<(String, u64), Vec<Box2d>> = BTreeMap::new();
    let mut boxes_3d: BTreeMap<u64, (String, Vec<Box3d>)> = BTreeMap::new();
    let mut lidar_stamps: Vec<u64> = Vec::new();
    let lidar_topic = options
        .lidar
        .as_ref()
        .map(|l| format!("/{}_points", l.trim_start_matches('/')));
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    read_messages(recording, |m| {
        let index = *counts
            .entry(m.topic.to_owned())
            .and_modify(|n| *n += 1)
            .or_insert(0);
        let e = |reason: String| bad(m.topic, index, reason);
        match m.schema {
            "tf2_msgs/msg/TFMessage" => tree.add_message(m.data).map_err(|x| e(x.to_string()))?,
            "sensor_msgs/msg/Image" if m.topic.ends_with("/image_raw") && index == 0 => {
                let image = Image::decode(m.data).map_err(|x| e(x.to_string()))?;
                if image.encoding == "rgb8" {
                    cameras.push(m.topic.trim_end_matches("/image_raw").to_owned());
                }
            }
            "sensor_msgs/msg/CameraInfo" if index == 0 => {
                let info = CameraInfo::decode(m.data).map_err(|x| e(x.to_string()))?;
                infos.insert(m.topic.trim_end_matches("/camera_info").to_owned(), info);
            }
            "vision_msgs/msg/Detection2DArray" => {
                let (stamp, boxes) = messages::boxes_2d(m.data).map_err(|x| e(x.to_string()))?;
                let camera = m.topic.trim_end_matches("/labels/boxes").to_owned();
                boxes_2d.insert((camera, stamp), boxes);
            }
            "vision_msgs/msg/Detection3DArray" if m.topic == "/ground_truth/actors" => {
                let (stamp, frame, boxes) =
                    messages::boxes_3d(m.data).map_err(|x| e(x.to_string()))?;
                boxes_3d.insert(stamp, (frame, boxes));
            }
            "sensor_msgs/msg/PointCloud2" if Some(m.topic) == lidar_topic.as_deref() => {
                lidar_stamps.push(Cloud::decode(m.data).map_err(e)?.stamp);
            }
            _ => {}
        }
        Ok(())
    })?;
    let named: Vec<(String, String)> = (cameras.iter())
        .map(|t| (t.trim_start_matches('/').to_owned(), t.clone()))
        .collect();
    let camera = choose_sensor(
        recording,
        "camera",
        "--sensor VEHICLE/CAMERA",
        &named,
        options.camera.as_deref(),
    )?;
    let info = infos.get(&camera).ok_or_else(|| {
        ExportError::Unusable(format!(
            "{}: no camera_info for {camera}",
            recording.display()
        ))
    })?;
    if let (Some(lidar), true) = (&options.lidar, lidar_stamps.is_empty()) {
        return Err(ExportError::Unusable(format!(
            "{}: no sweeps of lidar `{lidar}`",
            recording.display()
        )));
    }
    let training = out.join("training");
    let mut folders = vec!["image_2", "label_2", "calib"];
    if options.lidar.is_some() {
        folders.push("velodyne");
    }
    for sub in folders
        .iter()
        .map(|s| training.join(s))
        .chain([out.join("ImageSets")])
    {
        std::fs::create_dir_all(&sub).map_err(|e| ExportError::Io(sub, e))?;
    }
    // Which sweep each frame takes: the one stamped nearest (the earlier on a tie).
    let image_topic = format!("{camera}/image_raw");
    let mut frames: Vec<(u64, String)> = Vec::new();
    let mut wanted_sweeps: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    let mut objects = 0;
    let mut index = 0;
    read_messages(recording, |m| {
        if m.topic != image_topic {
            return Ok(());
        }
        let e = |reason: String| bad(&image_topic, index, reason);
        let image = Image::decode(m.data).map_err(|x| e(x.to_string()))?;
        let name = format!("{:06}", options.first_index + index);
        write_png(
            &training.join("image_2").join(format!("{name}.png")),
            &image,
        )
        .map_err(e)?;
        let map_from_camera = tree.lookup("map", image.frame, image.stamp).map_err(e)?;
        let camera_from_map = map_from_camera.inverse();
        let in_view = boxes_2d
            .get(&(camera.clone(), image.stamp))
            .cloned()
            .unwrap_or_default();
        let truth = boxes_3d.get(&image.stamp);
        let mut lines = String::new();
        for b in &in_view {
            let Some(b3) = truth.and_then(|(_, all)| all.iter().find(|t| t.id == b.id)) else {
                continue;
            };
            let frame_to_map = match truth {
                Some((frame, _)) if frame != "map" => {
                    tree.lookup("map", frame, image.stamp).map_err(e)?
                }
                _ => Rigid::IDENTITY,
            };
            lines += &label_line(b, b3, &frame_to_map, &camera_from_map, info);
            objects += 1;
        }
        write(
            &training.join("label_2").join(format!("{name}.txt")),
            lines.as_bytes(),
        )
        .map_err(e)?;
        let velo_to_cam = match &options.lidar {
            Some(lidar) => {
                let sweep = nearest(&lidar_stamps, image.stamp);
                wanted_sweeps.entry(sweep).or_default().push(name.clone());
                let frame = lidar_frame(lidar);
                camera_from_map.then(&tree.lookup("map", &frame, sweep).map_err(e)?)
            }
            None => Rigid::IDENTITY,
        };
        write(
            &training.join("calib").join(format!("{name}.txt")),
            calib(info, &velo_to_cam).as_bytes(),
        )
        .map_err(e)?;
        frames.push((image.stamp, name));
        index += 1;
        Ok(())
    })?;
    if let Some(topic) = &lidar_topic {
        let mut sweep_index = 0;
        read_messages(recording, |m| {
            if m.topic != topic {
                return Ok(());
            }
            let at = sweep_index;
            sweep_index += 1;
            let e = |reason: String| bad(topic, at, reason);
            let cloud = Cloud::decode(m.data).map_err(e)?;
            let Some(names) = wanted_sweeps.get(&cloud.stamp) else {
                return Ok(());
            };
            let points = velodyne_points(&cloud).map_err(e)?;
            for name in names {
                write(
                    &training.join("velodyne").join(format!("{name}.bin")),
                    &points,
                )
                .map_err(e)?;
            }
            Ok(())
        })?;
    }
    let list: String = frames.iter().map(|(_, n)| format!("{n}\n")).collect();
    write(&out.join("ImageSets").join("train.txt"), list.as_bytes())
        .map_err(ExportError::Unusable)?;
    Ok(KittiExported {
        dir: training,
        topic: image_topic,
        frames: frames.len(),
        objects,
    })
}

/// `vehicle/sensor` to its frame (`world/sensor` for a standalone one).
fn lidar_frame(lidar: &str) -> String {
    lidar.trim_start_matches('/').to_owned()
}

/// The stamp in `stamps` nearest `t` (the earlier on a tie).
fn nearest(stamps: &[u64], t: u64) -> u64 {
    let mut best = stamps[0];
    for &s in stamps {
        if s.abs_diff(t) < best.abs_diff(t) {
            best = s;
        }
    }
    best
}

/// KITTI's type of our class.
fn kitti_type(class: &str) -> &'static str {
    match semantic_kitti_id(class) {
        30 => "Pedestrian",
        31 | 32 => "Cyclist",
        10 => {
            if class.to_ascii_lowercase().contains("van") {
                "Van"
            } else {
                "Car"
            }
        }
        18 => "Truck",
        16 => "Tram",
        _ => "Misc",
    }
}

/// An angle in [-pi, pi).
fn wrap(a: f64) -> f64 {
    (a + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI
}

/// One label line.
fn label_line(
    b: &Box2d,
    truth: &Box3d,
    frame_to_map: &Rigid,
    camera_from_map: &Rigid,
    info: &CameraInfo,
) -> String {
    let map_from_box = frame_to_map.then(&Rigid {
        translation: truth.centre,
        rotation: truth.rotation,
    });
    let camera_from_box = camera_from_map.then(&map_from_box);
    let (l, w, h) = (truth.size.x, truth.size.y, truth.size.z);
    let bottom =
        camera_from_box.translation + camera_from_box.rotation * DVec3::new(0.0, 0.0, -h / 2.0);
    let forward = camera_from_box.rotation * DVec3::X;
    let rotation_y = wrap((-forward.z).atan2(forward.x));
    let alpha = wrap(rotation_y - bottom.x.atan2(bottom.z));
    let truncated = truncation(&camera_from_box, truth.size, info);
    let occluded = if b.score >= 0.8 {
        0
    } else if b.score >= 0.5 {
        1
    } else {
        2
    };
    let [x1, y1, x2, y2] = b.rect;
    format!(
        "{} {truncated:.6} {occluded} {alpha:.6} {x1:.6} {y1:.6} {x2:.6} {y2:.6} {h:.6} {w:.6} {l:.6} {:.6} {:.6} {:.6} {rotation_y:.6}\n",
        kitti_type(&truth.class),
        bottom.x,
        bottom.y,
        bottom.z,
    )
}

/// The share of the box's projected extent outside the image (1 with a corner behind the
/// camera).
fn truncation(camera_from_box: &Rigid, size: DVec3, info: &CameraInfo) -> f64 {
    let p = &info.p;
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for k in 0..8 {
        let corner = DVec3::new(
            if k & 1 == 0 { -0.5 } else { 0.5 },
            if k & 2 == 0 { -0.5 } else { 0.5 },
            if k & 4 == 0 { -0.5 } else { 0.5 },
        ) * size;
        let c = camera_from_box.translation + camera_from_box.rotation * corner;
        if c.z <= 1e-6 {
            return 1.0;
        }
        let u = (p[0] * c.x + p[1] * c.y + p[2] * c.z + p[3]) / c.z;
        let v = (p[4] * c.x + p[5] * c.y + p[6] * c.z + p[7]) / c.z;
        lo = [lo[0].min(u), lo[1].min(v)];
        hi = [hi[0].max(u), hi[1].max(v)];
    }
    let area = (hi[0] - lo[0]) * (hi[1] - lo[1]);
    let (w, h) = (f64::from(info.width), f64::from(info.height));
    let inside =
        (hi[0].min(w) - lo[0].max(0.0)).max(0.0) * (hi[1].min(h) - lo[1].max(0.0)).max(0.0);
    if area > 0.0 {
        (1.0 - inside / area).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// `calib/NNNNNN.txt`.
fn calib(info: &CameraInfo, velo_to_cam: &Rigid) -> String {
    let row = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:e}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let p = row(&info.p);
    let identity = "1 0 0 0 1 0 0 0 1";
    let velo: Vec<f64> = velo_to_cam.rows().iter().flatten().copied().collect();
    format!(
        "P0: {p}\nP1: {p}\nP2: {p}\nP3: {p}\nR0_rect: {identity}\nTr_velo_to_cam: {}\nTr_imu_to_velo: 1 0 0 0 0 1 0 0 0 0 1 0\n",
        row(&velo)
    )
}

/// A sweep as KITTI's float32 x, y, z, reflectance.
fn velodyne_points(cloud: &Cloud<'_>) -> Result<Vec<u8>, String> {
    let offsets = ["x", "y", "z", "intensity"].map(|n| cloud.field(n, cloud::FLOAT32));
    let [Some(x), Some(y), Some(z), Some(i)] = offsets else {
        return Err("the cloud lacks x, y, z or intensity".into());
    };
    let mut out = Vec::with_capacity(cloud.count * 16);
    for k in 0..cloud.count {
        let p = cloud.point(k);
        for o in [x, y, z, i] {
            out.extend(cloud::word(p, o));
        }
    }
    Ok(out)
}

fn write_png(path: &Path, image: &Image<'_>) -> Result<(), String> {
    if image.encoding != "rgb8" {
        return Err(format!(
            "a {} image is not written as a KITTI PNG",
            image.encoding
        ));
    }
    let (w, h) = (image.width as usize, image.height as usize);
    let row = w * 3;
    if (image.step as usize) < row
        || image.data.len() < image.step as usize * h.saturating_sub(1) + row
    {
        return Err("the image has fewer bytes than its size".into());
    }
    let mut pixels = Vec::with_capacity(row * h);
    for r in 0..h {
        let start = r * image.step as usize;
        pixels.extend_from_slice(&image.data[start..start + row]);
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), image.width, image.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    writer
        .write_image_data(&pixels)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}
