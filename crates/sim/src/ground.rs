//! Ground following: actors and vehicles stand on the surface below them, found in the same step
//! (no one-step lag, unlike MAVS).
//!
//! The surface comes from a [`Ground`]: by default the world's analytic ground (horizontal planes
//! and elevation maps, [`WorldGround`]); the scene crate offers one that casts a ray down against
//! every static mesh. A query looks from [`PROBE_ABOVE`] above the feet (so a ceiling is never
//! taken for a floor) down at most [`PROBE_DEPTH`] (AWSIM's figures). A rise of more than
//! [`MAX_STEP_UP`] in one step is a wall, not a stair: the actor keeps its height and the
//! simulation reports a contact.
//!
//! Vehicles take z, pitch and roll from the surface under their wheels: the plane fitted (least
//! squares) through the wheels' contact heights, each looked up from half a wheel diameter above
//! the wheel (MVSim's rule); with fewer than three wheels, only z.
//!
//! At the start, an object that follows the ground and finds none below it (a rig's vehicle at
//! z = 0 under a MAVS terrain hundreds of metres up, a 2D `<init_pose>` under an elevation map) is
//! put on the highest surface above it, up to [`START_PROBE_ABOVE`]; one with ground below stays
//! on that (a floor of a building is not traded for its roof).

use passerby_world::{Pose3, Wheel, World, WorldElement};

/// Metres above the feet where the downward probe starts.
pub const PROBE_ABOVE: f64 = 1.0;
/// Metres the probe looks down.
pub const PROBE_DEPTH: f64 = 100.0;
/// Largest rise (metres) an actor climbs in one step.
pub const MAX_STEP_UP: f64 = 0.3;
/// How far above an object with no ground below it the start looks for a surface, metres.
pub const START_PROBE_ABOVE: f64 = 10_000.0;

/// Where an object at `pose` starts: on the ground below its feet if there is any, else on the
/// highest surface above it (up to [`START_PROBE_ABOVE`]), else where it is.
pub fn start_height(ground: &dyn Ground, pose: &Pose3) -> f64 {
    let (x, y, z) = (pose.x, pose.y, pose.z);
    ground
        .surface_below(x, y, z + PROBE_ABOVE, PROBE_DEPTH)
        .or_else(|| ground.surface_below(x, y, z + START_PROBE_ABOVE, START_PROBE_ABOVE))
        .unwrap_or(z)
}

/// Where the ground is.
pub trait Ground: Send + Sync {
    /// The height of the highest surface at `(x, y)` not above `top` and not below
    /// `top - depth`, if any.
    fn surface_below(&self, x: f64, y: f64, top: f64, depth: f64) -> Option<f64>;
}

/// The analytic ground of a world: its horizontal planes and elevation maps.
#[derive(Clone, Debug, Default)]
pub struct WorldGround {
    world: World,
}

impl WorldGround {
    /// The ground elements of `world` (copied; nothing else of the world is kept).
    pub fn new(world: &World) -> WorldGround {
        let elements = world
            .elements
            .iter()
            .filter(|e| {
                matches!(
                    e.element,
                    WorldElement::HorizontalPlane(_) | WorldElement::ElevationMap(_)
                )
            })
            .cloned()
            .collect();
        WorldGround {
            world: World {
                elements,
                ..World::default()
            },
        }
    }

    /// Whether the world has any ground surface at all.
    pub fn is_empty(&self) -> bool {
        self.world.elements.is_empty()
    }
}

impl Ground for WorldGround {
    fn surface_below(&self, x: f64, y: f64, top: f64, depth: f64) -> Option<f64> {
        self.world
            .elevations_at_unsorted(x, y)
            .into_iter()
            .filter(|h| *h <= top && *h >= top - depth)
            .reduce(f64::max)
    }
}

/// An actor's new height after moving to `(pose.x, pose.y)` from height `previous_z`: the
/// ground there, unless it is missing (keep the height) or a wall (keep it too; `Err` carries
/// the rise for the contact report).
pub fn follow(ground: &dyn Ground, pose: &Pose3, previous_z: f64) -> Result<f64, f64> {
    match ground.surface_below(pose.x, pose.y, previous_z + PROBE_ABOVE, PROBE_DEPTH) {
        Some(z) if z - previous_z > MAX_STEP_UP => Err(z - previous_z),
        Some(z) => Ok(z),
        None => Ok(previous_z),
    }
}

/// A vehicle's pose set on the ground under its wheels (yaw and position in the plane kept),
/// and the mean height of the ground under them (`None`: no ground under any).
pub fn settle_vehicle(ground: &dyn Ground, wheels: &[Wheel], pose: &Pose3) -> (Pose3, Option<f64>) {
    let contacts = wheel_contacts(ground, wheels, pose);
    let mut settled = *pose;
    if contacts.is_empty() {
        return (settled, None);
    }
    let mean = contacts.iter().map(|c| c.2).sum::<f64>() / contacts.len() as f64;
    if let (true, Some((h, a, b))) = (contacts.len() >= 3, fit_plane(&contacts)) {
        // z = h + a·x + b·y in the level frame: climbing ahead pitches the nose up (negative
        // pitch in MRPT's convention); the left side higher rolls positive.
        settled.z = h;
        settled.pitch = -a.atan();
        settled.roll = (b * (-a).atan().cos()).atan();
    } else {
        settled.z = mean;
        (settled.pitch, settled.roll) = (0.0, 0.0);
    }
    (settled, Some(mean))
}

/// Each wheel's contact: its (x, y) in the vehicle's level frame and the height of the ground
/// under it (wheels with no ground under them are left out).
fn wheel_contacts(ground: &dyn Ground, wheels: &[Wheel], pose: &Pose3) -> Vec<(f64, f64, f64)> {
    let (s, c) = pose.yaw.sin_cos();
    wheels
        .iter()
        .filter_map(|w| {
            let (wx, wy) = (w.pose.x, w.pose.y);
            let (x, y) = (pose.x + c * wx - s * wy, pose.y + s * wx + c * wy);
            let top = pose.z + 0.5 * w.diameter + PROBE_ABOVE;
            ground
                .surface_below(x, y, top, PROBE_DEPTH)
                .map(|z| (wx, wy, z))
        })
        .collect()
}

/// Least-squares plane `z = h + a·x + b·y` through points; `None` when they are collinear.
fn fit_plane(points: &[(f64, f64, f64)]) -> Option<(f64, f64, f64)> {
    let n = points.len() as f64;
    let (mx, my, mz) = points.iter().fold((0.0, 0.0, 0.0), |(x, y, z), p| {
        (x + p.0 / n, y + p.1 / n, z + p.2 / n)
    });
    let (mut sxx, mut sxy, mut syy, mut sxz, mut syz) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y, z) in points {
        let (dx, dy, dz) = (x - mx, y - my, z - mz);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
        sxz += dx * dz;
        syz += dy * dz;
    }
    let det = sxx * syy - sxy * sxy;
    if det.abs() < 1e-12 {
        return None;
    }
    let a = (sxz * syy - syz * sxy) / det;
    let b = (syz * sxx - sxz * sxy) / det;
    Some((mz - a * mx - b * my, a, b))
}
