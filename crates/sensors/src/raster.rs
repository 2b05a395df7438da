//! Primary visibility of a pinhole camera (no distortion) by rasterising the scene's triangles,
//! for the same answer as casting a ray through each pixel centre, faster when there are many
//! pixels (measured by `passerby bench --simulate` with `--camera-visibility`).
//!
//! Every instance whose box is in the view frustum has its triangles put in the camera's optical
//! frame, clipped to the near plane, projected, and tested at the pixel centres they cover (pixel
//! centres on integers, as the lens). Edge functions are evaluated in double precision from each
//! edge's endpoints in a canonical order, with a tie rule on the directed edge, so that two
//! triangles sharing an edge never both cover, nor both miss, a pixel centre on it. Depth and
//! barycentric coordinates are interpolated perspective-correctly. The nearest surface wins with
//! the ray caster's tie rule (lower instance, then lower triangle), so the image does not depend
//! on the order of work or the thread count. What it may differ from ray casting by: a pixel
//! centre within rounding of an edge between different objects.

use crate::lens::Lens;
use cover::{Depths, cover};
use glam::{Affine3A, Vec3A};
use passerby_raycast::Scene;
use passerby_raycast::bvh::Aabb;
use rayon::prelude::*;
use std::ops::ControlFlow;

/// What a pixel centre sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterHit {
    /// Depth along the optical axis, metres.
    pub depth: f32,
    /// Scene instance.
    pub instance: u32,
    /// Triangle of the instance's mesh.
    pub triangle: u32,
    /// Barycentric weights of the triangle's second and third corners.
    pub uv: [f32; 2],
}

/// What a pixel centre sees, as [`BandHits::for_each`] hands it over: its depth and triangle,
/// and its barycentric coordinates when asked for (a surface that looks the same all over
/// needs none).
#[derive(Clone, Copy, Debug)]
pub struct PixelHit<'b> {
    /// Depth along the optical axis, metres.
    pub depth: f32,
    /// Scene instance.
    pub instance: u32,
    /// Triangle of the instance's mesh.
    pub triangle: u32,
    /// The perspective weights of the screen triangle's corners and `depth` unrounded.
    weights: [f64; 3],
    exact_depth: f64,
    /// The screen triangle's corners' barycentric coordinates.
    bary: &'b [[f64; 2]; 3],
}

impl PixelHit<'_> {
    /// Barycentric weights of the triangle's second and third corners.
    #[inline(always)]
    pub fn uv(&self) -> [f32; 2] {
        let (w, b) = (self.weights, self.bary);
        let bary = |c: usize| (w[0] * b[0][c] + w[1] * b[1][c] + w[2] * b[2][c]) * self.exact_depth;
        [bary(0) as f32, bary(1) as f32]
    }

    /// All of it.
    #[inline(always)]
    pub fn to_hit(&self) -> RasterHit {
        RasterHit {
            depth: self.depth,
            instance: self.instance,
            triangle: self.triangle,
            uv: self.uv(),
        }
    }
}

/// A triangle (or part of one, after near clipping) in screen space. (Kept small: a frame's
/// are read again for every band they reach.)
#[derive(Clone, Debug)]
struct ScreenTriangle {
    /// Pixel coordinates.
    xy: [[f64; 2]; 3],
    /// `1 / depth` at each corner.
    inv_z: [f64; 3],
    /// Barycentric weights (of the original triangle's second and third corners) at each
    /// corner, for a part left by near clipping (a whole triangle's are [`CORNER_BARY`]).
    clipped_bary: Option<Box<[[f64; 2]; 3]>>,
    instance: u32,
    triangle: u32,
    /// Pixel rows and columns spanned (inclusive; images are far below 2^32 pixels a side).
    row_span: (u32, u32),
    col_span: (u32, u32),
}

/// The barycentric weights of a whole triangle's corners.
const CORNER_BARY: [[f64; 2]; 3] = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];

/// Rows of pixels rasterised together by one task (a multiple of the rows of a tile of a
/// camera's casting order).
pub const BAND: usize = 8;
const _: () = assert!(BAND.is_multiple_of(crate::lens::TILE_ROWS));

/// Triangles set up together by one task.
const TRIANGLE_CHUNK: usize = 8192;

