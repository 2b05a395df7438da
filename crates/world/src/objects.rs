//! Simulated objects: blocks, vehicles and actors, and what they share (visuals, initial
//! pose, keyframes, publishing).

use crate::{Color, Pose2, Pose3, Sensor};
use serde::Serialize;
use std::collections::BTreeMap;

/// What every simulated object has (MVSim `Simulable`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SimulableCommon {
    /// `<init_pose>` (z = 0, level) or `<init_pose3d>`.
    pub init_pose: Pose3,
    /// Whether the pose came from `<init_pose3d>`.
    pub init_pose_is_3d: bool,
    /// `<skip_elevation_adjust/>`: keep the given z instead of standing on the terrain.
    pub skip_elevation_adjust: bool,
    /// `<init_vel>`: vx, vy (m/s, body frame), omega (rad/s).
    pub init_vel: [f64; 3],
    /// `<publish>` settings.
    pub publish: Option<Publish>,
    /// `<animation type="keyframes">`.
    pub keyframes: Option<KeyframeAnimation>,
    /// Our extension `<label>`: the semantic class of the object (overrides the default).
    pub label: Option<String>,
}

/// `<publish>` of an object or sensor (MVSim's ZMQ topics; kept for compatibility).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Publish {
    /// `enabled` attribute.
    pub enabled: bool,
    /// `<publish_topic>` (sensors).
    pub topic: String,
    /// `<publish_pose_topic>`.
    pub pose_topic: String,
    /// `<publish_pose_period>`, seconds.
    pub pose_period: f64,
    /// `<publish_relative_pose_topic>`.
    pub relative_pose_topic: String,
    /// `<publish_relative_pose_objects>`.
    pub relative_pose_objects: Vec<String>,
}

/// `<animation type="keyframes">`: poses relative to `init_pose` at given times, looping.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KeyframeAnimation {
    /// (time in seconds, pose), in increasing time.
    pub keyframes: Vec<(f64, Pose3)>,
}

/// `<visual>`: a 3D model attached to an object (MVSim `VisualObject`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Visual {
    /// `enabled` attribute.
    pub enabled: bool,
    /// `<model_uri>`, resolved to an absolute path when it was a relative one.
    pub model_uri: String,
    /// Uniform scale.
    pub model_scale: f64,
    /// Offset, metres, applied after the rotation.
    pub model_offset: [f64; 3],
    /// Radians.
    pub model_yaw: f64,
    /// Radians.
    pub model_pitch: f64,
    /// Radians.
    pub model_roll: f64,
    /// Draw the bounding box.
    pub show_bounding_box: bool,
    /// `NONE`, `BACK` or `FRONT`.
    pub model_cull_faces: String,
    /// Tint (`None` keeps the model's materials).
    pub model_color: Option<Color>,
    /// Split size for transparency sorting (renderer hint).
    pub model_split_size: f64,
    /// Name of the visual (wheel `linked_yaw` refers to it).
    pub name: String,
}

impl Visual {
    /// `object_from_model` as MVSim builds it (`VisualObject.cpp`: `modelPose ⊕ (p · scale)`):
    /// translation by the offsets, then `Rz(yaw)·Ry(pitch)·Rx(roll)`, then the scale, applied
    /// to the model as assimp presents it. Row-major 4×4. `scale` overrides `model_scale`
    /// (a block's `visual_scale`).
    pub fn object_from_model(&self, scale: Option<f64>) -> [[f64; 4]; 4] {
        let s = scale.unwrap_or(self.model_scale);
        let (sy, cy) = self.model_yaw.sin_cos();
        let (sp, cp) = self.model_pitch.sin_cos();
        let (sr, cr) = self.model_roll.sin_cos();
        let r = [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ];
        let o = self.model_offset;
        [
            [r[0][0] * s, r[0][1] * s, r[0][2] * s, o[0]],
            [r[1][0] * s, r[1][1] * s, r[1][2] * s, o[1]],
            [r[2][0] * s, r[2][1] * s, r[2][2] * s, o[2]],
            [0.0, 0.0, 0.0, 1.0],
        ]
    }
}

