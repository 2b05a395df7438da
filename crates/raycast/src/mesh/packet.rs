//! Up to thirty-two rays at once through one mesh's 4-wide tree (a packet): neighbouring rays of
//! a scan share the node fetches, the child ordering and the stack, which is most of a single
//! ray's traversal cost. Rays sharing an origin are bounded by one beam, tested once per child
//! box; otherwise each child box is tested against the rays four at a time in 4-lane
//! arithmetic. A mask follows each stacked entry so a leaf is tested only by the rays that
//! reached its box.
//!
//! Leaves reached by many rays, and each ray's test of a leaf's box, go sixteen rays at a time
//! where the CPU has AVX-512 (`leaf16.rs`), with the same operations lane for lane.
//!
//! Every ray gets what [`TriangleMesh::closest`] gives it: box tests are conservative and hits
//! are chosen by `(t, triangle)`, so the path through the tree does not matter, but for one
//! case: where two triangles meet the ray within a few ulps (a shared corner or edge), a box's
//! rounded entry compared with one ulp past the hit so far can pass over the other, so which
//! wins depends on the order of the walk (`packet_tests.rs`). With and without the 16-lane
//! tests the walk is the same, and so is every hit.

use super::leaf16::{self, BoxRays, LeafRays};
use super::{LocalHit, TriangleMesh, next_up};
use crate::beam::Extremes;
use crate::packs::{PackHit, PackRay, intersect_pack, intersect_relative};
use crate::parallel::ROOT_LEAF;
use crate::ray::{Shear, intersect_box, smaller_or};
use crate::wide::{Slot, decode, lane_of};
use glam::{Vec3A, Vec4};

/// Rays per packet: groups of four lanes (masks are `u32`: at most 32). Each packet's set-up and
/// top-level walk is shared by more rays the larger it is, and lidar tiles as square as the scan
/// allows keep the beam narrow: on the camera benchmark's lidars sixteen cost 5 % fewer
/// instructions than eight, and thirty-two 1.6 % fewer again (6 % on the reference scene's
/// scan), as fast in time; four and eight were no faster in time on a lidar scan.
pub const PACKET: usize = 32;
const GROUPS: usize = PACKET / 4;

/// The fewest rays reaching a leaf for which its triangles are tested sixteen rays at a time
/// (where the CPU can): with fewer, most lanes would idle, and a ray against four triangles
/// at a time is cheaper.
const WIDE_FROM: u32 = 8;

/// Up to [`PACKET`] rays in a mesh's frame, per coordinate four rays to a vector (lane `l` of
/// group `g` is ray `4g + l`: the traversal reads them so), with their inverse directions;
/// rays whose bit is clear in `active` are ignored.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RayPacket {
    pub(crate) origin: [[Vec4; GROUPS]; 3],
    pub(crate) dir: [[Vec4; GROUPS]; 3],
    /// `1 / dir` lane by lane (as `Vec3A::recip`, the single-ray walk's, gives it).
    pub(crate) inv_dir: [[Vec4; GROUPS]; 3],
    pub(crate) t_min: [f32; PACKET],
    pub(crate) t_max: [f32; PACKET],
    pub(crate) active: u32,
    /// The extremes of the active rays, when the caller already has them (`None`: the walk
    /// finds them).
    pub(crate) beam: Option<Extremes>,
}

/// What a walk needs of a packet before its rays: which rays, their ranges and their beam.
pub(crate) struct PacketHead<'a> {
    pub(crate) active: u32,
    pub(crate) t_min: &'a [f32; PACKET],
    pub(crate) t_max: &'a [f32; PACKET],
    /// The extremes of the active rays (`None`: the walk finds them from the rays).
    pub(crate) beam: Option<&'a Extremes>,
}

/// A packet's rays as a walk asks for them: given, or made the first time it asks.
struct PacketRays<'a> {
    source: RaySource<'a>,
    made: Option<RayPacket>,
}

enum RaySource<'a> {
    Given(&'a RayPacket),
    Later(&'a dyn Fn() -> RayPacket),
}

impl PacketRays<'_> {
    fn get(&mut self) -> &RayPacket {
        match self.source {
            RaySource::Given(rays) => rays,
            RaySource::Later(make) => self.made.get_or_insert_with(make),
        }
    }
}

