//! A 4-wide BVH collapsed from the binary one, for traversal: each node holds its four
//! children's boxes as structure-of-arrays, so one ray is tested against four boxes at once
//! with 4-lane vector arithmetic (glam's `Vec4`, SSE on x86-64; no `unsafe`).
//!
//! Invariants: node 0 is the root; a child slot is empty, an inner node (index), or a leaf
//! (a run of `count` primitives in the binary tree's primitive order, from `first`). Empty slots
//! are skipped by the traversal whatever their box test says.

use crate::bvh::{Aabb, Bvh};
use glam::{Vec3A, Vec4};

const LEAF: u32 = 1 << 31;
const EMPTY: u32 = u32::MAX;
/// Leaf codes pack `first << COUNT_BITS | count`: leaves hold at most 31 primitives (the
/// builder makes at most 16) and meshes at most 2^26 triangles.
const COUNT_BITS: u32 = 5;
const COUNT_MASK: u32 = (1 << COUNT_BITS) - 1;
/// The largest primitive count a mesh may have for its leaf codes.
pub(crate) const MAX_PRIMS: usize = 1 << (31 - COUNT_BITS);

/// Lane `k` of `v`, read through its array: glam's `v[k]` is a `match` on `k`, which compiles
/// to an indirect jump that the walks' changing `k` mispredicts.
#[inline(always)]
pub(crate) fn lane_of(v: &Vec4, k: usize) -> f32 {
    let lanes: &[f32; 4] = v.as_ref();
    lanes[k]
}

/// Sets lane `k` of `v` through its array (see [`lane_of`]).
#[inline(always)]
pub(crate) fn set_lane(v: &mut Vec4, k: usize, value: f32) {
    let lanes: &mut [f32; 4] = v.as_mut();
    lanes[k] = value;
}

/// Four children: their boxes (SoA) and what they are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node4 {
    pub(crate) min: [Vec4; 3],
    pub(crate) max: [Vec4; 3],
    /// Inner child: node index. Leaf: `LEAF | first << COUNT_BITS | count`. Empty: `EMPTY`.
    pub(crate) child: [u32; 4],
}

/// A 4-wide BVH.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bvh4 {
    pub(crate) nodes: Vec<Node4>,
    /// Whether the root itself is a single leaf (tiny meshes): then `root_leaf` holds it.
    pub(crate) root_leaf: Option<(u32, u32)>,
    pub(crate) root_bounds: Option<Aabb>,
    /// Entries a traversal stack may need: four per level of the deepest path.
    pub(crate) stack_bound: usize,
}