impl Default for Visual {
    fn default() -> Self {
        Visual {
            enabled: true,
            model_uri: String::new(),
            model_scale: 1.0,
            model_offset: [0.0; 3],
            model_yaw: 0.0,
            model_pitch: 0.0,
            model_roll: 0.0,
            show_bounding_box: false,
            model_cull_faces: "NONE".into(),
            model_color: None,
            model_split_size: 0.0,
            name: "group".into(),
        }
    }
}

/// A block: a static or pushable object (MVSim `Block`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Block {
    /// Unique name (auto: `block001`, …).
    pub name: String,
    /// The `<block:class>` it came from.
    pub class: Option<String>,
    /// Pose, velocity, keyframes, label.
    pub common: SimulableCommon,
    /// kg.
    pub mass: f64,
    /// Bottom of the collision volume, metres (`None`: from the visual, else 0).
    pub zmin: Option<f64>,
    /// Top of the collision volume, metres (`None`: from the visual, else 1).
    pub zmax: Option<f64>,
    /// Friction against the ground.
    pub ground_friction: f64,
    /// Friction against other bodies.
    pub lateral_friction: f64,
    /// Restitution.
    pub restitution: f64,
    /// Colour of the default visual.
    pub color: Color,
    /// No collisions.
    pub intangible: bool,
    /// Never moves.
    pub is_static: bool,
    /// Per-instance scale of the visuals (`None`: use `model_scale`).
    pub visual_scale: Option<f64>,
    /// Linear damping.
    pub linear_damping: f64,
    /// Angular damping.
    pub angular_damping: f64,
    /// The 2D footprint / 3D primitive.
    pub shape: BlockShape,
    /// Visuals (class and instance).
    pub visuals: Vec<Visual>,
}

impl Default for Block {
    fn default() -> Self {
        Block {
            name: String::new(),
            class: None,
            common: SimulableCommon::default(),
            mass: 30.0,
            zmin: None,
            zmax: None,
            ground_friction: 0.5,
            lateral_friction: 0.5,
            restitution: 0.01,
            color: Color::rgb(0, 0, 255),
            intangible: false,
            is_static: false,
            visual_scale: None,
            linear_damping: 0.1,
            angular_damping: 0.1,
            shape: BlockShape::Default,
            visuals: Vec::new(),
        }
    }
}

/// The shape of a block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum BlockShape {
    /// No shape given: MVSim's default unit square footprint.
    Default,
    /// `<shape><pt>x y</pt>…</shape>`: a polygon footprint extruded from zmin to zmax.
    Polygon(Vec<[f64; 2]>),
    /// `<geometry type="…"/>`: a primitive that is also the visual.
    Geometry(Geometry),
    /// `<shape_from_visual/>`: the footprint of the visual model.
    FromVisual,
}

impl Block {
    /// Whether the block never moves: `<static>true</static>` and no keyframes. The scene merges
    /// such blocks into its static mesh and the simulation refuses to move them.
    pub fn is_fixed(&self) -> bool {
        self.is_static && self.common.keyframes.is_none()
    }
}

/// `<geometry type="…" …/>` primitives.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Geometry {
    /// Which primitive.
    pub kind: GeometryKind,
    /// Cylinder/sphere radius, metres.
    pub radius: f64,
    /// Cylinder length, metres.
    pub length: f64,
    /// Box/ramp/bump size along X, metres (boxes span 0..lx, not centred).
    pub lx: f64,
    /// Size along Y.
    pub ly: f64,
    /// Size along Z.
    pub lz: f64,
    /// Tessellation of round primitives.
    pub vertex_count: u32,
}

/// Kind of [`Geometry`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum GeometryKind {
    /// Vertical cylinder.
    Cylinder,
    /// Sphere.
    Sphere,
    /// Box from (0,0,0) to (lx,ly,lz).
    Box,
    /// Inclined plane.
    Ramp,
    /// Half cylinder lying on the ground.
    SemiCylinderBump,
}

