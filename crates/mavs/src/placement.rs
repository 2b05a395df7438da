//! Random placement of `Objects` entries inside convex polygons (MAVS `Random`), seeded.
//!
//! MAVS draws with C `rand()` (rejection sampling in the bounding box) or, with `Minimum
//! Spacing`, with a default-seeded `mt19937` over a fan triangulation; neither sequence is worth
//! reproducing. Here each entry owns a ChaCha8 generator seeded from the run's seed and the
//! entry's index, so the same seed gives the same scene and adding an entry moves no other.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Why a polygon cannot be sampled.
#[derive(Clone, Debug, PartialEq)]
pub enum PolygonError {
    /// Fewer than three corners.
    TooFewPoints(usize),
    /// Zero area (all corners on a line, or repeated).
    Degenerate,
    /// Turns both ways; the first corner (index) where it turns against the others.
    NotConvex(usize),
}

impl std::fmt::Display for PolygonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolygonError::TooFewPoints(n) => {
                write!(f, "a polygon needs at least 3 points, found {n}")
            }
            PolygonError::Degenerate => write!(f, "the polygon has no area"),
            PolygonError::NotConvex(i) => write!(
                f,
                "the polygon is not convex (it turns the other way at point {i}); MAVS samples convex polygons only"
            ),
        }
    }
}

/// A convex polygon, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    points: Vec<[f64; 2]>,
    /// +1 counter-clockwise, -1 clockwise.
    orientation: f64,
}

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

impl ConvexPolygon {
    /// Checks that `points` form a convex polygon of positive area (either orientation;
    /// collinear corners allowed).
    pub fn new(points: Vec<[f64; 2]>) -> Result<ConvexPolygon, PolygonError> {
        let n = points.len();
        if n < 3 {
            return Err(PolygonError::TooFewPoints(n));
        }
        let area2: f64 = (0..n)
            .map(|i| {
                let (a, b) = (points[i], points[(i + 1) % n]);
                a[0] * b[1] - a[1] * b[0]
            })
            .sum();
        let scale = points
            .iter()
            .flat_map(|p| p.iter())
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(1.0);
        if area2.abs() <= 1e-12 * scale * scale {
            return Err(PolygonError::Degenerate);
        }
        let orientation = area2.signum();
        for i in 0..n {
            let turn = cross(points[i], points[(i + 1) % n], points[(i + 2) % n]);
            if turn * orientation < -1e-12 * scale * scale {
                return Err(PolygonError::NotConvex((i + 1) % n));
            }
        }
        Ok(ConvexPolygon {
            points,
            orientation,
        })
    }

    /// Whether `p` is inside or on the boundary.
    pub fn contains(&self, p: [f64; 2]) -> bool {
        let n = self.points.len();
        (0..n).all(|i| cross(self.points[i], self.points[(i + 1) % n], p) * self.orientation >= 0.0)
    }

    fn bounds(&self) -> ([f64; 2], [f64; 2]) {
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        for p in &self.points {
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        (lo, hi)
    }
}

/// The generator of entry `index` of a scene loaded with `seed`.
pub fn entry_rng(seed: u64, index: usize) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(
        seed ^ (index as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15),
    )
}

/// Draws attempts per point before giving up on a minimum spacing.
pub const MAX_TRIES_PER_POINT: usize = 1000;

/// `count` points uniformly inside `polygon`, each at least `min_spacing` from the others
/// (0: no constraint). Fewer come back when the spacing cannot be met.
pub fn scatter(
    polygon: &ConvexPolygon,
    count: usize,
    min_spacing: f64,
    rng: &mut ChaCha8Rng,
) -> Vec<[f64; 2]> {
    let (lo, hi) = polygon.bounds();
    let mut out: Vec<[f64; 2]> = Vec::with_capacity(count);
    let spacing2 = min_spacing * min_spacing;
    let mut failures = 0;
    while out.len() < count && failures < MAX_TRIES_PER_POINT * count.max(1) {
        let p = [
            lo[0] + (hi[0] - lo[0]) * rng.random::<f64>(),
            lo[1] + (hi[1] - lo[1]) * rng.random::<f64>(),
        ];
        let spaced = min_spacing <= 0.0
            || out
                .iter()
                .all(|q| (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) >= spacing2);
        if polygon.contains(p) && spaced {
            out.push(p);
        } else {
            failures += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polygons_are_checked() {
        let square = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert!(ConvexPolygon::new(square.clone()).is_ok());
        let mut clockwise = square.clone();
        clockwise.reverse();
        assert!(ConvexPolygon::new(clockwise).is_ok());
        assert_eq!(
            ConvexPolygon::new(vec![[0.0, 0.0], [1.0, 1.0]]),
            Err(PolygonError::TooFewPoints(2))
        );
        assert_eq!(
            ConvexPolygon::new(vec![[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]),
            Err(PolygonError::Degenerate)
        );
        let dart = vec![[0.0, 0.0], [2.0, 1.0], [0.0, 2.0], [0.5, 1.0]];
        assert_eq!(ConvexPolygon::new(dart), Err(PolygonError::NotConvex(3)));
    }

    #[test]
    fn points_fall_inside_spaced_and_reproducibly() {
        let triangle = ConvexPolygon::new(vec![[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]]).unwrap();
        let a = scatter(&triangle, 20, 1.5, &mut entry_rng(7, 0));
        assert_eq!(a.len(), 20);
        assert!(a.iter().all(|p| triangle.contains(*p)));
        for (i, p) in a.iter().enumerate() {
            for q in &a[i + 1..] {
                assert!(((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt() >= 1.5);
            }
        }
        assert_eq!(a, scatter(&triangle, 20, 1.5, &mut entry_rng(7, 0)));
        assert_ne!(a, scatter(&triangle, 20, 1.5, &mut entry_rng(8, 0)));
        // A spacing that cannot be met gives fewer points, not a hang.
        let few = scatter(&triangle, 50, 8.0, &mut entry_rng(7, 0));
        assert!(few.len() < 5);
    }
}
