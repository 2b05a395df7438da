//! The world description: plain, validated data for everything a scene can hold.
//!
//! Owns: the types every loader produces and every later stage (simulation, ray casting,
//! sensors, recording) consumes. A [`World`] is built once by a loader (MVSim XML today, MAVS
//! JSON later), already validated: values are in SI units, angles in **radians** (the XML's
//! degrees are converted at the edge), poses are `world_from_object`, names are unique where
//! they must be, and defaults are the ones MVSim documents (`shared/reference/mvsim.md` §1–3),
//! each stated once, on the type's `Default`.
//!
//! Must not touch: files, text, diagnostics or any behaviour. It is data only, so it can be
//! snapshot in tests and shared between threads freely.
//!
//! Modules: `objects.rs` (blocks, vehicles, actors, visuals), `elements.rs` (planes, grids,
//! elevation maps, property regions, walls), `sensors.rs` (the six MVSim classes, `SensorRef`),
//! `terrain.rs`, `noise.rs` (scaling every noise of a world), `meshes.rs` (MAVS placed meshes and surfaces), `timed.rs` (transform sets and
//! commands), `pose.rs` (the one Euler convention, composition, affines), `budget.rs` (what a
//! sensor costs; the limits of docs/limits.md).

pub mod budget;
mod elements;
mod meshes;
mod name;
mod noise;
mod objects;
mod outlines;
mod pose;
mod sensors;
mod terrain;
mod timed;

pub use elements::*;
pub use meshes::*;
pub use name::Name;
pub use objects::*;
pub use outlines::{WallOutline, thick_segment, wall_outlines};
pub use pose::{affine_from_rows, affine_from_rows4};
pub use sensors::*;
pub use terrain::*;
pub use timed::*;

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A planar pose: position in metres, heading in radians (counter-clockwise from +X).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Pose2 {
    /// Metres.
    pub x: f64,
    /// Metres.
    pub y: f64,
    /// Radians.
    pub yaw: f64,
}

/// A 3D pose: translation in metres, then intrinsic yaw (Z), pitch (Y), roll (X) in radians,
/// MRPT's convention (`R = Rz(yaw)·Ry(pitch)·Rx(roll)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Pose3 {
    /// Metres.
    pub x: f64,
    /// Metres.
    pub y: f64,
    /// Metres.
    pub z: f64,
    /// Radians about Z.
    pub yaw: f64,
    /// Radians about Y.
    pub pitch: f64,
    /// Radians about X.
    pub roll: f64,
}

impl Pose3 {
    /// The planar part of the pose.
    pub fn to_pose2(self) -> Pose2 {
        Pose2 {
            x: self.x,
            y: self.y,
            yaw: self.yaw,
        }
    }

    /// A 3D pose from a planar one at height `z`, level.
    pub fn from_pose2(p: Pose2, z: f64) -> Pose3 {
        Pose3 {
            x: p.x,
            y: p.y,
            z,
            yaw: p.yaw,
            ..Pose3::default()
        }
    }
}

/// An 8-bit RGBA colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Color {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Alpha (255 = opaque).
    pub a: u8,
}

impl Default for Color {
    /// Opaque black.
    fn default() -> Self {
        Color::rgb(0, 0, 0)
    }
}

impl Color {
    /// An opaque colour.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Color {
        Color { r, g, b, a: 255 }
    }

    /// A colour with alpha.
    pub const fn rgba(r: u8, g: u8, b: u8, a: u8) -> Color {
        Color { r, g, b, a }
    }
}

/// Everything a world file describes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct World {
    /// The top-level file the world was loaded from.
    pub source: PathBuf,
    /// `<mvsim_world version="M.m">`.
    pub version: (u32, u32),
    /// Global scalar parameters (`<simul_timestep>`, `<gravity>`, …).
    pub params: GlobalParams,
    /// `<gui>`: parsed and kept, although Passerby is headless.
    pub gui: GuiOptions,
    /// `<lights>`: the sun used by cameras.
    pub lights: LightOptions,
    /// `<georeference>`, needed by GNSS sensors.
    pub georeference: Option<Georeference>,
    /// `<element class="…">` entries, in file order.
    pub elements: Vec<LabeledElement>,
    /// `<walls>` entries.
    pub walls: Vec<Walls>,
    /// Block instances, in file order.
    pub blocks: Vec<Block>,
    /// Vehicle instances, in file order.
    pub vehicles: Vec<Vehicle>,
    /// Actor instances, in file order.
    pub actors: Vec<Actor>,
    /// Sensors at world level (attached to the world frame).
    pub standalone_sensors: Vec<Sensor>,
    /// `<marker>` line strips (visual aids only).
    pub markers: Vec<Marker>,
    /// `<joint>`s between bodies.
    pub joints: Vec<Joint>,
    /// The user variables as they stand at the end of loading (`<variable>`, `<for>`).
    pub variables: BTreeMap<String, String>,
    /// Mesh files placed by affine transforms (MAVS `Objects`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub meshes: Vec<MeshInstance>,
    /// Meshes for height queries only (MAVS `Surface Mesh`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub surfaces: Vec<SurfaceMesh>,
    /// Semantic classes with colours and numbers (MAVS label files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub label_classes: Vec<LabelClass>,
    /// Timed transforms the world brings itself (a MAVS simulation's `Poses`), replayed unless
    /// `--transforms` replaces them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replay: Vec<TimedTransform>,
    /// What a MAVS scene holds beyond the above.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mavs: Option<MavsExtras>,
}

