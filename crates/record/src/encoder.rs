//! Encoding a run's output as ROS 2 messages, for every sink that publishes them (the MCAP
//! recorder, live publishers): topic and frame names, stamps, and each message's CDR bytes.
//!
//! Owns: which topics a world has and what goes on them. Must not touch: where messages go.

use crate::mcap_file::Content;
use crate::ros::{self, MsgType, Transform};
use crate::{Snapshot, cameras, encode, truth};
use passerby_sensors::Observation;
use passerby_world::{Pose3, SensorKind, SensorRef, World};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// One encoded message.
#[derive(Clone, Debug)]
pub struct Message {
    /// Its topic (`/robot/lidar_points`).
    pub topic: String,
    /// Its type and definition.
    pub ty: MsgType,
    /// Log and publish time, nanoseconds since 1970.
    pub time: u64,
    /// CDR bytes.
    pub data: Vec<u8>,
    /// Points, ranges or samples it holds (for the run's summary).
    pub points: u64,
    /// Whether its chunk is worth compressing.
    pub content: Content,
}

/// Roughly the memory a step's encoded messages and its observations hold while queued for a
/// thread that publishes them (queues are bounded by it).
pub fn queued_bytes(messages: &[Message], observations: &[Observation]) -> usize {
    messages.iter().map(|m| m.data.len()).sum::<usize>()
        + observations
            .iter()
            .map(Observation::held_bytes)
            .sum::<usize>()
}

/// One step's observations and their messages, encoded once and shared by every sink that
/// publishes them (the recorder's writer thread and each live publisher), whichever asks first:
/// each observation's messages are made at most once, by the first thread that needs them, and
/// only if one does (a publisher nobody listens to never asks).
#[derive(Debug)]
pub struct StepEncodings {
    observations: Arc<Vec<Observation>>,
    now: f64,
    /// The encoder settings the shared messages were made with (epoch and actor labels); an
    /// encoder with others encodes for itself.
    key: OnceLock<EncoderKey>,
    cells: Vec<OnceLock<Vec<Message>>>,
}

/// What makes two encoders give the same bytes.
#[derive(Clone, Debug, PartialEq)]
struct EncoderKey {
    epoch_nanos: u64,
    actors: Vec<(u32, String, truth::Capsule)>,
}

impl StepEncodings {
    /// The step that ended at simulated time `now` and completed `observations`.
    pub fn new(observations: Arc<Vec<Observation>>, now: f64) -> StepEncodings {
        let cells = observations.iter().map(|_| OnceLock::new()).collect();
        StepEncodings {
            observations,
            now,
            key: OnceLock::new(),
            cells,
        }
    }

    /// The step's observations.
    pub fn observations(&self) -> &Arc<Vec<Observation>> {
        &self.observations
    }

    /// Simulated seconds at the end of the step.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The messages of observation `index`, as `encoder` makes them: shared when an encoder of
    /// the same settings made (or now makes) them, made for this caller otherwise.
    pub fn messages(&self, index: usize, encoder: &Encoder) -> Cow<'_, [Message]> {
        let mine = EncoderKey {
            epoch_nanos: encoder.epoch_nanos,
            actors: encoder.actors.clone(),
        };
        let (Some(o), Some(cell)) = (self.observations.get(index), self.cells.get(index)) else {
            return Cow::Owned(Vec::new());
        };
        if *self.key.get_or_init(|| mine.clone()) != mine {
            let mut out = Vec::new();
            encoder.observation(o, self.now, &mut out);
            return Cow::Owned(out);
        }
        Cow::Borrowed(cell.get_or_init(|| {
            let mut out = Vec::new();
            encoder.observation(o, self.now, &mut out);
            out
        }))
    }
}

/// How states and observations become messages: topic and frame names, stamps, actor classes.
/// Shared by the threads that encode (the recorder's writer, live publishers).
#[derive(Clone, Debug)]
pub struct Encoder {
    pub(crate) epoch_nanos: u64,
    /// Also label images as `rgb8`, one colour per id (`labels/instance_rgb`,
    /// `labels/class_rgb`), for viewers that cannot show `32SC1`/`16UC1` ids.
    pub(crate) colour_labels: bool,
    pub(crate) world_frames: WorldFrames,
    /// Per actor (world order): instance id, class, capsule.
    pub(crate) actors: Vec<(u32, String, truth::Capsule)>,
}

/// What the encoder needs to know about the world's sensors.
#[derive(Clone, Debug, Default)]
pub(crate) struct WorldFrames {
    /// Per sensor: (parent frame, own frame, mount transform, period).
    sensors: HashMap<SensorRef, (String, String, Transform, f64)>,
    /// Optical frames of cameras: (sensor frame, optical frame, transform).
    optical: Vec<(String, String, Transform)>,
    /// Per RGB-D camera: (publish the depth image, colour its points).
    pub(crate) rgbd: HashMap<SensorRef, (bool, bool)>,
}

