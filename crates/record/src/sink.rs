//! The seam every consumer of a run's output plugs into: a [`Sink`] is fed one [`Snapshot`]
//! per simulation step (the states after it and the observations it completed) and finished
//! once. The MCAP recorder and the `--dump` writer are sinks; so will the live publishers and
//! the Python bindings be. A sink never sees the simulation itself, only this plain data, so
//! several sinks run in one run and none can disturb another's view.

use passerby_sensors::Observation;
use passerby_sim::{ActorState, Contact, VehicleState};
use std::sync::Arc;

/// What one step left, for the sinks.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot<'a> {
    /// Simulated seconds at the end of the step.
    pub time: f64,
    /// Steps made so far (1 after the first).
    pub step: u64,
    /// Vehicles, in world order.
    pub vehicles: &'a [VehicleState],
    /// Per vehicle (in `vehicles` order), whether some actor touches it.
    pub touched: &'a [bool],
    /// Actors, in world order.
    pub actors: &'a [ActorState],
    /// What touched what during the step.
    pub contacts: &'a [Contact],
    /// The observations the step completed, shared by every sink (clone the `Arc` to keep them).
    pub observations: &'a Arc<Vec<Observation>>,
    /// The same observations with their messages, encoded once for every sink that publishes
    /// them ([`crate::encoder::StepEncodings`]).
    pub encodings: &'a Arc<crate::encoder::StepEncodings>,
    /// Per actor (in `actors` order), its skeleton's bones as pairs of world points (empty
    /// without one).
    pub skeletons: &'a [Vec<[f64; 3]>],
}

/// Why a sink failed (a full disk, a closed connection, ...).
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// A consumer of a run's steps.
pub trait Sink: Send {
    /// Takes one step's snapshot. An error ends the run; [`Sink::finish`] is still called.
    fn step(&mut self, snapshot: &Snapshot<'_>) -> Result<(), SinkError>;

    /// Finishes the output (closes files, flushes connections), whatever happened before; lines
    /// of a summary for the person running it (may be empty).
    fn finish(self: Box<Self>) -> Result<Vec<String>, SinkError>;
}
