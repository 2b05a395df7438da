//! A triangle's coverage of a band: the pixel centres it covers nearer than what is there, by
//! exact edge tests and perspective-correct `1 / depth`, with the nearest-so-far depth and
//! triangle of each pixel and each row segment's farthest depth (for skipping what lies
//! behind).
//!
//! Owns: `Depths` and how a triangle is drawn into them (where the CPU has AVX-512 or AVX2,
//! each row eight pixel centres at a time: `segments.rs`). Must not touch: which triangles a band
//! draws and in which order, the edge set-up (`Setup`).

use super::{ScreenTriangle, Setup, coordinate, segments};

/// Pixels of one band per segment of a row, for skipping a triangle where everything is nearer.
pub(super) const SEGMENT: usize = 8;

/// The nearest surface so far at each pixel of a band.
pub(super) struct Depths {
    pub(super) first_row: usize,
    pub(super) rows: usize,
    pub(super) width: usize,
    /// Per pixel: `1 / depth` of the nearest surface so far (0: nothing yet).
    pub(super) inv_depth: Vec<f64>,
    /// Per pixel: its triangle (index in the band's list; `u32::MAX`: none yet).
    pub(super) triangle: Vec<u32>,
    /// Per row segment of [`SEGMENT`] pixels: the least `1 / depth` in it (the farthest).
    pub(super) farthest: Vec<f64>,
}

impl Depths {
    pub(super) fn new(first_row: usize, rows: usize, width: usize) -> Depths {
        Depths {
            first_row,
            rows,
            width,
            inv_depth: vec![0.0; rows * width],
            triangle: vec![u32::MAX; rows * width],
            farthest: vec![0.0; rows * width.div_ceil(SEGMENT)],
        }
    }
}

impl Depths {
    /// Row `row` (of the image) of the band: each pixel's `1 / depth` and triangle so far, and
    /// each of its segments' farthest.
    pub(super) fn row(&mut self, row: usize) -> (&mut [f64], &mut [u32], &mut [f64]) {
        let (local, w) = (row - self.first_row, self.width);
        let segments = w.div_ceil(SEGMENT);
        (
            &mut self.inv_depth[local * w..(local + 1) * w],
            &mut self.triangle[local * w..(local + 1) * w],
            &mut self.farthest[local * segments..(local + 1) * segments],
        )
    }

    /// Whether everything drawn wherever a triangle's box (`rows`, `cols`) reaches in the
    /// band is strictly nearer than `nearest_possible`, a bound on its `1 / depth` (then it
    /// can neither win nor tie a pixel).
    pub(super) fn hides(
        &self,
        rows: (usize, usize),
        cols: (usize, usize),
        nearest_possible: f64,
    ) -> bool {
        let segments = self.width.div_ceil(SEGMENT);
        let r0 = rows.0.max(self.first_row);
        let r1 = rows.1.min(self.first_row + self.rows - 1);
        let spanned = cols.0 / SEGMENT..=cols.1 / SEGMENT;
        (r0..=r1).all(|row| {
            let farthest = &self.farthest[(row - self.first_row) * segments..];
            // Eight at a time without early exits (a test laid out in vectors), then the
            // rest one by one.
            let mut chunks = farthest[spanned.clone()].chunks_exact(8);
            let nearer = |all: bool, &f: &f64| all & (nearest_possible < f);
            chunks.all(|eight| eight.iter().fold(true, nearer))
                && chunks.remainder().iter().all(|f| nearer(true, f))
        })
    }
}

/// What drawing one triangle into a band's `Depths` needs, made once per triangle.
pub(super) struct TriangleCover<'a> {
    pub(super) t: &'a ScreenTriangle,
    pub(super) setup: &'a Setup,
    /// Its index in the band's list.
    pub(super) index: u32,
    /// The rows drawn (inclusive).
    pub(super) rows: (usize, usize),
    /// `1 / far`: nearer surfaces only.
    pub(super) inv_far: f64,
    /// A bound on its `1 / depth` (see `ScreenTriangle::nearest_possible_inv_z`).
    pub(super) nearest_possible: f64,
    /// `1 / depth` along a row: the sum of the edge values scaled by these, of which the
    /// parts that do not depend on the row are `along`; its step per column.
    scale: [f64; 3],
    along: [f64; 3],
    pub(super) per_column: f64,
    /// The image's width, in the rounding margin of the row bounds.
    width: f64,
}

