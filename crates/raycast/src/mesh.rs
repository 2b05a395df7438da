//! A triangle mesh with its BVH: build, refit after vertex motion, closest and any hit.

use crate::bvh::{Aabb, Bvh};
use crate::packs::{PackRay, TriPack, intersect_pack};
use crate::ray::{Shear, intersect_box};
use crate::wide::{Bvh4, RayLanes, Slot, decode, intersect4, lane_of};
use glam::Vec3A;

mod doubles;
mod leaf16;
mod packet;
#[cfg(test)]
mod packet_tests;
pub(crate) use doubles::PlaneInDoubles;
pub use packet::PACKET;
pub(crate) use packet::{PacketHead, RayPacket};

/// Whether the wide leaf tests run: the CPU has AVX-512 or AVX2 and the environment does not
/// narrow it (`PASSERBY_VECTORS=baseline`; see [`crate::widest`]). Leaves and runs of rays
/// are then tested sixteen (AVX-512) or eight (AVX2) rays a triangle at a time. Every path
/// gives the same answers.
pub fn wide_leaf_tests() -> bool {
    leaf16::available()
}

/// A triangle mesh in its own frame, ready for ray queries.
#[derive(Clone, Debug)]
pub struct TriangleMesh {
    vertices: Vec<Vec3A>,
    triangles: Vec<[u32; 3]>,
    /// Leaf triangles four at a time, in BVH primitive order; the 4-wide tree's leaf codes
    /// name runs of packs.
    packs: Vec<TriPack>,
    /// The BVH (built binary with the SAH, collapsed 4 wide); its leaves name runs of packs.
    wide: Bvh4,
    /// Scratch: one box per pack, reused by every refit (dynamic meshes only).
    pack_boxes: Vec<Aabb>,
    /// Whether the mesh will move (the first update of a static one rebuilds it).
    dynamic: bool,
    /// SAH cost right after the last full build, to detect refit degradation.
    built_cost: f32,
}

/// A hit in mesh-local terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalHit {
    /// Ray parameter.
    pub t: f32,
    /// Barycentric weight of the second vertex.
    pub u: f32,
    /// Barycentric weight of the third vertex.
    pub v: f32,
    /// Triangle index.
    pub triangle: u32,
    /// Unit geometric normal in the mesh frame (counter-clockwise front).
    pub normal: Vec3A,
}