impl World {
    /// Every sensor in the world with the name of its owner (`None` for standalone ones).
    pub fn sensors(&self) -> impl Iterator<Item = (Option<&str>, &Sensor)> {
        self.vehicles
            .iter()
            .flat_map(|v| v.sensors.iter().map(move |s| (Some(v.name.as_str()), s)))
            .chain(self.standalone_sensors.iter().map(|s| (None, s)))
    }

    /// The fixed simulation step in seconds: the configured one, or MVSim's automatic choice
    /// `min(5 ms, shortest sensor period)` when `simul_timestep` is 0.
    pub fn effective_timestep(&self) -> f64 {
        match self.params.simul_timestep {
            Timestep::Fixed(dt) => dt,
            Timestep::Auto => self.sensors().map(|(_, s)| s.period).fold(0.005, f64::min),
        }
    }
}

/// `<simul_timestep>`: a fixed step, or 0 for automatic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub enum Timestep {
    /// `min(5 ms, shortest sensor period)`.
    #[default]
    Auto,
    /// Seconds.
    Fixed(f64),
}

/// Direct scalar children of `<mvsim_world>` (MVSim `World.h`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GlobalParams {
    /// Physics step.
    pub simul_timestep: Timestep,
    /// m/s², pointing down −Z.
    pub gravity: f64,
    /// ZMQ server host (kept for compatibility).
    pub server_address: String,
    /// Box2D velocity iterations.
    pub b2d_vel_iters: i64,
    /// Box2D position iterations.
    pub b2d_pos_iters: i64,
    /// Contact distance counted as a collision, metres.
    pub collision_threshold: f64,
    /// Gamepad teleoperation (ignored: headless).
    pub joystick_enabled: bool,
    /// MRPT rawlog output file, if any.
    pub save_to_rawlog: String,
    /// Hz of odometry in the rawlog.
    pub rawlog_odometry_rate: f64,
    /// TUM ground-truth trajectory output, if any.
    pub save_ground_truth_trajectory: String,
    /// Hz of the ground-truth trajectory.
    pub ground_truth_rate: f64,
    /// Slope (rad) from which terrain counts as an obstacle.
    pub max_slope_to_collide: f64,
    /// Downward slope (rad) from which terrain counts as an obstacle.
    pub min_slope_to_collide: f64,
    /// What the vehicles' wheel-odometry errors are multiplied by (`--noise-scale`; set with
    /// the sensors' sigmas by [`World::scale_noise`]): 1 as the world has them, 0 exact.
    #[serde(skip_serializing_if = "is_one")]
    pub odometry_noise_scale: f64,
}

fn is_one(value: &f64) -> bool {
    *value == 1.0
}

impl Default for GlobalParams {
    fn default() -> Self {
        GlobalParams {
            simul_timestep: Timestep::Auto,
            gravity: 9.81,
            server_address: "localhost".into(),
            b2d_vel_iters: 8,
            b2d_pos_iters: 3,
            collision_threshold: 0.03,
            joystick_enabled: false,
            save_to_rawlog: String::new(),
            rawlog_odometry_rate: 10.0,
            save_ground_truth_trajectory: String::new(),
            ground_truth_rate: 50.0,
            max_slope_to_collide: 0.30,
            min_slope_to_collide: -0.50,
            odometry_noise_scale: 1.0,
        }
    }
}

/// `<gui>` options (MVSim `TGUI_Options`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GuiOptions {
    /// Window width, pixels.
    pub win_w: i64,
    /// Window height, pixels.
    pub win_h: i64,
    /// Orthographic view.
    pub ortho: bool,
    /// Draw forces.
    pub show_forces: bool,
    /// Draw sensor points.
    pub show_sensor_points: bool,
    /// Metres per newton when drawing forces.
    pub force_scale: f64,
    /// Field of view, radians.
    pub fov: f64,
    /// Vehicle the camera follows.
    pub follow_vehicle: String,
    /// Start maximized.
    pub start_maximized: bool,
    /// GUI refresh rate, Hz.
    pub refresh_fps: i64,
    /// Headless flag of MVSim.
    pub headless: bool,
    /// Near clip plane, metres.
    pub clip_plane_min: f64,
    /// Far clip plane, metres.
    pub clip_plane_max: f64,
    /// Camera distance, metres.
    pub cam_distance: f64,
    /// Camera azimuth, radians.
    pub cam_azimuth: f64,
    /// Camera elevation, radians.
    pub cam_elevation: f64,
    /// Point the camera looks at.
    pub cam_point_to: [f64; 3],
}

