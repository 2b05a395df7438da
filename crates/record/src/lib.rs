//! Recordings: the simulation and its sensors as ROS 2 messages (CDR) in an MCAP file, with the
//! message definitions embedded, so Foxglove, ROS 2 tools and Python readers (`rosbags`, `mcap`)
//! open it without a ROS install.
//!
//! Owns: topic and frame naming, message encoding, the MCAP container (`mcap_file.rs`: chunks,
//! lz4 where it pays, index and summary so players can seek). Must not touch: simulation or sensing (it receives states and
//! observations after each step). Time is simulated time from a fixed epoch, never the wall
//! clock: the same world and seed give the same bytes.
//!
//! Topics (always with the vehicle prefix, unlike MVSim which drops it for a single vehicle;
//! standalone sensors under `/world/`): `/clock`, `/tf`, `/tf_static`, `/<veh>/odom`,
//! `/<veh>/collision`, `/<veh>/<lidar>_points`, `/<veh>/<laser>`, `/<veh>/<imu>`, `/<veh>/<gnss>`,
//! and the ground truth of `truth.rs` (`/ground_truth/…`). Frames: `map` ->
//! `<veh>/odom` (identity: odometry is exact) -> `<veh>/base_link` -> `<veh>/<sensor>`;
//! `map` -> `actors/<name>`; standalone sensors hang from `map` as `world/<sensor>`.
//!
//! Modules: the CDR writer (`cdr.rs`), ROS 2 definitions as `ros2msg` schemas (`ros.rs`),
//! observations as messages (`encode.rs`, cameras in `cameras.rs`), PNG (`images.rs`), ground
//! truth (`truth.rs`), the sink seam (`sink.rs`: `Snapshot`, `Sink`), the writer thread behind
//! a byte-bounded queue (`writer.rs`), the output file (`output_file.rs`), the MCAP container
//! (`mcap_file.rs`), mending a cut recording (`recover.rs`), the plain-file dump (`dump.rs`).

pub mod cameras;
pub mod capture;
pub mod cdr;
pub mod dump;
pub mod encode;
pub mod images;
pub mod mcap_file;
mod output_file;
pub mod recover;
pub mod ros;
mod sink;
pub mod truth;
mod writer;

use mcap_file::{Content, McapWriter};
use output_file::OutputFile;
use passerby_sensors::Observation;
use passerby_world::SensorRef;
use passerby_world::{Pose3, SensorKind, World};
use ros::{MsgType, Transform};
pub use sink::{Sink, SinkError, Snapshot};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
pub use writer::CpuTicks;
use writer::{Job, Message, Queue, WriterResult};

/// Why recording failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be created or written.
    #[error("cannot write {path}")]
    Io {
        /// The recording.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Writing failed (a full disk) and the recording was closed at its last complete chunk.
    #[error(
        "cannot write {path}: {cause}; the recording was closed at its last complete chunk and is readable ({} messages in {} chunks kept)",
        kept.messages, kept.chunks
    )]
    Cut {
        /// The recording.
        path: PathBuf,
        /// The failed write's error.
        cause: std::io::Error,
        /// What it still holds.
        kept: mcap_file::Kept,
    },
    /// Writing failed and the recording could not be closed either (no room even for its
    /// summary, or an output that cannot be cut back, such as a pipe).
    #[error("cannot write {path}: {cause}; the recording is cut short{hint}")]
    Unfinished {
        /// The recording.
        path: PathBuf,
        /// The failed write's error.
        cause: std::io::Error,
        /// How to mend it, where it can be.
        hint: String,
    },
}

/// Per topic: messages written and points (or samples) they held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicCount {
    /// Messages.
    pub messages: u64,
    /// Points, ranges or samples.
    pub points: u64,
}

/// How the file's chunks are compressed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChunkCompression {
    /// LZ4 frames for everything but point clouds and depth images, which are stored: LZ4
    /// leaves those at 50-95 % of their size and compressing them was most of the cost of
    /// recording. Images, labels and small messages shrink to 2-25 %.
    #[default]
    Auto,
    /// LZ4 frames for every chunk: the smallest files (about two thirds of `Auto`'s on
    /// lidar and RGB-D data), for about a sixth more work in a run.
    Lz4,
    /// Stored as they are: the largest files.
    None,
}

