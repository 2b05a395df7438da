//! A world served live: its steps published while they happen and its inputs taken while it
//! runs. Publishers are engine sinks (they receive each step's snapshot and encode it with the
//! recording's [`passerby_engine::Encoder`], so a live topic carries exactly the bytes a
//! recording would); inputs arrive from any publisher's clients as [`Control`]s, which the
//! serving loop ([`serve()`]) applies between steps: velocity commands, pause, resume, a number
//! of steps (lockstep), reset.
//!
//! Owns: the serving loop, its pacing and the control channel; the Foxglove WebSocket server
//! and the ROS 2 node.
//! Must not touch: what a step computes or how a message is encoded (the engine and the
//! recording crate do).
//!
//! Modules: controls and replies (`control.rs`), the loop (`serve.rs`), velocity commands and
//! transform sets as clients send them (`twist.rs`, `transform_set.rs`), the Foxglove WebSocket server (`foxglove_ws.rs`) with its
//! publishing thread behind a bounded queue (`outbox.rs`), ROS 2 over DDS (`ros2.rs`), the
//! bundled viewer's files and their HTTP server (`web.rs`, `../web/`), the served world's
//! parameters (`parameters.rs`), over ROS 2's parameter services (`ros2_parameters.rs`) and
//! Foxglove's parameter protocol (`foxglove_parameters.rs`).

mod control;
mod foxglove_parameters;
mod foxglove_ws;
mod outbox;
mod parameters;
mod ros2;
mod ros2_parameters;
mod serve;
mod transform_set;
mod twist;
mod web;

pub use control::{Control, ControlReceiver, ControlSender, Reply, RunState, controls};
pub use foxglove_ws::{FoxgloveOptions, FoxgloveServer};
pub use outbox::OutboxStats;
pub use parameters::{Parameter, Parameters, Served, Value};
pub use ros2::{CONTROL, DiscoveryRange, Ros2Options, Ros2Server, STATUS};
pub use ros2_parameters::ServiceStyle;
pub use serve::{Published, ServeError, ServeOptions, ServeReport, serve};
pub use transform_set::{TRANSFORM_SET, TRANSFORM_TOPIC};
pub use twist::{decode_twist, twist_topic_vehicle};
pub use web::WebServer;