impl Bvh4 {
    /// Collapses a binary BVH: each wide node adopts up to four descendants, opening the
    /// largest inner child first.
    pub(crate) fn collapse(bvh: &Bvh) -> Bvh4 {
        let Some(root) = bvh.nodes.first() else {
            return Bvh4::default();
        };
        if root.count > 0 {
            return Bvh4 {
                nodes: Vec::new(),
                root_leaf: Some((root.right_or_first, root.count)),
                root_bounds: Some(root.bounds),
                stack_bound: 0,
            };
        }
        let mut out = Bvh4 {
            nodes: Vec::with_capacity(bvh.nodes.len() / 2 + 1),
            root_leaf: None,
            root_bounds: Some(root.bounds),
            stack_bound: 4,
        };
        out.nodes.push(empty_node());
        // (binary node, wide node slot to fill, its depth from 1)
        let mut pending = vec![(0usize, 0usize, 1usize)];
        while let Some((bin, wide, depth)) = pending.pop() {
            out.stack_bound = out.stack_bound.max(4 * depth);
            // Gather up to four children by opening inner children with the largest area.
            let n = &bvh.nodes[bin];
            let mut kids: Vec<usize> = vec![bin + 1, n.right_or_first as usize];
            while kids.len() < 4 {
                let open = kids
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| bvh.nodes[**k].count == 0)
                    .max_by(|a, b| {
                        bvh.nodes[*a.1]
                            .bounds
                            .half_area()
                            .total_cmp(&bvh.nodes[*b.1].bounds.half_area())
                            .then(b.0.cmp(&a.0))
                    })
                    .map(|(i, _)| i);
                let Some(i) = open else { break };
                let k = kids.remove(i);
                kids.insert(i, bvh.nodes[k].right_or_first as usize);
                kids.insert(i, k + 1);
            }
            let mut node = empty_node();
            for (slot, &k) in kids.iter().enumerate() {
                let b = bvh.nodes[k].bounds;
                for axis in 0..3 {
                    node.min[axis][slot] = b.min[axis];
                    node.max[axis][slot] = b.max[axis];
                }
                if bvh.nodes[k].count > 0 {
                    node.child[slot] = LEAF
                        | (bvh.nodes[k].right_or_first << COUNT_BITS)
                        | bvh.nodes[k].count.min(COUNT_MASK);
                } else {
                    let index = out.nodes.len();
                    out.nodes.push(empty_node());
                    node.child[slot] = index as u32;
                    pending.push((k, index, depth + 1));
                }
            }
            out.nodes[wide] = node;
        }
        out.nodes.shrink_to_fit();
        out
    }

    /// Renames every leaf's range through `rename(first, count) -> (first, count)` (the mesh
    /// maps primitive runs to runs of triangle packs). `count` must stay under 32.
    pub(crate) fn rename_leaves(&mut self, mut rename: impl FnMut(u32, u32) -> (u32, u32)) {
        if let Some((first, count)) = self.root_leaf {
            self.root_leaf = Some(rename(first, count));
        }
        for node in &mut self.nodes {
            for code in &mut node.child {
                if let Slot::Leaf(first, count) = decode(*code) {
                    let (first, count) = rename(first as u32, count as u32);
                    debug_assert!(count <= COUNT_MASK && (first as usize) < MAX_PRIMS);
                    *code = LEAF | (first << COUNT_BITS) | count.min(COUNT_MASK);
                }
            }
        }
    }

    /// Bytes held (capacity).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node4>()
    }

    /// Recomputes every box bottom-up (children come after their parents) from the boxes of
    /// the runs the leaves name (`leaf_boxes[i]` bounds run element `i`), keeping the topology.
    pub(crate) fn refit(&mut self, leaf_boxes: &[Aabb]) {
        let run_box = |first: usize, count: usize| {
            let mut b = Aabb::EMPTY;
            for r in leaf_boxes.get(first..first + count).unwrap_or(&[]) {
                b.merge(r);
            }
            b
        };
        if let Some((first, count)) = self.root_leaf {
            self.root_bounds = Some(run_box(first as usize, count as usize));
            return;
        }
        for i in (0..self.nodes.len()).rev() {
            for k in 0..4 {
                let b = match decode(self.nodes[i].child[k]) {
                    Slot::Empty => continue,
                    Slot::Leaf(first, count) => run_box(first, count),
                    Slot::Inner(c) => self.nodes[c].bounds(),
                };
                let n = &mut self.nodes[i];
                for axis in 0..3 {
                    set_lane(&mut n.min[axis], k, b.min[axis]);
                    set_lane(&mut n.max[axis], k, b.max[axis]);
                }
            }
        }
        self.root_bounds = self.nodes.first().map(Node4::bounds);
    }

    /// The surface-area cost of the tree relative to its root's area (inner slots cost
    /// `inner_cost`, leaves one per element of their run): grows when a refit degrades it.
    pub(crate) fn sah_cost(&self, inner_cost: f32) -> f32 {
        let Some(root) = self.root_bounds else {
            return 0.0;
        };
        let area = root.half_area().max(f32::MIN_POSITIVE);
        let mut cost = 0.0;
        for n in &self.nodes {
            for k in 0..4 {
                let weight = match decode(n.child[k]) {
                    Slot::Empty => continue,
                    Slot::Leaf(_, count) => count as f32,
                    Slot::Inner(_) => inner_cost,
                };
                cost += n.slot_bounds(k).half_area() / area * weight;
            }
        }
        cost
    }

    /// Checks that every slot's box contains what it holds (`leaf_boxes` as for
    /// [`Bvh4::refit`]) and that inner slots point forward; `Err` names the first failure.
    pub(crate) fn validate(&self, leaf_boxes: &[Aabb]) -> Result<(), String> {
        for (i, n) in self.nodes.iter().enumerate() {
            for k in 0..4 {
                let outer = n.slot_bounds(k);
                match decode(n.child[k]) {
                    Slot::Empty => {}
                    Slot::Leaf(first, count) => {
                        let run = leaf_boxes
                            .get(first..first + count)
                            .ok_or(format!("node {i} slot {k}: run out of range"))?;
                        if let Some(r) = run.iter().position(|b| !outer.contains(b)) {
                            return Err(format!(
                                "node {i} slot {k} misses run element {}",
                                first + r
                            ));
                        }
                    }
                    Slot::Inner(c) if c <= i || c >= self.nodes.len() => {
                        return Err(format!("node {i} slot {k} points to node {c}"));
                    }
                    Slot::Inner(c) => {
                        if !outer.contains(&self.nodes[c].bounds()) {
                            return Err(format!("node {i} slot {k} does not contain node {c}"));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl Node4 {
    /// Slot `k`'s corner from `min` or `max`.
    pub(crate) fn corner(&self, c: &[Vec4; 3], k: usize) -> Vec3A {
        Vec3A::new(lane_of(&c[0], k), lane_of(&c[1], k), lane_of(&c[2], k))
    }

    fn slot_bounds(&self, k: usize) -> Aabb {
        Aabb {
            min: self.corner(&self.min, k),
            max: self.corner(&self.max, k),
        }
    }

    /// The union of the four slots' boxes (empty slots hold an empty box).
    fn bounds(&self) -> Aabb {
        Aabb {
            min: Vec3A::new(
                self.min[0].min_element(),
                self.min[1].min_element(),
                self.min[2].min_element(),
            ),
            max: Vec3A::new(
                self.max[0].max_element(),
                self.max[1].max_element(),
                self.max[2].max_element(),
            ),
        }
    }
}

fn empty_node() -> Node4 {
    Node4 {
        min: [Vec4::splat(f32::INFINITY); 3],
        max: [Vec4::splat(f32::NEG_INFINITY); 3],
        child: [EMPTY; 4],
    }
}

/// What a child slot holds.
pub(crate) enum Slot {
    Inner(usize),
    Leaf(usize, usize),
    Empty,
}

/// What a slot code (as stored in `Node4::child`) names.
#[inline]
pub(crate) fn decode(code: u32) -> Slot {
    match code {
        EMPTY => Slot::Empty,
        c if c & LEAF != 0 => {
            let packed = c & !LEAF;
            Slot::Leaf(
                (packed >> COUNT_BITS) as usize,
                (packed & COUNT_MASK) as usize,
            )
        }
        c => Slot::Inner(c as usize),
    }
}

/// Per-ray constants of the 4-wide slab test.
pub(crate) struct RayLanes {
    origin: [Vec4; 3],
    inv: [Vec4; 3],
}

impl RayLanes {
    pub(crate) fn new(origin: Vec3A, inv_dir: Vec3A) -> RayLanes {
        RayLanes {
            origin: [
                Vec4::splat(origin.x),
                Vec4::splat(origin.y),
                Vec4::splat(origin.z),
            ],
            inv: [
                Vec4::splat(inv_dir.x),
                Vec4::splat(inv_dir.y),
                Vec4::splat(inv_dir.z),
            ],
        }
    }
}

/// Entry distances of the four children (`+inf` where missed), within `[t_min, t_max]`.
#[inline]
pub(crate) fn intersect4(node: &Node4, ray: &RayLanes, t_min: f32, t_max: f32) -> Vec4 {
    let tx0 = (node.min[0] - ray.origin[0]) * ray.inv[0];
    let tx1 = (node.max[0] - ray.origin[0]) * ray.inv[0];
    let ty0 = (node.min[1] - ray.origin[1]) * ray.inv[1];
    let ty1 = (node.max[1] - ray.origin[1]) * ray.inv[1];
    let tz0 = (node.min[2] - ray.origin[2]) * ray.inv[2];
    let tz1 = (node.max[2] - ray.origin[2]) * ray.inv[2];
    let near = tx0
        .min(tx1)
        .max(ty0.min(ty1))
        .max(tz0.min(tz1))
        .max(Vec4::splat(t_min));
    // Widened by 2·gamma(3) (Ize 2013), as the scalar test.
    let far = (tx0.max(tx1).min(ty0.max(ty1)).min(tz0.max(tz1)) * (1.0 + 6.0 * f32::EPSILON))
        .min(Vec4::splat(t_max));
    let hit = near.cmple(far);
    Vec4::select(hit, near, Vec4::splat(f32::INFINITY))
}
