//! Contacts between actors and vehicles or blocks. Actors are kinematic (nothing pushes them
//! and they push nothing), but a robotics user needs to know when a person walked into a robot:
//! MVSim documents this and does not do it.
//!
//! An actor is a vertical capsule (`collision_radius`, `collision_height`, standing on its
//! pose); a vehicle is its chassis footprint between `zmin` and `zmax`; a block is its shape
//! (polygon, box, cylinder, sphere or ramp footprint) between its heights. They touch when the
//! horizontal distance from the actor's axis to the footprint is at most the radius and the
//! height ranges overlap. Intangible blocks touch nothing. Blocks shaped from their visual use
//! MVSim's default 1 m square (the simulation does not read models).

use passerby_world::{Block, BlockShape, GeometryKind, Pose3, Vehicle};

/// A horizontal footprint in the object's frame, with its height range above the object's z.
#[derive(Clone, Debug)]
pub struct Footprint {
    /// Polygon (counter-clockwise or not), or a circle about the origin.
    pub shape: Shape,
    /// Bottom, metres above the object's z.
    pub zmin: f64,
    /// Top.
    pub zmax: f64,
    /// Radius of a circle about the origin holding the whole shape (for quick rejection).
    reach: f64,
}

pub use passerby_dynamics::Shape;

const DEFAULT_SQUARE: [[f64; 2]; 4] = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];

impl Footprint {
    fn new(shape: Shape, zmin: f64, zmax: f64) -> Footprint {
        let reach = shape.reach();
        Footprint {
            shape,
            zmin,
            zmax,
            reach,
        }
    }

    /// The same heights with another outline.
    pub fn with_shape(&self, shape: Shape) -> Footprint {
        Footprint::new(shape, self.zmin, self.zmax)
    }

    /// A vehicle's chassis (its `<shape>`, or its class's default outline in MVSim).
    pub fn of_vehicle(v: &Vehicle) -> Footprint {
        let c = &v.dynamics.chassis;
        let pts = passerby_dynamics::chassis_outline(v);
        Footprint::new(Shape::Polygon(pts), c.zmin, c.zmax)
    }

    /// A block's footprint; `None` for intangible blocks.
    pub fn of_block(b: &Block) -> Option<Footprint> {
        if b.intangible {
            return None;
        }
        let (zmin, zmax) = (b.zmin.unwrap_or(0.0), b.zmax.unwrap_or(1.0));
        let rect = |lx: f64, ly: f64| vec![[0.0, 0.0], [lx, 0.0], [lx, ly], [0.0, ly]];
        Some(match &b.shape {
            BlockShape::Polygon(pts) => Footprint::new(Shape::Polygon(pts.clone()), zmin, zmax),
            BlockShape::Geometry(g) => match g.kind {
                GeometryKind::Box | GeometryKind::Ramp | GeometryKind::SemiCylinderBump => {
                    Footprint::new(Shape::Polygon(rect(g.lx, g.ly)), 0.0, g.lz)
                }
                GeometryKind::Cylinder => Footprint::new(Shape::Circle(g.radius), 0.0, g.length),
                GeometryKind::Sphere => {
                    Footprint::new(Shape::Circle(g.radius), -g.radius, g.radius)
                }
            },
            BlockShape::FromVisual | BlockShape::Default => {
                Footprint::new(Shape::Polygon(DEFAULT_SQUARE.to_vec()), zmin, zmax)
            }
        })
    }

    /// Where a capsule of `radius` and `height` standing at `(x, y, z)` touches this footprint
    /// placed at `pose`: the nearest point of the footprint, in the world frame.
    pub fn touch(
        &self,
        pose: &Pose3,
        x: f64,
        y: f64,
        z: f64,
        radius: f64,
        height: f64,
    ) -> Option<[f64; 3]> {
        let (bottom, top) = (pose.z + self.zmin, pose.z + self.zmax);
        if z > top || z + height < bottom {
            return None;
        }
        let (dx, dy) = (x - pose.x, y - pose.y);
        // Far apart: rejected before the rotation's sine and cosine (most pairs, every step).
        // Turning keeps the distance up to rounding, far inside the margin, so this rejects
        // only what the exact test below rejects.
        let far = (self.reach + radius) * (1.0 + 1e-6);
        if dx * dx + dy * dy > far * far {
            return None;
        }
        // The actor's axis in the object's frame.
        let (s, c) = pose.yaw.sin_cos();
        let local = [c * dx + s * dy, -s * dx + c * dy];
        if local[0].hypot(local[1]) > self.reach + radius {
            return None;
        }
        let nearest = match &self.shape {
            Shape::Circle(r) => {
                let d = local[0].hypot(local[1]);
                if d > r + radius {
                    return None;
                }
                if d <= *r {
                    local
                } else {
                    [local[0] * r / d, local[1] * r / d]
                }
            }
            Shape::Polygon(pts) => {
                let nearest = if inside(pts, local) {
                    local
                } else {
                    nearest_on_boundary(pts, local)?
                };
                if (nearest[0] - local[0]).hypot(nearest[1] - local[1]) > radius {
                    return None;
                }
                nearest
            }
        };
        let mid_z = 0.5 * (z.max(bottom) + (z + height).min(top));
        Some([
            pose.x + c * nearest[0] - s * nearest[1],
            pose.y + s * nearest[0] + c * nearest[1],
            mid_z,
        ])
    }
}

/// Even-odd point-in-polygon.
fn inside(pts: &[[f64; 2]], p: [f64; 2]) -> bool {
    let mut inside = false;
    let n = pts.len();
    for i in 0..n {
        let (a, b) = (pts[i], pts[(i + 1) % n]);
        if (a[1] > p[1]) != (b[1] > p[1]) {
            let x = a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
            if p[0] < x {
                inside = !inside;
            }
        }
    }
    inside
}

fn nearest_on_boundary(pts: &[[f64; 2]], p: [f64; 2]) -> Option<[f64; 2]> {
    let n = pts.len();
    (0..n)
        .map(|i| {
            let (a, b) = (pts[i], pts[(i + 1) % n]);
            let ab = [b[0] - a[0], b[1] - a[1]];
            let len2 = ab[0] * ab[0] + ab[1] * ab[1];
            let t = if len2 > 0.0 {
                (((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            [a[0] + t * ab[0], a[1] + t * ab[1]]
        })
        .min_by(|q, r| {
            let d = |q: &[f64; 2]| (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2);
            d(q).total_cmp(&d(r))
        })
}
