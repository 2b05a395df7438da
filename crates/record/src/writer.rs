//! The writer thread: encodes observations and writes every message into the MCAP file, in the
//! order the simulation queued them (so files do not depend on timing).
//!
//! Owns: the MCAP writer, schema and channel ids, sequence numbers, per-topic counts, and the
//! queue between the simulation and this thread. The queue is bounded by bytes, not by jobs: a
//! step may hold a few bytes of poses or a 10 MB camera frame, and memory must not grow with
//! the run when writing falls behind. Encoding the large observations here, not on the
//! simulation thread, keeps it off the simulation's serial path.

use crate::encoder::{Encoder, Message, StepEncodings};
use crate::mcap_file::{McapWriter, MessageHeader};
use crate::output_file::OutputFile;
use crate::{RecordError, TopicCount};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};

/// Bytes of queued messages and observations at most before the simulation waits for the
/// writer (a job larger than this still passes when the queue is empty).
const QUEUE_BYTES: usize = 64 << 20;

/// Work for the writer thread.
pub(crate) enum Job {
    /// A step: messages already encoded, then its observations' messages as `topics` makes
    /// them (shared with other publishing sinks).
    Step {
        messages: Vec<Message>,
        encodings: Arc<StepEncodings>,
        topics: Arc<Encoder>,
    },
    /// An MCAP metadata record.
    Metadata {
        name: String,
        entries: BTreeMap<String, String>,
    },
}

impl Job {
    /// Roughly the memory the job holds while queued.
    fn bytes(&self) -> usize {
        match self {
            Job::Step {
                messages,
                encodings,
                ..
            } => crate::encoder::queued_bytes(messages, encodings.observations()),
            Job::Metadata { entries, .. } => entries.iter().map(|(k, v)| k.len() + v.len()).sum(),
        }
    }
}

/// Bytes queued and not yet written; the simulation waits on it when it is over budget.
#[derive(Default)]
struct Backlog {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Backlog {
    /// Waits until `bytes` more fit (or nothing is queued, or the writer has stopped).
    fn reserve(&self, bytes: usize) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        while state.0 > 0 && state.0 + bytes > QUEUE_BYTES && !state.1 {
            match self.changed.wait(state) {
                Ok(s) => state = s,
                Err(_) => return,
            }
        }
        state.0 += bytes;
    }

    fn release(&self, bytes: usize) {
        if let Ok(mut state) = self.state.lock() {
            state.0 = state.0.saturating_sub(bytes);
        }
        self.changed.notify_all();
    }

    /// The writer stopped: nobody waits for it any more.
    fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.1 = true;
        }
        self.changed.notify_all();
    }
}

/// The simulation's end of the queue.
pub(crate) struct Queue {
    sender: Sender<(Job, usize)>,
    backlog: Arc<Backlog>,
}

impl Queue {
    /// Queues a job, waiting while the writer is too far behind; gives the job back if the
    /// writer has stopped.
    pub fn send(&self, job: Job) -> Result<(), Job> {
        let bytes = job.bytes();
        self.backlog.reserve(bytes);
        self.sender.send((job, bytes)).map_err(|e| e.0.0)
    }
}

/// Starts the writer thread on `writer`; it finishes the file when the queue closes and returns
/// the per-topic counts.
pub(crate) fn spawn(
    writer: McapWriter<OutputFile>,
    path: &Path,
) -> std::io::Result<(Queue, std::thread::JoinHandle<WriterResult>)> {
    let (sender, jobs) = std::sync::mpsc::channel();
    let backlog = Arc::new(Backlog::default());
    let thread_backlog = backlog.clone();
    let thread_path = path.to_owned();
    let handle = std::thread::Builder::new()
        .name("mcap writer".into())
        .spawn(move || {
            let result = write_jobs(writer, jobs, &thread_backlog, thread_path);
            thread_backlog.close();
            result
        })?;
    Ok((Queue { sender, backlog }, handle))
}

/// What the writer thread ends with: messages per topic and the thread's CPU time.
pub(crate) type WriterResult =
    Result<(BTreeMap<String, TopicCount>, Option<CpuTicks>), RecordError>;

/// User plus system CPU time in the kernel's clock ticks (only their ratios are used).
pub type CpuTicks = u64;

