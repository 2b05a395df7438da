//! Hits in huge instances ([`crate::top::TopLevel::huge`]: over a kilometre, or thin enough
//! for a hit to round outside their box), worked out again in doubles (`mesh/doubles.rs`).
//!
//! A hit found with the rounding of a huge mesh's coordinates may be millimetres off along a
//! grazing ray, either way, so two rules keep every walk's answer the same: such a mesh is
//! walked to each ray's end (not to the best hit so far, which the rounding may put either
//! side of the hit), and only its closest hit by that walk's reckoning is worked out again and
//! compared with the others.
//!
//! Owns: what is done to such a hit once the mesh's walk found it. Must not touch: which
//! triangle is hit (the watertight test's answer) or anything of hits in other instances.

use super::{Scene, keep_closer_unturned};
use crate::bvh::Aabb;
use crate::mesh::{LocalHit, PACKET, PlaneInDoubles, TriangleMesh};
use crate::ray::{Hit, Ray, intersect_box};
use glam::{DAffine3, DVec3, Vec3};

/// What a huge instance's hits are worked out with, found once as rays enter it.
pub(super) struct HugeEntry<'a> {
    mesh: &'a TriangleMesh,
    /// The instance's [`super::Instance::mesh_from_world_in_doubles`].
    mesh_from_world: Option<DAffine3>,
    /// Its world box as of the last commit.
    world_box: Aabb,
    /// The plane of the triangle last hit (neighbouring rays mostly hit the same one).
    plane: Option<PlaneInDoubles>,
}

impl Scene {
    /// Instance `index` (huge) about to have its hits worked out.
    pub(super) fn huge_entry(&self, index: u32) -> HugeEntry<'_> {
        let inst = &self.instances[index as usize];
        HugeEntry {
            mesh: &self.meshes[inst.mesh.0 as usize],
            mesh_from_world: inst.mesh_from_world_in_doubles(),
            world_box: self.top.boxes[index as usize].get(),
            plane: None,
        }
    }

    /// [`Scene::closest_packet_in_instance`] for a huge instance (`index`): its mesh walked by
    /// the rays of `active` to their ends, and each ray's closest hit there worked out again
    /// and kept if closer. Whether some ray's best hit moved closer.
    pub(super) fn closest_packet_in_huge(
        &self,
        entering: ((u32, u32), Option<(&crate::beam::Extremes, bool)>),
        (rays, lanes): (&[Ray], &super::PacketLanes),
        t_min: &[f32; PACKET],
        best: &mut [Option<Hit>],
    ) -> bool {
        let index = entering.0.0;
        let ends: [f32; PACKET] = std::array::from_fn(|r| rays.get(r).map_or(0.0, |ray| ray.t_max));
        let mut closest: [Option<LocalHit>; PACKET] = [None; PACKET];
        let found = |r: usize, hit: &LocalHit| {
            let kept = &mut closest[r];
            if kept.is_none_or(|k| (hit.t, hit.triangle) < (k.t, k.triangle)) {
                *kept = Some(*hit);
            }
        };
        self.packet_through_mesh(entering, (lanes, (t_min, &ends)), false, found);
        let mut entry = self.huge_entry(index);
        let mut closer = false;
        for (r, hit) in closest.iter().enumerate() {
            if let Some(hit) = hit {
                let exact = entry.hit(&rays[r], hit);
                closer |= keep_closer_unturned(&mut best[r], &exact, index, rays[r].t_max);
            }
        }
        closer
    }
}

impl HugeEntry<'_> {
    /// `hit`, found by `ray` in the instance, with its distance worked out in doubles, then
    /// kept to the instance's box.
    pub(super) fn hit(&mut self, ray: &Ray, hit: &LocalHit) -> LocalHit {
        if self.plane.is_none_or(|p| p.triangle() != hit.triangle) {
            self.plane = self.mesh.plane_in_doubles(hit.triangle);
        }
        let Some(plane) = &self.plane else {
            return *hit;
        };
        let exact = plane.hit(self.ray_in_mesh(ray), hit, ray.t_min);
        LocalHit {
            t: self.not_before_box(ray, exact.t),
            ..exact
        }
    }

    /// A world ray in the mesh's frame, in doubles.
    fn ray_in_mesh(&self, ray: &Ray) -> ([f64; 3], [f64; 3]) {
        let (o, d) = (
            Vec3::from(ray.origin).as_dvec3(),
            Vec3::from(ray.dir).as_dvec3(),
        );
        let (o, d): (DVec3, DVec3) = match &self.mesh_from_world {
            Some(m) => (m.transform_point3(o), m.transform_vector3(d)),
            None => (o, d),
        };
        (o.to_array(), d.to_array())
    }

    /// A hit at `t` moved to where `ray` enters the instance's world box, if it rounded to
    /// before that: the walks pass over a box whose entry is past the best hit so far, so a
    /// hit before its box would be found or not depending on the order of the walk. Moved,
    /// every walk agrees. (Worked out in doubles, a hit is within a hair of the true surface,
    /// inside the box, but its distance is rounded to a float, by more than the box is widened
    /// far along a steep ray.)
    fn not_before_box(&self, ray: &Ray, t: f32) -> f32 {
        let b = &self.world_box;
        let inv = ray.dir.recip();
        match intersect_box(ray.origin, inv, ray.t_min, f32::INFINITY, b.min, b.max) {
            Some(entry) if entry > t => entry,
            _ => t,
        }
    }
}
