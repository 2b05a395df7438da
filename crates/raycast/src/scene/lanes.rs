//! Box tests for a packet of rays at the top level: the whole packet as one beam (rays from one
//! origin, or parallel), or its rays four at a time. Both are conservative the way the
//! single-ray slab test is (`ray::intersect_box`), so a box they refuse no ray reaches.

use crate::PACKET;
use crate::beam::Extremes;
use crate::ray::{Ray, larger_or, smaller_or};
use glam::{Affine3A, Vec3A, Vec4};

/// A packet's rays as one beam (`crate::beam`), for one box at a time: a box the beam misses
/// is missed by every ray (a box it reaches may still be missed by some).
pub(super) struct Beam {
    /// The origin coordinates that make entries earliest (per axis, the largest for rays going
    /// towards +axis, the smallest otherwise), and those that make exits latest.
    enter_origin: Vec3A,
    exit_origin: Vec3A,
    inv_lo: Vec3A,
    inv_hi: Vec3A,
    /// `Extremes::inv_enter_exit`.
    inv_enter: Vec3A,
    inv_exit: Vec3A,
    /// Per axis: whether the rays go towards +axis (enter a box at its `min`).
    ascending: glam::BVec3A,
    t_min: f32,
}

impl Beam {
    /// The extremes of a packet's rays (`active`: the lanes that hold one); `None` if a ray's
    /// origin or inverse direction is not finite, or an axis has both signs.
    pub(super) fn extremes(lanes: &PacketLanes, active: u32) -> Option<Extremes> {
        crate::beam::extremes(active, GROUPS, |g| {
            (lanes.origin[g], lanes.inv_dir[g], lanes.t_min[g])
        })
    }

    /// The beam of rays with these extremes.
    pub(super) fn new(e: &Extremes) -> Beam {
        let ascending = glam::BVec3A::from(e.ascending);
        Beam {
            enter_origin: Vec3A::select(ascending, e.origin_hi, e.origin_lo),
            exit_origin: Vec3A::select(ascending, e.origin_lo, e.origin_hi),
            inv_lo: e.inv_lo,
            inv_hi: e.inv_hi,
            inv_enter: e.inv_enter_exit().0,
            inv_exit: e.inv_enter_exit().1,
            ascending,
            t_min: e.t_min,
        }
    }

    /// Whether some ray may reach the box `min..max` before `t_max`, and if so a lower bound of
    /// the rays' entry distances. (All three axes at once: the inverse directions are finite
    /// and non-zero, so no product is NaN and the vector minima and maxima are the scalar
    /// ones.)
    pub(super) fn entry(&self, min: Vec3A, max: Vec3A, t_max: f32) -> Option<f32> {
        let enter = Vec3A::select(self.ascending, min, max) - self.enter_origin;
        let exit = Vec3A::select(self.ascending, max, min) - self.exit_origin;
        let (near, far) = if self.t_min >= 0.0 {
            // No ray starts behind its origin: one product a plane (`inv_enter_exit`).
            (enter * self.inv_enter, exit * self.inv_exit)
        } else {
            (
                (enter * self.inv_lo).min(enter * self.inv_hi),
                (exit * self.inv_lo).max(exit * self.inv_hi),
            )
        };
        let (near, far) = (near.max_element(), far.min_element());
        // Widened by 2·gamma(3), as the single-ray test.
        let near = larger_or(near, self.t_min);
        (near <= smaller_or(far * (1.0 + 6.0 * f32::EPSILON), t_max)).then_some(near)
    }
}

/// A packet's rays four to a vector (lane `l` of group `g` is ray `4g + l`), for testing a box
/// against all of them at once.
pub(super) struct PacketLanes {
    origin: [[Vec4; 3]; GROUPS],
    dir: [[Vec4; 3]; GROUPS],
    inv_dir: [[Vec4; 3]; GROUPS],
    t_min: [Vec4; GROUPS],
}

/// Groups of four rays in a packet.
const GROUPS: usize = PACKET / 4;

