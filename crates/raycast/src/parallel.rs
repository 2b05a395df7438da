//! Rays that share one direction (shadow rays towards the sun), answered from a grid over the
//! plane across that direction: each cell lists the leaves of the instances' trees whose boxes,
//! seen along the direction, may cover it, so a ray looks only at the leaves over its origin
//! instead of walking down the top level and each instance's tree. Most of those it passes
//! over with one comparison per axis: a box that ends behind the ray's origin along an axis
//! (the floor under a point on it, a wall behind it) is one its box test refuses.
//!
//! Invariant: a ray gets exactly [`Scene::any_hit`]'s answer. That walk finds a hit if and only
//! if some instance whose world box and root box the ray reaches has a leaf whose box the ray
//! reaches (entering it by `t_max`), holding a triangle the ray hits before `t_max`: the boxes
//! around a leaf hold its box, so a ray reaching the leaf's box reaches theirs too (the slab
//! test rounds monotonically). Here the same tests decide, with the same arithmetic; the grid
//! only narrows which leaves are asked:
//! - a cell lists every leaf whose footprint, widened far beyond the rounding of those tests,
//!   covers it (argued for scenes within [`MAX_COORDINATE`] of the origin and placements
//!   scaled evenly within [`MAX_UNEVEN_SCALE`]; beyond those, or past the size budgets, no grid
//!   is made and rays take the walk);
//! - a leaf is passed over only when its box (in the frame the ray is tested in: the world for
//!   an instance placed as it is, else the instance's world box, which the walk tests first)
//!   ends behind the origin along an axis the ray moves along, compared exactly: then that
//!   axis's slab distances are both negative (a difference of two different floats keeps its
//!   sign), the box test's exit is below 0, and a ray starting at `t_min >= 0` misses the box.

use crate::ray::{Ray, Shear};
use crate::scene::{Scene, share_direction};
use glam::{Affine3A, Vec3A};

/// A leaf that is its mesh's whole tree (a mesh of a few triangles).
pub(crate) const ROOT_LEAF: u32 = u32::MAX;

/// The largest world coordinate (of a leaf's box) the widening is argued for, metres.
pub const MAX_COORDINATE: f32 = 1e4;

/// The largest ratio between a placement's scale along two axes the widening is argued for.
pub const MAX_UNEVEN_SCALE: f32 = 10.0;

/// How far footprints are widened: an absolute part and a part relative to the size of the
/// scene's coordinates (rays' slab distances and moved origins are within a few tens of
/// `f32::EPSILON` of that size; this is a thousand times more).
const MARGIN_ABSOLUTE: f32 = 1e-3;
const MARGIN_RELATIVE: f32 = 1e-4;

/// Cells at most per axis.
const MAX_CELLS_PER_AXIS: usize = 1024;

/// The most leaves a cell (or the list of the largest) may hold.
const MAX_LIST: usize = 1024;

/// How many times a typical leaf's footprint a leaf's must be to be listed for every ray.
const HUGE: f32 = 256.0;

/// Leaves of one instance tested together (their instance's set-up made once).
const GROUP: usize = 16;

/// Neighbouring rays over one cell that share its list in [`ParallelGrid::any_hit_run`] (at
/// most a packet's).
const RUN: usize = 16;

/// The leaves over each cell of the plane across one direction.
#[derive(Clone, Debug)]
pub struct ParallelGrid {
    /// The rays' direction, bit for bit (other rays take the walk).
    dir: Vec3A,
    /// Unit axes of the plane across it.
    across: [Vec3A; 2],
    /// The plane's coordinates of the grid's corner.
    corner: [f32; 2],
    inv_cell: f32,
    dims: [usize; 2],
    /// Cell `c` (row-major) lists `entries[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    /// Grouped by instance within a cell, in instance order.
    entries: Vec<Entry>,
    /// The largest world coordinate of the leaves' boxes: rays from farther out take the walk
    /// (the widening is relative to it).
    reach: f32,
    /// Per instance: the direction's world inverse and its shear in the instance's frame
    /// (what each ray would work out again).
    along: Vec<(Vec3A, Shear)>,
    /// Per axis, 1 or -1 as the direction goes towards + or - that axis (0 if neither).
    signs: Vec3A,
    /// Leaves far larger than most, listed for every ray rather than in cells.
    everywhere: Vec<Entry>,
}