/// Lane `r` of a packet's coordinate.
fn lane(values: &[Vec4; GROUPS], r: usize) -> f32 {
    let group: &[f32; 4] = values[r / 4].as_ref();
    group[r % 4]
}

impl RayPacket {
    pub(super) fn origin(&self, r: usize) -> Vec3A {
        let o = &self.origin;
        Vec3A::new(lane(&o[0], r), lane(&o[1], r), lane(&o[2], r))
    }

    pub(super) fn dir(&self, r: usize) -> Vec3A {
        let d = &self.dir;
        Vec3A::new(lane(&d[0], r), lane(&d[1], r), lane(&d[2], r))
    }
}

/// Group `g` of `values`: rays `4g..4g + 4`.
fn group_of(values: &[f32; PACKET], g: usize) -> Vec4 {
    Vec4::from_slice(&values[4 * g..4 * g + 4])
}

/// What the triangle tests need: made when the packet first reaches a leaf, as most instances
/// a packet enters turn it away at their upper nodes (a tuft of grass's box is mostly air), and
/// a ray's shear costs divisions. One per thread, filled in place (it is 7 KB: made afresh
/// and moved for every instance entered, it cost more than it saved).
struct LeafSetup {
    /// Whether it is filled for the packet being walked.
    ready: bool,
    pack_rays: [PackRay; PACKET],
    /// The rays whose `pack_rays` entry is made for this packet.
    pack_rays_made: u32,
    /// The origin every active ray shares, if they do (splatted per axis): each pack's corners
    /// relative to it are then shared by the rays.
    shared_origin: Option<[Vec4; 3]>,
    /// Whether leaves reached by many rays are tested sixteen rays at a time.
    wide: bool,
    /// The rays as the 16-lane test reads them, and each ray's closest hit so far.
    rays: LeafRays,
    /// The walk's stack, taken for each packet's walk and put back.
    stack: Vec<(u32, u32, f32)>,
}

thread_local! {
    static LEAF_SETUP: std::cell::RefCell<LeafSetup> = std::cell::RefCell::new(LeafSetup {
        ready: false,
        pack_rays: [PackRay::new(Vec3A::ZERO, &Shear::new(Vec3A::X)); PACKET],
        pack_rays_made: 0,
        shared_origin: None,
        wide: false,
        rays: LeafRays::new(),
        stack: Vec::new(),
    });
}

impl LeafSetup {
    /// Fills it for `rays`, in place.
    fn fill(&mut self, rays: &RayPacket) {
        let active = rays.active;
        let first = rays.origin(active.trailing_zeros() as usize);
        let splat = [
            Vec4::splat(first.x),
            Vec4::splat(first.y),
            Vec4::splat(first.z),
        ];
        // Whether every active ray starts there, four at a time.
        let shared = (0..GROUPS).all(|g| {
            let in_group = (active >> (4 * g)) & 0xF;
            let same = (0..3).fold(0xF, |m, a| m & rays.origin[a][g].cmpeq(splat[a]).bitmask());
            in_group & !same == 0
        });
        self.shared_origin = shared.then_some(splat);
        if self.wide {
            // Each ray's shear sixteen at a time; a ray's pack constants when a leaf reached
            // by few rays first needs them.
            self.rays.fill(rays);
            self.pack_rays_made = 0;
        } else {
            // Only the active rays' entries: no other is read until a later packet fills it.
            for r in lanes(active) {
                self.pack_rays[r] = PackRay::new(rays.origin(r), &Shear::new(rays.dir(r)));
            }
            self.rays.reset_hits(rays);
            self.pack_rays_made = active;
        }
        self.ready = true;
    }
}

/// The rays set in `mask`, lowest first.
pub(crate) fn lanes(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let r = mask.trailing_zeros() as usize;
        mask &= mask.wrapping_sub(1);
        (r < PACKET).then_some(r)
    })
}

impl TriangleMesh {
    /// The closest hit of each active ray, as [`TriangleMesh::closest`] would give it: `found(r,
    /// hit)` for each ray `r` that has one, but for its normal, not yet made unit (a caller
    /// keeping the best of several instances' hits makes those it keeps unit at once, as
    /// `normalize_or_zero` would). With `first_hit`, a ray stops at the first hit it meets
    /// instead (shadow rays: whether it has one is the answer any-hit gives).
    pub(crate) fn closest_packet(
        &self,
        rays: &RayPacket,
        first_hit: bool,
        found: impl FnMut(usize, &LocalHit),
    ) {
        self.closest_packet_with(rays, first_hit, leaf16::available(), found);
    }

