//! The top level of a [`crate::Scene`]: the instances' world boxes and two BVHs over them, one
//! for the instances that stay where they were placed and one for those that move.
//!
//! Why two: a world of a million placed plants and one robot must not rebuild a tree over a
//! million boxes because the robot moved. An instance starts out *settled* (unless placed as
//! moving) and becomes *moving* the first time it moves or its mesh changes; from then on it
//! stays moving. A commit rebuilds the moving tree (a few dozen boxes in practice) and the
//! settled one only when instances were added to it or left it. The settled tree is shared by
//! clones of the scene.
//!
//! Invariants: every instance is in exactly one of the trees; both trees' `prims` are instance
//! indices; `boxes[i]` is instance `i`'s world box as of the last commit, and `huge[i]`
//! whether it is big enough for hits in it to need working out again ([`is_huge`]). Which
//! tree an instance is in changes only how fast rays find it, never what they find (ties are
//! broken by index).

use crate::bvh::{Aabb, Bvh};
use crate::chunks::SharedChunks;
use glam::{Affine3A, Vec3A};
use rayon::prelude::*;
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub(crate) struct TopLevel {
    /// World box of each instance, as of the last commit (shared chunk by chunk with clones).
    pub boxes: SharedChunks<PackedBox>,
    settled: Arc<Bvh>,
    moving: Bvh,
    /// Per instance: whether it is in the moving tree (or will be at the next commit).
    is_moving: Vec<bool>,
    /// Per instance, as of the last commit: whether it is [`is_huge`].
    huge: Vec<bool>,
    /// The moving instances, in increasing order.
    moving_members: Vec<u32>,
    /// Instances whose box may have changed since the last commit (each once; see `pending`).
    changed: Vec<u32>,
    pending: Vec<bool>,
}

impl TopLevel {
    /// Registers a new instance (boxed at the next commit).
    pub fn add(&mut self, moving: bool) {
        if moving {
            self.moving_members.push(self.is_moving.len() as u32);
        }
        self.is_moving.push(moving);
        self.pending.push(false);
    }

    /// Notes that instance `i` moved or its mesh changed: it is moving from now on.
    pub fn moved(&mut self, i: u32) {
        let slot = &mut self.pending[i as usize];
        if !*slot {
            *slot = true;
            self.changed.push(i);
        }
    }

    /// Whether instance `i` is so big that its hits, found with the rounding of its
    /// coordinates, may be off by more than a tenth of a millimetre or before its box (see
    /// [`is_huge`]): then the scene works them out again (`scene/huge.rs`).
    #[inline]
    pub fn huge(&self, i: u32) -> bool {
        self.huge.get(i as usize).copied().unwrap_or(false)
    }

    /// The two trees, settled first.
    pub fn trees(&self) -> [&Bvh; 2] {
        [&self.settled, &self.moving]
    }

    /// Bytes held (the settled tree counted whole even when shared).
    pub fn memory_bytes(&self) -> usize {
        let tree = |b: &Bvh| {
            b.nodes.capacity() * std::mem::size_of::<crate::bvh::Node>() + b.prims.capacity() * 4
        };
        tree(&self.settled)
            + tree(&self.moving)
            + self.boxes.memory_bytes()
            + self.is_moving.capacity()
            + self.huge.capacity()
            + self.pending.capacity()
            + (self.changed.capacity() + self.moving_members.capacity()) * 4
    }