/// A leaf listed in a cell.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    instance: u32,
    /// `node << 2 | slot` of the leaf in the mesh's 4-wide tree, or [`ROOT_LEAF`].
    leaf: u32,
    /// Where the box the ray is first tested against ends along each axis the direction moves
    /// along, times that axis's sign (`+inf` for the others): the box lies behind an origin
    /// `o` when `behind[a] < signs[a] * o[a]` on some axis (both sides exact).
    behind: [f32; 3],
}

/// A leaf's footprint on the plane: `[u_lo, u_hi, v_lo, v_hi]`.
type Footprint = [f32; 4];

/// How large a grid may be.
#[derive(Clone, Copy, Debug)]
pub struct GridBudget {
    /// Leaves in the scene: making the grid costs about as much per leaf as tracing a few
    /// rays, so a scene of more leaves than its rays can repay is left to the walk.
    pub max_leaves: usize,
    /// Entries (leaves times the cells each covers), 20 bytes each.
    pub max_entries: usize,
}

impl ParallelGrid {
    /// The grid of `scene` for rays along `dir`, within `budget`; `None` when the scene is
    /// larger than that or outside the bounds the widening is argued for (see the module's
    /// comment), or `dir` is not a usable direction.
    pub fn new(scene: &Scene, dir: Vec3A, budget: GridBudget) -> Option<ParallelGrid> {
        let unit = dir.normalize_or_zero();
        if unit == Vec3A::ZERO || !unit.is_finite() || !leaves_within(scene, budget.max_leaves) {
            return None;
        }
        let u_axis = unit.any_orthonormal_vector();
        let across = [u_axis, unit.cross(u_axis)];
        let signs = dir.signum() * Vec3A::select(dir.cmpeq(Vec3A::ZERO), Vec3A::ZERO, Vec3A::ONE);
        let (prints, largest) = footprints(scene, &across, signs)?;
        let margin = MARGIN_ABSOLUTE + MARGIN_RELATIVE * largest;
        let prints: Vec<(Entry, Footprint)> = (prints.into_iter())
            .map(|(entry, p)| {
                (
                    entry,
                    [p[0] - margin, p[1] + margin, p[2] - margin, p[3] + margin],
                )
            })
            .collect();
        let extent_of = |p: &Footprint| (p[1] - p[0]).max(p[3] - p[2]);
        // A typical leaf's footprint (the median's) sets the cells' size; leaves far larger (a
        // ground, a slab of floor) are listed once for every cell instead, and the cells span
        // the rest only (a room on a ground kilometres wide keeps cells of its own size).
        let mut extents: Vec<f32> = prints.iter().map(|(_, p)| extent_of(p)).collect();
        let median = if extents.is_empty() {
            0.0
        } else {
            let middle = extents.len() / 2;
            *extents.select_nth_unstable_by(middle, f32::total_cmp).1
        };
        let (everywhere, prints): (Vec<_>, Vec<_>) =
            (prints.into_iter()).partition(|(_, p)| extent_of(p) > HUGE * median.max(margin));
        let everywhere: Vec<Entry> = everywhere.into_iter().map(|(entry, _)| entry).collect();
        if everywhere.len() > MAX_LIST {
            return None;
        }
        let mut bounds = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for (_, p) in &prints {
            bounds = [
                bounds[0].min(p[0]),
                bounds[1].max(p[1]),
                bounds[2].min(p[2]),
                bounds[3].max(p[3]),
            ];
        }
        let corner = [bounds[0], bounds[2]];
        let (width, height) = (
            (bounds[1] - bounds[0]).max(0.0),
            (bounds[3] - bounds[2]).max(0.0),
        );
        // Coarser until the entries fit; no finer than the widening, nor than the grid's most
        // cells span.
        let widest = width.max(height) / (MAX_CELLS_PER_AXIS - 1) as f32;
        let mut cell = median.max(margin).max(widest);
        let inv = dir.recip();
        let along: Vec<(Vec3A, Shear)> = (0..scene.instance_count() as u32)
            .map(|index| (inv, Shear::new(scene.instance(index).dir_to_mesh(dir))))
            .collect();
        for _ in 0..16 {
            let grid = ParallelGrid {
                dir,
                across,
                corner,
                inv_cell: 1.0 / cell,
                dims: [width, height]
                    .map(|extent| ((extent / cell).floor() as usize + 1).min(MAX_CELLS_PER_AXIS)),
                starts: Vec::new(),
                entries: Vec::new(),
                reach: largest,
                along: Vec::new(),
                signs,
                everywhere: Vec::new(),
            };
            if let Some(mut grid) = grid.filled(&prints, budget.max_entries) {
                // Cells too coarse for the leaves over them (a dense pile of large triangles):
                // a ray would scan a long list where the walk goes straight down.
                let densest = grid.starts.windows(2).map(|w| w[1] - w[0]).max();
                if densest.is_some_and(|n| n as usize > MAX_LIST) {
                    return None;
                }
                grid.along = along;
                grid.everywhere = everywhere;
                return Some(grid);
            }
            cell *= 2.0;
        }
        None
    }