/// CPU time so far of this thread (`thread`) or of the whole process, where `/proc` tells.
pub fn cpu_ticks(thread: bool) -> Option<CpuTicks> {
    let stat = std::fs::read_to_string(if thread {
        "/proc/thread-self/stat"
    } else {
        "/proc/self/stat"
    })
    .ok()?;
    // Fields after the command name (which may hold spaces) in parentheses: state is the
    // third field, user and system time the 14th and 15th.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

fn write_jobs(
    writer: McapWriter<OutputFile>,
    jobs: Receiver<(Job, usize)>,
    backlog: &Backlog,
    path: PathBuf,
) -> WriterResult {
    let mut file = Output {
        writer,
        path,
        schemas: HashMap::new(),
        channels: HashMap::new(),
        sequences: HashMap::new(),
        counts: BTreeMap::new(),
    };
    let mut failure = None;
    for (job, bytes) in jobs {
        let written = file.job(job);
        backlog.release(bytes);
        if let Err(e) = written {
            // Dropping the queue's receiver stops the simulation's sends.
            failure = Some(e);
            break;
        }
    }
    let Output {
        mut writer,
        path,
        counts,
        ..
    } = file;
    let source = match failure {
        None => match writer.close() {
            Ok(()) => return Ok((counts, cpu_ticks(true))),
            Err(source) => source,
        },
        Some(RecordError::Io { source, .. }) => source,
        Some(other) => return Err(other),
    };
    // A failed write (a full disk): keep what is whole, readable.
    Err(match writer.finish_after_error() {
        Ok((_, kept)) => RecordError::Cut {
            path,
            cause: source,
            kept,
        },
        Err(_) => RecordError::Unfinished {
            hint: if path.is_file() {
                format!(
                    ": `passerby recover {}` rewrites its complete chunks into a readable file",
                    path.display()
                )
            } else {
                String::new()
            },
            path,
            cause: source,
        },
    })
}

/// The file being written and its channel bookkeeping.
struct Output {
    writer: McapWriter<OutputFile>,
    path: PathBuf,
    schemas: HashMap<&'static str, u16>,
    channels: HashMap<String, u16>,
    sequences: HashMap<u16, u32>,
    counts: BTreeMap<String, TopicCount>,
}

impl Output {
    fn error(&self, source: std::io::Error) -> RecordError {
        RecordError::Io {
            path: self.path.clone(),
            source,
        }
    }

    fn job(&mut self, job: Job) -> Result<(), RecordError> {
        match job {
            Job::Step {
                messages,
                encodings,
                topics,
            } => {
                for m in &messages {
                    self.message(m)?;
                }
                for i in 0..encodings.observations().len() {
                    for m in encodings.messages(i, &topics).iter() {
                        self.message(m)?;
                    }
                }
                Ok(())
            }
            Job::Metadata { name, entries } => self
                .writer
                .write_metadata(&name, &entries)
                .map_err(|e| self.error(e)),
        }
    }

    fn message(&mut self, m: &Message) -> Result<(), RecordError> {
        let channel = match self.channels.get(&m.topic) {
            Some(&c) => c,
            None => {
                let schema = match self.schemas.get(m.ty.name) {
                    Some(&s) => s,
                    None => {
                        let s = self.writer.add_schema(
                            m.ty.name,
                            "ros2msg",
                            m.ty.definition.as_bytes(),
                        );
                        self.schemas.insert(m.ty.name, s);
                        s
                    }
                };
                let c = self.writer.add_channel(schema, &m.topic, "cdr");
                self.channels.insert(m.topic.clone(), c);
                c
            }
        };
        let sequence = self.sequences.entry(channel).or_insert(0);
        *sequence += 1;
        let header = MessageHeader {
            channel,
            sequence: *sequence,
            log_time: m.time,
            publish_time: m.time,
        };
        self.writer
            .write_message(&header, &m.data, m.content)
            .map_err(|e| self.error(e))?;
        // Looked up first: the topic is copied once, when it is new.
        let count = match self.counts.get_mut(&m.topic) {
            Some(c) => c,
            None => self.counts.entry(m.topic.clone()).or_default(),
        };
        count.messages += 1;
        count.points += m.points;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::cpu_ticks;

    #[cfg(target_os = "linux")]
    #[test]
    fn cpu_ticks_count_this_threads_work_within_the_processs() {
        let before = cpu_ticks(true).expect("Linux has /proc/thread-self/stat");
        // About 50 ms of arithmetic: several 10 ms ticks.
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while started.elapsed().as_millis() < 50 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let after = cpu_ticks(true).unwrap();
        assert!(after > before, "{before} -> {after}");
        assert!(cpu_ticks(false).unwrap() >= after);
    }
}