/// The nearest surface at each pixel centre of `lens` (row-major), seen from
/// `world_from_optical` (`None` where nothing lies within the clip range; the lens must have no
/// distortion), a band of [`BAND`] rows at a time (the last may be shorter), each handed with
/// its own element of `outputs` (one per band, top first) to `finish(first_row, hits, output)`
/// as soon as it is done, in parallel: what needs the hits is done while what they are made
/// from is in cache, and no buffer of them is made (they are made as they are read).
pub fn visible_in_bands<T: Send>(
    scene: &Scene,
    lens: &Lens,
    world_from_optical: &Affine3A,
    outputs: Vec<T>,
    finish: impl Fn(usize, BandHits<'_>, T) + Sync,
) {
    let (w, h) = lens.size();
    let i = lens.intrinsics();
    let (fx, fy, cx, cy) = (i.fx, i.fy, i.cx, i.cy);
    let (near, far) = (i.clip_min.max(1e-6), i.clip_max);
    let frustum = Frustum::new(lens, world_from_optical);
    // Instances whose world boxes are in view, in instance order (the top level's walk skips
    // the rest a group at a time).
    let mut in_view = Vec::new();
    scene.visit_boxes(
        |b| !frustum.misses_world_box(b),
        |instance| {
            in_view.push(instance);
            ControlFlow::Continue(())
        },
    );
    in_view.sort_unstable();
    let optical_from_world = frustum.optical_from_world;
    // Triangles of every instance in view, in instance order (each instance's in the order of
    // its chunks: kept as they are, not copied into one list).
    let per_instance: Vec<Vec<Vec<ScreenTriangle>>> = in_view
        .into_par_iter()
        .map(|instance| {
            let inst = scene.instance(instance);
            let mesh = scene.mesh(inst.mesh);
            let to_optical = optical_from_world * inst.world_from_mesh();
            // The mesh's own box is tighter than its world box.
            if frustum.misses(&box_corners(&mesh.bounds(), &to_optical)) {
                return Vec::new();
            }
            // Vertices in the optical frame, projected where in front of the near plane, with
            // the sides of the image's pixel centres they lie beyond there (bits: left, right,
            // above, below, beyond the far plane).
            let lens_constants = [fx, fy, cx, cy];
            let (last_col, last_row) = (w as f64 - 1.0, h as f64 - 1.0);
            let vertices: Vec<(Vec3A, [f64; 3], u8)> = mesh
                .vertices()
                .par_iter()
                .with_min_len(4096)
                .map(|v| {
                    let q = to_optical.transform_point3a(*v);
                    let z = f64::from(q.z);
                    if z < near {
                        return (q, [f64::NAN; 3], 0);
                    }
                    // One division: a vertex is projected once for all its triangles, so
                    // neighbours still meet exactly.
                    let inv_z = 1.0 / z;
                    let screen = [
                        fx * f64::from(q.x) * inv_z + cx,
                        fy * f64::from(q.y) * inv_z + cy,
                        inv_z,
                    ];
                    let beyond = u8::from(screen[0] < 0.0)
                        | u8::from(screen[0] > last_col) << 1
                        | u8::from(screen[1] < 0.0) << 2
                        | u8::from(screen[1] > last_row) << 3
                        | u8::from(z > far) << 4;
                    (q, screen, beyond)
                })
                .collect();
            mesh.triangles()
                .par_chunks(TRIANGLE_CHUNK)
                .enumerate()
                .map(|(chunk, triangles)| {
                    let mut out = Vec::with_capacity(triangles.len());
                    for (k, tri) in triangles.iter().enumerate() {
                        let t = (chunk * TRIANGLE_CHUNK + k) as u32;
                        let corners = tri.map(|v| &vertices[v as usize]);
                        // All corners in front and beyond one side: no pixel centre to cover
                        // (`screen_triangles` would find none either).
                        if corners[0].2 & corners[1].2 & corners[2].2 != 0 {
                            continue;
                        }
                        screen_triangles(
                            corners,
                            instance,
                            t,
                            lens_constants,
                            (near, far),
                            (w, h),
                            &mut out,
                        );
                    }
                    out
                })
                .collect()
        })
        .collect();
    // Bin into bands, then rasterise bands in parallel.
    let bands = h.div_ceil(BAND);
    let mut binned: Vec<Vec<&ScreenTriangle>> = vec![Vec::new(); bands];
    for t in per_instance.iter().flatten().flatten() {
        for band in &mut binned[t.rows().0 / BAND..=t.rows().1 / BAND] {
            band.push(t);
        }
    }
    outputs
        .into_par_iter()
        .zip(binned.par_iter())
        .enumerate()
        .for_each(|(band, (output, triangles))| {
            let first_row = band * BAND;
            let rows = BAND.min(h - first_row);
            let mut depths = Depths::new(first_row, rows, w);
            // Nearest (by the nearest corner) first, so that most of what lies behind is
            // skipped whole or a segment at a time. (The winner of a pixel does not depend on
            // the order.) Only triangles that may show are set up.
            // Sorted as plain integers: nearness to f32 precision (positive floats order as
            // their bits), then the index.
            let mut by_nearness: Vec<u64> = (triangles.iter().enumerate())
                .map(|(k, t)| {
                    let nearness = (t.nearest_inv_z() as f32).max(0.0).to_bits();
                    (u64::from(!nearness) << 32) | k as u64
                })
                .collect();
            by_nearness.sort_unstable();
            let mut setups = Setups {
                of: vec![u32::MAX; triangles.len()],
                made: Vec::new(),
            };
            for index in by_nearness.iter().map(|&key| key as u32) {
                let t = triangles[index as usize];
                if depths.hides(t.rows(), t.cols(), t.nearest_possible_inv_z()) {
                    continue;
                }
                let Some(setup) = Setup::new(t) else {
                    continue;
                };
                cover(t, &setup, index, far, triangles, &mut depths);
                setups.of[index as usize] = setups.made.len() as u32;
                setups.made.push(setup);
            }
            let hits = BandHits {
                triangles,
                setups: &setups,
                nearest: &depths.triangle,
                width: w,
                first_row,
            };
            finish(first_row, hits, output);
        });
}

/// Triangles in the instances whose world boxes are in view of `lens` from
/// `world_from_optical`, counted up to `limit` (the count stops growing there): what
/// rasterising the view would set up.
pub fn triangles_in_view(
    scene: &Scene,
    lens: &Lens,
    world_from_optical: &Affine3A,
    limit: usize,
) -> usize {
    let frustum = Frustum::new(lens, world_from_optical);
    let mut count = 0usize;
    scene.visit_boxes(
        |b| !frustum.misses_world_box(b),
        |instance| {
            count += scene.mesh(scene.instance(instance).mesh).triangle_count();
            if count >= limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    count.min(limit)
}

/// What a pinhole lens may see from a pose: between its clip planes, and within the four
/// planes half a pixel beyond its outermost pixel centres.
struct Frustum {
    optical_from_world: Affine3A,
    /// fx, fy, cx, cy.
    lens: [f64; 4],
    size: (f64, f64),
    near: f64,
    far: f64,
}

impl Frustum {
    fn new(lens: &Lens, world_from_optical: &Affine3A) -> Frustum {
        let (w, h) = lens.size();
        let i = lens.intrinsics();
        Frustum {
            optical_from_world: world_from_optical.inverse(),
            lens: [i.fx, i.fy, i.cx, i.cy],
            size: (w as f64, h as f64),
            near: i.clip_min.max(1e-6),
            far: i.clip_max,
        }
    }

    /// Whether all of these optical-frame points lie beyond one of the planes.
    fn misses(&self, corners: &[Vec3A; 8]) -> bool {
        let [fx, fy, cx, cy] = self.lens;
        let (wf, hf) = self.size;
        let outside = |inside: &dyn Fn(Vec3A) -> bool| corners.iter().all(|&p| !inside(p));
        outside(&|p| f64::from(p.z) >= self.near)
            || outside(&|p| f64::from(p.z) <= self.far)
            || outside(&|p| fx * f64::from(p.x) + (cx + 0.5) * f64::from(p.z) >= 0.0)
            || outside(&|p| -fx * f64::from(p.x) + (wf - 0.5 - cx) * f64::from(p.z) >= 0.0)
            || outside(&|p| fy * f64::from(p.y) + (cy + 0.5) * f64::from(p.z) >= 0.0)
            || outside(&|p| -fy * f64::from(p.y) + (hf - 0.5 - cy) * f64::from(p.z) >= 0.0)
    }

    /// Whether a world box lies wholly out of view (an empty box always does).
    fn misses_world_box(&self, b: &Aabb) -> bool {
        self.misses(&box_corners(b, &self.optical_from_world))
    }
}

/// A box's corners carried by `m` (all at infinity for an empty box, which every plane test
/// then refuses).
fn box_corners(b: &Aabb, m: &Affine3A) -> [Vec3A; 8] {
    if !b.min.cmple(b.max).all() {
        return [Vec3A::splat(f32::NAN); 8];
    }
    std::array::from_fn(|k| {
        let p = Vec3A::new(
            if k & 1 == 0 { b.min.x } else { b.max.x },
            if k & 2 == 0 { b.min.y } else { b.max.y },
            if k & 4 == 0 { b.min.z } else { b.max.z },
        );
        m.transform_point3a(p)
    })
}

/// What the pixel centres of a band see, made as they are read (a band's worth would not stay
/// in the first-level cache between being written and read).
pub struct BandHits<'b> {
    triangles: &'b [&'b ScreenTriangle],
    setups: &'b Setups,
    /// Per pixel of the band: its triangle (index in `triangles`; `u32::MAX`: none).
    nearest: &'b [u32],
    width: usize,
    first_row: usize,
}

impl BandHits<'_> {
    /// Pixels in the band.
    pub fn len(&self) -> usize {
        self.nearest.len()
    }

    /// Whether the band has no pixels.
    pub fn is_empty(&self) -> bool {
        self.nearest.is_empty()
    }

    /// How many triangles the band's pixels may see ([`Run::band_triangle`] is under it).
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// Calls `f(pixel, what it sees)` for every pixel of the band (index in the band), in
    /// row-major order. A run of pixels on one triangle shares its lookups and its edges' row
    /// terms.
    #[inline(always)]
    pub fn for_each(self, mut f: impl FnMut(usize, Option<&PixelHit<'_>>)) {
        self.for_each_run(|run| match &run.triangle {
            None => (run.first..run.first + run.cols.len()).for_each(|q| f(q, None)),
            Some(triangle) => {
                for (q, col) in (run.first..).zip(run.cols.clone()) {
                    f(q, Some(&triangle.hit(col)));
                }
            }
        });
    }

    /// Calls `f(run)` for every run of a row's neighbouring pixels that see the same triangle
    /// (or nothing), in row-major order.
    #[inline(always)]
    pub fn for_each_run(self, mut f: impl FnMut(Run<'_>)) {
        let (triangles, setups, w) = (self.triangles, self.setups, self.width);
        let mut q = 0;
        for (row, nearest) in (self.first_row..).zip(self.nearest.chunks(w)) {
            let mut first_col = 0;
            while first_col < nearest.len() {
                let run = &nearest[first_col..first_col + run_length(&nearest[first_col..])];
                let cols = first_col..first_col + run.len();
                first_col = cols.end;
                let first = q;
                q += run.len();
                // No triangle: `u32::MAX`, past the end.
                let index = run[0] as usize;
                let triangle = match (triangles.get(index), setups.get(index)) {
                    // Only pixels the triangle covers hold it: their edge values are all
                    // non-negative (or ties it owns).
                    (Some(&t), Some(setup)) => Some(RunTriangle {
                        t,
                        setup,
                        row_terms: setup.row_terms(row),
                    }),
                    _ => None,
                };
                f(Run {
                    first,
                    row,
                    cols,
                    band_triangle: index,
                    triangle,
                });
            }
        }
    }
}

/// Neighbouring pixels of one row of a band that see the same triangle, or nothing.
pub struct Run<'b> {
    /// Its first pixel's index in the band.
    pub first: usize,
    /// The image row.
    pub row: usize,
    /// The image columns.
    pub cols: std::ops::Range<usize>,
    /// Its triangle's index among the band's (the same on every row the triangle covers);
    /// meaningful only with `triangle`.
    pub band_triangle: usize,
    /// What its pixels see, if anything.
    pub triangle: Option<RunTriangle<'b>>,
}

/// How many of `values` from the first are equal to it (1 or more; 0 when empty): eight at a
/// time while all eight are (a test without early exits, laid out in vectors), then one by
/// one.
#[inline(always)]
fn run_length(values: &[u32]) -> usize {
    let Some(&first) = values.first() else {
        return 0;
    };
    let mut n = 1;
    while let Some(eight) = values.get(n..n + 8) {
        if !eight.iter().fold(true, |all, &v| all & (v == first)) {
            break;
        }
        n += 8;
    }
    n + values[n..].iter().take_while(|&&v| v == first).count()
}

/// The triangle a run sees, with its edges' terms for the run's row.
pub struct RunTriangle<'b> {
    t: &'b ScreenTriangle,
    setup: &'b Setup,
    row_terms: [f64; 3],
}

