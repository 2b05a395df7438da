//! Floors that move: `horizontal_plane` elements with an `<init_pose>` or an
//! `<animation type="keyframes">` (the elevator of MVSim's `demo_multistorey`). Each is a
//! rectangle in its own frame at height `z`, placed by its keyframed pose at the step's time;
//! actors and vehicles stand on it as on any ground ([`WithFloors`]), and the scene moves its
//! geometry by the pose [`Floors::pose`] gives under the element's scene name (`elementN`).
//!
//! A tilted floor (a keyframe with pitch or roll) is taken as level at its origin's height:
//! no world moves a tilted one.

use crate::ground::Ground;
use crate::keyframes;
use passerby_world::{KeyframeAnimation, Pose3, World, WorldElement};

/// One moving floor.
#[derive(Clone, Debug)]
struct Floor {
    /// The element's name in the scene (`element` and its 1-based index).
    name: String,
    /// x_min, x_max, y_min, y_max in its own frame.
    extent: [f64; 4],
    /// Height in its own frame.
    z: f64,
    init_pose: Pose3,
    keyframes: Option<KeyframeAnimation>,
    /// Where it stands after the last step.
    pose: Pose3,
}

/// The world's moving floors.
#[derive(Clone, Debug, Default)]
pub struct Floors {
    floors: Vec<Floor>,
}

impl Floors {
    /// The moving floors of `world`, at their poses of time 0.
    pub fn new(world: &World) -> Floors {
        let floors = world
            .elements
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match &e.element {
                WorldElement::HorizontalPlane(p) if p.moves() => {
                    let init_pose = p.init_pose.unwrap_or_default();
                    let mut floor = Floor {
                        name: format!("element{}", i + 1),
                        extent: p.extent,
                        z: p.z,
                        init_pose,
                        keyframes: p.keyframes.clone(),
                        pose: init_pose,
                    };
                    floor.move_to(0.0);
                    Some(floor)
                }
                _ => None,
            })
            .collect();
        Floors { floors }
    }

    /// Moves every floor to its pose at simulated time `t`.
    pub fn move_to(&mut self, t: f64) {
        for f in &mut self.floors {
            f.move_to(t);
        }
    }

    /// The pose of the floor the scene names `name`, if it is one.
    pub fn pose(&self, name: &str) -> Option<Pose3> {
        self.floors.iter().find(|f| f.name == name).map(|f| f.pose)
    }

    /// The highest floor at `(x, y)` between `top - depth` and `top`.
    fn surface_below(&self, x: f64, y: f64, top: f64, depth: f64) -> Option<f64> {
        self.floors
            .iter()
            .filter_map(|f| f.height_at(x, y))
            .filter(|h| *h <= top && *h >= top - depth)
            .reduce(f64::max)
    }
}

impl Floor {
    fn move_to(&mut self, t: f64) {
        if let Some(k) = &self.keyframes
            && let Some(pose) = keyframes::pose_at(&self.init_pose, k, t)
        {
            self.pose = pose;
        }
    }

    /// The floor's height at world `(x, y)` if the point is over it.
    fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        let (s, c) = self.pose.yaw.sin_cos();
        let (dx, dy) = (x - self.pose.x, y - self.pose.y);
        let (u, v) = (c * dx + s * dy, -s * dx + c * dy);
        let [x0, x1, y0, y1] = self.extent;
        ((x0..=x1).contains(&u) && (y0..=y1).contains(&v)).then_some(self.pose.z + self.z)
    }
}

/// A ground with the moving floors on it: what actors and vehicles stand on.
pub struct WithFloors<'a> {
    /// The static ground.
    pub ground: &'a dyn Ground,
    /// The floors, where they stand now.
    pub floors: &'a Floors,
}

impl Ground for WithFloors<'_> {
    fn surface_below(&self, x: f64, y: f64, top: f64, depth: f64) -> Option<f64> {
        let fixed = self.ground.surface_below(x, y, top, depth);
        let moving = self.floors.surface_below(x, y, top, depth);
        match (fixed, moving) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}