/// A vehicle (MVSim `VehicleBase`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Vehicle {
    /// Unique name (auto: `veh1`, …).
    pub name: String,
    /// The `<vehicle:class>` it came from.
    pub class: Option<String>,
    /// Pose, velocity, keyframes, label.
    pub common: SimulableCommon,
    /// Drive model, wheels, chassis, controller.
    pub dynamics: Dynamics,
    /// `<friction class="…">`.
    pub friction: Friction,
    /// `<odometry>` multipliers of true SE(2) increments: x, y, yaw (`None`: drawn per
    /// vehicle from N(1, 0.02²) as MVSim does, from the run's seed).
    pub odometry_multipliers: [Option<f64>; 3],
    /// Visuals of the chassis.
    pub visuals: Vec<Visual>,
    /// Mounted sensors, names unique within the vehicle.
    pub sensors: Vec<Sensor>,
    /// `<log_path>`.
    pub log_path: String,
    /// `<auto_start_recording>`.
    pub auto_start_recording: bool,
}

/// `<dynamics class="…">`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Dynamics {
    /// Drive model.
    pub class: DynamicsClass,
    /// Wheels, in the order the class defines them.
    pub wheels: Vec<Wheel>,
    /// `<chassis>`.
    pub chassis: Chassis,
    /// `<controller class="…">`.
    pub controller: Controller,
    /// Ackermann: distance from the rear to the front axle, metres.
    pub f_wheels_x: Option<f64>,
    /// Ackermann: front track width, metres.
    pub f_wheels_d: Option<f64>,
    /// Ackermann: maximum steering angle, radians.
    pub max_steer_ang: Option<f64>,
    /// `ackermann_drivetrain`: `<drivetrain>`.
    pub drivetrain: Option<Drivetrain>,
}

/// Drive model of a vehicle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum DynamicsClass {
    /// Two driven wheels.
    #[default]
    Differential,
    /// Two driven wheels and a caster.
    Differential3Wheels,
    /// Skid steer.
    Differential4Wheels,
    /// Front steering, per-wheel torques.
    Ackermann,
    /// Front steering, one motor through differentials.
    AckermannDrivetrain,
}

impl DynamicsClass {
    /// The XML name.
    pub fn xml_name(self) -> &'static str {
        match self {
            DynamicsClass::Differential => "differential",
            DynamicsClass::Differential3Wheels => "differential_3_wheels",
            DynamicsClass::Differential4Wheels => "differential_4_wheels",
            DynamicsClass::Ackermann => "ackermann",
            DynamicsClass::AckermannDrivetrain => "ackermann_drivetrain",
        }
    }
}

/// A wheel.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Wheel {
    /// Tag name (`l_wheel`, `fr_wheel`, …).
    pub role: String,
    /// Position in the vehicle frame (x, y) and yaw, radians.
    pub pose: Pose2,
    /// kg.
    pub mass: f64,
    /// Metres.
    pub width: f64,
    /// Metres.
    pub diameter: f64,
    /// Colour.
    pub color: Color,
    /// Moment of inertia (`None`: computed from mass and size).
    pub inertia: Option<f64>,
    /// Name of a chassis visual that turns with this wheel's steering.
    pub linked_yaw: String,
    /// Offset of that visual's yaw, radians.
    pub linked_yaw_offset: f64,
    /// Wheel visuals.
    pub visuals: Vec<Visual>,
}

/// `<chassis>`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chassis {
    /// kg.
    pub mass: f64,
    /// Metres.
    pub zmin: f64,
    /// Metres.
    pub zmax: f64,
    /// Colour.
    pub color: Color,
    /// Linear damping.
    pub linear_damping: f64,
    /// Angular damping.
    pub angular_damping: f64,
    /// Footprint polygon, if given.
    pub shape: Option<Vec<[f64; 2]>>,
    /// `<shape_from_visual/>`.
    pub shape_from_visual: bool,
}

impl Default for Chassis {
    fn default() -> Self {
        Chassis {
            mass: 15.0,
            zmin: 0.05,
            zmax: 0.6,
            color: Color::rgb(0xff, 0x00, 0x00),
            linear_damping: 0.1,
            angular_damping: 0.1,
            shape: None,
            shape_from_visual: false,
        }
    }
}

