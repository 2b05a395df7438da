//! Random placement of `Objects` entries inside polygons (MAVS `Random`), seeded.
//!
//! MAVS (`mavs_core/math/polygon.cpp`) places objects in one of two ways, and so do we:
//! - without `Minimum Spacing`, `GetRandomInside`: points drawn uniformly in the polygon's
//!   bounding box and kept when a crossing-number test (even-odd, boundary inside) puts them
//!   inside, so any polygon works, convex, concave or crossing itself (a bow-tie holds its two
//!   triangles). A polygon of zero area (all corners on a line, or one point repeated) is
//!   accepted: only points on its edges pass the test, which MAVS's rejection loop reaches by
//!   luck of rounding, slowly or never; here they are drawn along the edges, by length, or at
//!   the point;
//! - with `Minimum Spacing`, `GetRandomInsideSpacing`: a fan of triangles from the first corner,
//!   each chosen by its unsigned area (for a concave polygon the fan covers some ground outside
//!   it and some twice, as in MAVS), a point drawn in the triangle, kept if far enough from
//!   those placed; after 100,000 misses in a row MAVS gives up (it throws; we keep what was
//!   placed and the caller warns). A fan of zero area is an error, as in MAVS.
//!
//! Bounded work: spacing is checked against the neighbouring cells of a grid of the spacing's
//! size, and an entry's box draws are capped (a million plus 200 per object), past which
//! the rest of its objects go on the polygon's edges (only a sliver in a huge box gets there).
//!
//! MAVS draws with C `rand()` and a default-seeded `mt19937`; neither sequence is worth
//! reproducing. Here each entry owns a ChaCha8 generator seeded from the run's seed and the
//! entry's index, so the same seed gives the same scene and adding an entry moves no other.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The farthest a polygon's corner may be from the origin, metres: ten thousand kilometres,
/// beyond which single-precision geometry has no metre left (corners of 1e308 put objects at
/// infinity, and every ray tested them).
pub const MAX_COORDINATE: f64 = 1e7;

/// Why a polygon cannot be sampled.
#[derive(Clone, Debug, PartialEq)]
pub enum PolygonError {
    /// Fewer than three corners (MAVS's test puts no point inside them).
    TooFewPoints(usize),
    /// A corner that is not a finite number, or farther than [`MAX_COORDINATE`] metres out.
    NotFinite(usize),
    /// A fan of zero area asked to keep a minimum spacing (MAVS refuses it too).
    ZeroAreaWithSpacing,
}

impl std::fmt::Display for PolygonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolygonError::TooFewPoints(n) => {
                write!(f, "a polygon needs at least 3 points, found {n}")
            }
            PolygonError::NotFinite(i) => write!(
                f,
                "point {i} is not a number within {MAX_COORDINATE:e} m of the origin"
            ),
            PolygonError::ZeroAreaWithSpacing => write!(
                f,
                "the polygon has no area, so no `Minimum Spacing` can be kept in it (MAVS refuses it too)"
            ),
        }
    }
}

/// A placement polygon as MAVS reads it: any sequence of three or more corners, closed.
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon {
    points: Vec<[f64; 2]>,
    lo: [f64; 2],
    hi: [f64; 2],
    /// Whether the corners all lie on one line (or one point): a region of zero area.
    flat: bool,
}

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Whether `p` lies on the segment `a`-`b` (ends included), to a tolerance relative to `scale`.
fn on_segment(a: [f64; 2], b: [f64; 2], p: [f64; 2], scale: f64) -> bool {
    let tolerance = 1e-12 * scale * scale;
    cross(a, b, p).abs() <= tolerance
        && p[0] >= a[0].min(b[0]) - 1e-12 * scale
        && p[0] <= a[0].max(b[0]) + 1e-12 * scale
        && p[1] >= a[1].min(b[1]) - 1e-12 * scale
        && p[1] <= a[1].max(b[1]) + 1e-12 * scale
}