impl RunTriangle<'_> {
    /// Scene instance.
    pub fn instance(&self) -> u32 {
        self.t.instance
    }

    /// Triangle of the instance's mesh.
    pub fn triangle(&self) -> u32 {
        self.t.triangle
    }

    /// What the pixel centre of column `col` (one of the run's) sees.
    #[inline(always)]
    pub fn hit(&self, col: usize) -> PixelHit<'_> {
        let weights = self.setup.weights(self.t, &self.row_terms, col);
        // The weights sum to 1 / depth.
        let depth = 1.0 / (weights[0] + weights[1] + weights[2]);
        PixelHit {
            depth: depth as f32,
            instance: self.t.instance,
            triangle: self.t.triangle,
            weights,
            exact_depth: depth,
            bary: self.t.bary(),
        }
    }

    /// The depths of the pixel centres of columns `cols` (the run's), as [`RunTriangle::hit`]
    /// gives them, into `out`: a loop of independent divisions the compiler lays out in
    /// vectors.
    #[inline(always)]
    pub fn depths(&self, cols: std::ops::Range<usize>, out: &mut [f32]) {
        depths_widest(self, cols, out);
    }

    /// The depths and barycentric `(u, v)` of the pixel centres of columns `cols` (the
    /// run's), as [`RunTriangle::hit`] and [`PixelHit::uv`] give them, into `out`'s depths,
    /// `u`s and `v`s.
    #[inline(always)]
    pub fn depths_and_uvs(&self, cols: std::ops::Range<usize>, out: [&mut [f32]; 3]) {
        depths_uvs_widest(self, cols, out);
    }

    /// [`RunTriangle::depths_and_uvs`]'s body (compiled for each vector width).
    #[inline(always)]
    fn depths_uvs_body(&self, cols: std::ops::Range<usize>, [depths, us, vs]: [&mut [f32]; 3]) {
        let b = self.t.bary();
        let pixels = depths.iter_mut().zip(us.iter_mut()).zip(vs.iter_mut());
        for (((depth, u), v), col) in pixels.zip(cols) {
            let w = self.setup.weights(self.t, &self.row_terms, col);
            let exact = 1.0 / (w[0] + w[1] + w[2]);
            *depth = exact as f32;
            let bary = |c: usize| (w[0] * b[0][c] + w[1] * b[1][c] + w[2] * b[2][c]) * exact;
            (*u, *v) = (bary(0) as f32, bary(1) as f32);
        }
    }

    /// [`RunTriangle::depths`]'s body (compiled for each vector width).
    #[inline(always)]
    fn depths_body(&self, cols: std::ops::Range<usize>, out: &mut [f32]) {
        for (depth, col) in out.iter_mut().zip(cols) {
            let w = self.setup.weights(self.t, &self.row_terms, col);
            *depth = (1.0 / (w[0] + w[1] + w[2])) as f32;
        }
    }
}