    /// The cells' range of a footprint (inclusive), clamped to the grid.
    fn span(&self, p: &Footprint) -> [usize; 4] {
        let index = |value: f32, axis: usize| {
            // Truncation: the floor of what is not below 0, as `any_hit` takes it.
            let at = ((value - self.corner[axis]) * self.inv_cell).max(0.0);
            (at as usize).min(self.dims[axis] - 1)
        };
        [
            index(p[0], 0),
            index(p[1], 0),
            index(p[2], 1),
            index(p[3], 1),
        ]
    }

    /// The grid with its lists, if they hold at most `max_entries` entries.
    fn filled(mut self, prints: &[(Entry, Footprint)], max_entries: usize) -> Option<Self> {
        let cells = self.dims[0] * self.dims[1];
        let mut counts = vec![0u32; cells + 1];
        let mut total = 0usize;
        for (_, p) in prints {
            let [u0, u1, v0, v1] = self.span(p);
            total += (u1 - u0 + 1) * (v1 - v0 + 1);
            if total > max_entries {
                return None;
            }
            for v in v0..=v1 {
                for c in &mut counts[v * self.dims[0] + u0..=v * self.dims[0] + u1] {
                    *c += 1;
                }
            }
        }
        // Prefix sums: `counts[c]` becomes where cell c's list starts.
        let mut start = 0u32;
        for c in &mut counts {
            let n = *c;
            *c = start;
            start += n;
        }
        let mut next = counts.clone();
        let mut entries = vec![Entry::default(); total];
        for (entry, p) in prints {
            let [u0, u1, v0, v1] = self.span(p);
            for v in v0..=v1 {
                for u in u0..=u1 {
                    let c = v * self.dims[0] + u;
                    entries[next[c] as usize] = *entry;
                    next[c] += 1;
                }
            }
        }
        self.starts = counts;
        self.entries = entries;
        Some(self)
    }

    /// The direction the grid answers for.
    pub fn dir(&self) -> Vec3A {
        self.dir
    }

    /// Entries held (leaves times the cells each covers, and the largest leaves once): its
    /// size.
    pub fn entry_count(&self) -> usize {
        self.entries.len() + self.everywhere.len()
    }

