//! Camera and RGB-D frames as ROS 2 messages.
//!
//! `camera` `/<veh>/<cam>`: `image_raw` (rgb8), `camera_info`, `labels/instance` (32SC1),
//! `labels/class` (16UC1), `labels/boxes` (vision_msgs/Detection2DArray), all in the frame
//! `<veh>/<cam>_optical`. `rgbd_camera` `/<veh>/<cam>`: `_rgb/…` (the same five, in
//! `<veh>/<cam>_rgb_optical`), `_depth/image_raw` (16UC1 in `depth_resolution` units, 0 invalid)
//! and `_depth/camera_info` when `publish_ros_depth_image`, and `_points` (PointCloud2 in
//! `<veh>/<cam>_depth_optical`: x y z [rgb] instance label) when it senses depth.
//!
//! A box's `Detection2D`: one hypothesis whose `class_id` is the actor's class and whose `score`
//! is the visible fraction of the actor (ground truth is certain; the score carries what a
//! dataset user filters on), `id` the instance id, `bbox` centre and size in pixels.

use crate::cdr::Cdr;
use crate::encode::{FLOAT32, UINT16, UINT32, point_cloud2};
use crate::encoder::Encoder;
use crate::encoder::Message;
use crate::ros::{self, MsgType, Transform, deps, header};
use glam::DQuat;
use passerby_sensors::Observation;
use passerby_sensors::boxes::ActorBox;
use passerby_sensors::camera::CameraFrame;
use passerby_sensors::rgbd::{DepthPoints, RgbdFrame};
use passerby_world::Intrinsics;

/// `vision_msgs/msg/Detection2DArray` (vision_msgs 4, ROS 2 Humble and later).
pub const DETECTION2D_ARRAY: MsgType = MsgType {
    name: "vision_msgs/msg/Detection2DArray",
    definition: deps!(
        "std_msgs/Header header\nDetection2D[] detections\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: vision_msgs/Detection2D\nstd_msgs/Header header\nObjectHypothesisWithPose[] results\nBoundingBox2D bbox\nstring id\n",
        "MSG: vision_msgs/ObjectHypothesisWithPose\nObjectHypothesis hypothesis\ngeometry_msgs/PoseWithCovariance pose\n",
        "MSG: vision_msgs/ObjectHypothesis\nstring class_id\nfloat64 score\n",
        "MSG: geometry_msgs/PoseWithCovariance\nPose pose\nfloat64[36] covariance\n",
        "MSG: geometry_msgs/Pose\nPoint position\nQuaternion orientation\n",
        "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n",
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
        "MSG: vision_msgs/BoundingBox2D\nvision_msgs/Pose2D center\nfloat64 size_x\nfloat64 size_y\n",
        "MSG: vision_msgs/Pose2D\nvision_msgs/Point2D position\nfloat64 theta\n",
        "MSG: vision_msgs/Point2D\nfloat64 x\nfloat64 y\n"
    ),
};

/// `body_from_optical` of REP 103 (MVSim's yaw -90°, roll -90°).
pub fn body_from_optical() -> DQuat {
    DQuat::from_rotation_z(-std::f64::consts::FRAC_PI_2)
        * DQuat::from_rotation_x(-std::f64::consts::FRAC_PI_2)
}

/// A rotation-only transform.
pub fn rotation_transform(q: DQuat) -> Transform {
    Transform {
        translation: [0.0; 3],
        rotation: [q.x, q.y, q.z, q.w],
    }
}

/// `sensor_msgs/CameraInfo` of a pinhole camera with `plumb_bob` distortion.
pub fn camera_info(nanos: u64, frame: &str, i: &Intrinsics) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, frame);
    c.u32(i.nrows).u32(i.ncols).string("plumb_bob");
    c.len(5);
    for d in i.distortion {
        c.f64(d);
    }
    c.f64_array(&[i.fx, 0.0, i.cx, 0.0, i.fy, i.cy, 0.0, 0.0, 1.0]);
    c.f64_array(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    c.f64_array(&[
        i.fx, 0.0, i.cx, 0.0, 0.0, i.fy, i.cy, 0.0, 0.0, 0.0, 1.0, 0.0,
    ]);
    c.u32(0).u32(0);
    c.u32(0).u32(0).u32(0).u32(0).bool(false);
    c.finish()
}