impl Default for GuiOptions {
    fn default() -> Self {
        GuiOptions {
            win_w: 800,
            win_h: 600,
            ortho: false,
            show_forces: false,
            show_sensor_points: true,
            force_scale: 0.01,
            fov: 60f64.to_radians(),
            follow_vehicle: String::new(),
            start_maximized: true,
            refresh_fps: 20,
            headless: false,
            clip_plane_min: 0.05,
            clip_plane_max: 10e3,
            cam_distance: 80.0,
            cam_azimuth: 45f64.to_radians(),
            cam_elevation: 40f64.to_radians(),
            cam_point_to: [0.0; 3],
        }
    }
}

/// `<lights>` options (MVSim `LightOptions`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LightOptions {
    /// Cast shadows.
    pub enable_shadows: bool,
    /// Shadow map size (MVSim's renderer; informative).
    pub shadow_map_size: i64,
    /// Sun azimuth, radians.
    pub light_azimuth: f64,
    /// Sun elevation, radians.
    pub light_elevation: f64,
    /// Light near clip, metres.
    pub light_clip_plane_min: f64,
    /// Light far clip, metres.
    pub light_clip_plane_max: f64,
    /// Light colour.
    pub light_color: Color,
    /// Shadow bias.
    pub shadow_bias: f64,
    /// Shadow bias (camera to fragment).
    pub shadow_bias_cam2frag: f64,
    /// Shadow bias along the normal.
    pub shadow_bias_normal: f64,
    /// Ambient light fraction in [0, 1].
    pub light_ambient: f64,
    /// MVSim renderer setting, kept for completeness.
    pub eye_distance_to_shadow_map_extension: f64,
    /// MVSim renderer setting, kept for completeness.
    pub minimum_shadow_map_extension_ratio: f64,
}

impl Default for LightOptions {
    fn default() -> Self {
        LightOptions {
            enable_shadows: true,
            shadow_map_size: 2048,
            light_azimuth: 45f64.to_radians(),
            light_elevation: 70f64.to_radians(),
            light_clip_plane_min: 0.1,
            light_clip_plane_max: 900.0,
            light_color: Color::rgb(255, 255, 255),
            shadow_bias: 1e-5,
            shadow_bias_cam2frag: 1e-5,
            shadow_bias_normal: 1e-4,
            light_ambient: 0.5,
            eye_distance_to_shadow_map_extension: 2.0,
            minimum_shadow_map_extension_ratio: 0.005,
        }
    }
}

impl LightOptions {
    /// Unit vector of the direction the sunlight travels, as MVSim computes it:
    /// `(-cos az·cos el, -sin az·cos el, -sin el)`.
    pub fn light_direction(&self) -> [f64; 3] {
        let (az, el) = (self.light_azimuth, self.light_elevation);
        [-az.cos() * el.cos(), -az.sin() * el.cos(), -el.sin()]
    }
}

/// `<georeference>`: where the world origin is on the Earth.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Georeference {
    /// Degrees, WGS84.
    pub latitude_deg: f64,
    /// Degrees, WGS84.
    pub longitude_deg: f64,
    /// Metres above the WGS84 ellipsoid.
    pub height: f64,
    /// Rotation from world to ENU, radians (0: +X east, +Y north).
    pub world_to_enu_rotation: f64,
    /// World coordinates are UTM coordinates.
    pub world_is_utm: bool,
}

/// `<marker type="line_strip">`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Marker {
    /// Points of the strip, metres.
    pub points: Vec<[f64; 3]>,
    /// Colour.
    pub color: Color,
    /// Offset added to every point.
    pub translation: [f64; 3],
}

/// `<joint>` between two bodies.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Joint {
    /// Distance (rope) or revolute (pin).
    pub kind: JointKind,
    /// Name of the first body.
    pub body_a: String,
    /// Name of the second body.
    pub body_b: String,
    /// Anchor on body A, in its frame.
    pub anchor_a: [f64; 2],
    /// Anchor on body B, in its frame.
    pub anchor_b: [f64; 2],
    /// Rope length, metres.
    pub max_length: f64,
    /// Minimum length, metres.
    pub min_length: f64,
    /// Spring stiffness.
    pub stiffness: f64,
    /// Spring damping.
    pub damping: f64,
    /// Whether the revolute angle limit is on.
    pub enable_limit: bool,
    /// Lower angle limit, radians.
    pub lower_angle: f64,
    /// Upper angle limit, radians.
    pub upper_angle: f64,
}

/// Kind of [`Joint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum JointKind {
    /// `distance` or `rope`.
    Distance,
    /// `revolute` or `pin`.
    Revolute,
}