/// `<controller class="…">` with its numeric parameters by tag name.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Controller {
    /// `raw`, `twist_pid`, `twist_ideal`, `front_steer_pid`, `twist_front_steer_pid`.
    pub class: String,
    /// Parameters (`KP`, `KI`, `max_torque`, `W` in rad/s, …).
    pub params: BTreeMap<String, f64>,
}

/// `<drivetrain type="…">` of `ackermann_drivetrain`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Drivetrain {
    /// `open_front`, `open_rear`, `open_4wd`, `torsen_front`, `torsen_rear`, `torsen_4wd`.
    pub kind: String,
    /// Split and bias ratios by tag name.
    pub params: BTreeMap<String, f64>,
}

/// `<friction class="…">`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Friction {
    /// `default`, `wardiagnemma` or `ellipse`.
    pub class: String,
    /// Parameters by tag name, defaults filled in per class.
    pub params: BTreeMap<String, f64>,
}

impl Default for Friction {
    fn default() -> Self {
        Friction {
            class: "default".into(),
            params: [("mu", 0.8), ("C_damping", 0.01), ("C_rr", 0.0)]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        }
    }
}

/// An animated person (MVSim `HumanActor`, plus our extensions).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Actor {
    /// Unique name (auto: `actor001`, …).
    pub name: String,
    /// The `<actor:class>` it came from.
    pub class: Option<String>,
    /// Pose, keyframes, label.
    pub common: SimulableCommon,
    /// m/s.
    pub walking_speed: f64,
    /// m/s.
    pub running_speed: f64,
    /// Maximum turning rate, rad/s; `None` when disabled (`<turning_rate>0</turning_rate>`).
    pub turning_rate: Option<f64>,
    /// Speed above which the run clip plays, m/s (`None`: 0.8 × running_speed).
    pub run_threshold: Option<f64>,
    /// Metres (placeholder visual).
    pub height: f64,
    /// Metres.
    pub collision_radius: f64,
    /// Metres.
    pub collision_height: f64,
    /// Clip names in the model.
    pub animation_idle: String,
    /// Walking clip.
    pub animation_walk: String,
    /// Running clip.
    pub animation_run: String,
    /// Optional clip played while turning in place.
    pub animation_turn: Option<String>,
    /// Visuals (class and instance).
    pub visuals: Vec<Visual>,
    /// `<path>`.
    pub path: Option<ActorPath>,
    /// Our extension `<behavior>`, used instead of a path.
    pub behavior: Option<Behavior>,
    /// A keyframe mesh sequence as the actor's body instead of a skinned model (MAVS
    /// animations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyframe_meshes: Option<KeyframeMeshes>,
}

/// A body animated by a looping sequence of whole meshes, blended linearly between
/// consecutive frames (MAVS keyframe animations). Every frame has the same vertices.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyframeMeshes {
    /// Frame files (absolute), in play order.
    pub frames: Vec<String>,
    /// Frames per second; the sequence loops every `frames.len() / frame_rate` seconds.
    pub frame_rate: f64,
    /// `object_from_model` (row-major 3×4): the mesh's scale and base rotation.
    pub object_from_model: crate::Affine3x4,
}

impl Actor {
    /// The clips the actor names, with the tag that names each (`animation_turn` only if set).
    pub fn named_clips(&self) -> Vec<(&'static str, &str)> {
        let mut clips = vec![
            ("animation_idle", self.animation_idle.as_str()),
            ("animation_walk", self.animation_walk.as_str()),
            ("animation_run", self.animation_run.as_str()),
        ];
        if let Some(turn) = &self.animation_turn {
            clips.push(("animation_turn", turn.as_str()));
        }
        clips
    }

    /// The named clips (tag, name) that are not among `available`.
    pub fn missing_clips<'a>(&'a self, available: &[&str]) -> Vec<(&'static str, &'a str)> {
        self.named_clips()
            .into_iter()
            .filter(|(_, name)| !available.contains(name))
            .collect()
    }
}

