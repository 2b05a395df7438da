//! Waypoint paths as MVSim's `HumanActor` follows them (reference `mvsim.md` §2), plus the
//! documented turning-rate limit that MVSim dropped.
//!
//! MVSim's rules, kept exactly when the limit is off: a segment runs from the actor's pose when
//! it began to the target waypoint at constant speed (walk, run, or zero for `idle`); the yaw
//! turns into the segment's heading over its first 10 % and to the waypoint's yaw over its last
//! 20 %; with a `pause` the actor lands on the waypoint and waits there; without one, the step
//! that completes the segment starts the next from where the actor stood (a small corner cut).
//!
//! With a turning rate, no step changes the yaw by more than `rate · dt`; a segment whose heading
//! differs from the actor's by more than [`TURN_IN_PLACE`] begins with a turn in place, and a
//! pause ends only once the waypoint's yaw is reached. Two MVSim defects are not copied: an
//! actor at the end of a non-looped path stands still (MVSim keeps reporting walking speed), and
//! 3-value waypoints keep the actor's height (MVSim sends it to z = 0).

use crate::motion::{Controller, Motion};
use passerby_world::{ActorPath, Pose3, Waypoint, WaypointAnimation};
use std::f64::consts::PI;

/// Heading change above which a segment starts with a turn in place (when a turning rate is
/// set): below it the actor turns while walking, as people do.
pub const TURN_IN_PLACE: f64 = 30.0 * PI / 180.0;

/// Segments shorter than this are pure turns (MVSim's threshold).
const ZERO_LENGTH: f64 = 1e-3;
/// Segments shorter than this head for the waypoint's yaw instead of their direction (MVSim).
const SHORT_SEGMENT: f64 = 0.1;

/// The actor's speeds (m/s) and turning limit (rad/s, `None` for MVSim's unlimited turns).
#[derive(Clone, Copy, Debug)]
pub struct Gaits {
    /// Walking speed.
    pub walk: f64,
    /// Running speed.
    pub run: f64,
    /// Largest yaw rate.
    pub turning_rate: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    TurningIn,
    Moving,
    Paused { remaining: f64 },
    Finished,
}

#[derive(Clone, Copy, Debug)]
struct Segment {
    start: Pose3,
    target: Pose3,
    length: f64,
}

/// Follows one actor's path, step by step.
#[derive(Clone, Debug)]
pub struct PathFollower {
    waypoints: Vec<Waypoint>,
    looped: bool,
    gaits: Gaits,
    /// Height given to 3-value waypoints.
    base_z: f64,
    /// Index of the waypoint being approached.
    target_index: usize,
    segment: Segment,
    progress: f64,
    phase: Phase,
}

impl PathFollower {
    /// Starts at `start` (the actor's initial pose), heading for the first waypoint. The path
    /// must have at least one waypoint (the loader guarantees it).
    pub fn new(path: &ActorPath, start: Pose3, gaits: Gaits) -> PathFollower {
        let mut follower = PathFollower {
            waypoints: path.waypoints.clone(),
            looped: path.looped,
            gaits,
            base_z: start.z,
            target_index: 0,
            segment: Segment {
                start,
                target: start,
                length: 0.0,
            },
            progress: 0.0,
            phase: Phase::Moving,
        };
        if follower.waypoints.is_empty() {
            follower.phase = Phase::Finished;
        } else {
            follower.begin_segment(start);
        }
        follower
    }

    /// The waypoint being approached (or last reached, once finished).
    pub fn target_index(&self) -> usize {
        self.target_index
    }

    /// Whether a non-looped path has ended.
    pub fn finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// Whether the actor is waiting at a waypoint.
    pub fn paused(&self) -> bool {
        matches!(self.phase, Phase::Paused { .. })
    }

    fn target_pose(&self, index: usize) -> Pose3 {
        let wp = &self.waypoints[index];
        if wp.is_3d {
            wp.pose
        } else {
            Pose3 {
                z: self.base_z,
                ..wp.pose
            }
        }
    }

    fn begin_segment(&mut self, start: Pose3) {
        let target = self.target_pose(self.target_index);
        // A 3-value waypoint is a point on the ground: its segment is measured in the plane
        // (as MVSim's is on flat ground), whatever height ground following gives the actor.
        let length = if self.waypoints[self.target_index].is_3d {
            distance(&start, &target)
        } else {
            (target.x - start.x).hypot(target.y - start.y)
        };
        self.segment = Segment {
            start,
            target,
            length,
        };
        self.progress = 0.0;
        self.phase = Phase::Moving;
        if self.gaits.turning_rate.is_some() && length >= SHORT_SEGMENT {
            let heading = (target.y - start.y).atan2(target.x - start.x);
            if wrap(heading - start.yaw).abs() > TURN_IN_PLACE {
                self.phase = Phase::TurningIn;
            }
        }
    }