/// Boxes as `Detection2DArray`; `class_name` names a class id.
pub fn boxes(
    nanos: u64,
    frame: &str,
    boxes: &[ActorBox],
    class_name: &dyn Fn(&ActorBox) -> String,
) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, frame);
    c.len(boxes.len());
    for b in boxes {
        header(&mut c, nanos, frame);
        c.len(1);
        c.string(&class_name(b))
            .f64(f64::from(b.visible_fraction()));
        // An identity pose with zero covariance: the hypothesis has no 3D pose.
        c.f64(0.0).f64(0.0).f64(0.0);
        c.f64(0.0).f64(0.0).f64(0.0).f64(1.0);
        c.f64_array(&[0.0; 36]);
        let centre = [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0];
        c.f64(centre[0]).f64(centre[1]).f64(0.0);
        c.f64(b.max[0] - b.min[0]).f64(b.max[1] - b.min[1]);
        c.string(&b.instance.to_string());
    }
    c.finish()
}

/// Depth points as `PointCloud2`: x y z (float32), rgb (float32 holding 0x00RRGGBB, PCL's
/// packing) when `coloured`, instance (uint32), label (uint16), padded to 4 bytes.
pub fn depth_points(points: &DepthPoints, coloured: bool, nanos: u64, frame: &str) -> Vec<u8> {
    let coloured = coloured && points.rgb.len() == points.xyz.len();
    let fields: &[(&str, u32, u8)] = if coloured {
        &[
            ("x", 0, FLOAT32),
            ("y", 4, FLOAT32),
            ("z", 8, FLOAT32),
            ("rgb", 12, FLOAT32),
            ("instance", 16, UINT32),
            ("label", 20, UINT16),
        ]
    } else {
        &[
            ("x", 0, FLOAT32),
            ("y", 4, FLOAT32),
            ("z", 8, FLOAT32),
            ("instance", 12, UINT32),
            ("label", 16, UINT16),
        ]
    };
    let step: u32 = if coloured { 24 } else { 20 };
    point_cloud2(nanos, frame, fields, step, points.xyz.len(), |k, r| {
        for (bytes, v) in r.chunks_exact_mut(4).zip(points.xyz[k]) {
            bytes.copy_from_slice(&v.to_le_bytes());
        }
        let mut rest = &mut r[12..];
        if coloured {
            let [red, green, blue] = points.rgb[k];
            rest[..4].copy_from_slice(&u32::from_be_bytes([0, red, green, blue]).to_le_bytes());
            rest = &mut rest[4..];
        }
        rest[..4].copy_from_slice(&points.instance[k].to_le_bytes());
        rest[4..6].copy_from_slice(&points.label[k].to_le_bytes());
    })
}

impl Encoder {
    /// The class name of a box's actor.
    fn box_class(&self, b: &ActorBox) -> String {
        self.actors
            .iter()
            .find(|a| a.0 == b.instance)
            .map_or_else(|| "pedestrian".to_owned(), |a| a.1.clone())
    }

    /// A colour image with its info, labels and boxes under `topic`.
    fn colour_set(
        &self,
        topic: &str,
        optical: &str,
        c: &CameraFrame,
        now: f64,
        out: &mut Vec<Message>,
    ) {
        let nanos = self.nanos(c.stamp);
        let size = (c.intrinsics.ncols, c.intrinsics.nrows);
        let pixels = u64::from(size.0) * u64::from(size.1);
        let data = ros::image_of_bytes(nanos, optical, size, "rgb8", &c.rgb);
        self.push(
            out,
            &format!("{topic}/image_raw"),
            &ros::IMAGE,
            now,
            data,
            pixels,
        );
        let data = camera_info(nanos, optical, &c.intrinsics);
        self.push(
            out,
            &format!("{topic}/camera_info"),
            &ros::CAMERA_INFO,
            now,
            data,
            1,
        );
        let data = ros::image(nanos, optical, size, "32SC1", &c.instance, i32::to_le_bytes);
        let instance_topic = format!("{topic}/labels/instance");
        self.push(out, &instance_topic, &ros::IMAGE, now, data, pixels);
        let data = ros::image(nanos, optical, size, "16UC1", &c.class, u16::to_le_bytes);
        self.push(
            out,
            &format!("{topic}/labels/class"),
            &ros::IMAGE,
            now,
            data,
            pixels,
        );
        let data = boxes(nanos, optical, &c.boxes, &|b| self.box_class(b));
        self.push(
            out,
            &format!("{topic}/labels/boxes"),
            &DETECTION2D_ARRAY,
            now,
            data,
            c.boxes.len() as u64,
        )
    }