    /// Brings boxes and trees up to date with instances placed `world_from_mesh[i]` whose meshes
    /// have local bounds `mesh_bounds(i)`.
    pub fn commit(
        &mut self,
        world_from_mesh: impl Fn(usize) -> Affine3A + Sync,
        mesh_bounds: impl Fn(usize) -> Aabb + Sync,
    ) {
        let boxed = self.boxes.len();
        let count = self.is_moving.len();
        let world_box =
            |i: usize| PackedBox::new(&transform_box(&mesh_bounds(i), &world_from_mesh(i)));
        let added: Vec<PackedBox> = (boxed..count).into_par_iter().map(world_box).collect();
        (self.huge).extend(added.iter().map(|b| is_huge(&b.get())));
        self.boxes.extend(added);
        let mut rebuild_settled = self.is_moving[boxed..].iter().any(|m| !m);
        let mut rebuild_moving = self.is_moving[boxed..].iter().any(|m| *m);
        for i in std::mem::take(&mut self.changed) {
            let i = i as usize;
            self.pending[i] = false;
            self.boxes[i] = world_box(i);
            self.huge[i] = is_huge(&self.boxes[i].get());
            rebuild_moving = true;
            if !std::mem::replace(&mut self.is_moving[i], true) {
                rebuild_settled = true;
                let at = self.moving_members.partition_point(|&m| m < i as u32);
                self.moving_members.insert(at, i as u32);
            }
        }
        if rebuild_settled {
            let settled = (self.is_moving.iter().enumerate())
                .filter(|(_, moving)| !**moving)
                .map(|(i, _)| i as u32);
            self.settled = Arc::new(Bvh::build_over_with(
                |i| self.boxes[i as usize].get(),
                settled,
            ));
        }
        if rebuild_moving {
            let moving = self.moving_members.iter().copied();
            self.moving = Bvh::build_over_with(|i| self.boxes[i as usize].get(), moving);
        }
    }
}

/// A box kept as six floats (24 bytes instead of [`Aabb`]'s 32, whose corners are padded to
/// 16 bytes): one per instance, so a million placed plants hold 8 MB less. Widening it back
/// gives the very bits it was made from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PackedBox([f32; 6]);

impl PackedBox {
    pub(crate) fn new(b: &Aabb) -> PackedBox {
        let (min, max) = (b.min.to_array(), b.max.to_array());
        PackedBox([min[0], min[1], min[2], max[0], max[1], max[2]])
    }

    #[inline]
    pub(crate) fn get(&self) -> Aabb {
        let [x0, y0, z0, x1, y1, z1] = self.0;
        Aabb {
            min: Vec3A::new(x0, y0, z0),
            max: Vec3A::new(x1, y1, z1),
        }
    }
}

/// The world box of a mesh-frame box placed by `m`.
pub(crate) fn transform_box(b: &Aabb, m: &Affine3A) -> Aabb {
    let mut out = Aabb::EMPTY;
    if b.min.x > b.max.x {
        return out;
    }
    for i in 0..8 {
        let corner = Vec3A::new(
            if i & 1 == 0 { b.min.x } else { b.max.x },
            if i & 2 == 0 { b.min.y } else { b.max.y },
            if i & 4 == 0 { b.min.z } else { b.max.z },
        );
        out.grow(m.transform_point3a(corner));
    }
    let (min, max) = widened_for_frames(out.min, out.max);
    Aabb { min, max }
}

/// Whether hits in a mesh whose (widened) world box is `b` need working out again. A hit is
/// found in the mesh's coordinates: along a grazing ray its distance is off by a few ulps of
/// the mesh's size (MAVS's ground, a 200 km slab 1 cm thick, put hits up to 25 mm off). Huge:
/// over 1 km (a tenth of a millimetre is a couple of ulps of that), or with 2^-20 (16 ulps) of
/// its largest side beyond its thinnest axis's widening for frames, so that a hit may round to
/// before the box (then a walk that had found a hit just behind it would pass it over and
/// another would not: packets and single rays disagreed on a ray of `obstacle_field`).
fn is_huge(b: &Aabb) -> bool {
    let size = (b.max - b.min).max_element();
    let widening = b.min.abs().max(b.max.abs()) * (1.0 / 16384.0) + Vec3A::splat(1e-6);
    size > 1024.0 || size * (1.0 / 1_048_576.0) > widening.min_element()
}

/// A world box around something met in another frame, widened for the rounding between the
/// frames: rays meet an instance's mesh in the mesh's frame, moved there by the inverse
/// transform (rounded), so a ray that grazes the mesh there may pass a few ulps outside the
/// box moved to the world. 2^-14 of the coordinates' magnitude (hundreds of ulps; 0.6 mm at
/// 10 m) covers that for any sensible placement, and costs little in culling.
pub(crate) fn widened_for_frames(min: Vec3A, max: Vec3A) -> (Vec3A, Vec3A) {
    let slack = min.abs().max(max.abs()) * (1.0 / 16384.0) + Vec3A::splat(1e-6);
    (min - slack, max + slack)
}