passerby_raycast::widest_vectors! {
    /// [`RunTriangle::depths_and_uvs`] in the widest vectors the CPU has.
    fn depths_uvs_widest(
        triangle: &RunTriangle<'_>,
        cols: std::ops::Range<usize>,
        out: [&mut [f32]; 3],
    ) => RunTriangle::depths_uvs_body
}

passerby_raycast::widest_vectors! {
    /// [`RunTriangle::depths`] in the widest vectors the CPU has: eight divisions in doubles
    /// to an instruction with AVX-512.
    fn depths_widest(
        triangle: &RunTriangle<'_>,
        cols: std::ops::Range<usize>,
        out: &mut [f32],
    ) => RunTriangle::depths_body
}

impl ScreenTriangle {
    /// Barycentric weights (of the original triangle's second and third corners) at each
    /// corner.
    #[inline(always)]
    fn bary(&self) -> &[[f64; 2]; 3] {
        self.clipped_bary.as_deref().unwrap_or(&CORNER_BARY)
    }

    /// Pixel rows spanned (inclusive).
    #[inline(always)]
    fn rows(&self) -> (usize, usize) {
        (self.row_span.0 as usize, self.row_span.1 as usize)
    }

    /// Pixel columns spanned (inclusive).
    #[inline(always)]
    fn cols(&self) -> (usize, usize) {
        (self.col_span.0 as usize, self.col_span.1 as usize)
    }