impl<'a> TriangleCover<'a> {
    pub(super) fn new(
        t: &'a ScreenTriangle,
        setup: &'a Setup,
        index: u32,
        far: f64,
        depths: &Depths,
    ) -> TriangleCover<'a> {
        let edges = &setup.edges;
        let scale = std::array::from_fn::<f64, 3, _>(|k| setup.inv_area * t.inv_z[k]);
        TriangleCover {
            t,
            setup,
            index,
            rows: (
                t.rows().0.max(depths.first_row),
                t.rows().1.min(depths.first_row + depths.rows - 1),
            ),
            inv_far: 1.0 / far,
            nearest_possible: t.nearest_possible_inv_z(),
            scale,
            along: edges.map(|(lo, _, dy, _)| dy * lo[0]),
            per_column: (0..3).fold(0.0, |b, k| b - scale[k] * edges[k].2),
            width: coordinate(depths.width),
        }
    }

    /// The edges' terms that depend on the row only.
    #[inline(always)]
    pub(super) fn row_terms(&self, row: usize) -> [f64; 3] {
        let py = coordinate(row);
        self.setup.edges.map(|(lo, dx, _, _)| dx * (py - lo[1]))
    }

    /// `1 / depth` at column 0 of the row of `row_terms` (the exact edge values only decide
    /// coverage; depth ties are rare and any rounding of them is deterministic).
    #[inline(always)]
    pub(super) fn at_zero(&self, row_terms: &[f64; 3]) -> f64 {
        (0..3).fold(0.0, |a, k| {
            a + self.scale[k] * (row_terms[k] + self.along[k])
        })
    }

    /// The columns of `row` where every edge function may be non-negative (the exact tests
    /// decide), inclusive; `None` if there are none.
    #[inline(always)]
    pub(super) fn bounds(&self, row: usize, row_terms: &[f64; 3]) -> Option<(usize, usize)> {
        let (t, setup) = (self.t, self.setup);
        let py = coordinate(row);
        // Where the row crosses an edge, `lo.x + (py - lo.y) dx / dy`, is computed to within
        // a few units in the last place of its terms, and a column's edge value to within a
        // few units of its products, which is `|dx / dy (py - lo.y)| + |px - lo.x|` once
        // divided by `|dy|`: the margin, a million times that, keeps the bounds on the outside
        // of every column the exact test may find inside.
        let (mut first, mut last) = (coordinate(t.cols().0), coordinate(t.cols().1));
        for (k, &(lo, _, dy, _)) in setup.edges.iter().enumerate() {
            let reach = (py - lo[1]) * setup.slopes[k];
            let crossing = lo[0] + reach;
            let margin = 1e-9 * (2.0 * lo[0].abs() + reach.abs() + self.width);
            // (As `f64::min` and `max` would, with plain comparisons: the bounds are never NaN,
            // a NaN crossing or margin leaves them.)
            if dy > 0.0 {
                let bound = crossing + margin;
                last = if bound < last { bound } else { last };
            } else if dy < 0.0 {
                let bound = crossing - margin;
                first = if bound > first { bound } else { first };
            } else if row_terms[k] < 0.0 {
                last = -1.0;
            }
        }
        if first.is_nan() || last.is_nan() || first > last {
            return None;
        }
        // To columns through `u32`, which converts from a float in fewer instructions than
        // `usize` (the bounds lie between 0 and the last column): the first rounded up, the
        // last down. (`first_centre`'s rounding, without its guards for the values a box's
        // corners may take: 8 M instructions per 0.3 s of the camera benchmark.)
        let down = first as u32;
        let up = down + u32::from(f64::from(down) < first);
        let (first, last) = (up as usize, last as u32 as usize);
        (first <= last).then_some((first, last))
    }

    /// Whether it wins a pixel at equal depth from `other`: ties go to the lower instance,
    /// then triangle.
    #[inline(always)]
    pub(super) fn wins_tie(&self, other: &ScreenTriangle) -> bool {
        (self.t.instance, self.t.triangle) < (other.instance, other.triangle)
    }
}