    /// The active rays of `rays` that pack `pack`'s triangles block within their range, as
    /// [`TriangleMesh::any_hit_hinted`] finds them when it tries that pack first: a mask (0
    /// for a pack the mesh does not have). Sixteen rays a triangle at a time where the CPU has
    /// AVX-512, else a ray and a triangle at a time.
    #[cfg(test)]
    pub(crate) fn pack_blocks(&self, pack: u32, rays: &RayPacket) -> u32 {
        if pack as usize >= self.packs.len() || rays.active == 0 {
            return 0;
        }
        let mut t_far = rays.t_max;
        LEAF_SETUP.with_borrow_mut(|setup| {
            // The packet being walked, if any, fills it afresh.
            setup.ready = false;
            setup.rays.fill(rays);
            let leaf = (pack as usize, 1);
            (setup.rays).test_leaf(&self.packs, leaf, rays.active, &mut t_far, true);
            setup.rays.hit_mask(rays.active)
        })
    }

    /// The active rays of `rays` that a triangle of one of `leaves` blocks within their range
    /// (leaves as the shadow grid lists them: `node << 2 | slot` in the 4-wide tree, or
    /// [`ROOT_LEAF`]): a mask, the answers [`TriangleMesh::any_hit_in_leaves`] gives each ray.
    /// The same tests: the root's box ray by ray, then each leaf's box and triangles as the
    /// walk tests a leaf's, sixteen rays at a time where the CPU has AVX-512 (the operations
    /// of the 4-wide node test, lane for lane).
    pub(crate) fn leaves_block_packet(
        &self,
        leaves: impl Iterator<Item = u32>,
        rays: &RayPacket,
    ) -> u32 {
        let Some(root) = self.wide.root_bounds else {
            return 0;
        };
        // Each ray's test of the root's box, as `any_hit_in_leaves` makes it (its rounding of
        // a ray along a face of the box is not the 4-lane tests').
        let active = lanes(rays.active)
            .filter(|&r| {
                let inv = Vec3A::new(
                    lane(&rays.inv_dir[0], r),
                    lane(&rays.inv_dir[1], r),
                    lane(&rays.inv_dir[2], r),
                );
                let (t_min, t_max) = (rays.t_min[r], rays.t_max[r]);
                intersect_box(rays.origin(r), inv, t_min, t_max, root.min, root.max).is_some()
            })
            .fold(0, |mask, r| mask | 1 << r);
        if active == 0 {
            return 0;
        }
        let group = |values: &[f32; PACKET]| -> [Vec4; GROUPS] {
            std::array::from_fn(|g| group_of(values, g))
        };
        // A leaf's box is entered by its ray's range (`any_hit_in_leaves` takes an entry up to
        // one ulp past it, then passes over one past it: the same boxes).
        let (t_min, t_max) = (group(&rays.t_min), group(&rays.t_max));
        let box_rays = BoxRays {
            origin: &rays.origin,
            inv_dir: &rays.inv_dir,
            t_min: &t_min,
            t_max: &t_max,
        };
        let mut t_far = rays.t_max;
        LEAF_SETUP.with_borrow_mut(|setup| {
            // The packet being walked, if any, fills it afresh.
            setup.ready = false;
            let (mut filled, mut blocked) = (false, 0);
            for leaf in leaves {
                let open = active & !blocked;
                if open == 0 {
                    break;
                }
                let (range, reached) = if leaf == ROOT_LEAF {
                    // A mesh that is one leaf: its root's box was its box.
                    match self.wide.root_leaf {
                        Some((first, count)) => ((first as usize, count as usize), open),
                        None => continue,
                    }
                } else {
                    let Some(n) = self.wide.nodes.get((leaf >> 2) as usize) else {
                        continue;
                    };
                    let k = (leaf & 3) as usize;
                    let Slot::Leaf(first, count) = decode(n.child[k]) else {
                        continue;
                    };
                    let b = (
                        [0, 1, 2].map(|a| lane_of(&n.min[a], k)),
                        [0, 1, 2].map(|a| lane_of(&n.max[a], k)),
                    );
                    let (reached, _) = leaf16::reach_box(box_rays, open, b)
                        .unwrap_or_else(|| reach_in_groups(box_rays, open, b));
                    ((first, count), reached)
                };
                if reached == 0 {
                    continue;
                }
                if !filled {
                    setup.rays.fill(rays);
                    filled = true;
                }
                (setup.rays).test_leaf(&self.packs, range, reached, &mut t_far, true);
                blocked = setup.rays.hit_mask(active);
            }
            blocked
        })
    }