fn transform_of(p: &Pose3) -> Transform {
    let q = p.rotation();
    Transform {
        translation: [p.x, p.y, p.z],
        rotation: [q.x, q.y, q.z, q.w],
    }
}

/// `vehicle/name` or `world/name`.
pub fn full_name(s: &SensorRef) -> String {
    format!("{}/{}", s.vehicle.as_deref().unwrap_or("world"), s.name)
}

impl Encoder {
    /// The encoder of a run of `world` whose time 0 is `epoch_nanos` after 1970-01-01.
    pub fn new(world: &World, epoch_nanos: u64) -> Encoder {
        let mut frames = WorldFrames::default();
        for (vehicle, s) in world.sensors() {
            let sensor = SensorRef {
                vehicle: vehicle.map(str::to_owned),
                name: s.name.clone(),
            };
            let parent = match vehicle {
                Some(v) => format!("{v}/base_link"),
                None => "map".to_owned(),
            };
            let own = full_name(&sensor);
            let mut mount = transform_of(&s.pose);
            match &s.kind {
                // The camera's pose is its optical frame: its body frame is turned back from it.
                SensorKind::Camera(_) => {
                    let q = s.pose.rotation() * cameras::body_from_optical().inverse();
                    mount.rotation = [q.x, q.y, q.z, q.w];
                    let optical = cameras::rotation_transform(cameras::body_from_optical());
                    frames
                        .optical
                        .push((own.clone(), format!("{own}_optical"), optical));
                }
                SensorKind::RgbdCamera(p) => {
                    let depth = cameras::rotation_transform(cameras::body_from_optical());
                    frames
                        .optical
                        .push((own.clone(), format!("{own}_depth_optical"), depth));
                    let colour = transform_of(&p.rgb_pose_wrt_depth);
                    frames
                        .optical
                        .push((own.clone(), format!("{own}_rgb_optical"), colour));
                    frames.rgbd.insert(
                        sensor.clone(),
                        (p.publish_ros_depth_image, p.publish_ros_colored_pointcloud),
                    );
                }
                _ => {}
            }
            frames
                .sensors
                .insert(sensor, (parent, own, mount, s.period));
        }
        Encoder {
            epoch_nanos,
            colour_labels: false,
            world_frames: frames,
            actors: world
                .actors
                .iter()
                .map(|a| {
                    (
                        0,
                        "pedestrian".to_owned(),
                        (a.collision_radius, a.collision_height),
                    )
                })
                .collect(),
        }
    }

    /// Also publishes every label image as an `rgb8` image, one colour per id
    /// ([`crate::images::id_colour`]): Foxglove's image panel shows `rgb8` but not `32SC1`.
    pub fn with_colour_labels(mut self) -> Encoder {
        self.colour_labels = true;
        self
    }

    /// Gives each actor (world order) its instance id and class for the ground truth.
    pub fn set_actor_labels(&mut self, labels: &[(u32, String)]) {
        for (a, (id, class)) in self.actors.iter_mut().zip(labels) {
            (a.0, a.1) = (*id, class.clone());
        }
    }

