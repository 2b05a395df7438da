//! Passerby's engine as a library: everything a run does, behind one API that every front end
//! (the `passerby` CLI, and next the live server and the Python package) drives.
//!
//! Owns: loading any supported input into the world description (`load.rs`: MVSim worlds,
//! MAVS scenes with their rig) and the model library; the running pipeline (`engine.rs`:
//! simulation, scene posing, sensors, posing ahead on a second thread when it pays,
//! `trial.rs`) with its inputs (velocity
//! commands, transform sets, poses, replays) and reset; feeding each step to the sinks; timed
//! input files checked against a world (`inputs.rs`), label tables (`labels.rs`), the report
//! `check` prints (`report.rs`), scan timing (`bench.rs`), the recordings' start date (`time.rs`). Must not
//! touch: argument parsing, progress display, signals, exit codes (the front ends'), nor any
//! stage's own logic (each lives in its crate: `passerby-sim`, `passerby-scene`,
//! `passerby-sensors`, `passerby-record`).
//!
//! ```no_run
//! use passerby_engine::{Engine, InputOptions, Observation, load_world, model_library};
//! let loaded = load_world("examples/sensor_rig.world.xml".as_ref(), &InputOptions::default());
//! let world = loaded.value.expect("a valid world");
//! let mut engine = Engine::build(world, &mut model_library(None, false), 0).unwrap();
//! engine.set_command("r1", [0.5, 0.0, 0.1]).unwrap();
//! while engine.time() < 1.0 {
//!     for observation in engine.step().unwrap().iter() {
//!         if let Observation::PointCloud(cloud) = observation {
//!             println!("{} points at {} s", cloud.points.len(), cloud.stamp);
//!         }
//!     }
//! }
//! ```

pub mod bench;
mod engine;
pub mod inputs;
mod labels;
mod load;
pub mod report;
mod time;
mod trial;

pub use engine::{Engine, EngineError, StageTimes};
pub use labels::{actor_labels, label_tables};
pub use load::{InputOptions, Loaded, load_world, model_library};
pub use passerby_mavs::YprConvention;
pub use passerby_record::dump::Dumper;
pub use passerby_record::{
    ChunkCompression, Encoder, Message, Recorder, Sink, SinkError, Snapshot,
};
pub use passerby_sensors::Observation;
pub use time::parse_start_time;