    /// [`TriangleMesh::closest_packet`], with (`wide`: only where the CPU has AVX-512) or
    /// without the leaves reached by many rays tested sixteen rays at a time.
    pub(crate) fn closest_packet_with(
        &self,
        rays: &RayPacket,
        first_hit: bool,
        wide: bool,
        found: impl FnMut(usize, &LocalHit),
    ) {
        let head = PacketHead {
            active: rays.active,
            t_min: &rays.t_min,
            t_max: &rays.t_max,
            beam: rays.beam.as_ref(),
        };
        let rays = PacketRays {
            source: RaySource::Given(rays),
            made: None,
        };
        self.closest_from(&head, rays, (first_hit, wide), found);
    }

    /// [`TriangleMesh::closest_packet`] for a packet whose beam is known and whose rays
    /// `make` makes: only if the walk reaches a leaf's box (or a node the beam cannot answer
    /// for), so a packet that passes between a mesh's branches is never moved into its frame.
    pub(crate) fn closest_packet_later(
        &self,
        head: &PacketHead<'_>,
        make: &dyn Fn() -> RayPacket,
        first_hit: bool,
        found: impl FnMut(usize, &LocalHit),
    ) {
        let rays = PacketRays {
            source: RaySource::Later(make),
            made: None,
        };
        self.closest_from(head, rays, (first_hit, leaf16::available()), found);
    }

    fn closest_from(
        &self,
        head: &PacketHead<'_>,
        mut rays: PacketRays<'_>,
        (first_hit, wide): (bool, bool),
        found: impl FnMut(usize, &LocalHit),
    ) {
        let active = head.active;
        if self.wide.root_bounds.is_none() || active == 0 {
            return;
        }
        let mut t_far = *head.t_max;
        LEAF_SETUP.with_borrow_mut(|setup| {
            setup.ready = false;
            setup.wide = wide;
            self.walk_packet(head, &mut rays, first_hit, &mut t_far, setup);
            if setup.ready {
                setup.rays.report(&self.packs, active, found);
            }
        });
    }

    /// Tests the rays of `mask` against the leaf of packs `first..first + count`, sixteen rays
    /// at a time when many reach it and the CPU can, else a ray against a pack at a time;
    /// whether some ray's hit moved closer.
    fn test_leaf(
        &self,
        rays: &RayPacket,
        (first, count): (usize, usize),
        mask: u32,
        (setup, t_far): (&mut LeafSetup, &mut [f32; PACKET]),
        first_hit: bool,
    ) -> bool {
        if !setup.ready {
            setup.fill(rays);
        }
        if setup.wide && mask.count_ones() >= WIDE_FROM {
            let leaf = (first, count);
            return (setup.rays).test_leaf(&self.packs, leaf, mask, t_far, first_hit);
        }
        let LeafSetup {
            pack_rays,
            pack_rays_made,
            shared_origin,
            rays: hits,
            ..
        } = setup;
        for r in lanes(mask & !*pack_rays_made) {
            pack_rays[r] = PackRay::new(hits.origin(r), &hits.shear(r));
        }
        *pack_rays_made |= mask;
        // Whether some ray's hit moved closer.
        let mut closer = false;
        // Keeps ray `r`'s hit on pack `p` (of the leaf) if it is closer.
        let mut keep = |r: usize, p: usize, (t, u, v, lane): PackHit, t_far: &mut _| {
            let triangle = self.packs[first + p].prim[lane];
            let slot = (4 * (first + p) + lane) as u32;
            closer |= hits.keep(r, (t, u, v), (triangle, slot), t_far, first_hit);
        };
        let packs = &self.packs[first..first + count];
        match shared_origin {
            Some(origin) => {
                for (p, pack) in packs.iter().enumerate() {
                    let relative = pack.relative_to(origin);
                    for r in lanes(mask) {
                        let bound = next_up(t_far[r]);
                        let hit = intersect_relative(
                            &pack_rays[r],
                            rays.t_min[r],
                            bound,
                            pack,
                            &relative,
                        );
                        if let Some(hit) = hit {
                            keep(r, p, hit, t_far);
                        }
                    }
                }
            }
            None => {
                for r in lanes(mask) {
                    for (p, pack) in packs.iter().enumerate() {
                        let bound = next_up(t_far[r]);
                        let hit = intersect_pack(&pack_rays[r], rays.t_min[r], bound, pack);
                        if let Some(hit) = hit {
                            keep(r, p, hit, t_far);
                        }
                    }
                }
            }
        }
        closer
    }

