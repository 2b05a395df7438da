//! A binary BVH over axis-aligned boxes, built with the binned surface-area heuristic.
//!
//! Layout invariants (checked by [`Bvh::validate`]): nodes are stored depth-first from the
//! root at index 0; an inner node's left child is the next node and `right` names the other; a
//! leaf covers `count > 0` consecutive entries of `prims` starting at `first`; every node's box
//! contains its children's boxes (or its primitives' boxes). Children always come after their
//! parent. Meshes keep only the 4-wide tree collapsed from this one (`wide.rs`).

use glam::Vec3A;

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3A,
    /// Largest corner.
    pub max: Vec3A,
}

impl Aabb {
    /// The empty box (grows from nothing).
    pub const EMPTY: Aabb = Aabb {
        min: Vec3A::splat(f32::INFINITY),
        max: Vec3A::splat(f32::NEG_INFINITY),
    };

    /// Grows to contain a point.
    pub fn grow(&mut self, p: Vec3A) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// Grows to contain a box.
    pub fn merge(&mut self, b: &Aabb) {
        self.min = self.min.min(b.min);
        self.max = self.max.max(b.max);
    }

    /// Half the surface area (the SAH only compares areas).
    pub fn half_area(&self) -> f32 {
        let d = (self.max - self.min).max(Vec3A::ZERO);
        d.x * d.y + d.y * d.z + d.z * d.x
    }

    /// The centre.
    pub fn center(&self) -> Vec3A {
        (self.min + self.max) * 0.5
    }

    /// Whether the box contains another (with a tolerance for refit rounding).
    pub fn contains(&self, b: &Aabb) -> bool {
        self.min.cmple(b.min + 1e-5).all() && self.max.cmpge(b.max - 1e-5).all()
    }
}

/// A node: a box and either two children or a run of primitives.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The bounds.
    pub bounds: Aabb,
    /// Inner: index of the right child (the left is the next node). Leaf: first primitive.
    pub right_or_first: u32,
    /// Leaf: number of primitives (> 0). Inner: 0.
    pub count: u32,
}

/// A bounding volume hierarchy over primitives given by their boxes.
#[derive(Clone, Debug, Default)]
pub struct Bvh {
    /// Nodes, depth-first.
    pub nodes: Vec<Node>,
    /// Primitive indices in leaf order.
    pub prims: Vec<u32>,
}

const BINS: usize = 16;
const MAX_LEAF: usize = 4;
/// Cost of a node visit relative to a test of four triangles, for the SAH.
pub(crate) const TRAVERSAL_COST: f32 = 0.5;
/// Depth after which splits are medians: the tree is at most `MAX_SAH_DEPTH + log2(n)` deep,
/// which bounds the traversal stack ([`MAX_DEPTH`]).
const MAX_SAH_DEPTH: usize = 64;
/// No tree is deeper than this (64 SAH levels, then at most 32 median levels for 2^32 primitives).
pub const MAX_DEPTH: usize = 100;
/// Subtrees at least this large are built in parallel.
const PARALLEL_THRESHOLD: usize = 4096;

struct BuildItem {
    bounds: Aabb,
    center: Vec3A,
    prim: u32,
}

impl Bvh {
    /// Builds over primitive boxes (index = primitive id). The result does not depend on the
    /// number of threads.
    pub fn build(boxes: &[Aabb]) -> Bvh {
        Bvh::build_over(boxes, 0..boxes.len() as u32)
    }

    /// Builds over the primitives `members` (indices into `boxes`, each at most once) alone:
    /// `prims` holds those indices. The result does not depend on the number of threads.
    pub fn build_over(boxes: &[Aabb], members: impl Iterator<Item = u32>) -> Bvh {
        Bvh::build_over_with(|prim| boxes[prim as usize], members)
    }

    /// As [`Bvh::build_over`], with primitive `p`'s box given by `box_of(p)`.
    pub fn build_over_with(
        box_of: impl Fn(u32) -> Aabb,
        members: impl Iterator<Item = u32>,
    ) -> Bvh {
        let mut items: Vec<BuildItem> = members
            .map(|prim| {
                let b = box_of(prim);
                BuildItem {
                    bounds: b,
                    center: b.center(),
                    prim,
                }
            })
            .collect();
        if items.is_empty() {
            return Bvh::default();
        }
        let mut nodes = Vec::with_capacity(2 * items.len() / MAX_LEAF + 1);
        build_into(&mut items, 0, &mut nodes, 0);
        // The guess above is short for most trees (a leaf holds two to four), and the vector's
        // doubling would leave up to half of it unused: a top level's tree is kept for as long
        // as the scene, a node or so per instance.
        nodes.shrink_to_fit();
        Bvh {
            nodes,
            prims: items.into_iter().map(|i| i.prim).collect(),
        }
    }