/// An MCAP file being written. The simulation thread encodes the small per-step state; the
/// writer thread encodes observations and writes everything (see `writer.rs`).
pub struct Recorder {
    path: PathBuf,
    queue: Option<Queue>,
    writer: Option<std::thread::JoinHandle<WriterResult>>,
    topics: Arc<Topics>,
    static_written: bool,
}

/// How states and observations become messages: topic and frame names, stamps, actor classes.
/// Shared by the simulation thread and the writer thread.
#[derive(Clone, Debug)]
pub(crate) struct Topics {
    epoch_nanos: u64,
    world_frames: WorldFrames,
    /// Per actor (world order): instance id, class, capsule.
    actors: Vec<(u32, String, truth::Capsule)>,
}

/// What the recorder needs to know about the world's sensors.
#[derive(Clone, Debug, Default)]
struct WorldFrames {
    /// Per sensor: (parent frame, own frame, mount transform, period).
    sensors: HashMap<SensorRef, (String, String, Transform, f64)>,
    /// Optical frames of cameras: (sensor frame, optical frame, transform).
    optical: Vec<(String, String, Transform)>,
    /// Per RGB-D camera: (publish the depth image, colour its points).
    rgbd: HashMap<SensorRef, (bool, bool)>,
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

impl Recorder {
    /// Creates `path` for a run of `world` whose time 0 is `epoch_nanos` after 1970-01-01.
    pub fn create(
        path: &Path,
        world: &World,
        epoch_nanos: u64,
        compression: ChunkCompression,
    ) -> Result<Recorder, RecordError> {
        let file = OutputFile::create(path).map_err(|source| RecordError::Io {
            path: path.to_owned(),
            source,
        })?;
        let compression = match compression {
            ChunkCompression::Auto => mcap_file::Compression::Auto,
            ChunkCompression::Lz4 => mcap_file::Compression::Lz4,
            ChunkCompression::None => mcap_file::Compression::None,
        };
        let writer = McapWriter::new(file, "ros2", "passerby", compression).map_err(|source| {
            RecordError::Io {
                path: path.to_owned(),
                source,
            }
        })?;
        let (queue, handle) = writer::spawn(writer, path).map_err(|source| RecordError::Io {
            path: path.to_owned(),
            source,
        })?;
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
        let topics = Topics {
            epoch_nanos,
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
        };
        Ok(Recorder {
            path: path.to_owned(),
            queue: Some(queue),
            writer: Some(handle),
            topics: Arc::new(topics),
            static_written: false,
        })
    }

    /// Gives each actor (world order) its instance id and class for the ground truth.
    pub fn set_actor_labels(&mut self, labels: &[(u32, String)]) {
        let topics = Arc::make_mut(&mut self.topics);
        for (a, (id, class)) in topics.actors.iter_mut().zip(labels) {
            (a.0, a.1) = (*id, class.clone());
        }
    }

    /// Hands a job to the writer thread; if it has stopped, its error.
    fn send(&mut self, job: Job) -> Result<(), RecordError> {
        let sent = self.queue.as_ref().is_some_and(|q| q.send(job).is_ok());
        if sent {
            return Ok(());
        }
        // The writer stopped: report why.
        self.queue = None;
        match self.writer.take().map(|h| h.join()) {
            Some(Ok(Err(e))) => Err(e),
            _ => Err(RecordError::Io {
                path: self.path.clone(),
                source: std::io::Error::other("the MCAP writer thread stopped"),
            }),
        }
    }

    /// Writes a metadata record.
    pub fn metadata(
        &mut self,
        name: &str,
        entries: BTreeMap<String, String>,
    ) -> Result<(), RecordError> {
        self.send(Job::Metadata {
            name: name.to_owned(),
            entries,
        })
    }