    /// `1 / depth` of its nearest corner.
    fn nearest_inv_z(&self) -> f64 {
        self.inv_z[0].max(self.inv_z[1]).max(self.inv_z[2])
    }

    /// A bound on `1 / depth` over the triangle's pixels: no point is nearer than its nearest
    /// corner (1 / depth is linear on the screen), up to the rounding of the interpolation,
    /// which the margin covers.
    fn nearest_possible_inv_z(&self) -> f64 {
        self.nearest_inv_z() * (1.0 + 1e-9)
    }
}

/// The set-ups of the triangles a band drew.
struct Setups {
    /// Per triangle of the band's list: its set-up's index in `made` (`u32::MAX`: not drawn,
    /// which most of a band's triangles are not: a word each rather than an empty set-up).
    of: Vec<u32>,
    made: Vec<Setup>,
}

impl Setups {
    /// The set-up of the band's triangle `index`, if it was drawn.
    #[inline(always)]
    fn get(&self, index: usize) -> Option<&Setup> {
        self.made.get(*self.of.get(index)? as usize)
    }
}

/// A screen triangle's edge functions, set up once per band.
struct Setup {
    /// Per edge (opposite corner k): its canonical start, its oriented direction components
    /// (`sign * (hi - lo)`, exact), and whether a pixel centre exactly on it belongs here.
    edges: [([f64; 2], f64, f64, bool); 3],
    /// Per edge: `dx / dy` (infinite or NaN for a horizontal edge), to estimate where a row
    /// crosses it with a multiplication (the estimate only bounds the exact tests).
    slopes: [f64; 3],
    inv_area: f64,
}