    /// Checks the layout invariants against the primitive boxes; `Err` names the first broken one.
    pub fn validate(&self, boxes: &[Aabb]) -> Result<(), String> {
        let mut seen = vec![false; boxes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            if n.count > 0 {
                let first = n.right_or_first as usize;
                for &p in self
                    .prims
                    .get(first..first + n.count as usize)
                    .ok_or(format!("leaf {i} out of range"))?
                {
                    if !n.bounds.contains(&boxes[p as usize]) {
                        return Err(format!("leaf {i} does not contain primitive {p}"));
                    }
                    if std::mem::replace(&mut seen[p as usize], true) {
                        return Err(format!("primitive {p} is in two leaves"));
                    }
                }
            } else {
                let (l, r) = (i + 1, n.right_or_first as usize);
                if r <= l || r >= self.nodes.len() {
                    return Err(format!("node {i} has children {l}, {r}"));
                }
                if !n.bounds.contains(&self.nodes[l].bounds)
                    || !n.bounds.contains(&self.nodes[r].bounds)
                {
                    return Err(format!("node {i} does not contain its children"));
                }
            }
        }
        match seen.iter().position(|s| !s) {
            Some(p) if !self.nodes.is_empty() => Err(format!("primitive {p} is in no leaf")),
            _ => Ok(()),
        }
    }
}

/// Builds the subtree of `items` (which will occupy `prims[offset..]`), appending its nodes.
fn build_into(items: &mut [BuildItem], offset: usize, nodes: &mut Vec<Node>, depth: usize) {
    let mut bounds = Aabb::EMPTY;
    let mut centers = Aabb::EMPTY;
    for it in items.iter() {
        bounds.merge(&it.bounds);
        centers.grow(it.center);
    }
    let me = nodes.len();
    nodes.push(Node {
        bounds,
        right_or_first: offset as u32,
        count: items.len() as u32,
    });
    if items.len() <= MAX_LEAF {
        return;
    }
    // Past MAX_SAH_DEPTH, median splits bound the depth (and so the traversal stack).
    let split = if depth < MAX_SAH_DEPTH {
        best_split(items, &bounds, &centers)
    } else {
        None
    };
    let Some(split) = split else {
        if items.len() <= 4 * MAX_LEAF && depth < MAX_SAH_DEPTH {
            return; // identical centres: keep a (slightly larger) leaf
        }
        let axis = (centers.max - centers.min)
            .to_array()
            .iter()
            .enumerate()
            .fold(0, |best, (i, e)| {
                if *e > (centers.max - centers.min)[best] {
                    i
                } else {
                    best
                }
            });
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |a, b| {
            a.center[axis]
                .total_cmp(&b.center[axis])
                .then(a.prim.cmp(&b.prim))
        });
        return split_at(items, mid, offset, me, nodes, depth);
    };
    let mid = partition(items, |it| {
        bins_of(it.center, &centers)[split.axis] < split.bin
    });
    if mid == 0 || mid == items.len() {
        return;
    }
    split_at(items, mid, offset, me, nodes, depth);
}

fn split_at(
    items: &mut [BuildItem],
    mid: usize,
    offset: usize,
    me: usize,
    nodes: &mut Vec<Node>,
    depth: usize,
) {
    let (left, right) = items.split_at_mut(mid);
    if left.len() + right.len() >= PARALLEL_THRESHOLD {
        // Build both halves into their own node lists, then splice: the same tree as the
        // sequential build, whatever the thread count.
        let (mut l_nodes, mut r_nodes) = (Vec::new(), Vec::new());
        rayon::join(
            || build_into(left, offset, &mut l_nodes, depth + 1),
            || build_into(right, offset + mid, &mut r_nodes, depth + 1),
        );
        let l_base = nodes.len() as u32;
        let r_base = l_base + l_nodes.len() as u32;
        relocate(&mut l_nodes, l_base);
        relocate(&mut r_nodes, r_base);
        nodes.extend(l_nodes);
        nodes.extend(r_nodes);
        nodes[me].right_or_first = r_base;
    } else {
        build_into(left, offset, nodes, depth + 1);
        let right_index = nodes.len() as u32;
        build_into(right, offset + mid, nodes, depth + 1);
        nodes[me].right_or_first = right_index;
    }
    nodes[me].count = 0;
}