    /// A colour frame's label images as `rgb8` (one colour per id), under `topic`.
    fn coloured_labels(
        &self,
        topic: &str,
        optical: &str,
        c: &CameraFrame,
        now: f64,
        out: &mut Vec<Message>,
    ) {
        let nanos = self.nanos(c.stamp);
        let size = (c.intrinsics.ncols, c.intrinsics.nrows);
        let pixels = u64::from(size.0) * u64::from(size.1);
        let instances = c.instance.iter().map(|&i| u32::try_from(i).unwrap_or(0));
        let classes = c.class.iter().map(|&k| u32::from(k));
        let kinds = [
            ("instance", crate::images::id_colours(instances)),
            ("class", crate::images::id_colours(classes)),
        ];
        for (kind, rgb) in kinds {
            let data = ros::image_of_bytes(nanos, optical, size, "rgb8", &rgb);
            let topic = format!("{topic}/labels/{kind}_rgb");
            self.push(out, &topic, &ros::IMAGE, now, data, pixels);
        }
    }

    /// With [`Encoder::with_colour_labels`], an observation's label images as `rgb8`
    /// (`…/labels/instance_rgb`, `…/labels/class_rgb`); nothing otherwise.
    pub fn label_colours(&self, o: &Observation, now: f64, out: &mut Vec<Message>) {
        if !self.colour_labels {
            return;
        }
        match o {
            Observation::Camera(c) => {
                let (topic, frame, _) = self.topic_and_frame(&c.sensor);
                self.coloured_labels(&topic, &format!("{frame}_optical"), c, now, out);
            }
            Observation::Rgbd(f) => {
                if let Some(c) = &f.colour {
                    let (topic, frame, _) = self.topic_and_frame(&f.sensor);
                    let optical = format!("{frame}_rgb_optical");
                    self.coloured_labels(&format!("{topic}_rgb"), &optical, c, now, out);
                }
            }
            _ => {}
        }
    }

    /// A `camera` frame.
    pub(crate) fn camera(&self, c: &CameraFrame, now: f64, out: &mut Vec<Message>) {
        let (topic, frame, _) = self.topic_and_frame(&c.sensor);
        self.colour_set(&topic, &format!("{frame}_optical"), c, now, out);
    }

    /// An `rgbd_camera` frame.
    pub(crate) fn rgbd(&self, f: &RgbdFrame, now: f64, out: &mut Vec<Message>) {
        let (topic, frame, _) = self.topic_and_frame(&f.sensor);
        let (publish_depth, coloured) = self
            .world_frames
            .rgbd
            .get(&f.sensor)
            .copied()
            .unwrap_or((true, false));
        if let Some(c) = &f.colour {
            self.colour_set(
                &format!("{topic}_rgb"),
                &format!("{frame}_rgb_optical"),
                c,
                now,
                out,
            );
        }
        let Some(depth) = &f.depth else {
            return;
        };
        let nanos = self.nanos(f.stamp);
        let optical = format!("{frame}_depth_optical");
        if publish_depth {
            let i = &depth.intrinsics;
            let size = (i.ncols, i.nrows);
            let data = ros::image(
                nanos,
                &optical,
                size,
                "16UC1",
                &depth.data,
                u16::to_le_bytes,
            );
            let pixels = u64::from(size.0) * u64::from(size.1);
            self.push(
                out,
                &format!("{topic}_depth/image_raw"),
                &ros::IMAGE,
                now,
                data,
                pixels,
            );
            Encoder::incompressible(out);
            let data = camera_info(nanos, &optical, i);
            self.push(
                out,
                &format!("{topic}_depth/camera_info"),
                &ros::CAMERA_INFO,
                now,
                data,
                1,
            );
        }
        let data = depth_points(&f.points, coloured, nanos, &optical);
        self.push(
            out,
            &format!("{topic}_points"),
            &ros::POINT_CLOUD2,
            now,
            data,
            f.points.xyz.len() as u64,
        );
        Encoder::incompressible(out);
    }
}