impl Setup {
    fn new(t: &ScreenTriangle) -> Option<Setup> {
        let [a, b, c] = t.xy;
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area == 0.0 || !area.is_finite() {
            return None;
        }
        let orientation = area.signum();
        let edges = std::array::from_fn(|k| {
            let (p, q) = match k {
                0 => (b, c),
                1 => (c, a),
                _ => (a, b),
            };
            let (lo, hi, sign) = if (p[0], p[1]) <= (q[0], q[1]) {
                (p, q, orientation)
            } else {
                (q, p, -orientation)
            };
            // The edge as this triangle walks it (positively oriented): one of the two
            // triangles sharing it walks it each way, and exactly one of the two ways owns the
            // ties.
            let (dx, dy) = (sign * (hi[0] - lo[0]), sign * (hi[1] - lo[1]));
            let owns_ties = dy > 0.0 || (dy == 0.0 && dx > 0.0);
            (lo, dx, dy, owns_ties)
        });
        Some(Setup {
            edges,
            slopes: edges.map(|(_, dx, dy, _)| dx / dy),
            inv_area: 1.0 / (area * orientation),
        })
    }

    /// The edges' terms that depend on the row only, for [`Setup::weights`].
    fn row_terms(&self, row: usize) -> [f64; 3] {
        let py = coordinate(row);
        self.edges.map(|(lo, dx, _, _)| dx * (py - lo[1]))
    }

    /// The perspective weights (`lambda_k / z_k`) at the pixel centre of column `col` in the
    /// row of `row_terms` (for pixels the triangle covers).
    #[inline(always)]
    fn weights(&self, t: &ScreenTriangle, row_terms: &[f64; 3], col: usize) -> [f64; 3] {
        let px = coordinate(col);
        std::array::from_fn(|k| {
            let (lo, _, dy, _) = self.edges[k];
            // The very edge values `cover` found non-negative here.
            let e = row_terms[k] - dy * (px - lo[0]);
            e * self.inv_area * t.inv_z[k]
        })
    }
}

/// `v.ceil().max(0.0)`, where it matters for a box's first pixel centre (any value from
/// 2^31 on is past the last), without a library call: SSE2 has no rounding instruction.
#[inline(always)]
fn first_centre(v: f64) -> f64 {
    if v > 0.0 && v < 2147483648.0 {
        let down = f64::from(v as u32);
        down + f64::from(u8::from(down < v))
    } else if v > 0.0 {
        v
    } else {
        // Below zero, or NaN (which `f64::max` turns into 0).
        0.0
    }
}

/// `v.floor().min(size as f64 - 1.0)`, where it matters for a box's last pixel centre (any
/// negative value is before the first), without a library call.
#[inline(always)]
fn last_centre(v: f64, size: usize) -> f64 {
    let last = size as f64 - 1.0;
    if v >= 0.0 && v < last {
        f64::from(v as u32)
    } else if v < 0.0 {
        -1.0
    } else {
        // At or past the last, or NaN (which `f64::min` turns into the last).
        last
    }
}