    /// Whether `ray` hits anything in `scene` (the scene the grid was made from, unchanged
    /// since), exactly as [`Scene::any_hit`] answers it.
    pub fn any_hit(&self, scene: &Scene, ray: &Ray) -> bool {
        if !self.answers(ray) {
            return scene.any_hit(ray);
        }
        if let Some(c) = self.cell_of(ray) {
            let list = self.list(c);
            if self.blocks(scene, ray, list) {
                return true;
            }
        }
        !self.everywhere.is_empty() && self.blocks(scene, ray, &self.everywhere)
    }

    /// `out[i] = self.any_hit(scene, &rays[i])`, for a run of neighbouring rays (a camera's
    /// shadow rays in pixel order). Where the CPU tests sixteen rays a triangle at a time,
    /// rays over one cell go [`RUN`] at a time: their cell's list is read once for them all, a
    /// leaf whose box ends behind every one of their origins is passed over for them all (each
    /// would pass over it), and the rest are tested on all of them together, instance by
    /// instance (the instance's box, then the leaves' boxes and triangles, as
    /// [`Scene::leaves_block`] tests one ray: the same answers).
    pub fn any_hit_run(&self, scene: &Scene, rays: &[Ray], out: &mut [bool]) {
        let n = rays.len().min(out.len());
        if !crate::mesh::wide_leaf_tests() || !share_direction(self.dir, rays) {
            for (out, ray) in out.iter_mut().zip(rays) {
                *out = self.any_hit(scene, ray);
            }
            return;
        }
        self.any_hit_chunks(scene, n, |k| rays[k], out);
    }

    /// [`ParallelGrid::any_hit_run`] for the rays along the grid's direction from `origins`
    /// (given axis by axis), each over `t_min..=t_max`: `out[i]` answers the ray from origin
    /// `i`. The rays are made whole only where a test needs them so.
    pub fn any_hit_from(
        &self,
        scene: &Scene,
        origins: [&[f32]; 3],
        range: (f32, f32),
        out: &mut [bool],
    ) {
        any_hit_from_widest(self, scene, origins, range, out);
    }

    /// [`ParallelGrid::any_hit_from`]'s body (compiled for each vector width).
    #[inline(always)]
    fn any_hit_from_body(
        &self,
        scene: &Scene,
        [xs, ys, zs]: [&[f32]; 3],
        (t_min, t_max): (f32, f32),
        out: &mut [bool],
    ) {
        let n = out.len().min(xs.len()).min(ys.len()).min(zs.len());
        let ray = |k: usize| Ray {
            origin: Vec3A::new(xs[k], ys[k], zs[k]),
            dir: self.dir,
            t_min,
            t_max,
        };
        if !crate::mesh::wide_leaf_tests() {
            for (k, out) in out[..n].iter_mut().enumerate() {
                *out = self.any_hit(scene, &ray(k));
            }
            return;
        }
        self.any_hit_chunks(scene, n, ray, out);
    }