/// Marks the pixel centres a triangle covers nearer than what is there (`triangles`: the
/// band's list, which `index` and the pixels' holders index).
pub(super) fn cover(
    t: &ScreenTriangle,
    setup: &Setup,
    index: u32,
    far: f64,
    triangles: &[&ScreenTriangle],
    depths: &mut Depths,
) {
    let c = TriangleCover::new(t, setup, index, far, depths);
    if !segments::cover(&c, triangles, depths) {
        cover_rows(&c, triangles, depths);
    }
}

/// [`cover`]'s rows one pixel at a time, where the CPU has no vectors for them (the vector
/// forms in `segments.rs` give the same bits).
pub(super) fn cover_rows(
    c: &TriangleCover<'_>,
    triangles: &[&ScreenTriangle],
    depths: &mut Depths,
) {
    let w = depths.width;
    let edges = &c.setup.edges;
    let index = c.index;
    for row in c.rows.0..=c.rows.1 {
        let row_terms = c.row_terms(row);
        let Some((mut first, mut last)) = c.bounds(row, &row_terms) else {
            continue;
        };
        // Each edge function is monotonic along the row (every rounded step of it is), so
        // the pixel centres inside form one run: find its ends exactly, then the pixels
        // between need no edge tests.
        let inside = |col: usize| {
            let px = coordinate(col);
            (0..3).all(|k| {
                let (lo, _, dy, owns_ties) = edges[k];
                let e = row_terms[k] - dy * (px - lo[0]);
                e > 0.0 || (e == 0.0 && owns_ties)
            })
        };
        while first <= last && !inside(first) {
            first += 1;
        }
        if first > last {
            continue;
        }
        // `first` is inside: the run ends at the last inside column from `last` back to it.
        while last > first && !inside(last) {
            last -= 1;
        }
        let at_zero = c.at_zero(&row_terms);
        let (held_depths, holders, farthest) = depths.row(row);
        let segments_spanned = first / SEGMENT..=last / SEGMENT;
        for (segment, farthest) in segments_spanned.zip(&mut farthest[first / SEGMENT..]) {
            // Everything here is strictly nearer: the triangle can neither win nor tie.
            if c.nearest_possible < *farthest {
                continue;
            }
            let start = segment * SEGMENT;
            let cols = start.max(first)..=(start + SEGMENT - 1).min(last);
            let mut changed = false;
            // Branch-free but for depth ties: whether a pixel is taken is a coin toss where
            // surfaces overlap, which a branch would mispredict.
            for col in cols {
                let inv_depth = at_zero + c.per_column * coordinate(col);
                let (held, holder) = (held_depths[col], holders[col]);
                // Nearer means a larger 1 / depth.
                let mut nearer = (holder == u32::MAX) | (inv_depth > held);
                if inv_depth == held && holder != u32::MAX {
                    nearer = c.wins_tie(triangles[holder as usize]);
                }
                let beyond_far = inv_depth < c.inv_far;
                let take = nearer & !beyond_far;
                held_depths[col] = if take { inv_depth } else { held };
                holders[col] = if take { index } else { holder };
                changed |= take;
            }
            if changed {
                // (As `f64::min` would, with plain comparisons: `m` is never NaN.)
                *farthest = held_depths[start..(start + SEGMENT).min(w)]
                    .iter()
                    .fold(f64::INFINITY, |m, &d| if d < m { d } else { m });
            }
        }
    }
}