impl Default for Actor {
    fn default() -> Self {
        Actor {
            name: String::new(),
            class: None,
            common: SimulableCommon::default(),
            walking_speed: 1.4,
            running_speed: 3.5,
            turning_rate: Some(120f64.to_radians()),
            run_threshold: None,
            height: 1.75,
            collision_radius: 0.3,
            collision_height: 1.7,
            animation_idle: "idle".into(),
            animation_walk: "walk".into(),
            animation_run: "run".into(),
            animation_turn: None,
            visuals: Vec::new(),
            path: None,
            behavior: None,
            keyframe_meshes: None,
        }
    }
}

/// `<path loop="…">`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ActorPath {
    /// Return to the first waypoint after the last.
    pub looped: bool,
    /// The waypoints, at least one.
    pub waypoints: Vec<Waypoint>,
}

/// `<waypoint pause="…" animation="…">x y yaw</waypoint>` (or 6 values).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Waypoint {
    /// Target pose (z = 0 and level for 3-value waypoints).
    pub pose: Pose3,
    /// Whether z, pitch, roll were given (6 values).
    pub is_3d: bool,
    /// Seconds to wait on arrival.
    pub pause: f64,
    /// Gait for the segment leading here.
    pub animation: WaypointAnimation,
}

/// The `animation` hint of a waypoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum WaypointAnimation {
    /// Walking speed (default).
    #[default]
    Walk,
    /// Running speed.
    Run,
    /// Stand still.
    Idle,
}

/// Our `<behavior type="…"/>` extension: how an actor moves without a path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Behavior {
    /// AWSIM's simple walker: forward for `duration` s at `speed`, turn, back, turn.
    Walker {
        /// Seconds per leg.
        duration: f64,
        /// m/s.
        speed: f64,
    },
    /// Random walk (seeded).
    Wander {
        /// m/s.
        speed: f64,
        /// Maximum distance from the start, metres.
        radius: f64,
    },
    /// Straight line at constant speed.
    Straight {
        /// m/s.
        speed: f64,
    },
    /// A circle about the start point.
    Circle {
        /// m/s.
        speed: f64,
        /// Metres.
        radius: f64,
    },
    /// A member of a MAVS `crowd`: random walk to goals inside an axis-aligned box (seeded).
    WanderInBox {
        /// m/s.
        speed: f64,
        /// Lower corner (x, y), metres.
        min: [f64; 2],
        /// Upper corner (x, y), metres.
        max: [f64; 2],
    },
    /// A MAVS waypoint path: towards each point in turn at constant speed, heading along the
    /// way, looping for ever, no pauses or blends (MAVS's `MoveToWaypoint`).
    Waypoints {
        /// m/s.
        speed: f64,
        /// (x, y) points, metres, at least one.
        points: Vec<[f64; 2]>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(m: [[f64; 4]; 4], p: [f64; 3]) -> [f64; 3] {
        let r = |i: usize| m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3];
        [r(0), r(1), r(2)]
    }

    #[test]
    fn visual_transform_is_offset_then_yaw_pitch_roll_then_scale() {
        let v = Visual {
            model_scale: 2.0,
            model_offset: [1.0, 0.0, 0.5],
            model_roll: 90f64.to_radians(),
            ..Visual::default()
        };
        // Roll +90° about X takes +Y to +Z (a Y-up model stands up in a Z-up world).
        let p = apply(v.object_from_model(None), [0.0, 1.0, 0.0]);
        assert!(
            (p[0] - 1.0).abs() < 1e-12 && p[1].abs() < 1e-12 && (p[2] - 2.5).abs() < 1e-12,
            "{p:?}"
        );
        let yawed = Visual {
            model_yaw: 90f64.to_radians(),
            ..Visual::default()
        };
        let p = apply(yawed.object_from_model(Some(3.0)), [1.0, 0.0, 0.0]);
        assert!(p[0].abs() < 1e-12 && (p[1] - 3.0).abs() < 1e-12, "{p:?}");
    }
}