/// A pixel column or row as a float, through `u32`: one conversion instruction where `usize`
/// takes several (it may not fit a signed integer); images are far below 2^32 pixels a side.
#[inline(always)]
fn coordinate(index: usize) -> f64 {
    f64::from(index as u32)
}

/// Appends the screen-space parts of one triangle (its corners in the optical frame with their
/// projections) that lie in front of the near plane and may cover a pixel centre.
#[allow(clippy::too_many_arguments)]
fn screen_triangles(
    p: [&(Vec3A, [f64; 3], u8); 3],
    instance: u32,
    triangle: u32,
    [fx, fy, cx, cy]: [f64; 4],
    (near, far): (f64, f64),
    (w, h): (usize, usize),
    out: &mut Vec<ScreenTriangle>,
) {
    let z = p.map(|q| f64::from(q.0.z));
    if (z[0] < near && z[1] < near && z[2] < near) || (z[0] > far && z[1] > far && z[2] > far) {
        return;
    }
    if z[0] >= near && z[1] >= near && z[2] >= near {
        let xy = p.map(|q| [q.1[0], q.1[1]]);
        push(out, xy, p.map(|q| q.1[2]), None, instance, triangle, (w, h));
        return;
    }
    // Clip against the near plane: up to four corners (screen position, 1/z, barycentrics).
    let mut poly = [([0.0f64; 2], 0.0f64, [0.0f64; 2]); 4];
    let mut n = 0;
    for k in 0..3 {
        let (a, b) = (k, (k + 1) % 3);
        if z[a] >= near {
            poly[n] = ([p[a].1[0], p[a].1[1]], p[a].1[2], CORNER_BARY[a]);
            n += 1;
        }
        if (z[a] >= near) != (z[b] >= near) {
            // From the endpoints in a canonical order, so both triangles sharing the edge get
            // the very same point.
            let (lo, hi) = (a.min(b), a.max(b));
            let (plo, phi) = (p[lo].0, p[hi].0);
            let s = (near - z[lo]) / (z[hi] - z[lo]);
            let x = f64::from(plo.x) + (f64::from(phi.x) - f64::from(plo.x)) * s;
            let y = f64::from(plo.y) + (f64::from(phi.y) - f64::from(plo.y)) * s;
            let (bl, bh) = (CORNER_BARY[lo], CORNER_BARY[hi]);
            poly[n] = (
                [fx * x / near + cx, fy * y / near + cy],
                1.0 / near,
                [bl[0] + (bh[0] - bl[0]) * s, bl[1] + (bh[1] - bl[1]) * s],
            );
            n += 1;
        }
    }
    for k in 1..n.saturating_sub(1) {
        let corners = [poly[0], poly[k], poly[k + 1]];
        push(
            out,
            corners.map(|c| c.0),
            corners.map(|c| c.1),
            Some(corners.map(|c| c.2)),
            instance,
            triangle,
            (w, h),
        );
    }
}

/// Appends a screen triangle if its box holds a pixel centre of the image.
fn push(
    out: &mut Vec<ScreenTriangle>,
    xy: [[f64; 2]; 3],
    inv_z: [f64; 3],
    clipped_bary: Option<[[f64; 2]; 3]>,
    instance: u32,
    triangle: u32,
    (w, h): (usize, usize),
) {
    let min_x = xy[0][0].min(xy[1][0]).min(xy[2][0]);
    let max_x = xy[0][0].max(xy[1][0]).max(xy[2][0]);
    let min_y = xy[0][1].min(xy[1][1]).min(xy[2][1]);
    let max_y = xy[0][1].max(xy[1][1]).max(xy[2][1]);
    // Pixel centres (integers) inside the box and the image.
    let (c0, c1) = (first_centre(min_x), last_centre(max_x, w));
    let (r0, r1) = (first_centre(min_y), last_centre(max_y, h));
    if !(c0 <= c1 && r0 <= r1) {
        return;
    }
    out.push(ScreenTriangle {
        xy,
        inv_z,
        clipped_bary: clipped_bary.map(Box::new),
        instance,
        triangle,
        row_span: (r0 as u32, r1 as u32),
        col_span: (c0 as u32, c1 as u32),
    });
}

mod cover;
mod segments;
#[cfg(test)]
mod tests;
