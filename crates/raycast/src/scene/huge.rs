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
use crate::mesh::{LocalHit, PACKET};
use crate::ray::{Hit, Ray, intersect_box};
use glam::{DAffine3, DVec3, Vec3};

impl Scene {
    /// `hit`, found by `ray` in instance `index` (huge), with its distance worked out in
    /// doubles (`mesh_from_world`: the instance's
    /// [`super::Instance::mesh_from_world_in_doubles`]), then kept to the instance's box.
    pub(super) fn huge_hit(
        &self,
        index: u32,
        mesh_from_world: Option<&DAffine3>,
        ray: &Ray,
        hit: &LocalHit,
    ) -> LocalHit {
        let mesh = &self.meshes[self.instances[index as usize].mesh.0 as usize];
        let exact = mesh.hit_in_doubles(ray_in_mesh(mesh_from_world, ray), hit, ray.t_min);
        LocalHit {
            t: self.not_before_box(index, ray, exact.t),
            ..exact
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
        let frame = self.instances[index as usize].mesh_from_world_in_doubles();
        let mut closer = false;
        for (r, hit) in closest.iter().enumerate() {
            if let Some(hit) = hit {
                let exact = self.huge_hit(index, frame.as_ref(), &rays[r], hit);
                closer |= keep_closer_unturned(&mut best[r], &exact, index, rays[r].t_max);
            }
        }
        closer
    }

    /// A hit at `t` in instance `index` moved to where `ray` enters the instance's world box, if
    /// it rounded to before that: the walks pass over a box whose entry is past the best hit
    /// so far, so a hit before its box would be found or not depending on the order of the
    /// walk. Moved, every walk agrees. (Worked out in doubles, a hit is within a hair of the
    /// true surface, inside the box, but its distance is rounded to a float, by more than the
    /// box is widened far along a steep ray.)
    fn not_before_box(&self, index: u32, ray: &Ray, t: f32) -> f32 {
        let b = self.top.boxes[index as usize].get();
        let inv = ray.dir.recip();
        match intersect_box(ray.origin, inv, ray.t_min, f32::INFINITY, b.min, b.max) {
            Some(entry) if entry > t => entry,
            _ => t,
        }
    }
}

/// A world ray in a mesh's frame, in doubles (`mesh_from_world`: none for a mesh placed as it
/// is).
fn ray_in_mesh(mesh_from_world: Option<&DAffine3>, ray: &Ray) -> ([f64; 3], [f64; 3]) {
    let (o, d) = (
        Vec3::from(ray.origin).as_dvec3(),
        Vec3::from(ray.dir).as_dvec3(),
    );
    let (o, d): (DVec3, DVec3) = match mesh_from_world {
        Some(m) => (m.transform_point3(o), m.transform_vector3(d)),
        None => (o, d),
    };
    (o.to_array(), d.to_array())
}