impl PacketLanes {
    /// `rays` (at most [`PACKET`]), four to a vector, with their inverse directions (each as
    /// `Vec3A::recip` gives it); missing rays' lanes hold zeros (and infinite inverses) and
    /// are never asked about.
    pub(super) fn new(rays: &[Ray]) -> PacketLanes {
        let lane = |r: usize, f: &dyn Fn(&Ray) -> f32| rays.get(r).map_or(0.0, f);
        let group = |g: usize, f: &dyn Fn(&Ray) -> f32| {
            Vec4::new(
                lane(4 * g, f),
                lane(4 * g + 1, f),
                lane(4 * g + 2, f),
                lane(4 * g + 3, f),
            )
        };
        let origin = std::array::from_fn(|g| [0, 1, 2].map(|a| group(g, &|ray| ray.origin[a])));
        let dir: [[Vec4; 3]; GROUPS] =
            std::array::from_fn(|g| [0, 1, 2].map(|a| group(g, &|ray| ray.dir[a])));
        PacketLanes {
            origin,
            dir,
            inv_dir: dir.map(|d| d.map(|v| Vec4::ONE / v)),
            t_min: std::array::from_fn(|g| group(g, &|ray| ray.t_min)),
        }
    }

    /// Group `g`'s origins and directions moved by `m` (a point's and a vector's transform),
    /// per axis: lane for lane the operations of `Affine3A::transform_point3a` and
    /// `transform_vector3a`, so the same values as moving each ray alone.
    pub(super) fn in_frame(&self, g: usize, m: &Affine3A) -> ([Vec4; 3], [Vec4; 3]) {
        let linear = |[x, y, z]: [Vec4; 3], i: usize| {
            let axis = |column: Vec3A| Vec4::splat(column[i]);
            let m = &m.matrix3;
            // As `Mat3A::mul_vec3a`: (x·vx + y·vy) + z·vz.
            x * axis(m.x_axis) + y * axis(m.y_axis) + z * axis(m.z_axis)
        };
        let origin = [0, 1, 2].map(|i| linear(self.origin[g], i) + Vec4::splat(m.translation[i]));
        let dir = [0, 1, 2].map(|i| linear(self.dir[g], i));
        (origin, dir)
    }

    /// Every ray's `t_min`, ray by ray.
    pub(super) fn t_min(&self) -> [f32; PACKET] {
        let mut out = [0.0; PACKET];
        for (values, group) in out.chunks_exact_mut(4).zip(&self.t_min) {
            group.write_to_slice(values);
        }
        out
    }

    /// Group `g`'s inverse directions, per axis.
    pub(super) fn inverse(&self, g: usize) -> [Vec4; 3] {
        self.inv_dir[g]
    }

    /// Group `g`'s origins and directions as they are, per axis.
    pub(super) fn group(&self, g: usize) -> ([Vec4; 3], [Vec4; 3]) {
        (self.origin[g], self.dir[g])
    }

    /// The rays of `candidates` that reach the box `min..max` within their `limits`, and the
    /// nearest entry among them (infinite if none): lane for lane the very operations of
    /// [`intersect_box`] (`minps`/`maxps` in the same order as its horizontal minimum and
    /// maximum, so even NaN slab distances give the same answer).
    #[inline]
    pub(super) fn reaching(
        &self,
        min: Vec3A,
        max: Vec3A,
        candidates: u32,
        limits: &[f32; PACKET],
    ) -> (u32, f32) {
        let mut reached = 0;
        let mut nearest = Vec4::INFINITY;
        for g in 0..GROUPS {
            let in_group = (candidates >> (4 * g)) & 0xF;
            if in_group == 0 {
                continue;
            }
            let slab = |a: usize| {
                let t0 = (Vec4::splat(min[a]) - self.origin[g][a]) * self.inv_dir[g][a];
                let t1 = (Vec4::splat(max[a]) - self.origin[g][a]) * self.inv_dir[g][a];
                (t0.min(t1), t0.max(t1))
            };
            let ((x0, x1), (y0, y1), (z0, z1)) = (slab(0), slab(1), slab(2));
            let near = x0.max(z0).max(y0.max(z0)).max(self.t_min[g]);
            let limit = Vec4::from_slice(&limits[4 * g..4 * g + 4]);
            let far = (x1.min(z1).min(y1.min(z1)) * (1.0 + 2.0 * 3.0 * f32::EPSILON)).min(limit);
            let hit = near.cmple(far).bitmask() & in_group;
            if hit != 0 {
                let lanes =
                    glam::BVec4A::new(hit & 1 != 0, hit & 2 != 0, hit & 4 != 0, hit & 8 != 0);
                nearest = nearest.min(Vec4::select(lanes, near, Vec4::INFINITY));
            }
            reached |= hit << (4 * g);
        }
        (reached, nearest.min_element())
    }
}