    /// `out[k]` for the `n` rays `ray(k)` along the grid's direction, [`RUN`] at a time (see
    /// [`ParallelGrid::any_hit_run`]).
    #[inline(always)]
    fn any_hit_chunks(
        &self,
        scene: &Scene,
        n: usize,
        ray: impl Fn(usize) -> Ray,
        out: &mut [bool],
    ) {
        // Made once for the run: the leaves ahead of some of a chunk's rays, and the chunk's
        // rays when a leaf is.
        let mut ahead: Vec<Entry> = Vec::new();
        let mut run: Vec<Ray> = Vec::with_capacity(RUN);
        let mut start = 0;
        while start < n {
            let chunk = start..(start + RUN).min(n);
            // The origins lane by lane (unused lanes repeat the first ray), and whether every
            // ray's range is one the grid answers for.
            let mut origins = [[0.0f32; RUN]; 3];
            let mut range_ok = true;
            for k in 0..RUN {
                let ray = ray(if k < chunk.len() { start + k } else { start });
                for (axis, lanes) in origins.iter_mut().enumerate() {
                    lanes[k] = ray.origin[axis];
                }
                range_ok &= !ray.t_min.is_nan() && ray.t_min >= 0.0;
            }
            // A chunk that crosses into another cell goes up to the crossing (the rest starts
            // the next chunk); one whose first rays are not over one cell goes ray by ray.
            let shared = (self.shared_cell(&origins, chunk.len()))
                .filter(|&(_, _, together)| range_ok && together > 1);
            let Some((c, nearest, together)) = shared else {
                for (out, k) in out[chunk.clone()].iter_mut().zip(chunk.clone()) {
                    *out = self.any_hit(scene, &ray(k));
                }
                start = chunk.end;
                continue;
            };
            let chunk = start..start + together;
            start = chunk.end;
            let out = &mut out[chunk.clone()];
            let not_behind = |entry: &&Entry| !Vec3A::from_array(entry.behind).cmplt(nearest).any();
            ahead.clear();
            ahead.extend(self.list(c).iter().filter(not_behind).copied());
            ahead.extend(self.everywhere.iter().filter(not_behind).copied());
            out.fill(false);
            if ahead.is_empty() {
                continue;
            }
            run.clear();
            run.extend(chunk.map(&ray));
            let all = u32::MAX >> (32 - run.len());
            let mut blocked = 0;
            for leaves in ahead.chunk_by(|a, b| a.instance == b.instance) {
                let open = all & !blocked;
                if open == 0 {
                    break;
                }
                let leaf_codes = leaves.iter().map(|entry| entry.leaf);
                blocked |= scene.leaves_block_run(leaves[0].instance, &run, open, leaf_codes);
            }
            for (k, out) in out.iter_mut().enumerate() {
                *out = blocked >> k & 1 != 0;
            }
        }
    }

    /// The cell under the first of a chunk's origins (given lane by lane, along the grid's
    /// direction; `len` of them), if the grid answers for it (its range aside), with how many
    /// of the first lanes lie over it too (each one the grid answers for) and the least of
    /// each axis's signed origin over those. [`ParallelGrid::answers`] and
    /// [`ParallelGrid::cell_of`] for all the lanes at once, without their branches, in a loop
    /// the compiler lays out in vectors: the first lane's cell is `(u0, v0)`, and another's
    /// the same exactly when its coordinates lie in `[u0, u0 + 1)` and `[v0, v0 + 1)` (whole
    /// numbers below 2^24 are exact in `f32`). For finite origins these are `cell_of`'s
    /// operations (glam's dot product sums `(x + y) + z`; a maximum or a minimum does not
    /// depend on the order it is taken in).
    #[inline(always)]
    fn shared_cell(&self, origins: &[[f32; RUN]; 3], len: usize) -> Option<(usize, Vec3A, usize)> {
        let [xs, ys, zs] = origins;
        let first = Vec3A::new(xs[0], ys[0], zs[0]);
        let [u0, v0] = [0, 1].map(|axis| self.cell_coordinate(first, axis));
        let (u0, v0) = (u0?, v0?);
        if u0.max(v0) >= 1 << 24 {
            return None;
        }
        let ([ux, uy, uz], [vx, vy, vz]) = (self.across[0].to_array(), self.across[1].to_array());
        let [cu, cv] = self.corner;
        let (u_lo, v_lo) = (u0 as f32, v0 as f32);
        let (u_hi, v_hi) = (u_lo + 1.0, v_lo + 1.0);
        let [sx, sy, sz] = self.signs.to_array();
        let mut same = [false; RUN];
        let mut nearest = [[f32::INFINITY; RUN]; 3];
        for k in 0..RUN {
            let (x, y, z) = (xs[k], ys[k], zs[k]);
            let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
            let finite = ax < f32::INFINITY && ay < f32::INFINITY && az < f32::INFINITY;
            let within = ax.max(ay).max(az) <= self.reach;
            let u = (((x * ux + y * uy) + z * uz) - cu) * self.inv_cell;
            let v = (((x * vx + y * vy) + z * vz) - cv) * self.inv_cell;
            let cell = u_lo <= u && u < u_hi && v_lo <= v && v < v_hi;
            same[k] = finite && within && cell;
            nearest[0][k] = x * sx;
            nearest[1][k] = y * sy;
            nearest[2][k] = z * sz;
        }
        let together = same[..len.min(RUN)]
            .iter()
            .take_while(|&&same| same)
            .count();
        if together == 0 {
            return None;
        }
        // (`minps`'s choice: the origins are finite, and where two differ only in a zero's
        // sign the comparisons with them agree.)
        let least = nearest.map(|lanes| {
            (lanes[..together].iter()).fold(f32::INFINITY, |m, &v| if v < m { v } else { m })
        });
        Some((v0 * self.dims[0] + u0, Vec3A::from_array(least), together))
    }

