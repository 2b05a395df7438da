//! A packet's rays as one beam: the extremes of their origins and inverse directions, when
//! every ray goes the same way along each axis. The slab distances each ray computes are then
//! bounded from below and above by the extremes' own (rounding is monotonic), so one box test
//! answers for all, conservatively. Rays from one origin (a lidar, a camera) make a narrow
//! cone; parallel rays from nearby points (shadow rays towards the sun) a narrow prism. The
//! scene's top level (`scene/lanes.rs`) and a mesh's packet walk (`mesh/packet.rs`) test boxes
//! against it in their own layouts.

use glam::{BVec3A, BVec4A, Vec3A, Vec4};

/// The extremes of a beam's rays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extremes {
    pub(crate) origin_lo: Vec3A,
    pub(crate) origin_hi: Vec3A,
    pub(crate) inv_lo: Vec3A,
    pub(crate) inv_hi: Vec3A,
    /// Per axis: whether the rays go towards +axis (enter a box at its `min`).
    pub(crate) ascending: [bool; 3],
    pub(crate) t_min: f32,
}

impl Extremes {
    /// Per axis, the inverse direction that makes entries earliest and the one that makes
    /// exits latest, for box planes ahead of the origins: ascending (inverses positive) the
    /// smallest enters first and the largest leaves last, descending the other way round.
    /// When no ray starts behind its origin (`t_min >= 0`), a box test may take only these
    /// products: for a plane ahead, rounding is monotonic, so they are the ones the two-sided
    /// form's minimum or maximum picks; for a plane behind, both are at most 0, which an
    /// entry clamped to `t_min` already is at least, and an exit behind misses either way.
    pub(crate) fn inv_enter_exit(&self) -> (Vec3A, Vec3A) {
        let up = BVec3A::from(self.ascending);
        (
            Vec3A::select(up, self.inv_lo, self.inv_hi),
            Vec3A::select(up, self.inv_hi, self.inv_lo),
        )
    }
}

/// The extremes of the `active` rays of `groups` four-ray groups, `group(g)` giving group
/// `g`'s origins and inverse directions per axis and its `t_min`s (four at a time: a ray at a
/// time, the minima and maxima would be one long chain); `None` if no ray is active, a
/// coordinate is not finite, or an axis has both signs (or zero).
#[inline]
pub(crate) fn extremes(
    active: u32,
    groups: usize,
    group: impl Fn(usize) -> ([Vec4; 3], [Vec4; 3], Vec4),
) -> Option<Extremes> {
    let (mut o_lo, mut o_hi) = ([Vec4::INFINITY; 3], [Vec4::NEG_INFINITY; 3]);
    let (mut i_lo, mut i_hi) = ([Vec4::INFINITY; 3], [Vec4::NEG_INFINITY; 3]);
    let mut t_lo = Vec4::INFINITY;
    for g in 0..groups {
        let m = (active >> (4 * g)) & 0xF;
        if m == 0 {
            continue;
        }
        let on = BVec4A::new(m & 1 != 0, m & 2 != 0, m & 4 != 0, m & 8 != 0);
        let (origin, inv_dir, t_min) = group(g);
        for a in 0..3 {
            let (o, inv) = (origin[a], inv_dir[a]);
            if !(Vec4::select(on, o, Vec4::ZERO).is_finite()
                && Vec4::select(on, inv, Vec4::ONE).is_finite())
            {
                return None;
            }
            // Finite: lane by lane, the minima and maxima are the scalar ones.
            o_lo[a] = o_lo[a].min(Vec4::select(on, o, Vec4::INFINITY));
            o_hi[a] = o_hi[a].max(Vec4::select(on, o, Vec4::NEG_INFINITY));
            i_lo[a] = i_lo[a].min(Vec4::select(on, inv, Vec4::INFINITY));
            i_hi[a] = i_hi[a].max(Vec4::select(on, inv, Vec4::NEG_INFINITY));
        }
        // As `smaller_or` ray by ray: `min` keeps the accumulated value unless the lane's is
        // smaller (a NaN never is).
        t_lo = Vec4::select(on, t_min, Vec4::INFINITY).min(t_lo);
    }
    if active == 0 {
        return None;
    }
    let across = |v: [Vec4; 3], f: fn(Vec4) -> f32| Vec3A::new(f(v[0]), f(v[1]), f(v[2]));
    let (inv_lo, inv_hi) = (
        across(i_lo, Vec4::min_element),
        across(i_hi, Vec4::max_element),
    );
    let ascending = [0, 1, 2].map(|a| inv_lo[a] > 0.0);
    if (0..3).any(|a| !ascending[a] && inv_hi[a] >= 0.0) {
        return None;
    }
    Some(Extremes {
        origin_lo: across(o_lo, Vec4::min_element),
        origin_hi: across(o_hi, Vec4::max_element),
        inv_lo,
        inv_hi,
        ascending,
        t_min: t_lo.min_element(),
    })
}