impl Polygon {
    /// Checks that there are three or more finite corners.
    pub fn new(points: Vec<[f64; 2]>) -> Result<Polygon, PolygonError> {
        if points.len() < 3 {
            return Err(PolygonError::TooFewPoints(points.len()));
        }
        if let Some(i) = points
            .iter()
            .position(|p| !(p[0].abs() <= MAX_COORDINATE && p[1].abs() <= MAX_COORDINATE))
        {
            return Err(PolygonError::NotFinite(i));
        }
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        for p in &points {
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let scale = (hi[0] - lo[0]).max(hi[1] - lo[1]);
        // All corners on the line through the first and the farthest from it.
        let first = points[0];
        let far = points.iter().copied().fold(first, |f, p| {
            let d = |q: [f64; 2]| (q[0] - first[0]).powi(2) + (q[1] - first[1]).powi(2);
            if d(p) > d(f) { p } else { f }
        });
        let flat = points
            .iter()
            .all(|&p| cross(first, far, p).abs() <= 1e-12 * scale * scale);
        Ok(Polygon {
            points,
            lo,
            hi,
            flat,
        })
    }

    fn scale(&self) -> f64 {
        (self.hi[0] - self.lo[0])
            .max(self.hi[1] - self.lo[1])
            .max(1e-300)
    }

    /// Whether `p` is inside (even-odd rule, as MAVS's crossing-number test) or on an edge.
    pub fn contains(&self, p: [f64; 2]) -> bool {
        let n = self.points.len();
        let scale = self.scale();
        let mut inside = false;
        for i in 0..n {
            let (a, b) = (self.points[i], self.points[(i + 1) % n]);
            if on_segment(a, b, p, scale) {
                return true;
            }
            // A crossing of the ray towards +x; half-open in y so a vertex counts once.
            if (a[1] > p[1]) != (b[1] > p[1]) {
                let x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
                if x > p[0] {
                    inside = !inside;
                }
            }
        }
        inside
    }

    /// The fan from the first corner, as (second corner, third corner, unsigned area).
    fn fan(&self) -> Vec<([f64; 2], [f64; 2], f64)> {
        let p0 = self.points[0];
        self.points
            .windows(2)
            .skip(1)
            .map(|w| (w[0], w[1], 0.5 * cross(p0, w[0], w[1]).abs()))
            .collect()
    }

    /// A point on the edges, uniform by length; the first corner if they have no length.
    fn on_edges(&self, rng: &mut ChaCha8Rng) -> [f64; 2] {
        let n = self.points.len();
        let edges: Vec<([f64; 2], [f64; 2], f64)> = (0..n)
            .map(|i| {
                let (a, b) = (self.points[i], self.points[(i + 1) % n]);
                (a, b, ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt())
            })
            .collect();
        let total: f64 = edges.iter().map(|e| e.2).sum();
        if total <= 0.0 {
            return self.points[0];
        }
        let mut at = rng.random::<f64>() * total;
        for &(a, b, len) in &edges {
            if at <= len && len > 0.0 {
                let t = at / len;
                return [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
            }
            at -= len;
        }
        self.points[0]
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

/// Misses in a row after which a minimum spacing is given up (MAVS's `max_tries_`).
pub const MAX_MISSES: usize = 100_000;

/// Box draws per point before a polygon whose region the box barely meets is sampled on its
/// edges instead (a polygon going out and back along the same edges has no area either).
const MAX_BOX_DRAWS: usize = 1_000_000;

/// Box draws for a whole entry beyond which its remaining points go on the polygon's edges (a
/// region of 0.5 % of its box still fills by drawing): a sliver in a large box could otherwise
/// take days for a million objects.
fn box_draw_budget(count: usize) -> usize {
    1_000_000usize.saturating_add(count.saturating_mul(200))
}

/// `count` points inside `polygon` as MAVS places them: uniformly by its crossing-number test
/// without a spacing; with `min_spacing` > 0, in its fan of triangles, each at least that far
/// from the others, fewer when [`MAX_MISSES`] draws in a row miss.
pub fn scatter(
    polygon: &Polygon,
    count: usize,
    min_spacing: f64,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<[f64; 2]>, PolygonError> {
    if min_spacing > 0.0 {
        return scatter_spaced(polygon, count, min_spacing, rng);
    }
    let (lo, hi) = (polygon.lo, polygon.hi);
    let mut out = Vec::with_capacity(count);
    let mut budget = box_draw_budget(count);
    for _ in 0..count {
        let mut point = None;
        if !polygon.flat && budget > 0 {
            for _ in 0..MAX_BOX_DRAWS.min(budget) {
                budget -= 1;
                let p = [
                    lo[0] + (hi[0] - lo[0]) * rng.random::<f64>(),
                    lo[1] + (hi[1] - lo[1]) * rng.random::<f64>(),
                ];
                if polygon.contains(p) {
                    point = Some(p);
                    break;
                }
            }
        }
        out.push(point.unwrap_or_else(|| polygon.on_edges(rng)));
    }
    Ok(out)
}

fn scatter_spaced(
    polygon: &Polygon,
    count: usize,
    min_spacing: f64,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<[f64; 2]>, PolygonError> {
    let fan = polygon.fan();
    let total: f64 = fan.iter().map(|t| t.2).sum();
    if total.is_nan() || total <= 0.0 {
        return Err(PolygonError::ZeroAreaWithSpacing);
    }
    let p0 = polygon.points[0];
    let spacing2 = min_spacing * min_spacing;
    let mut out: Vec<[f64; 2]> = Vec::with_capacity(count);
    // Placed points by cell of `min_spacing`: a candidate is checked against its 3 x 3 cells
    // only, not against every point placed (a million objects took hours).
    let cell = |p: [f64; 2]| {
        (
            (p[0] / min_spacing).floor() as i64,
            (p[1] / min_spacing).floor() as i64,
        )
    };
    let mut grid: std::collections::HashMap<(i64, i64), Vec<usize>> =
        std::collections::HashMap::new();
    let mut misses = 0;
    while out.len() < count && misses < MAX_MISSES {
        let mut at = rng.random::<f64>() * total;
        let (b, c) = fan
            .iter()
            .find(|t| {
                let hit = at <= t.2;
                at -= t.2;
                hit
            })
            .or(fan.last())
            .map_or((p0, p0), |t| (t.0, t.1));
        let (mut r1, mut r2) = (rng.random::<f64>(), rng.random::<f64>());
        if r1 + r2 > 1.0 {
            (r1, r2) = (1.0 - r1, 1.0 - r2);
        }
        let p = [
            p0[0] + r1 * (b[0] - p0[0]) + r2 * (c[0] - p0[0]),
            p0[1] + r1 * (b[1] - p0[1]) + r2 * (c[1] - p0[1]),
        ];
        let (cx, cy) = cell(p);
        let far_enough = (-1..=1).all(|dx| {
            (-1..=1).all(|dy| {
                let key = (cx.saturating_add(dx), cy.saturating_add(dy));
                grid.get(&key).is_none_or(|near| {
                    near.iter().all(|&i| {
                        let q = out[i];
                        (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) >= spacing2
                    })
                })
            })
        });
        if far_enough {
            grid.entry((cx, cy)).or_default().push(out.len());
            out.push(p);
            misses = 0;
        } else {
            misses += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polygon(points: &[[f64; 2]]) -> Polygon {
        Polygon::new(points.to_vec()).unwrap()
    }

    #[test]
    fn polygons_are_checked() {
        assert_eq!(
            Polygon::new(vec![[0.0, 0.0], [1.0, 1.0]]),
            Err(PolygonError::TooFewPoints(2))
        );
        assert_eq!(
            Polygon::new(vec![[0.0, 0.0], [1.0, f64::NAN], [2.0, 2.0]]),
            Err(PolygonError::NotFinite(1))
        );
        // Corners of 1e308 put objects at infinity (a 0.5 s run took 6 s): out of range.
        assert_eq!(
            Polygon::new(vec![[0.0, 0.0], [1e308, 0.0], [0.0, -1e308]]),
            Err(PolygonError::NotFinite(1))
        );
        // Concave, crossed and flat polygons are all accepted, as MAVS accepts them.
        for points in [
            vec![[0.0, 0.0], [2.0, 1.0], [0.0, 2.0], [0.5, 1.0]],
            vec![[63.0, 20.0], [58.0, 20.0], [63.0, 40.0], [58.0, 40.0]],
            vec![[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]],
            vec![[-55.0, 0.0]; 4],
        ] {
            assert!(Polygon::new(points).is_ok());
        }
    }

    #[test]
    fn the_crossing_test_is_even_odd_with_edges_inside() {
        let dart = polygon(&[[0.0, 0.0], [2.0, 1.0], [0.0, 2.0], [0.5, 1.0]]);
        assert!(dart.contains([1.0, 1.0]));
        assert!(!dart.contains([0.25, 1.0]), "the notch is outside");
        assert!(dart.contains([0.5, 1.0]), "a corner is inside");
        assert!(dart.contains([1.0, 0.5]), "an edge is inside");
        // A bow-tie: its two triangles are inside, the crossing point too, the sides not.
        let bow = polygon(&[[0.0, 0.0], [2.0, 2.0], [2.0, 0.0], [0.0, 2.0]]);
        assert!(bow.contains([0.2, 1.0]) && bow.contains([1.8, 1.0]));
        assert!(!bow.contains([1.0, 0.2]) && !bow.contains([1.0, 1.8]));
        assert!(bow.contains([1.0, 1.0]));
    }

    #[test]
    fn points_fall_inside_any_polygon_uniformly() {
        // An L: two unit squares' worth in the left column, one in the bottom right.
        let l = polygon(&[
            [0.0, 0.0],
            [2.0, 0.0],
            [2.0, 1.0],
            [1.0, 1.0],
            [1.0, 2.0],
            [0.0, 2.0],
        ]);
        let points = scatter(&l, 30_000, 0.0, &mut entry_rng(3, 0)).unwrap();
        assert!(points.iter().all(|p| l.contains(*p)));
        let right = points.iter().filter(|p| p[0] > 1.0).count() as f64 / 30_000.0;
        // A third of the area; four standard deviations of a binomial share.
        assert!(
            (right - 1.0 / 3.0).abs() < 4.0 * (2.0f64 / 9.0 / 30_000.0).sqrt(),
            "{right}"
        );
        assert_eq!(
            points,
            scatter(&l, 30_000, 0.0, &mut entry_rng(3, 0)).unwrap()
        );
    }

    #[test]
    fn zero_area_polygons_place_on_their_edges_or_their_point() {
        let point = polygon(&[[-55.0, 8.0]; 4]);
        let at = scatter(&point, 3, 0.0, &mut entry_rng(1, 0)).unwrap();
        assert_eq!(at, vec![[-55.0, 8.0]; 3]);
        let line = polygon(&[[0.0, 0.0], [4.0, 2.0], [2.0, 1.0]]);
        for p in scatter(&line, 100, 0.0, &mut entry_rng(1, 0)).unwrap() {
            assert!(
                (p[1] - p[0] / 2.0).abs() < 1e-9 && (0.0..=4.0).contains(&p[0]),
                "{p:?}"
            );
        }
        assert_eq!(
            scatter(&point, 3, 1.0, &mut entry_rng(1, 0)),
            Err(PolygonError::ZeroAreaWithSpacing)
        );
    }

    #[test]
    fn many_objects_and_slivers_take_bounded_time() {
        let started = std::time::Instant::now();
        // 50,000 spaced objects: checked against every placed one, this took minutes.
        let square = polygon(&[[0.0, 0.0], [1000.0, 0.0], [1000.0, 1000.0], [0.0, 1000.0]]);
        let spaced = scatter(&square, 50_000, 0.5, &mut entry_rng(1, 0)).unwrap();
        assert_eq!(spaced.len(), 50_000);
        // A sliver 1e-9 wide in a kilometre box: 1,000 objects, most on its edges.
        let sliver = polygon(&[[0.0, 0.0], [1000.0, 1000.0], [1_000.0, 1_000.000_000_001]]);
        let thin = scatter(&sliver, 1_000, 0.0, &mut entry_rng(1, 0)).unwrap();
        assert_eq!(thin.len(), 1_000);
        assert!(thin.iter().all(|p| sliver.contains(*p)));
        assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    }

    #[test]
    fn spaced_points_keep_their_spacing_in_the_fan_reproducibly() {
        let triangle = polygon(&[[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]]);
        let a = scatter(&triangle, 20, 1.5, &mut entry_rng(7, 0)).unwrap();
        assert_eq!(a.len(), 20);
        assert!(a.iter().all(|p| triangle.contains(*p)));
        for (i, p) in a.iter().enumerate() {
            for q in &a[i + 1..] {
                assert!(((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt() >= 1.5);
            }
        }
        assert_eq!(
            a,
            scatter(&triangle, 20, 1.5, &mut entry_rng(7, 0)).unwrap()
        );
        assert_ne!(
            a,
            scatter(&triangle, 20, 1.5, &mut entry_rng(8, 0)).unwrap()
        );
        // A spacing that cannot be met gives fewer points, not a hang.
        let few = scatter(&triangle, 50, 8.0, &mut entry_rng(7, 0)).unwrap();
        assert!(few.len() < 5);
    }
}