    /// The messages of a step's state (not its observations: [`Encoder::observation`]): the
    /// clock, transforms, odometry, collisions and ground truth, with `/tf_static` first when
    /// `with_static`.
    pub fn state_messages(&self, step: &Snapshot<'_>, with_static: bool) -> Vec<Message> {
        let now = step.time;
        let topics = self;
        let nanos = topics.nanos(now);
        let mut out = Vec::new();
        if with_static {
            let mut mounts: Vec<(String, String, Transform)> = topics
                .world_frames
                .sensors
                .values()
                .map(|(p, c, t, _)| (p.clone(), c.clone(), *t))
                .collect();
            mounts.extend(topics.world_frames.optical.iter().cloned());
            mounts.sort_by(|a, b| a.1.cmp(&b.1));
            let identity = Transform {
                translation: [0.0; 3],
                rotation: [0.0, 0.0, 0.0, 1.0],
            };
            for v in step.vehicles {
                mounts.push(("map".into(), format!("{}/odom", v.name), identity));
            }
            let data = ros::tf_message(topics.nanos(0.0), &mounts);
            topics.push(
                &mut out,
                "/tf_static",
                &ros::TF,
                now,
                data,
                mounts.len() as u64,
            );
        }
        topics.push(&mut out, "/clock", &ros::CLOCK, now, ros::clock(nanos), 1);
        let mut tf: Vec<(String, String, Transform)> = Vec::new();
        for v in step.vehicles {
            tf.push((
                format!("{}/odom", v.name),
                format!("{}/base_link", v.name),
                transform_of(&v.pose),
            ));
        }
        for a in step.actors {
            tf.push((
                "map".into(),
                format!("actors/{}", a.name),
                transform_of(&a.pose),
            ));
        }
        if !tf.is_empty() {
            let data = ros::tf_message(nanos, &tf);
            topics.push(&mut out, "/tf", &ros::TF, now, data, tf.len() as u64);
        }
        for v in step.vehicles {
            // Wheel odometry: the pose MVSim's noisy odometry integrates (on the plane), and
            // the velocity the wheels' spin gives.
            let [ox, oy, oyaw] = v.odometry;
            let odometry_pose = Pose3 {
                x: ox,
                y: oy,
                yaw: oyaw,
                ..Pose3::default()
            };
            let kinds = [
                ("odom", &v.pose, v.velocity),
                ("wheel_odom", &odometry_pose, v.odometry_twist),
            ];
            for (kind, pose, [vx, vy, w]) in kinds {
                let t = transform_of(pose);
                let data = encode::odometry(
                    nanos,
                    &format!("{}/{kind}", v.name),
                    &format!("{}/base_link", v.name),
                    t.translation,
                    t.rotation,
                    [vx, vy, 0.0, 0.0, 0.0, w],
                );
                let topic = format!("/{}/{kind}", v.name);
                topics.push(&mut out, &topic, &ros::ODOMETRY, now, data, 1);
            }
        }
        for (v, &touched) in step.vehicles.iter().zip(step.touched) {
            let data = truth::boolean(touched);
            topics.push(
                &mut out,
                &format!("/{}/collision", v.name),
                &truth::BOOL,
                now,
                data,
                1,
            );
        }
        let actors = step.actors;
        if !actors.is_empty() {
            let info = topics.actors.clone();
            let ids: Vec<u32> = info.iter().map(|i| i.0).collect();
            let n = actors.len() as u64;
            let data = truth::detections(nanos, actors, &info);
            topics.push(
                &mut out,
                "/ground_truth/actors",
                &truth::DETECTION3D_ARRAY,
                now,
                data,
                n,
            );
            let data = truth::markers(nanos, actors, &info, step.skeletons);
            topics.push(
                &mut out,
                "/ground_truth/actor_markers",
                &truth::MARKER_ARRAY,
                now,
                data,
                n,
            );
            let data = truth::actor_states(nanos, actors, &ids);
            topics.push(
                &mut out,
                "/ground_truth/actor_states",
                &truth::ACTOR_STATE_ARRAY,
                now,
                data,
                n,
            );
        }
        if !step.contacts.is_empty() {
            let data = truth::contacts(nanos, step.contacts);
            let n = step.contacts.len() as u64;
            topics.push(
                &mut out,
                "/ground_truth/contacts",
                &truth::CONTACT_ARRAY,
                now,
                data,
                n,
            );
        }
        out
    }
}