    /// Records the state after a simulation step and the observations it completed.
    pub fn record_step(&mut self, step: &Snapshot<'_>) -> Result<(), RecordError> {
        let now = step.time;
        let topics = &*self.topics;
        let nanos = topics.nanos(now);
        let mut out = Vec::new();
        if !self.static_written {
            self.static_written = true;
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
            let t = transform_of(&v.pose);
            let [vx, vy, w] = v.twist;
            let data = encode::odometry(
                nanos,
                &format!("{}/odom", v.name),
                &format!("{}/base_link", v.name),
                t.translation,
                t.rotation,
                [vx, vy, 0.0, 0.0, 0.0, w],
            );
            topics.push(
                &mut out,
                &format!("/{}/odom", v.name),
                &ros::ODOMETRY,
                now,
                data,
                1,
            );
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
        let job = Job::Step {
            messages: out,
            observations: step.observations.clone(),
            topics: self.topics.clone(),
            now,
        };
        self.send(job)
    }

    /// Finishes the file (summary, index, footer) and returns the per-topic counts.
    pub fn finish(mut self) -> Result<Finished, RecordError> {
        // Closing the queue lets the writer finish the file.
        self.queue = None;
        match self.writer.take().map(|h| h.join()) {
            Some(Ok(result)) => result.map(|(counts, writer_cpu)| Finished {
                counts,
                writer_cpu,
                process_cpu: writer::cpu_ticks(false),
            }),
            Some(Err(_)) => Err(RecordError::Io {
                path: self.path.clone(),
                source: std::io::Error::other("the MCAP writer thread panicked"),
            }),
            None => Err(RecordError::Io {
                path: self.path.clone(),
                source: std::io::Error::other("writing stopped at an earlier error"),
            }),
        }
    }
}

/// A finished recording: what it holds and what writing it cost.
#[derive(Clone, Debug)]
pub struct Finished {
    /// Messages and points per topic.
    pub counts: BTreeMap<String, TopicCount>,
    /// CPU time of the writer thread (encoding, compressing, writing), where the platform
    /// tells.
    pub writer_cpu: Option<CpuTicks>,
    /// CPU time of the whole process until then, in the same units.
    pub process_cpu: Option<CpuTicks>,
}

impl Finished {
    /// The writer thread's share of the process's CPU time, 0 to 1.
    pub fn writer_share(&self) -> Option<f64> {
        match (self.writer_cpu, self.process_cpu) {
            (Some(w), Some(p)) if p > 0 => Some(w as f64 / p as f64),
            _ => None,
        }
    }
}

impl Topics {
    /// Nanoseconds since 1970 of a simulated time.
    pub(crate) fn nanos(&self, sim_seconds: f64) -> u64 {
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

    fn topic_and_frame(&self, s: &SensorRef) -> (String, String, f64) {
        let frame = full_name(s);
        let period = self
            .world_frames
            .sensors
            .get(s)
            .map_or(0.0, |(_, _, _, p)| *p);
        (format!("/{frame}"), frame, period)
    }

    /// Encodes an observation logged at simulated time `now` into `out`.
    pub(crate) fn observation(&self, o: &Observation, now: f64, out: &mut Vec<Message>) {
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
                Topics::incompressible(out);
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

impl Sink for Recorder {
    fn step(&mut self, snapshot: &Snapshot<'_>) -> Result<(), SinkError> {
        Ok(self.record_step(snapshot)?)
    }

    /// The writer thread's share of the CPU, then each topic's message and point counts.
    fn finish(self: Box<Self>) -> Result<Vec<String>, SinkError> {
        let finished = Recorder::finish(*self)?;
        let mut lines = Vec::new();
        if let Some(share) = finished.writer_share() {
            lines.push(format!(
                "the writer thread (encoding, compressing, writing) used {:.1} % of the run's CPU time",
                share * 100.0
            ));
        }
        for (topic, c) in &finished.counts {
            lines.push(format!(
                "{topic}: {} messages, {} points",
                c.messages, c.points
            ));
        }
        Ok(lines)
    }
}
