//! What clients ask of a served world, and how they are answered. Every publisher's clients
//! send [`Control`]s into one channel; the serving loop applies them between steps, in the
//! order they arrived, so a command sent before a step request is in force for that step.

use serde::Serialize;
use std::sync::mpsc;

/// Where a served world stands, as replies report it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RunState {
    /// Simulated seconds.
    pub time: f64,
    /// Steps made since the start (or the last reset).
    pub steps: u64,
    /// Whether the world waits for step requests (paused, or serving in lockstep).
    pub paused: bool,
}

/// How a request is answered: called once, with the state after it or why it failed.
pub struct Reply(Box<dyn FnOnce(Result<RunState, String>) + Send>);

impl Reply {
    /// A reply that calls `f`.
    pub fn new(f: impl FnOnce(Result<RunState, String>) + Send + 'static) -> Reply {
        Reply(Box::new(f))
    }

    /// Answers the request.
    pub fn send(self, result: Result<RunState, String>) {
        (self.0)(result)
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reply")
    }
}

/// One request from a client.
#[derive(Debug)]
pub enum Control {
    /// Drive `vehicle` at `twist` (forward, left, yaw rate: m/s, m/s, rad/s) from the next step
    /// on, as a `--commands` row would.
    Command {
        /// The vehicle's name.
        vehicle: String,
        /// `[vx, vy, w]` in the vehicle's frame.
        twist: [f64; 3],
    },
    /// Set a transform (transform-set semantics: an object's pose, held until released, or a
    /// part's local transform), from the next step on.
    Transform {
        /// Actor, vehicle or block.
        object: String,
        /// A part of it (a wheel, a model node, a bone), by name or `#K`; `None`: the object.
        part: Option<String>,
        /// The transform.
        transform: passerby_world::Transform,
    },
    /// Hand an object held by a transform set back to the simulation.
    Release {
        /// Actor, vehicle or block.
        object: String,
    },
    /// Stop stepping until resumed or asked for steps.
    Pause {
        /// Answered at once.
        reply: Reply,
    },
    /// Step again at the run's pace (not in lockstep, where only step requests step).
    Resume {
        /// Answered at once.
        reply: Reply,
    },
    /// Make `steps` steps, then answer once their messages are handed to every publisher.
    Step {
        /// How many (at least 1).
        steps: u64,
        /// Answered after the last one is published.
        reply: Reply,
    },
    /// Pace the run at `factor` simulated seconds per wall second from now on (0: as fast as
    /// it can), as `--realtime-factor` does; not in lockstep, where clients set the pace.
    RealtimeFactor {
        /// At least 0, finite.
        factor: f64,
    },
    /// Back to the world's initial state.
    Reset {
        /// Answered once reset.
        reply: Reply,
    },
}

impl Control {
    /// Answers the request with `why` it will not be carried out (a command, transform set or
    /// pace, which have no answer, are dropped).
    pub fn refuse(self, why: &str) {
        match self {
            Control::Command { .. }
            | Control::Transform { .. }
            | Control::Release { .. }
            | Control::RealtimeFactor { .. } => {}
            Control::Pause { reply }
            | Control::Resume { reply }
            | Control::Step { reply, .. }
            | Control::Reset { reply } => reply.send(Err(why.to_owned())),
        }
    }
}

/// The sending end, one clone per publisher.
pub type ControlSender = mpsc::Sender<Control>;
/// The serving loop's end.
pub type ControlReceiver = mpsc::Receiver<Control>;

/// A new control channel.
pub fn controls() -> (ControlSender, ControlReceiver) {
    mpsc::channel()
}