impl TriangleMesh {
    /// The boxes of node `node`'s children, `(min, max)`, each with its node if it is an inner
    /// one (node 0 is the root; none when the root is a leaf or the mesh is empty): what a ray
    /// must reach to meet a triangle below `node`.
    pub(crate) fn child_boxes(
        &self,
        node: usize,
    ) -> impl Iterator<Item = ((Vec3A, Vec3A), Option<usize>)> + '_ {
        let n = if self.wide.root_leaf.is_some() {
            None
        } else {
            self.wide.nodes.get(node)
        };
        (n.into_iter()).flat_map(|n| {
            (0..4).filter_map(|k| {
                let inner = match decode(n.child[k]) {
                    Slot::Empty => return None,
                    Slot::Inner(i) => Some(i),
                    Slot::Leaf(..) => None,
                };
                Some(((n.corner(&n.min, k), n.corner(&n.max, k)), inner))
            })
        })
    }

    /// Builds a mesh; triangles that index outside `vertices` are dropped, and triangles past
    /// the 2^26th are ignored.
    pub fn new(vertices: Vec<glam::Vec3>, triangles: Vec<[u32; 3]>) -> TriangleMesh {
        let n = vertices.len() as u32;
        // Out-of-range triangles are dropped; a mesh holds at most 2^26 triangles (leaf codes).
        let triangles: Vec<[u32; 3]> = triangles
            .into_iter()
            .filter(|t| t.iter().all(|&i| i < n))
            .take(crate::wide::MAX_PRIMS)
            .collect();
        let mut mesh = TriangleMesh {
            vertices: vertices.into_iter().map(Vec3A::from).collect(),
            triangles,
            packs: Vec::new(),
            wide: Bvh4::default(),
            pack_boxes: Vec::new(),
            dynamic: false,
            built_cost: 0.0,
        };
        mesh.rebuild();
        mesh
    }

    fn triangle_boxes(&self) -> Vec<Aabb> {
        self.triangles
            .iter()
            .map(|t| {
                let mut b = Aabb::EMPTY;
                for &i in t {
                    b.grow(self.vertices[i as usize]);
                }
                b
            })
            .collect()
    }

    fn corners_of(&self, triangle: u32) -> [Vec3A; 3] {
        self.triangles[triangle as usize].map(|i| self.vertices[i as usize])
    }

    /// Packs each leaf's triangles by four, in the tree's primitive order, and renames the
    /// leaves of the 4-wide tree to their pack runs.
    fn build_packs(&mut self, prims: &[u32]) {
        let mut leaves = Vec::new();
        self.wide.rename_leaves(|first, count| {
            leaves.push((first, count));
            (first, count)
        });
        leaves.sort_unstable();
        // Pack run start per leaf, indexed by the leaf's first primitive.
        let mut run_start = vec![0u32; prims.len()];
        self.packs.clear();
        for &(first, count) in &leaves {
            if let Some(start) = run_start.get_mut(first as usize) {
                *start = self.packs.len() as u32;
            }
            let leaf = prims
                .get(first as usize..(first + count) as usize)
                .unwrap_or(&[]);
            for chunk in leaf.chunks(4) {
                let mut pack = TriPack::empty();
                for (lane, &p) in chunk.iter().enumerate() {
                    pack.set(lane, p, self.corners_of(p));
                }
                self.packs.push(pack);
            }
        }
        self.packs.shrink_to_fit();
        self.wide.rename_leaves(|first, count| {
            (
                run_start.get(first as usize).copied().unwrap_or(0),
                count.div_ceil(4),
            )
        });
    }

    /// New corners for every pack and the packs' boxes, from one pass over the vertices.
    fn refit_packs(&mut self) {
        let mut packs = std::mem::take(&mut self.packs);
        self.pack_boxes.clear();
        for pack in &mut packs {
            let mut b = Aabb::EMPTY;
            pack.refit(|p| {
                let corners @ [a, c, d] = self.corners_of(p);
                b.grow(a);
                b.grow(c);
                b.grow(d);
                corners
            });
            self.pack_boxes.push(b);
        }
        self.packs = packs;
    }

    /// Rebuilds the BVH from scratch.
    pub fn rebuild(&mut self) {
        let bvh = Bvh::build(&self.triangle_boxes());
        self.wide = Bvh4::collapse(&bvh);
        self.build_packs(&bvh.prims);
        self.built_cost = self.wide.sah_cost(crate::bvh::TRAVERSAL_COST);
        if !self.dynamic {
            self.pack_boxes = Vec::new();
        }
    }

    /// Moves the vertices (same count and triangles) and refits the BVH; rebuilds instead when
    /// the refit has made the tree more than twice as costly as a fresh build was.
    /// Returns whether it rebuilt.
    pub fn update_vertices(&mut self, vertices: &[glam::Vec3]) -> bool {
        for (dst, src) in self.vertices.iter_mut().zip(vertices) {
            *dst = Vec3A::from(*src);
        }
        if !self.dynamic {
            self.dynamic = true;
            self.rebuild();
            return true;
        }
        self.refit_packs();
        self.wide.refit(&self.pack_boxes);
        let rebuilt = self.wide.sah_cost(crate::bvh::TRAVERSAL_COST) > 2.0 * self.built_cost;
        if rebuilt {
            self.rebuild();
        }
        rebuilt
    }

    /// Checks the tree against the current vertices: every triangle in exactly one pack, with
    /// its current corners, and every box containing what it holds. `Err` names the first
    /// failure.
    pub fn validate(&self) -> Result<(), String> {
        let mut seen = vec![false; self.triangles.len()];
        let mut pack_boxes = Vec::with_capacity(self.packs.len());
        for (i, pack) in self.packs.iter().enumerate() {
            let mut b = Aabb::EMPTY;
            for lane in 0..4 {
                let p = pack.prim[lane];
                if p == crate::packs::EMPTY_LANE {
                    continue;
                }
                let slot = seen
                    .get_mut(p as usize)
                    .ok_or(format!("pack {i} names triangle {p}"))?;
                if std::mem::replace(slot, true) {
                    return Err(format!("triangle {p} is in two packs"));
                }
                let corners = pack.corners(lane);
                if corners != self.corners_of(p) {
                    return Err(format!("pack {i} holds stale corners of triangle {p}"));
                }
                corners.iter().for_each(|c| b.grow(*c));
            }
            pack_boxes.push(b);
        }
        if let Some(p) = seen.iter().position(|s| !s) {
            return Err(format!("triangle {p} is in no pack"));
        }
        self.wide.validate(&pack_boxes)
    }

    /// Bytes held by the mesh and its trees (capacity, not just length).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.vertices.capacity() * size_of::<Vec3A>()
            + self.triangles.capacity() * size_of::<[u32; 3]>()
            + self.packs.capacity() * size_of::<TriPack>()
            + self.pack_boxes.capacity() * size_of::<Aabb>()
            + self.wide.memory_bytes()
    }

    /// The vertices, in the mesh's frame.
    pub fn vertices(&self) -> &[Vec3A] {
        &self.vertices
    }

    /// The triangles (vertex indices).
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// The bounds of all vertices used by triangles (empty box for an empty mesh).
    pub fn bounds(&self) -> Aabb {
        self.wide.root_bounds.unwrap_or(Aabb::EMPTY)
    }

    /// A mesh that will move (a skinned body): it keeps its binary tree and scratch for refits.
    pub fn new_dynamic(vertices: Vec<glam::Vec3>, triangles: Vec<[u32; 3]>) -> TriangleMesh {
        let mut mesh = TriangleMesh::new(vertices, Vec::new());
        mesh.dynamic = true;
        mesh.set_triangles(triangles);
        mesh
    }

    fn set_triangles(&mut self, triangles: Vec<[u32; 3]>) {
        let n = self.vertices.len() as u32;
        self.triangles = triangles
            .into_iter()
            .filter(|t| t.iter().all(|&i| i < n))
            .take(crate::wide::MAX_PRIMS)
            .collect();
        self.rebuild();
    }

    /// The closest hit with `t` in `(t_min, t_max)`. Ties between triangles at the same `t`
    /// go to the lower triangle index, so results never depend on traversal order.
    pub fn closest(&self, origin: Vec3A, dir: Vec3A, t_min: f32, t_max: f32) -> Option<LocalHit> {
        self.traverse(origin, dir, t_min, t_max, false).0
    }

    /// Whether anything is hit with `t` in `(t_min, t_max)` (shadow rays).
    pub fn any_hit(&self, origin: Vec3A, dir: Vec3A, t_min: f32, t_max: f32) -> bool {
        self.any_hit_hinted(origin, dir, t_min, t_max, &mut None)
    }

    /// As [`TriangleMesh::any_hit`], trying first the pack of triangles `hint` (one that
    /// blocked a neighbouring ray: they mostly block the next one too), and leaving in `hint`
    /// the pack that blocked this ray when the tree had to be walked. A pack hit here is one
    /// the walk would reach too (box tests are conservative), so the answer is the same.
    pub fn any_hit_hinted(
        &self,
        origin: Vec3A,
        dir: Vec3A,
        t_min: f32,
        t_max: f32,
        hint: &mut Option<u32>,
    ) -> bool {
        if let Some(pack) = hint.and_then(|p| self.packs.get(p as usize)) {
            let pack_ray = PackRay::new(origin, &Shear::new(dir));
            let hit = intersect_pack(&pack_ray, t_min, next_up(t_max), pack);
            if hit.is_some_and(|(t, ..)| t < t_max) {
                return true;
            }
        }
        let (hit, pack) = self.traverse(origin, dir, t_min, t_max, true);
        if hit.is_some() {
            *hint = pack;
        }
        hit.is_some()
    }

    /// Pack `index` of its triangles (four to a pack), if it has one.
    pub(crate) fn pack(&self, index: u32) -> Option<&TriPack> {
        self.packs.get(index as usize)
    }

    /// How many packs of triangles it has.
    #[cfg(test)]
    pub(crate) fn pack_count(&self) -> usize {
        self.packs.len()
    }

    /// Leaves of the tree (what [`TriangleMesh::visit_leaf_boxes`] visits).
    pub(crate) fn leaf_count(&self) -> usize {
        let mut count = 0;
        self.visit_leaf_boxes(|_, _, _| {
            count += 1;
            true
        });
        count
    }

    /// Calls `f(leaf, min, max)` for each leaf of the tree, `leaf` naming it as
    /// [`TriangleMesh::any_hit_in_leaves`] takes it, until `f` returns false (then returns
    /// false).
    pub(crate) fn visit_leaf_boxes(&self, mut f: impl FnMut(u32, Vec3A, Vec3A) -> bool) -> bool {
        let Some(root) = self.wide.root_bounds else {
            return true;
        };
        if self.wide.root_leaf.is_some() {
            return f(crate::parallel::ROOT_LEAF, root.min, root.max);
        }
        for (index, n) in self.wide.nodes.iter().enumerate() {
            for k in 0..4 {
                if let Slot::Leaf(..) = decode(n.child[k]) {
                    let (min, max) = (n.corner(&n.min, k), n.corner(&n.max, k));
                    // Node indices fit in 30 bits: a tree has fewer nodes than triangles.
                    if !f((index as u32) << 2 | k as u32, min, max) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Whether a ray hits a triangle of one of `leaves` (named as
    /// [`TriangleMesh::visit_leaf_boxes`] names them) before `t_max`, with the tests
    /// [`TriangleMesh::any_hit`]'s walk makes: the root box, the leaf's box (entered by
    /// `t_max`), the leaf's triangles. It answers as that walk does when `leaves` holds every
    /// leaf whose box the ray may reach.
    /// `shear` is `Shear::new(dir)` of the ray's direction (rays of one direction share it).
    pub(crate) fn any_hit_in_leaves(
        &self,
        origin: Vec3A,
        shear: &Shear,
        t_min: f32,
        t_max: f32,
        leaves: impl Iterator<Item = u32>,
    ) -> bool {
        let Some(root) = self.wide.root_bounds else {
            return false;
        };
        if intersect_box(origin, shear.inv_dir, t_min, t_max, root.min, root.max).is_none() {
            return false;
        }
        let pack_ray = PackRay::new(origin, shear);
        let lanes = RayLanes::new(origin, shear.inv_dir);
        let bound = next_up(t_max);
        for leaf in leaves {
            let (first, count) = if leaf == crate::parallel::ROOT_LEAF {
                match self.wide.root_leaf {
                    Some((first, count)) => (first as usize, count as usize),
                    None => continue,
                }
            } else {
                let Some(n) = self.wide.nodes.get((leaf >> 2) as usize) else {
                    continue;
                };
                let k = (leaf & 3) as usize;
                // The walk skips a child missed (`+inf`) or entered after its bound (`t_far`,
                // here `t_max`); entries are never NaN.
                let entry = lane_of(&intersect4(n, &lanes, t_min, bound), k);
                if entry == f32::INFINITY || entry > t_max {
                    continue;
                }
                match decode(n.child[k]) {
                    Slot::Leaf(first, count) => (first, count),
                    _ => continue,
                }
            };
            for pack in &self.packs[first..first + count] {
                let hit = intersect_pack(&pack_ray, t_min, bound, pack);
                if hit.is_some_and(|(t, ..)| t < t_max) {
                    return true;
                }
            }
        }
        false
    }

    fn traverse(
        &self,
        origin: Vec3A,
        dir: Vec3A,
        t_min: f32,
        t_max: f32,
        any: bool,
    ) -> (Option<LocalHit>, Option<u32>) {
        let Some(root) = self.wide.root_bounds else {
            return (None, None);
        };
        let shear = Shear::new(dir);
        if intersect_box(origin, shear.inv_dir, t_min, t_max, root.min, root.max).is_none() {
            return (None, None);
        }
        let pack_ray = PackRay::new(origin, &shear);
        let mut best: Option<LocalHit> = None;
        // The pack of `best`.
        let mut best_pack: Option<u32> = None;
        let mut t_far = t_max;
        // Tests a leaf; true when an any-hit query is answered.
        let mut test_leaf =
            |first: usize, count: usize, best: &mut Option<LocalHit>, t_far: &mut f32| -> bool {
                for (index, pack) in (first..).zip(&self.packs[first..first + count]) {
                    // The tie-break needs hits at exactly t_far too: allow them, then compare.
                    let Some((t, u, v, lane)) =
                        intersect_pack(&pack_ray, t_min, next_up(*t_far), pack)
                    else {
                        continue;
                    };
                    let triangle = pack.prim[lane];
                    if is_closer(best, t, triangle, t_max) {
                        let [a, b, c] = pack.corners(lane);
                        let normal = (b - a).cross(c - a).normalize_or_zero();
                        *best = Some(LocalHit {
                            t,
                            u,
                            v,
                            triangle,
                            normal,
                        });
                        *t_far = t;
                        best_pack = Some(index as u32);
                        if any {
                            return true;
                        }
                    }
                }
                false
            };
        if let Some((first, count)) = self.wide.root_leaf {
            test_leaf(first as usize, count as usize, &mut best, &mut t_far);
            return (best, best_pack);
        }
        let lanes = RayLanes::new(origin, shear.inv_dir);
        let nodes = &self.wide.nodes;
        // (slot code, entry distance).
        let mut storage = TraversalStack::default();
        let stack = storage.slice(self.wide.stack_bound);
        let mut sp = 0usize;
        let mut node = 0usize;
        loop {
            let n = &nodes[node];
            let d: [f32; 4] = intersect4(n, &lanes, t_min, next_up(t_far)).into();
            // Hit children, nearest first (insertion sort of at most four).
            let mut order = [(f32::INFINITY, 0u32); 4];
            let mut hits = 0;
            for (&entry, &code) in d.iter().zip(&n.child) {
                if entry < f32::INFINITY && !matches!(decode(code), Slot::Empty) {
                    let mut i = hits;
                    while i > 0 && order[i - 1].0 > entry {
                        order[i] = order[i - 1];
                        i -= 1;
                    }
                    order[i] = (entry, code);
                    hits += 1;
                }
            }
            // Push far to near, so the nearest is popped next; a nearest inner child is entered
            // at once instead (its entry distance is within the current bound by construction).
            for &(dist, code) in order[1..hits.max(1)].iter().rev() {
                stack[sp] = (code, dist);
                sp += 1;
            }
            if hits > 0 {
                if let Slot::Inner(i) = decode(order[0].1) {
                    node = i;
                    continue;
                }
                stack[sp] = (order[0].1, order[0].0);
                sp += 1;
            }
            loop {
                if sp == 0 {
                    return (best, best_pack);
                }
                sp -= 1;
                let (code, dist) = stack[sp];
                if dist > t_far {
                    continue;
                }
                match decode(code) {
                    Slot::Inner(i) => {
                        node = i;
                        break;
                    }
                    Slot::Leaf(first, count) => {
                        if test_leaf(first, count, &mut best, &mut t_far) {
                            return (best, best_pack);
                        }
                    }
                    Slot::Empty => {}
                }
            }
        }
    }
}

/// Whether a hit at `t` on `triangle` beats `best`: nearer, or as near with a lower triangle
/// index (so results never depend on traversal order); a first hit must be under `t_max`.
#[inline]
fn is_closer(best: &Option<LocalHit>, t: f32, triangle: u32, t_max: f32) -> bool {
    match best {
        None => t < t_max,
        Some(b) => t < b.t || (t == b.t && triangle < b.triangle),
    }
}

/// A traversal stack: each level pushes at most four entries and pops one, so a tree needs
/// `Bvh4::stack_bound` entries. Shallow trees (nearly all) use a small array, because zeroing
/// one sized for the deepest possible tree cost 5 % of a scan.
struct TraversalStack<T> {
    small: [T; 64],
    large: Vec<T>,
}

impl<T: Copy + Default> Default for TraversalStack<T> {
    fn default() -> Self {
        TraversalStack {
            small: [T::default(); 64],
            large: Vec::new(),
        }
    }
}

impl<T: Copy + Default> TraversalStack<T> {
    fn slice(&mut self, bound: usize) -> &mut [T] {
        if bound <= self.small.len() {
            &mut self.small
        } else {
            self.large.resize(bound, T::default());
            &mut self.large
        }
    }
}

fn next_up(t: f32) -> f32 {
    if t.is_finite() {
        f32::from_bits(t.to_bits() + if t >= 0.0 { 1 } else { 0 })
    } else {
        t
    }
}