    /// The walk of [`TriangleMesh::closest_packet`]: hits go to `setup`, filled at the first
    /// leaf.
    fn walk_packet(
        &self,
        head: &PacketHead<'_>,
        rays: &mut PacketRays<'_>,
        first_hit: bool,
        t_far: &mut [f32; PACKET],
        setup: &mut LeafSetup,
    ) {
        // The rays come here having reached the instance's box (each, or their beam), which
        // holds this root box: it is not tested again ray by ray (that cost more than it
        // saved). A ray that does not reach it meets no leaf's box or triangle either.
        let active = head.active;
        if let Some((first, count)) = self.wide.root_leaf {
            let leaf = (first as usize, count as usize);
            self.test_leaf(rays.get(), leaf, active, (setup, t_far), first_hit);
            return;
        }
        // Per group of four rays, lanes = rays.
        let group = |values: &[f32; PACKET]| -> [Vec4; GROUPS] {
            std::array::from_fn(|g| group_of(values, g))
        };
        let t_min = group(head.t_min);
        let frustum = match head.beam {
            Some(e) => Some(Frustum::of(e)),
            None => {
                let rays = rays.get();
                Frustum::new(&rays.origin, &rays.inv_dir, &t_min, active)
            }
        };
        let nodes = &self.wide.nodes;
        // (slot code, rays that reached it, nearest entry among them): the thread's, kept from
        // packet to packet (made afresh, its zeros cost as much as a few node visits).
        let mut storage = std::mem::take(&mut setup.stack);
        if storage.len() < self.wide.stack_bound {
            storage.resize(self.wide.stack_bound, (0, 0, 0.0));
        }
        let stack = &mut storage[..];
        let mut sp = 0usize;
        let (mut node, mut mask) = (0usize, active);
        // Box-test bounds, refreshed only when a leaf test moved a hit closer. The beam's is the
        // largest of the active rays' (0 if none), found four lanes at a time (a chain of
        // thirty-two dependent maxima would stall).
        let active_lanes: [glam::BVec4A; GROUPS] = std::array::from_fn(|g| {
            let m = active >> (4 * g);
            glam::BVec4A::new(m & 1 != 0, m & 2 != 0, m & 4 != 0, m & 8 != 0)
        });
        let bounds = |t_far: &[f32; PACKET]| {
            let up = t_far.map(next_up);
            let t_max = group(&up);
            let beam = (0..GROUPS)
                .map(|g| Vec4::select(active_lanes[g], t_max[g], Vec4::ZERO))
                .fold(Vec4::ZERO, |m, v| Vec4::select(v.cmpgt(m), v, m))
                .max_element();
            (t_max, beam)
        };
        let (mut t_max, mut beam_t_max) = bounds(t_far);
        loop {
            let n = &nodes[node];
            let mut order = [(f32::INFINITY, 0u32, 0u32); 4];
            let mut hits = 0;
            // One conservative test of the four children for the whole packet, when it has one.
            let coarse = frustum.as_ref().map(|f| f.test(n, beam_t_max));
            // The children to look at: those the packet's beam may reach, or all.
            let mut todo = coarse.map_or(0xF, |(_, hit)| hit);
            while todo != 0 {
                let k = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let slot = decode(n.child[k]);
                if matches!(slot, Slot::Empty) {
                    continue;
                }
                if let (Some((near, _)), Slot::Inner(_)) = (coarse, &slot) {
                    // Inner nodes take the whole packet; leaves get each ray's own test.
                    insert_by_entry(&mut order, &mut hits, (lane_of(&near, k), n.child[k], mask));
                    continue;
                }
                // Each ray's own test (sixteen at a time where the CPU can).
                let b = (
                    [0, 1, 2].map(|a| lane_of(&n.min[a], k)),
                    [0, 1, 2].map(|a| lane_of(&n.max[a], k)),
                );
                let made = rays.get();
                let rays_in = BoxRays {
                    origin: &made.origin,
                    inv_dir: &made.inv_dir,
                    t_min: &t_min,
                    t_max: &t_max,
                };
                let (reached, entry) = (setup.wide)
                    .then(|| leaf16::reach_box(rays_in, mask, b))
                    .flatten()
                    .unwrap_or_else(|| reach_in_groups(rays_in, mask, b));
                if reached == 0 {
                    continue;
                }
                insert_by_entry(&mut order, &mut hits, (entry, n.child[k], reached));
            }
            for &(entry, code, reached) in order[1..hits.max(1)].iter().rev() {
                stack[sp] = (code, reached, entry);
                sp += 1;
            }
            if hits > 0 {
                match decode(order[0].1) {
                    Slot::Inner(i) => {
                        (node, mask) = (i, order[0].2);
                        continue;
                    }
                    // The nearest child a leaf: tested at once (stacked and popped, every ray
                    // that reached it would pass the pop's cull: its entry is the least).
                    Slot::Leaf(first, count) => {
                        let (leaf, reached) = ((first, count), order[0].2);
                        if self.test_leaf(rays.get(), leaf, reached, (setup, t_far), first_hit) {
                            (t_max, beam_t_max) = bounds(t_far);
                        }
                    }
                    Slot::Empty => {}
                }
            }
            loop {
                if sp == 0 {
                    setup.stack = storage;
                    return;
                }
                sp -= 1;
                let (code, reached, entry) = stack[sp];
                // Rays whose hit so far is nearer than the entry are done with this subtree
                // (`t_max` is each ray's bound, one ulp past its hit: conservative).
                let entry4 = Vec4::splat(entry);
                let open =
                    (0..GROUPS).fold(0, |m, g| m | entry4.cmple(t_max[g]).bitmask() << (4 * g));
                let reached = reached & open;
                if reached == 0 {
                    continue;
                }
                match decode(code) {
                    Slot::Inner(i) => {
                        (node, mask) = (i, reached);
                        break;
                    }
                    Slot::Leaf(first, count) => {
                        let leaf = (first, count);
                        if self.test_leaf(rays.get(), leaf, reached, (setup, t_far), first_hit) {
                            (t_max, beam_t_max) = bounds(t_far);
                        }
                    }
                    Slot::Empty => {}
                }
            }
        }
    }
}

