//! Timed inputs replayed during a run: transforms set from outside (a "transform set" source)
//! and vehicle velocity commands. Always in the world's convention (REP 103: x forward, y left,
//! z up, right-handed angles in radians); loaders convert other conventions.

use serde::Serialize;

/// Translation, rotation and scale of a body or of one of its parts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Transform {
    /// Metres: the body's in the world frame, a part's in the body's frame.
    pub translation: [f64; 3],
    /// Radians: yaw about Z, pitch about Y, roll about X (`R = Rz·Ry·Rx`).
    pub yaw_pitch_roll: [f64; 3],
    /// Scale along the body's (or part's) own axes.
    pub scale: [f64; 3],
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            translation: [0.0; 3],
            yaw_pitch_roll: [0.0; 3],
            scale: [1.0; 3],
        }
    }
}

/// One row of a transforms file: what `object` (or its `part`) is set to at `time`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimedTransform {
    /// Simulated seconds.
    pub time: f64,
    /// Actor, vehicle or block name.
    pub object: String,
    /// A bone (skinned models) or named node; `None` for the whole body.
    pub part: Option<String>,
    /// The transform.
    pub transform: Transform,
    /// Only x, y and yaw are given (a 2D `t x y yaw` trajectory): the body's height, pitch and
    /// roll come from the ground under it, as when it moves on its own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub planar: bool,
}

/// One row of a commands file: a vehicle's body-frame velocity from `time` on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimedCommand {
    /// Simulated seconds.
    pub time: f64,
    /// Vehicle name.
    pub vehicle: String,
    /// vx, vy (m/s), omega (rad/s).
    pub twist: [f64; 3],
}