    /// Whether the grid answers for `ray` (else the walk does).
    fn answers(&self, ray: &Ray) -> bool {
        let within = ray.origin.abs().max_element() <= self.reach;
        ray.dir == self.dir && within && !ray.t_min.is_nan() && ray.t_min >= 0.0
    }

    /// The cell under `ray`'s origin, if it is over the grid.
    fn cell_of(&self, ray: &Ray) -> Option<usize> {
        let [u, v] = [0, 1].map(|axis| self.cell_coordinate(ray.origin, axis));
        Some(v? * self.dims[0] + u?)
    }

    /// The column (`axis` 0) or row (1) of the cell under `origin`, if it is over the grid.
    fn cell_coordinate(&self, origin: Vec3A, axis: usize) -> Option<usize> {
        let value = (origin.dot(self.across[axis]) - self.corner[axis]) * self.inv_cell;
        // Beyond the grid (or not finite): under no listed leaf's footprint. (Truncation is
        // the floor of a value not below 0, as `span` takes it.)
        (value >= 0.0 && value < self.dims[axis] as f32).then_some(value as usize)
    }

    /// Cell `c`'s list.
    fn list(&self, c: usize) -> &[Entry] {
        &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize]
    }

    /// Whether one of the leaves of `list` blocks `ray`.
    fn blocks(&self, scene: &Scene, ray: &Ray, list: &[Entry]) -> bool {
        // (Multiplying by 1 or -1 is exact; a 0 meets `+inf`, which is never below it.)
        let origin = ray.origin * self.signs;
        let test = |instance: u32, leaves: &[u32]| {
            !leaves.is_empty()
                && scene.leaves_block(
                    instance,
                    ray,
                    &self.along[instance as usize],
                    leaves.iter().copied(),
                )
        };
        let mut group = [0u32; GROUP];
        let (mut instance, mut held) = (u32::MAX, 0);
        for entry in list {
            if Vec3A::from_array(entry.behind).cmplt(origin).any() {
                continue;
            }
            if entry.instance != instance || held == GROUP {
                if test(instance, &group[..held]) {
                    return true;
                }
                (instance, held) = (entry.instance, 0);
            }
            group[held] = entry.leaf;
            held += 1;
        }
        test(instance, &group[..held])
    }
}

crate::widest_vectors! {
    /// [`ParallelGrid::any_hit_from`] in the widest vectors the CPU has: chunks' origins and
    /// cells sixteen lanes at a time (`shared_cell`).
    fn any_hit_from_widest(
        grid: &ParallelGrid,
        scene: &Scene,
        origins: [&[f32]; 3],
        range: (f32, f32),
        out: &mut [bool],
    ) => ParallelGrid::any_hit_from_body
}