/// Inserts a reached child `(entry, slot code, rays)` among the first `hits` of `order`, kept
/// nearest entry first (an insertion sort of at most four; equal entries keep their order).
#[inline(always)]
fn insert_by_entry(order: &mut [(f32, u32, u32); 4], hits: &mut usize, child: (f32, u32, u32)) {
    let mut i = *hits;
    while i > 0 && order[i - 1].0 > child.0 {
        order[i] = order[i - 1];
        i -= 1;
    }
    order[i] = child;
    *hits += 1;
}

/// The rays of `mask` whose range (`t_min`, `t_max`) meets the box `min..max`, and the nearest
/// entry among them (infinite if none), four rays at a time.
fn reach_in_groups(
    BoxRays {
        origin,
        inv_dir,
        t_min,
        t_max,
    }: BoxRays,
    mask: u32,
    (min, max): ([f32; 3], [f32; 3]),
) -> (u32, f32) {
    let (mut reached, mut entry) = (0, f32::INFINITY);
    for g in 0..GROUPS {
        let in_group = (mask >> (4 * g)) & 0xF;
        if in_group == 0 {
            continue;
        }
        let slab = |a: usize| {
            let t0 = (Vec4::splat(min[a]) - origin[a][g]) * inv_dir[a][g];
            let t1 = (Vec4::splat(max[a]) - origin[a][g]) * inv_dir[a][g];
            (t0.min(t1), t0.max(t1))
        };
        let ((x0, x1), (y0, y1), (z0, z1)) = (slab(0), slab(1), slab(2));
        let near = x0.max(y0).max(z0).max(t_min[g]);
        // Widened by 2·gamma(3), as the single-ray test.
        let far = (x1.min(y1).min(z1) * (1.0 + 6.0 * f32::EPSILON)).min(t_max[g]);
        let hit = near.cmple(far).bitmask() & in_group;
        if hit != 0 {
            reached |= hit << (4 * g);
            let lanes_hit =
                glam::BVec4A::new(hit & 1 != 0, hit & 2 != 0, hit & 4 != 0, hit & 8 != 0);
            let nearest = Vec4::select(lanes_hit, near, Vec4::INFINITY);
            entry = smaller_or(nearest.min_element(), entry);
        }
    }
    (reached, entry)
}

