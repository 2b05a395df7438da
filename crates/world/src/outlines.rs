//! The floor plans of a world's walls: `<walls>` polylines and vertical planes as thick
//! segments, with doors cut out. Derived from the description alone (walls from a model file
//! once its lines are in the description, [`crate::WallSource::Segments`]). Used by the 2D
//! laser's flat world and by vehicle contacts.

use crate::{Pose3, World, WorldElement};

/// One wall piece's outline on the floor: four corners, counter-clockwise, in the world frame.
#[derive(Clone, Debug, PartialEq)]
pub struct WallOutline {
    /// Corners, metres.
    pub corners: [[f64; 2]; 4],
    /// What it belongs to: `walls1`, `element3`, ….
    pub name: String,
}

/// A segment from `a` to `b` widened to `thickness` (at least 2 mm).
pub fn thick_segment(a: [f64; 2], b: [f64; 2], thickness: f64) -> [[f64; 2]; 4] {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let length = dx.hypot(dy);
    let (ux, uy) = if length > 0.0 {
        (dx / length, dy / length)
    } else {
        (0.0, 0.0)
    };
    let half = (thickness / 2.0).max(1e-3);
    let (sx, sy) = (-uy * half, ux * half);
    [
        [a[0] - sx, a[1] - sy],
        [b[0] - sx, b[1] - sy],
        [b[0] + sx, b[1] + sy],
        [a[0] + sx, a[1] + sy],
    ]
}

fn place(pose: &Pose3, [x, y]: [f64; 2]) -> [f64; 2] {
    let (s, c) = pose.yaw.sin_cos();
    [pose.x + c * x - s * y, pose.y + s * x + c * y]
}

/// Every wall piece that stands on the floor: `<walls>` segments and vertical planes
/// below their doors (a window leaves the wall below it standing).
pub fn wall_outlines(world: &World) -> Vec<WallOutline> {
    let mut out = Vec::new();
    for (i, w) in world.walls.iter().enumerate() {
        for [a, b] in w.floor_segments() {
            out.push(WallOutline {
                corners: thick_segment(a, b, w.thickness),
                name: format!("walls{}", i + 1),
            });
        }
    }
    for (i, e) in world.elements.iter().enumerate() {
        if let WorldElement::VerticalPlane(p) = &e.element {
            let (dx, dy) = (p.end[0] - p.start[0], p.end[1] - p.start[1]);
            let length = dx.hypot(dy);
            let along = if length > 0.0 {
                [dx / length, dy / length]
            } else {
                [0.0, 0.0]
            };
            let at = |s: f64| [p.start[0] + along[0] * s, p.start[1] + along[1] * s];
            for part in p.solid_parts().iter().filter(|q| q.heights[0] <= 0.0) {
                let mut corners = thick_segment(at(part.along[0]), at(part.along[1]), p.thickness);
                if let Some(pose) = &p.init_pose {
                    corners = corners.map(|q| place(pose, q));
                }
                out.push(WallOutline {
                    corners,
                    name: format!("element{}", i + 1),
                });
            }
        }
    }
    out
}
