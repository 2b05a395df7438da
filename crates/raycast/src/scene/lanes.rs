//! Box tests for a packet of rays at the top level: the whole packet as one beam (rays from one
//! origin, or parallel), or its rays four at a time. Both are conservative the way the
//! single-ray slab test is (`ray::intersect_box`), so a box they refuse no ray reaches.

use crate::PACKET;
use crate::beam::Extremes;
use crate::ray::{Ray, larger_or, smaller_or};
#[cfg(test)]
use glam::Vec3;
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

/// Coordinate `i` of four vectors given per axis, moved by `m`'s linear part: as
/// `Mat3A::mul_vec3a`, (x·vx + y·vy) + z·vz.
#[inline(always)]
fn linear(m: &Affine3A, [x, y, z]: [Vec4; 3], i: usize) -> Vec4 {
    let axis = |column: Vec3A| Vec4::splat(column[i]);
    let m = &m.matrix3;
    x * axis(m.x_axis) + y * axis(m.y_axis) + z * axis(m.z_axis)
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
        let origin =
            [0, 1, 2].map(|i| linear(m, self.origin[g], i) + Vec4::splat(m.translation[i]));
        let dir = [0, 1, 2].map(|i| linear(m, self.dir[g], i));
        (origin, dir)
    }

    /// The extremes of the `active` rays moved by `m`: what `crate::beam::extremes` finds of
    /// the rays [`PacketLanes::in_frame`] moves (the same values), without the rays' inverse
    /// directions or, for rays of one origin (`one_origin`), more than one group's origins.
    /// A correctly rounded `1 / d` never grows with `d` on either side of 0, so per axis the
    /// extreme inverses are the inverses of the extreme directions when all have one sign.
    pub(super) fn extremes_in_frame(
        &self,
        active: u32,
        m: &Affine3A,
        one_origin: bool,
    ) -> Option<Extremes> {
        let (mut o_lo, mut o_hi) = ([Vec4::INFINITY; 3], [Vec4::NEG_INFINITY; 3]);
        let (mut d_lo, mut d_hi) = ([Vec4::INFINITY; 3], [Vec4::NEG_INFINITY; 3]);
        let mut t_lo = Vec4::INFINITY;
        let mut finite = true;
        let mut origins_seen = false;
        let mut extend = |lo: &mut Vec4, hi: &mut Vec4, on: glam::BVec4A, v: Vec4| {
            finite &= Vec4::select(on, v, Vec4::ZERO).is_finite();
            *lo = lo.min(Vec4::select(on, v, Vec4::INFINITY));
            *hi = hi.max(Vec4::select(on, v, Vec4::NEG_INFINITY));
        };
        for g in 0..GROUPS {
            let bits = (active >> (4 * g)) & 0xF;
            if bits == 0 {
                continue;
            }
            let on = glam::BVec4A::new(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0);
            for a in 0..3 {
                extend(&mut d_lo[a], &mut d_hi[a], on, linear(m, self.dir[g], a));
            }
            if !(one_origin && origins_seen) {
                for a in 0..3 {
                    let o = linear(m, self.origin[g], a) + Vec4::splat(m.translation[a]);
                    extend(&mut o_lo[a], &mut o_hi[a], on, o);
                }
                origins_seen = true;
            }
            t_lo = Vec4::select(on, self.t_min[g], Vec4::INFINITY).min(t_lo);
        }
        if !finite || active == 0 {
            return None;
        }
        let across = |v: [Vec4; 3], f: fn(Vec4) -> f32| Vec3A::new(f(v[0]), f(v[1]), f(v[2]));
        let (lo, hi) = (
            across(d_lo, Vec4::min_element),
            across(d_hi, Vec4::max_element),
        );
        let (inv_lo, inv_hi) = (Vec3A::ONE / hi, Vec3A::ONE / lo);
        let one_sign = lo.cmpgt(Vec3A::ZERO) | hi.cmplt(Vec3A::ZERO);
        if !one_sign.all() || !inv_lo.is_finite() || !inv_hi.is_finite() {
            return None;
        }
        Some(Extremes {
            origin_lo: across(o_lo, Vec4::min_element),
            origin_hi: across(o_hi, Vec4::max_element),
            inv_lo,
            inv_hi,
            ascending: [0, 1, 2].map(|a| inv_lo[a] > 0.0),
            t_min: t_lo.min_element(),
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// The beam of a packet moved into a frame, found before moving its rays, is the beam of
    /// the moved rays (what `crate::beam::extremes` finds of them, with their inverses as the
    /// walk makes them): for rays of one origin and of many, every subset of rays, turned,
    /// mirrored and unevenly scaled frames, and directions along an axis (no beam).
    #[test]
    fn extremes_in_a_frame_are_those_of_the_moved_rays() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        for case in 0..4000 {
            let one_origin = case % 2 == 0;
            let base = Vec3A::new(
                rng.random_range(-50.0..50.0),
                rng.random_range(-50.0..50.0),
                1.5,
            );
            let aim = Vec3A::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                -0.3,
            );
            let spread = if case % 7 == 0 { 1e-9 } else { 0.05 };
            let rays: Vec<Ray> = (0..PACKET)
                .map(|_| {
                    let origin = if one_origin {
                        base
                    } else {
                        base + Vec3A::new(
                            rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                            0.0,
                        )
                    };
                    let mut dir = aim
                        + Vec3A::new(
                            rng.random_range(-spread..spread),
                            rng.random_range(-spread..spread),
                            0.0,
                        );
                    if case % 11 == 0 {
                        dir.x = 0.0;
                    }
                    Ray::new(origin, dir, rng.random_range(0.0..0.1), 100.0).expect("a ray")
                })
                .collect();
            let lanes = PacketLanes::new(&rays);
            let scale = Vec3::new(
                rng.random_range(0.3..3.0),
                rng.random_range(0.3..3.0),
                rng.random_range(0.3..3.0),
            );
            let scale = if case % 3 == 0 {
                Vec3::splat(scale.x)
            } else {
                scale
            };
            let mirror = if case % 5 == 0 {
                Vec3::new(-1.0, 1.0, 1.0)
            } else {
                Vec3::ONE
            };
            let world_from_mesh = Affine3A::from_scale_rotation_translation(
                scale * mirror,
                glam::Quat::from_euler(
                    glam::EulerRot::ZYX,
                    rng.random_range(0.0..6.3),
                    rng.random_range(-0.3..0.3),
                    rng.random_range(-0.3..0.3),
                ),
                Vec3::new(
                    rng.random_range(-40.0..40.0),
                    rng.random_range(-40.0..40.0),
                    0.0,
                ),
            );
            let m = world_from_mesh.inverse();
            let active = if case % 4 == 0 {
                u32::MAX
            } else {
                rng.random::<u32>()
            };
            let moved: Vec<_> = (0..GROUPS).map(|g| lanes.in_frame(g, &m)).collect();
            let expected = crate::beam::extremes(active, GROUPS, |g| {
                let (origin, dir) = moved[g];
                (origin, dir.map(|d| Vec4::ONE / d), lanes.t_min[g])
            });
            let got = lanes.extremes_in_frame(active, &m, one_origin);
            match (got, expected) {
                (None, None) => {}
                (Some(got), Some(expected)) => {
                    let same = got.origin_lo == expected.origin_lo
                        && got.origin_hi == expected.origin_hi
                        && got.inv_lo == expected.inv_lo
                        && got.inv_hi == expected.inv_hi
                        && got.ascending == expected.ascending
                        && got.t_min == expected.t_min;
                    assert!(same, "case {case}: {got:?} against {expected:?}");
                }
                (got, expected) => panic!("case {case}: {got:?} against {expected:?}"),
            }
        }
    }
}