/// The packet as one beam (`crate::beam`), for a node's four children at a time: one box test
/// answers for all its rays, conservatively.
struct Frustum {
    /// Per axis, the origin coordinate that makes entries earliest (the largest for rays going
    /// towards +axis, the smallest otherwise), and the one that makes exits latest.
    enter_origin: [Vec4; 3],
    exit_origin: [Vec4; 3],
    inv_lo: [Vec4; 3],
    inv_hi: [Vec4; 3],
    /// Per axis: whether the rays go towards +axis (enter at `min`).
    ascending: [bool; 3],
    t_min: Vec4,
    /// Whether no ray starts behind its origin (`t_min >= 0`): then each plane needs one
    /// product (see [`Frustum::test`]).
    ahead: bool,
    /// `Extremes::inv_enter_exit`, splatted.
    inv_enter: [Vec4; 3],
    inv_exit: [Vec4; 3],
}

impl Frustum {
    /// The beam of the `active` rays, given four at a time (a ray at a time, the minima and
    /// maxima would be one long chain through memory).
    fn new(
        origin: &[[Vec4; GROUPS]; 3],
        inv_dir: &[[Vec4; GROUPS]; 3],
        t_min: &[Vec4; GROUPS],
        active: u32,
    ) -> Option<Frustum> {
        let axes = |v: &[[Vec4; GROUPS]; 3], g: usize| [v[0][g], v[1][g], v[2][g]];
        let e = crate::beam::extremes(active, GROUPS, |g| {
            (axes(origin, g), axes(inv_dir, g), t_min[g])
        })?;
        Some(Frustum::of(&e))
    }

    /// The beam of rays with these extremes.
    fn of(e: &Extremes) -> Frustum {
        let pick = |a: usize, when_ascending: Vec3A, otherwise: Vec3A| {
            Vec4::splat(if e.ascending[a] {
                when_ascending[a]
            } else {
                otherwise[a]
            })
        };
        Frustum {
            enter_origin: [0, 1, 2].map(|a| pick(a, e.origin_hi, e.origin_lo)),
            exit_origin: [0, 1, 2].map(|a| pick(a, e.origin_lo, e.origin_hi)),
            inv_lo: e.inv_lo.to_array().map(Vec4::splat),
            inv_hi: e.inv_hi.to_array().map(Vec4::splat),
            ascending: e.ascending,
            t_min: Vec4::splat(e.t_min),
            ahead: e.t_min >= 0.0,
            inv_enter: e.inv_enter_exit().0.to_array().map(Vec4::splat),
            inv_exit: e.inv_enter_exit().1.to_array().map(Vec4::splat),
        }
    }

    /// Lower bounds of the children's entry distances and which children some ray may reach
    /// before `t_max`.
    fn test(&self, n: &crate::wide::Node4, t_max: f32) -> (Vec4, u32) {
        let mut near = self.t_min;
        let mut far = Vec4::INFINITY;
        for a in 0..3 {
            let (enter, exit) = if self.ascending[a] {
                (n.min[a], n.max[a])
            } else {
                (n.max[a], n.min[a])
            };
            let (d0, d1) = (enter - self.enter_origin[a], exit - self.exit_origin[a]);
            if self.ahead {
                // One product a plane (`Extremes::inv_enter_exit`).
                near = near.max(d0 * self.inv_enter[a]);
                far = far.min(d1 * self.inv_exit[a]);
            } else {
                near = near.max((d0 * self.inv_lo[a]).min(d0 * self.inv_hi[a]));
                far = far.min((d1 * self.inv_lo[a]).max(d1 * self.inv_hi[a]));
            }
        }
        // Widened by 2·gamma(3), as the single-ray test.
        let far = (far * (1.0 + 6.0 * f32::EPSILON)).min(Vec4::splat(t_max));
        (near, near.cmple(far).bitmask())
    }
}