/// Shifts the child links of nodes built in a separate list.
fn relocate(nodes: &mut [Node], base: u32) {
    for n in nodes.iter_mut().filter(|n| n.count == 0) {
        n.right_or_first += base;
    }
}

struct Split {
    axis: usize,
    bin: usize,
}

/// The bin of a centre along each axis, `floor((c - min) / extent * BINS)` (one vector
/// division for the three axes; binning and partitioning use this one function, so they agree
/// on every item). Axes the centres do not spread over are not binned by the caller.
#[inline]
fn bins_of(c: Vec3A, centers: &Aabb) -> [usize; 3] {
    let extent = centers.max - centers.min;
    // Clamped as floats first (NaN, from an axis without extent, to 0: `max` keeps its
    // argument), so the conversion needs none of a saturating cast's checks: the same bins
    // as `(b as usize).min(BINS - 1)`, in a few vector operations instead of about forty.
    let bins = ((c - centers.min) / extent * BINS as f32)
        .max(Vec3A::ZERO)
        .min(Vec3A::splat((BINS - 1) as f32))
        .as_uvec3();
    bins.to_array().map(|b| b as usize)
}

/// The cheapest SAH split over binned centroids on any axis, if it beats a leaf. The items are
/// binned along the three axes in one pass.
fn best_split(items: &[BuildItem], bounds: &Aabb, centers: &Aabb) -> Option<Split> {
    let mut bin_bounds = [[Aabb::EMPTY; BINS]; 3];
    let mut bin_counts = [[0u32; BINS]; 3];
    for it in items {
        let bins = bins_of(it.center, centers);
        for axis in 0..3 {
            bin_bounds[axis][bins[axis]].merge(&it.bounds);
            bin_counts[axis][bins[axis]] += 1;
        }
    }
    let mut best: Option<(f32, usize, usize)> = None;
    for axis in 0..3 {
        if centers.max[axis] - centers.min[axis] <= 0.0 {
            continue;
        }
        let (bin_bounds, bin_counts) = (&bin_bounds[axis], &bin_counts[axis]);
        // Sweep from the right, then from the left.
        let mut right_area = [0.0f32; BINS];
        let mut acc = Aabb::EMPTY;
        let mut count = 0;
        let mut right_count = [0u32; BINS];
        for b in (1..BINS).rev() {
            acc.merge(&bin_bounds[b]);
            count += bin_counts[b];
            right_area[b] = acc.half_area();
            right_count[b] = count;
        }
        let mut acc = Aabb::EMPTY;
        let mut count = 0;
        for b in 1..BINS {
            acc.merge(&bin_bounds[b - 1]);
            count += bin_counts[b - 1];
            if count == 0 || right_count[b] == 0 {
                continue;
            }
            let cost = acc.half_area() * packs(count as usize)
                + right_area[b] * packs(right_count[b] as usize);
            if best.is_none_or(|(c, _, _)| cost < c) {
                best = Some((cost, axis, b));
            }
        }
    }
    let (cost, axis, bin) = best?;
    let leaf_cost = bounds.half_area() * packs(items.len());
    let split_cost = TRAVERSAL_COST * bounds.half_area() + cost;
    (split_cost < leaf_cost || items.len() > 4 * MAX_LEAF).then_some(Split { axis, bin })
}

/// Leaves are tested four triangles at a time (`TriPack`), so the SAH prices a leaf by its
/// packs, as Embree does: leaves of exactly four or eight are favoured and packs fill up.
fn packs(count: usize) -> f32 {
    count.div_ceil(4) as f32
}

/// Stable-order-independent partition: items satisfying `left` first. Deterministic.
fn partition(items: &mut [BuildItem], left: impl Fn(&BuildItem) -> bool) -> usize {
    let mut i = 0;
    for j in 0..items.len() {
        if left(&items[j]) {
            items.swap(i, j);
            i += 1;
        }
    }
    i
}