    /// MVSim's `advance()`: the next waypoint, or the end of a non-looped path.
    fn advance(&mut self, current: Pose3) {
        if self.target_index + 1 < self.waypoints.len() {
            self.target_index += 1;
        } else if self.looped {
            self.target_index = 0;
        } else {
            self.phase = Phase::Finished;
            return;
        }
        self.begin_segment(current);
    }

    fn desired_speed(&self) -> f64 {
        match self.waypoints[self.target_index].animation {
            WaypointAnimation::Walk => self.gaits.walk,
            WaypointAnimation::Run => self.gaits.run,
            WaypointAnimation::Idle => 0.0,
        }
    }

    /// Turns `pose` towards `yaw`, within the rate limit; whether it got there.
    fn turn_towards(&self, pose: &mut Pose3, yaw: f64, dt: f64) -> bool {
        let wanted = wrap(yaw - pose.yaw);
        match self.gaits.turning_rate {
            Some(rate) if wanted.abs() > rate * dt => {
                pose.yaw = wrap(pose.yaw + rate * dt * wanted.signum());
                false
            }
            _ => {
                pose.yaw = yaw;
                true
            }
        }
    }

    /// MVSim's `interpolate(p)`: linear position, yaw blended into the heading over the first
    /// 10 % and to the waypoint's yaw over the last 20 %.
    fn interpolate(&self, p: f64) -> Pose3 {
        let Segment {
            start: s,
            target: t,
            length,
        } = self.segment;
        let p = p.clamp(0.0, 1.0);
        let direction = (t.y - s.y).atan2(t.x - s.x);
        let heading = if length > SHORT_SEGMENT {
            direction
        } else {
            t.yaw
        };
        let yaw = if p < 0.1 {
            s.yaw + wrap(heading - s.yaw) * (p / 0.1)
        } else if p > 0.8 {
            // MVSim recomputes the direction here: 0 for a zero-length segment.
            direction + wrap(t.yaw - direction) * ((p - 0.8) / 0.2)
        } else {
            heading
        };
        Pose3 {
            x: s.x + (t.x - s.x) * p,
            y: s.y + (t.y - s.y) * p,
            z: s.z + (t.z - s.z) * p,
            yaw: wrap(yaw),
            pitch: 0.0,
            roll: 0.0,
        }
    }
}

impl Controller for PathFollower {
    /// Advances the actor by `dt` seconds, updating `pose` (its pose at the end of the
    /// previous step, which the caller may have changed).
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion {
        let yaw_before = pose.yaw;
        let speed = match self.phase {
            Phase::Finished => 0.0,
            Phase::Paused { remaining } => {
                let settled = self.turn_towards(pose, self.interpolate(1.0).yaw, dt);
                let remaining = remaining - dt;
                self.phase = Phase::Paused { remaining };
                if remaining <= 0.0 && settled {
                    self.advance(*pose);
                }
                0.0
            }
            Phase::TurningIn => {
                let s = &self.segment;
                let heading = (s.target.y - s.start.y).atan2(s.target.x - s.start.x);
                if self.turn_towards(pose, heading, dt) {
                    // Walk the segment from here, already facing along it.
                    self.segment.start.yaw = pose.yaw;
                    self.phase = Phase::Moving;
                }
                0.0
            }
            Phase::Moving => {
                let speed = self.desired_speed();
                if self.segment.length < ZERO_LENGTH {
                    self.progress = 1.0;
                } else {
                    self.progress += speed * dt / self.segment.length;
                }
                let mut reported = speed;
                if self.progress >= 1.0 {
                    self.progress = 1.0;
                    let pause = self.waypoints[self.target_index].pause;
                    if pause > 0.0 {
                        self.phase = Phase::Paused { remaining: pause };
                        reported = 0.0;
                    } else {
                        self.advance(*pose);
                    }
                }
                if self.phase != Phase::TurningIn {
                    let goal = self.interpolate(self.progress);
                    (pose.x, pose.y, pose.z) = (goal.x, goal.y, goal.z);
                    (pose.pitch, pose.roll) = (0.0, 0.0);
                    self.turn_towards(pose, goal.yaw, dt);
                }
                reported
            }
        };
        Motion {
            speed,
            yaw_rate: if dt > 0.0 {
                wrap(pose.yaw - yaw_before) / dt
            } else {
                0.0
            },
        }
    }

    /// Restarts the current segment from `pose` (after an external source moved the actor).
    fn restart_from(&mut self, pose: Pose3) {
        if self.phase != Phase::Finished {
            self.begin_segment(pose);
        }
    }
}

fn distance(a: &Pose3, b: &Pose3) -> f64 {
    ((b.x - a.x).powi(2) + (b.y - a.y).powi(2) + (b.z - a.z).powi(2)).sqrt()
}

/// An angle in `(-π, π]`.
pub fn wrap(a: f64) -> f64 {
    let r = a.rem_euclid(2.0 * PI);
    if r > PI { r - 2.0 * PI } else { r }
}