/// Whether the scene's instances hold at most `max` leaves, from their meshes' counts.
fn leaves_within(scene: &Scene, max: usize) -> bool {
    let mut leaves_of: Vec<Option<usize>> = vec![None; scene.mesh_count()];
    let mut leaves = 0usize;
    (0..scene.instance_count() as u32).all(|instance| {
        let mesh = scene.instance(instance).mesh;
        leaves += *leaves_of[mesh.0 as usize].get_or_insert_with(|| scene.mesh(mesh).leaf_count());
        leaves <= max
    })
}

/// Every leaf of the scene as an entry with its footprint on the plane spanned by `across`
/// (not yet widened), and the largest world coordinate met; `None` if a placement is scaled
/// too unevenly or a box is not finite or beyond [`MAX_COORDINATE`].
fn footprints(
    scene: &Scene,
    across: &[Vec3A; 2],
    signs: Vec3A,
) -> Option<(Vec<(Entry, Footprint)>, f32)> {
    // Where a box ends along each axis the direction moves along, times its sign.
    let behind = |min: Vec3A, max: Vec3A| -> [f32; 3] {
        std::array::from_fn(|a| {
            if signs[a] > 0.0 {
                max[a]
            } else if signs[a] < 0.0 {
                -min[a]
            } else {
                f32::INFINITY
            }
        })
    };
    let mut prints = Vec::new();
    let mut largest = 0.0f32;
    for instance in 0..scene.instance_count() as u32 {
        let inst = scene.instance(instance);
        if !evenly_scaled(&inst.world_from_mesh()) {
            return None;
        }
        let world_box = scene.world_box(instance);
        let ok = scene.mesh(inst.mesh).visit_leaf_boxes(|leaf, min, max| {
            let Some((print, size)) = footprint(&inst.world_from_mesh(), min, max, across) else {
                return false;
            };
            largest = largest.max(size);
            let behind = if inst.placed_as_is() {
                behind(min, max)
            } else {
                behind(world_box.min, world_box.max)
            };
            let entry = Entry {
                instance,
                leaf,
                behind,
            };
            prints.push((entry, print));
            true
        });
        if !ok || largest > MAX_COORDINATE {
            return None;
        }
    }
    Some((prints, largest))
}

/// Whether a placement scales its axes within [`MAX_UNEVEN_SCALE`] of each other (and is
/// finite and invertible).
fn evenly_scaled(m: &Affine3A) -> bool {
    let lengths = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis].map(|a| a.length());
    let (lo, hi) = (
        lengths.iter().copied().fold(f32::INFINITY, f32::min),
        lengths.iter().copied().fold(0.0, f32::max),
    );
    lo > 0.0 && hi.is_finite() && hi <= MAX_UNEVEN_SCALE * lo && m.translation.is_finite()
}

/// A mesh-frame box's footprint on the plane spanned by `across` once placed by `m`, with the
/// largest absolute world coordinate the placed box reaches (`None` if not finite).
fn footprint(
    m: &Affine3A,
    min: Vec3A,
    max: Vec3A,
    across: &[Vec3A; 2],
) -> Option<(Footprint, f32)> {
    let centre = m.transform_point3a((min + max) * 0.5);
    let half = (max - min) * 0.5;
    // The placed box's half extents along world axes, and along the plane's axes.
    let axes = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis];
    let world_half = axes[0].abs() * half.x + axes[1].abs() * half.y + axes[2].abs() * half.z;
    let along = |a: Vec3A| {
        let c = centre.dot(a);
        let h = axes[0].dot(a).abs() * half.x
            + axes[1].dot(a).abs() * half.y
            + axes[2].dot(a).abs() * half.z;
        (c - h, c + h)
    };
    let (u0, u1) = along(across[0]);
    let (v0, v1) = along(across[1]);
    let size = (centre.abs() + world_half).max_element();
    let print = [u0, u1, v0, v1];
    (print.iter().all(|x| x.is_finite()) && size.is_finite()).then_some((print, size))
}