impl Encoder {
    /// Every topic a run of `world` may publish, with its type, in a fixed order: what a live
    /// server advertises before the first step, so a client can subscribe to a sensor before
    /// its first message (a recording holds those that received a message).
    pub fn topics(&self, world: &World) -> Vec<(String, MsgType)> {
        let mut topics: Vec<(String, MsgType)> = vec![
            ("/clock".into(), ros::CLOCK),
            ("/tf_static".into(), ros::TF),
        ];
        if !world.vehicles.is_empty() || !world.actors.is_empty() {
            topics.push(("/tf".into(), ros::TF));
            topics.push(("/ground_truth/contacts".into(), truth::CONTACT_ARRAY));
        }
        for v in &world.vehicles {
            topics.push((format!("/{}/odom", v.name), ros::ODOMETRY));
            topics.push((format!("/{}/wheel_odom", v.name), ros::ODOMETRY));
            topics.push((format!("/{}/collision", v.name), truth::BOOL));
        }
        if !world.actors.is_empty() {
            topics.push(("/ground_truth/actors".into(), truth::DETECTION3D_ARRAY));
            topics.push(("/ground_truth/actor_markers".into(), truth::MARKER_ARRAY));
            topics.push((
                "/ground_truth/actor_states".into(),
                truth::ACTOR_STATE_ARRAY,
            ));
        }
        let colour_set = |topic: &str| {
            let mut set = vec![
                (format!("{topic}/image_raw"), ros::IMAGE),
                (format!("{topic}/camera_info"), ros::CAMERA_INFO),
                (format!("{topic}/labels/instance"), ros::IMAGE),
                (format!("{topic}/labels/class"), ros::IMAGE),
                (format!("{topic}/labels/boxes"), cameras::DETECTION2D_ARRAY),
            ];
            if self.colour_labels {
                set.push((format!("{topic}/labels/instance_rgb"), ros::IMAGE));
                set.push((format!("{topic}/labels/class_rgb"), ros::IMAGE));
            }
            set
        };
        for (vehicle, s) in world.sensors() {
            let topic = format!("/{}/{}", vehicle.unwrap_or("world"), s.name);
            match &s.kind {
                SensorKind::Lidar3d(_) => {
                    topics.push((format!("{topic}_points"), ros::POINT_CLOUD2))
                }
                SensorKind::Laser(_) => topics.push((topic, ros::LASER_SCAN)),
                SensorKind::Imu(_) => topics.push((topic, ros::IMU)),
                SensorKind::Gnss(_) => topics.push((topic, ros::NAV_SAT_FIX)),
                SensorKind::Camera(_) => topics.extend(colour_set(&topic)),
                SensorKind::RgbdCamera(p) => {
                    if p.sense_rgb {
                        topics.extend(colour_set(&format!("{topic}_rgb")));
                    }
                    if p.sense_depth {
                        if p.publish_ros_depth_image {
                            topics.push((format!("{topic}_depth/image_raw"), ros::IMAGE));
                            topics.push((format!("{topic}_depth/camera_info"), ros::CAMERA_INFO));
                        }
                        topics.push((format!("{topic}_points"), ros::POINT_CLOUD2));
                    }
                }
            }
        }
        topics
    }

    /// Nanoseconds since 1970 of a simulated time.
    pub fn nanos(&self, sim_seconds: f64) -> u64 {
        self.epoch_nanos + (sim_seconds * 1e9).round() as u64
    }

    /// Adds a message on `topic` logged at simulated time `log_seconds` to `out`.
    pub(crate) fn push(
        &self,
        out: &mut Vec<Message>,
        topic: &str,
        ty: &MsgType,
        log_seconds: f64,
        data: Vec<u8>,
        points: u64,
    ) {
        out.push(Message {
            topic: topic.to_owned(),
            ty: *ty,
            time: self.nanos(log_seconds),
            data,
            points,
            content: Content::Compressible,
        });
    }

    /// Marks the message last added to `out` as one LZ4 barely shrinks (a point cloud, a noisy
    /// depth image), so `--compression auto` stores its chunk.
    pub(crate) fn incompressible(out: &mut [Message]) {
        if let Some(m) = out.last_mut() {
            m.content = Content::Incompressible;
        }
    }

    pub(crate) fn topic_and_frame(&self, s: &SensorRef) -> (String, String, f64) {
        let frame = full_name(s);
        let period = self
            .world_frames
            .sensors
            .get(s)
            .map_or(0.0, |(_, _, _, p)| *p);
        (format!("/{frame}"), frame, period)
    }

    /// Encodes an observation logged at simulated time `now` into `out`.
    pub fn observation(&self, o: &Observation, now: f64, out: &mut Vec<Message>) {
        match o {
            Observation::PointCloud(c) => {
                let (topic, frame, _) = self.topic_and_frame(&c.sensor);
                let data = encode::point_cloud(c, self.nanos(c.stamp), &frame);
                let points = c.points.len() as u64;
                self.push(
                    out,
                    &format!("{topic}_points"),
                    &ros::POINT_CLOUD2,
                    now,
                    data,
                    points,
                );
                Encoder::incompressible(out);
            }
            Observation::LaserScan(s) => {
                let (topic, frame, period) = self.topic_and_frame(&s.sensor);
                let data = encode::laser_scan(s, self.nanos(s.stamp), &frame, period);
                let points = s.ranges.len() as u64;
                self.push(out, &topic, &ros::LASER_SCAN, now, data, points)
            }
            Observation::Imu(s) => {
                let (topic, frame, _) = self.topic_and_frame(&s.sensor);
                let data = encode::imu(s, self.nanos(s.stamp), &frame);
                self.push(out, &topic, &ros::IMU, now, data, 1)
            }
            Observation::Gnss(f) => {
                let (topic, frame, _) = self.topic_and_frame(&f.sensor);
                let data = encode::nav_sat_fix(f, self.nanos(f.stamp), &frame);
                self.push(out, &topic, &ros::NAV_SAT_FIX, now, data, 1)
            }
            Observation::Camera(c) => self.camera(c, now, out),
            Observation::Rgbd(f) => self.rgbd(f, now, out),
        }
    }
}
