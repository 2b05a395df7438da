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
//! Modules: the CDR writer (`cdr.rs`), ROS 2 definitions as `ros2msg` schemas (`ros.rs`), a
//! run's topics and messages for every publishing sink (`encoder.rs`), observations as
//! messages (`encode.rs`, cameras in `cameras.rs`), PNG (`images.rs`), ground
//! truth (`truth.rs`), the sink seam (`sink.rs`: `Snapshot`, `Sink`), the writer thread behind
//! a byte-bounded queue (`writer.rs`), the output file (`output_file.rs`), the MCAP container
//! (`mcap_file.rs`), mending a cut recording (`recover.rs`), the plain-file dump (`dump.rs`).

pub mod cameras;
pub mod capture;
pub mod cdr;
pub mod dump;
pub mod encode;
pub mod encoder;
pub mod images;
pub mod mcap_file;
mod output_file;
pub mod recover;
pub mod ros;
mod sink;
pub mod truth;
pub mod tum;
pub mod vehicle_logs;
mod writer;

pub use encoder::{Encoder, Message, StepEncodings, full_name};
use mcap_file::McapWriter;
use output_file::OutputFile;
use passerby_world::World;
pub use sink::{Sink, SinkError, Snapshot};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
pub use writer::CpuTicks;
use writer::{Job, Queue, WriterResult};

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
    topics: Arc<Encoder>,
    static_written: bool,
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
        let topics = Encoder::new(world, epoch_nanos);
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
        Arc::make_mut(&mut self.topics).set_actor_labels(labels);
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
        let messages = self.topics.state_messages(step, !self.static_written);
        self.static_written = true;
        let job = Job::Step {
            messages,
            encodings: step.encodings.clone(),
            topics: self.topics.clone(),
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
