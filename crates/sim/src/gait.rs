//! The idle / walk / run / turn state machine of an actor, which clip it plays, how fast, and
//! the cross-fade when the clip changes.
//!
//! Thresholds are MVSim's (walk above 0.1 m/s, run above 0.8 × running speed) unless the actor
//! sets `<run_threshold>` (AWSIM uses 1.6 m/s). Playback speed is ground speed over the nominal
//! speed of the gait (MVSim), so feet do not slide when an actor walks slower or faster than
//! its clip was authored for. Turning in place plays `animation_turn` when the actor has one
//! (AWSIM's rotate state), else the idle clip.

use passerby_world::Actor;

/// Below this ground speed (m/s) an actor stands (MVSim).
pub const WALK_THRESHOLD: f64 = 0.1;
/// Yaw rate (rad/s) above which a standing actor is turning in place.
pub const TURN_THRESHOLD: f64 = 0.05;
/// Seconds over which a new clip fades in over the previous one.
pub const CROSS_FADE: f64 = 0.25;

/// What an actor's body is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gait {
    /// Standing.
    Idle,
    /// Walking.
    Walk,
    /// Running.
    Run,
    /// Turning in place.
    Turn,
}

/// A clip being played: its name in the model and its local time, seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipPlayback {
    /// Clip name (`animation_walk` etc.).
    pub clip: String,
    /// Time within the clip (the caller wraps it to the clip's duration).
    pub time: f64,
}

/// The animation an actor shows at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationState {
    /// Current gait.
    pub gait: Gait,
    /// The clip of the current gait.
    pub current: ClipPlayback,
    /// The clip fading out, with the weight of `current` in `[0, 1)`; `None` once faded.
    pub fading: Option<(ClipPlayback, f64)>,
    /// Playback speed of the current clip (1 = as authored).
    pub rate: f64,
}

/// Drives one actor's animation state from its motion.
#[derive(Clone, Debug)]
pub struct GaitMachine {
    walk_speed: f64,
    run_speed: f64,
    run_threshold: f64,
    clips: [String; 4],
    state: AnimationState,
    /// Seconds since the current clip started.
    since_change: f64,
}

impl GaitMachine {
    /// A standing actor.
    pub fn new(actor: &Actor) -> GaitMachine {
        let clips = [
            actor.animation_idle.clone(),
            actor.animation_walk.clone(),
            actor.animation_run.clone(),
            actor
                .animation_turn
                .clone()
                .unwrap_or_else(|| actor.animation_idle.clone()),
        ];
        GaitMachine {
            walk_speed: actor.walking_speed,
            run_speed: actor.running_speed,
            run_threshold: actor.run_threshold.unwrap_or(0.8 * actor.running_speed),
            state: AnimationState {
                gait: Gait::Idle,
                current: ClipPlayback {
                    clip: clips[0].clone(),
                    time: 0.0,
                },
                fading: None,
                rate: 1.0,
            },
            clips,
            since_change: CROSS_FADE,
        }
    }

    /// The gait for a ground speed (m/s) and yaw rate (rad/s).
    pub fn classify(&self, speed: f64, yaw_rate: f64) -> Gait {
        if speed > self.run_threshold {
            Gait::Run
        } else if speed > WALK_THRESHOLD {
            Gait::Walk
        } else if yaw_rate.abs() > TURN_THRESHOLD {
            Gait::Turn
        } else {
            Gait::Idle
        }
    }

    /// Playback speed for a gait at a ground speed (MVSim: speed over the nominal speed).
    pub fn rate(&self, gait: Gait, speed: f64) -> f64 {
        match gait {
            Gait::Walk if self.walk_speed > 0.01 => speed / self.walk_speed,
            Gait::Run if self.run_speed > 0.01 => speed / self.run_speed,
            _ => 1.0,
        }
    }

    /// Advances by `dt` seconds of motion at `speed` and `yaw_rate`.
    pub fn step(&mut self, dt: f64, speed: f64, yaw_rate: f64) -> &AnimationState {
        let gait = self.classify(speed, yaw_rate);
        let rate = self.rate(gait, speed);
        if gait != self.state.gait {
            let clip = self.clips[gait as usize].clone();
            if clip != self.state.current.clip {
                let previous =
                    std::mem::replace(&mut self.state.current, ClipPlayback { clip, time: 0.0 });
                self.state.fading = Some((previous, 0.0));
                self.since_change = 0.0;
            }
            self.state.gait = gait;
        }
        self.state.rate = rate;
        self.state.current.time += dt * rate;
        self.since_change += dt;
        self.state.fading = match self.state.fading.take() {
            Some((mut old, _)) if self.since_change < CROSS_FADE => {
                old.time += dt;
                Some((old, self.since_change / CROSS_FADE))
            }
            _ => None,
        };
        &self.state
    }

    /// The current state.
    pub fn state(&self) -> &AnimationState {
        &self.state
    }
}
