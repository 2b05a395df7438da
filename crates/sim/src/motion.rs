//! What every way of moving an actor shares: the [`Controller`] trait the simulation steps
//! them through, and the [`Motion`] a step reports to the gait state machine. The path
//! follower (`path.rs`) and the behaviors (`controllers.rs`) implement it; neither depends on
//! the other for it.

use passerby_world::Pose3;
use std::any::Any;

/// What a step of motion did, for the gait state machine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Ground speed, m/s (0 while paused, turning in place or finished).
    pub speed: f64,
    /// Yaw rate this step, rad/s.
    pub yaw_rate: f64,
}

/// Moves one actor, step by step.
pub trait Controller: AsAny + std::fmt::Debug + Send + Sync {
    /// Advances by `dt` seconds from `pose` (the pose at the end of the previous step, which an
    /// external source may have changed).
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion;

    /// Continues from `pose` after an external source held the actor.
    fn restart_from(&mut self, _pose: Pose3) {}
}

/// A controller as [`Any`], so a caller can ask for the one kind it knows (the path follower).
pub trait AsAny {
    /// `self` as `Any`.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}
