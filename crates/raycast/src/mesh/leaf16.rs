//! A packet's leaves sixteen rays at a time, in AVX-512 when the CPU has it, else eight at a
//! time in AVX2 (`leaf16/avx2.rs`; chosen at run time): each ray's test of a leaf's box, and a leaf's triangles against the rays that reach
//! it, one triangle's corners broadcast and sixteen rays in the lanes (both halves of the packet
//! gathered densely when they fit), with each ray's shear made sixteen at a time. The 4-lane
//! pack test does the opposite (one ray against four triangles); on this Zen 4 a 512-bit
//! operation costs two 256-bit ones, so the 16-lane test pays only with most lanes busy, and
//! the walk keeps the pack test for leaves reached by few rays (most are: 8.4 rays a leaf on
//! the reference scan, half the leaves 1 to 4).
//!
//! Lane by lane these are the very IEEE operations of the 4-lane code (`packs::intersect_with`,
//! the walk's box test, `Shear::new`), on the same values: a product and a difference are never
//! fused, a reciprocal is a division, minima and maxima pass their second operand on NaN as
//! SSE's do, each ray's shear picks its axes by exact selections, and an edge value that comes
//! out exactly zero is redone by the scalar test. Every ray gets the hit it gets on any CPU.
//!
//! This and `leaf16/avx2.rs` are the crate's use of `unsafe` (with `widest.rs`): the calls
//! into code compiled for AVX-512 or AVX2, made only after the CPU reported it, and the loads
//! and stores of sixteen (eight) lanes within arrays of 32.
#![allow(unsafe_code)]

use super::packet::{PACKET, RayPacket, lanes};
use super::{LocalHit, is_closer, next_up};
use crate::packs::{EMPTY_LANE, TriPack};
use crate::ray::{Shear, intersect_triangle};
use glam::Vec3A;

/// Which wide leaf tests this CPU runs: sixteen rays to a vector with AVX-512, eight with
/// AVX2 (both: `crate::widest::width`, which `PASSERBY_VECTORS` and `PASSERBY_NO_AVX512`
/// narrow, for comparing the paths in one build), else none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wide {
    None,
    Avx2,
    Avx512,
}

pub(crate) fn wide() -> Wide {
    match crate::widest::width() {
        crate::widest::Width::Avx512 => Wide::Avx512,
        crate::widest::Width::Avx2 => Wide::Avx2,
        crate::widest::Width::Baseline => Wide::None,
    }
}

/// Whether the wide leaf tests run on this CPU (AVX-512 or AVX2).
pub(crate) fn available() -> bool {
    wide() != Wide::None
}

/// Per axis, four rays to a vector, eight vectors: a packet's lanes as the walk holds them.
pub(crate) type Groups = [glam::Vec4; PACKET / 4];

/// A packet's rays as its walk tests boxes: each ray from `origin` along `1 / inv_dir`, within
/// `t_min..t_max`.
#[derive(Clone, Copy)]
pub(crate) struct BoxRays<'a> {
    pub(crate) origin: &'a [Groups; 3],
    pub(crate) inv_dir: &'a [Groups; 3],
    pub(crate) t_min: &'a Groups,
    pub(crate) t_max: &'a Groups,
}

/// The rays of `mask` that meet the box `min..max` within their range, and the nearest entry
/// among them (infinite if none), sixteen rays at a time: what the walk's test of a leaf's box
/// four rays at a time finds, lane for lane. `None` without AVX-512.
#[inline]
pub(crate) fn reach_box(
    rays: BoxRays,
    mask: u32,
    (min, max): ([f32; 3], [f32; 3]),
) -> Option<(u32, f32)> {
    #[cfg(target_arch = "x86_64")]
    match wide() {
        // SAFETY: the CPU has AVX-512F (`wide`).
        Wide::Avx512 => return Some(unsafe { avx512::reach_box(rays, mask, (min, max)) }),
        // SAFETY: the CPU has AVX2 (`wide`).
        Wide::Avx2 => return Some(unsafe { avx2::reach_box(rays, mask, (min, max)) }),
        Wide::None => {}
    }
    let _ = (rays, mask, min, max);
    None
}

/// A packet's rays as the 16-lane test reads them, and each ray's closest hit so far (kept here
/// by either leaf test). Lane `r` of every array is ray `r`; only the packet's active rays are
/// set.
pub(crate) struct LeafRays {
    origin: [[f32; PACKET]; 3],
    /// `1 / dir` per axis (a [`Shear`]'s `inv_dir`).
    inv_dir: [[f32; PACKET]; 3],
    /// `[Sx, Sy, Sz]` of each ray's shear.
    coeffs: [[f32; PACKET]; 3],
    /// Per role of [`Shear::axes`] (`kx`, `ky`, `kz`): each ray's axis for it.
    axes: [[u32; PACKET]; 3],
    t_min: [f32; PACKET],
    t_max: [f32; PACKET],
    best_t: [f32; PACKET],
    best_u: [f32; PACKET],
    best_v: [f32; PACKET],
    /// [`NO_HIT`] for a ray without a hit (no triangle has that index).
    best_triangle: [u32; PACKET],
    /// Where the best triangle is: pack index times four plus lane.
    best_slot: [u32; PACKET],
}

/// The best triangle of a ray without a hit.
const NO_HIT: u32 = EMPTY_LANE;

impl LeafRays {
    pub(crate) fn new() -> LeafRays {
        LeafRays {
            origin: [[0.0; PACKET]; 3],
            inv_dir: [[0.0; PACKET]; 3],
            coeffs: [[0.0; PACKET]; 3],
            axes: [[0; PACKET]; 3],
            t_min: [0.0; PACKET],
            t_max: [0.0; PACKET],
            best_t: [0.0; PACKET],
            best_u: [0.0; PACKET],
            best_v: [0.0; PACKET],
            best_triangle: [NO_HIT; PACKET],
            best_slot: [0; PACKET],
        }
    }

    /// Sets the packet's rays, with no hits yet: each ray's shear made here, sixteen at a
    /// time where the CPU can.
    pub(crate) fn fill(&mut self, rays: &RayPacket) {
        for a in 0..3 {
            for g in 0..PACKET / 4 {
                let lanes = 4 * g..4 * g + 4;
                self.origin[a][lanes.clone()].copy_from_slice(&rays.origin[a][g].to_array());
                self.inv_dir[a][lanes].copy_from_slice(&rays.inv_dir[a][g].to_array());
            }
        }
        self.reset_hits(rays);
        #[cfg(target_arch = "x86_64")]
        match wide() {
            // SAFETY: the CPU has AVX-512F (`wide`).
            Wide::Avx512 => return unsafe { avx512::shears(self, &rays.dir, rays.active) },
            // SAFETY: the CPU has AVX2 (`wide`).
            Wide::Avx2 => return unsafe { avx2::shears(self, &rays.dir, rays.active) },
            Wide::None => {}
        }
        for r in lanes(rays.active) {
            let shear = Shear::new(rays.dir(r));
            for a in 0..3 {
                self.coeffs[a][r] = shear.coeffs[a];
                self.axes[a][r] = shear.axes[a] as u32;
            }
        }
    }

    /// Sets the packet's rays' ranges, with no hits yet (all a ray's hits need).
    pub(crate) fn reset_hits(&mut self, rays: &RayPacket) {
        self.t_min = rays.t_min;
        self.t_max = rays.t_max;
        self.best_triangle = [NO_HIT; PACKET];
    }

    /// Ray `r`'s shear, as [`Shear::new`] makes it (after [`LeafRays::fill`]).
    pub(crate) fn shear(&self, r: usize) -> Shear {
        Shear {
            axes: [0, 1, 2].map(|k| self.axes[k][r] as usize),
            coeffs: [0, 1, 2].map(|k| self.coeffs[k][r]),
            inv_dir: Vec3A::new(self.inv_dir[0][r], self.inv_dir[1][r], self.inv_dir[2][r]),
        }
    }

    /// Ray `r`'s origin.
    pub(crate) fn origin(&self, r: usize) -> Vec3A {
        Vec3A::new(self.origin[0][r], self.origin[1][r], self.origin[2][r])
    }

    /// Keeps `(t, u, v)` on `triangle` (at `slot`: pack index times four plus lane) as ray
    /// `r`'s hit if it is closer than its hit so far (`is_closer`), and lowers the ray's bound
    /// in `t_far` (with `first_hit`, below every hit); whether it was kept.
    pub(crate) fn keep(
        &mut self,
        r: usize,
        (t, u, v): (f32, f32, f32),
        (triangle, slot): (u32, u32),
        t_far: &mut [f32; PACKET],
        first_hit: bool,
    ) -> bool {
        let best = (self.best_triangle[r] != NO_HIT).then(|| LocalHit {
            t: self.best_t[r],
            u: 0.0,
            v: 0.0,
            triangle: self.best_triangle[r],
            normal: Vec3A::ZERO,
        });
        if !is_closer(&best, t, triangle, self.t_max[r]) {
            return false;
        }
        self.best_t[r] = t;
        self.best_u[r] = u;
        self.best_v[r] = v;
        self.best_triangle[r] = triangle;
        self.best_slot[r] = slot;
        t_far[r] = if first_hit { f32::NEG_INFINITY } else { t };
        true
    }

    /// Tests the rays of `mask` against the packs `first..first + count` of `packs`, keeping
    /// each ray's closest hit (with `first_hit`, its first) and lowering its bound in `t_far`
    /// as [`TriangleMesh::closest_packet`](super::TriangleMesh) does; whether some ray's hit
    /// moved closer.
    pub(crate) fn test_leaf(
        &mut self,
        packs: &[TriPack],
        (first, count): (usize, usize),
        mask: u32,
        t_far: &mut [f32; PACKET],
        first_hit: bool,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        match wide() {
            // SAFETY: the CPU has AVX-512F (`wide`).
            Wide::Avx512 => {
                return unsafe {
                    avx512::test_leaf(self, packs, (first, count), mask, t_far, first_hit)
                };
            }
            // SAFETY: the CPU has AVX2 (`wide`).
            Wide::Avx2 => {
                return unsafe {
                    avx2::test_leaf(self, packs, (first, count), mask, t_far, first_hit)
                };
            }
            Wide::None => {}
        }
        // Without AVX2 (only tests ask for this then), the same answers a ray and a
        // triangle at a time.
        let mut closer = false;
        for (p, pack) in packs[first..first + count].iter().enumerate() {
            for lane in 0..4 {
                if pack.prim[lane] == EMPTY_LANE {
                    continue;
                }
                let slot = (4 * (first + p) + lane) as u32;
                for r in lanes(mask) {
                    closer |= self.scalar_test(r, pack, lane, slot, t_far, first_hit);
                }
            }
        }
        closer
    }

    /// Ray `r` against lane `lane` of `pack` by the scalar test, kept if closer.
    fn scalar_test(
        &mut self,
        r: usize,
        pack: &TriPack,
        lane: usize,
        slot: u32,
        t_far: &mut [f32; PACKET],
        first_hit: bool,
    ) -> bool {
        let bound = next_up(t_far[r]);
        let corners = pack.corners(lane);
        let shear = self.shear(r);
        let Some((t, u, v)) =
            intersect_triangle(self.origin(r), &shear, self.t_min[r], bound, corners)
        else {
            return false;
        };
        let triangle = pack.prim[lane];
        self.keep(r, (t, u, v), (triangle, slot), t_far, first_hit)
    }

    /// The `active` rays that have a hit.
    pub(crate) fn hit_mask(&self, active: u32) -> u32 {
        lanes(active)
            .filter(|&r| self.best_triangle[r] != NO_HIT)
            .fold(0, |mask, r| mask | 1 << r)
    }

    /// Each of the `active` rays' hit, as `found(r, hit)`, with its triangle's normal not
    /// yet made unit (the caller makes the normals of the hits it keeps in one pass).
    pub(crate) fn report(
        &self,
        packs: &[TriPack],
        active: u32,
        mut found: impl FnMut(usize, &LocalHit),
    ) {
        for r in lanes(active).filter(|&r| self.best_triangle[r] != NO_HIT) {
            let slot = self.best_slot[r] as usize;
            let [a, b, c] = packs[slot / 4].corners(slot % 4);
            found(
                r,
                &LocalHit {
                    t: self.best_t[r],
                    u: self.best_u[r],
                    v: self.best_v[r],
                    triangle: self.best_triangle[r],
                    normal: (b - a).cross(c - a),
                },
            );
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2;

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{BoxRays, EMPTY_LANE, Groups, LeafRays, NO_HIT, PACKET, TriPack};
    use crate::wide::lane_of;
    use std::arch::x86_64::*;

    /// Sixteen lanes of `values` from lane `16 · half` (`half` is 0 or 1).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load<T>(values: &[T; PACKET], half: usize) -> __m512i {
        const { assert!(size_of::<T>() == 4) };
        // SAFETY: lanes 16·(half & 1) .. +16 of four bytes each lie within the 32.
        unsafe { _mm512_loadu_si512(values.as_ptr().add(16 * (half & 1)).cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store<T>(values: &mut [T; PACKET], half: usize, v: __m512i) {
        const { assert!(size_of::<T>() == 4) };
        // SAFETY: as `load`.
        unsafe { _mm512_storeu_si512(values.as_mut_ptr().add(16 * (half & 1)).cast(), v) }
    }

    /// `super::next_up` lane by lane: one ulp up for finite `t >= 0` (also -0), else `t`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn next_up(t: __m512) -> __m512 {
        let magnitude = _mm512_abs_ps(t);
        let finite = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(magnitude, _mm512_set1_ps(f32::INFINITY));
        let up = finite & _mm512_cmp_ps_mask::<_CMP_GE_OQ>(t, _mm512_setzero_ps());
        let bits = _mm512_castps_si512(t);
        _mm512_castsi512_ps(_mm512_mask_add_epi32(bits, up, bits, _mm512_set1_epi32(1)))
    }

    /// Which rays of the 32 sit in the sixteen lanes: one half of the packet as it is, or up to
    /// sixteen rays from both halves gathered densely (a leaf is reached by about nine).
    #[derive(Clone, Copy)]
    enum Selection {
        Half(usize),
        /// Lane `l` holds ray `ray[l]`; the first `from_low` lanes come from the low half, whose
        /// rays are `low`, the next from the high half's `high`.
        Dense {
            ray: __m512i,
            from_low: u32,
            low: __mmask16,
            high: __mmask16,
        },
    }

    /// A [`Selection`] in scalars, as it is handed to [`test_selected`]: a selection holds a
    /// vector, and one passed as an argument went through memory, where its copy stalled the
    /// loads that followed (12 % of `test_selected` on `warehouse_walkers`).
    #[derive(Clone, Copy)]
    enum Choice {
        Half(usize),
        /// The rays `low` of the low half, then the rays `high` of the high half (at most
        /// sixteen in all).
        Dense {
            low: __mmask16,
            high: __mmask16,
        },
    }

    impl Selection {
        /// The selection `choice` describes.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn of(choice: Choice) -> Selection {
            match choice {
                Choice::Half(h) => Selection::Half(h),
                Choice::Dense { low, high } => {
                    let (from_low, from_high) = (low.count_ones(), high.count_ones());
                    let ray_low = _mm512_maskz_compress_epi32(low, iota());
                    let sixteen = _mm512_set1_epi32(16);
                    let ray_high =
                        _mm512_maskz_compress_epi32(high, _mm512_add_epi32(iota(), sixteen));
                    let after_low = (((1u32 << from_high) - 1) << from_low) as __mmask16;
                    Selection::Dense {
                        ray: _mm512_mask_expand_epi32(ray_low, after_low, ray_high),
                        from_low,
                        low,
                        high,
                    }
                }
            }
        }

        /// The lanes of `values` it selects.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn gather<T>(self, values: &[T; PACKET]) -> __m512i {
            match self {
                Selection::Half(h) => load(values, h),
                Selection::Dense { ray, .. } => {
                    _mm512_permutex2var_epi32(load(values, 0), ray, load(values, 1))
                }
            }
        }

        /// Writes `v`'s lanes back where [`Selection::gather`] took them.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn scatter<T>(self, values: &mut [T; PACKET], v: __m512i) {
            match self {
                Selection::Half(h) => store(values, h, v),
                Selection::Dense {
                    from_low,
                    low,
                    high,
                    ..
                } => {
                    store(values, 0, _mm512_mask_expand_epi32(load(values, 0), low, v));
                    let shift = _mm512_add_epi32(iota(), _mm512_set1_epi32(from_low as i32));
                    let rest = _mm512_permutexvar_epi32(shift, v);
                    store(
                        values,
                        1,
                        _mm512_mask_expand_epi32(load(values, 1), high, rest),
                    );
                }
            }
        }

        /// The packet's ray in lane `l`.
        #[target_feature(enable = "avx512f")]
        fn ray(self, l: usize) -> usize {
            match self {
                Selection::Half(h) => 16 * h + l,
                Selection::Dense { ray, .. } => {
                    let mut rays = [0u32; 16];
                    // SAFETY: sixteen lanes of four bytes into an array of sixteen.
                    unsafe { _mm512_storeu_si512(rays.as_mut_ptr().cast(), ray) };
                    rays[l & 15] as usize
                }
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn iota() -> __m512i {
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
    }

    /// Selected rays' state in registers.
    struct Lanes {
        origin: [__m512; 3],
        coeffs: [__m512; 3],
        /// Per role (`kx`, `ky`, `kz`): the lanes whose axis is x, and those whose axis is y.
        axis_x: [__mmask16; 3],
        axis_y: [__mmask16; 3],
        t_min: __m512,
        t_max: __m512,
        best_t: __m512,
        best_u: __m512,
        best_v: __m512,
        best_triangle: __m512i,
        best_slot: __m512i,
        t_far: __m512,
    }

    impl Lanes {
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn gather(w: &LeafRays, t_far: &[f32; PACKET], at: Selection) -> Lanes {
            let f = |values: &[f32; PACKET]| _mm512_castsi512_ps(at.gather(values));
            // By reference: mapping the arrays by value copied them to the stack first, and
            // the gathers' loads then stalled on the copies' narrower stores.
            let axes = [0, 1, 2].map(|k| at.gather(&w.axes[k]));
            Lanes {
                origin: [0, 1, 2].map(|a| f(&w.origin[a])),
                coeffs: [0, 1, 2].map(|a| f(&w.coeffs[a])),
                axis_x: axes.map(|axis| _mm512_cmpeq_epi32_mask(axis, _mm512_set1_epi32(0))),
                axis_y: axes.map(|axis| _mm512_cmpeq_epi32_mask(axis, _mm512_set1_epi32(1))),
                t_min: f(&w.t_min),
                t_max: f(&w.t_max),
                best_t: f(&w.best_t),
                best_u: f(&w.best_u),
                best_v: f(&w.best_v),
                best_triangle: at.gather(&w.best_triangle),
                best_slot: at.gather(&w.best_slot),
                t_far: f(t_far),
            }
        }

        /// When every lane of `rays` starts at one origin (bit for bit) and picks the same
        /// axis for each role, that origin on the roles' axes and the axes: each corner's
        /// differences from the origin are then the same in every lane, made once in scalars
        /// and broadcast, with no per-lane picking (the same values: a pick selects exactly,
        /// and a difference of the same two floats is the same float).
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn shared_frame(&self, rays: __mmask16) -> Option<([usize; 3], [f32; 3])> {
            if rays == 0 {
                return None;
            }
            let mut axes = [0usize; 3];
            for (role, axis) in axes.iter_mut().enumerate() {
                let (x, y) = (self.axis_x[role], self.axis_y[role]);
                *axis = if rays & !x == 0 {
                    0
                } else if rays & !y == 0 {
                    1
                } else if rays & (x | y) == 0 {
                    2
                } else {
                    return None;
                };
            }
            let first = rays.trailing_zeros() as usize;
            let mut origin = [0.0f32; 3];
            for (a, o) in origin.iter_mut().enumerate() {
                let mut lanes = [0.0f32; 16];
                // SAFETY: sixteen lanes of four bytes into an array of sixteen.
                unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), self.origin[a]) };
                *o = lanes[first];
                let bits = _mm512_castps_si512(self.origin[a]);
                let same =
                    _mm512_mask_cmpeq_epi32_mask(rays, bits, _mm512_set1_epi32(o.to_bits() as i32));
                if same != rays {
                    return None;
                }
            }
            Some((axes, axes.map(|k| origin[k])))
        }

        /// Writes back what the tests change.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn scatter(&self, w: &mut LeafRays, t_far: &mut [f32; PACKET], at: Selection) {
            at.scatter(&mut w.best_t, _mm512_castps_si512(self.best_t));
            at.scatter(&mut w.best_u, _mm512_castps_si512(self.best_u));
            at.scatter(&mut w.best_v, _mm512_castps_si512(self.best_v));
            at.scatter(&mut w.best_triangle, self.best_triangle);
            at.scatter(&mut w.best_slot, self.best_slot);
            at.scatter(t_far, _mm512_castps_si512(self.t_far));
        }
    }

    /// Sixteen lanes of a packet's eight 4-lane vectors, from lane `16 · half`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load_groups(values: &Groups, half: usize) -> __m512 {
        // A `Vec4` is four floats in sixteen bytes (glam's layout on every back end), and an
        // array's elements lie back to back.
        const { assert!(size_of::<Groups>() == 4 * PACKET) };
        // SAFETY: lanes 16·(half & 1) .. +16 of the 32 floats.
        unsafe { _mm512_loadu_ps(values.as_ptr().cast::<f32>().add(16 * (half & 1))) }
    }

    /// [`super::reach_box`] in AVX-512: the walk's 4-lane operations (minima and maxima that
    /// pass the second operand on NaN, as SSE's do), sixteen lanes at a time.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) fn reach_box(
        BoxRays {
            origin,
            inv_dir,
            t_min,
            t_max,
        }: BoxRays,
        mask: u32,
        (min, max): ([f32; 3], [f32; 3]),
    ) -> (u32, f32) {
        let mut reached = 0;
        let mut entry = f32::INFINITY;
        for h in 0..2 {
            let rays = (mask >> (16 * h)) as __mmask16;
            if rays == 0 {
                continue;
            }
            let slab = |a: usize| {
                let (o, inv) = (load_groups(&origin[a], h), load_groups(&inv_dir[a], h));
                let t0 = _mm512_mul_ps(_mm512_sub_ps(_mm512_set1_ps(min[a]), o), inv);
                let t1 = _mm512_mul_ps(_mm512_sub_ps(_mm512_set1_ps(max[a]), o), inv);
                (_mm512_min_ps(t0, t1), _mm512_max_ps(t0, t1))
            };
            let ((x0, x1), (y0, y1), (z0, z1)) = (slab(0), slab(1), slab(2));
            let near = _mm512_max_ps(
                _mm512_max_ps(_mm512_max_ps(x0, y0), z0),
                load_groups(t_min, h),
            );
            // Widened by 2·gamma(3), as the single-ray test.
            let widen = _mm512_set1_ps(1.0 + 6.0 * f32::EPSILON);
            let far = _mm512_mul_ps(_mm512_min_ps(_mm512_min_ps(x1, y1), z1), widen);
            let far = _mm512_min_ps(far, load_groups(t_max, h));
            let hit = rays & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(near, far);
            if hit != 0 {
                reached |= u32::from(hit) << (16 * h);
                let nearest = _mm512_mask_mov_ps(_mm512_set1_ps(f32::INFINITY), hit, near);
                entry = crate::ray::smaller_or(_mm512_reduce_min_ps(nearest), entry);
            }
        }
        (reached, entry)
    }

    /// The shears of the `active` rays of `dir` into `w` (as [`Shear::new`](crate::ray::Shear)
    /// makes them: the same comparisons, the same divisions).
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) fn shears(w: &mut LeafRays, dir: &[Groups; 3], active: u32) {
        for h in 0..2 {
            if (active >> (16 * h)) as __mmask16 == 0 {
                continue;
            }
            let d = [0, 1, 2].map(|a| load_groups(&dir[a], h));
            let a = d.map(|x| _mm512_abs_ps(x));
            let ge = |x, y| _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, y);
            // The dominant axis: x if |x| >= |y| and |x| >= |z|, else y if |y| >= |z|, else z.
            let x_major = ge(a[0], a[1]) & ge(a[0], a[2]);
            let y_major = !x_major & ge(a[1], a[2]);
            let int = _mm512_set1_epi32;
            let kz = _mm512_mask_blend_epi32(
                x_major,
                _mm512_mask_blend_epi32(y_major, int(2), int(1)),
                int(0),
            );
            let pick = |axis: __m512i| {
                let is = |k: i32| _mm512_cmpeq_epi32_mask(axis, int(k));
                _mm512_mask_blend_ps(is(0), _mm512_mask_blend_ps(is(1), d[2], d[1]), d[0])
            };
            let dz = pick(kz);
            // (kz + 1) % 3 and (kz + 2) % 3, swapped when the ray goes towards -kz (the
            // winding is kept).
            let next = |k: __m512i, by: i32| {
                let sum = _mm512_add_epi32(k, int(by));
                let wrap = _mm512_cmpge_epi32_mask(sum, int(3));
                _mm512_mask_sub_epi32(sum, wrap, sum, int(3))
            };
            let (kx, ky) = (next(kz, 1), next(kz, 2));
            let backwards = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(dz, _mm512_setzero_ps());
            let (kx, ky) = (
                _mm512_mask_blend_epi32(backwards, kx, ky),
                _mm512_mask_blend_epi32(backwards, ky, kx),
            );
            let coeffs = [
                _mm512_div_ps(pick(kx), dz),
                _mm512_div_ps(pick(ky), dz),
                _mm512_div_ps(_mm512_set1_ps(1.0), dz),
            ];
            for (role, k) in [kx, ky, kz].into_iter().enumerate() {
                store(&mut w.axes[role], h, k);
                store(&mut w.coeffs[role], h, _mm512_castps_si512(coeffs[role]));
            }
        }
    }

    /// [`LeafRays::test_leaf`] in AVX-512.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) fn test_leaf(
        w: &mut LeafRays,
        packs: &[TriPack],
        leaf: (usize, usize),
        mask: u32,
        t_far: &mut [f32; PACKET],
        first_hit: bool,
    ) -> bool {
        let (low, high) = (mask as __mmask16, (mask >> 16) as __mmask16);
        let (from_low, from_high) = (low.count_ones(), high.count_ones());
        if low != 0 && high != 0 && from_low + from_high <= 16 {
            let lanes = ((1u32 << (from_low + from_high)) - 1) as __mmask16;
            let at = Choice::Dense { low, high };
            return test_selected(w, packs, leaf, (at, lanes), t_far, first_hit);
        }
        let mut closer = false;
        for (h, rays) in [(0, low), (1, high)] {
            if rays != 0 {
                let at = Choice::Half(h);
                closer |= test_selected(w, packs, leaf, (at, rays), t_far, first_hit);
            }
        }
        closer
    }

    /// The leaf's triangles against the lanes `rays` of the selection `choice` describes.
    #[target_feature(enable = "avx512f")]
    fn test_selected(
        w: &mut LeafRays,
        packs: &[TriPack],
        (first, count): (usize, usize),
        (choice, mut rays): (Choice, __mmask16),
        t_far: &mut [f32; PACKET],
        first_hit: bool,
    ) -> bool {
        let at = Selection::of(choice);
        let mut closer = false;
        let mut s = Lanes::gather(w, t_far, at);
        // (Still true of the rays left when some leave: they are fewer.)
        let shared = s.shared_frame(rays);
        let mut bound = next_up(s.t_far);
        let zero = _mm512_setzero_ps();
        let no_hit = _mm512_set1_epi32(NO_HIT as i32);
        'packs: for (p, pack) in packs[first..first + count].iter().enumerate() {
            for (lane, &triangle) in pack.prim.iter().enumerate() {
                if triangle == EMPTY_LANE {
                    continue;
                }
                // Each corner relative to each ray's origin, on the ray's sheared axes.
                let to_ray = |j: usize| -> [__m512; 3] {
                    let (dx, dy, dz) = match shared {
                        Some((axes, origin)) => {
                            let d = |role: usize| {
                                let corner = lane_of(&pack.v[j][axes[role]], lane);
                                _mm512_set1_ps(corner - origin[role])
                            };
                            (d(0), d(1), d(2))
                        }
                        None => {
                            let d = [0, 1, 2].map(|a| {
                                let corner = _mm512_set1_ps(lane_of(&pack.v[j][a], lane));
                                _mm512_sub_ps(corner, s.origin[a])
                            });
                            let pick = |role: usize| {
                                let y_or_z = _mm512_mask_blend_ps(s.axis_y[role], d[2], d[1]);
                                _mm512_mask_blend_ps(s.axis_x[role], y_or_z, d[0])
                            };
                            (pick(0), pick(1), pick(2))
                        }
                    };
                    [
                        _mm512_sub_ps(dx, _mm512_mul_ps(s.coeffs[0], dz)),
                        _mm512_sub_ps(dy, _mm512_mul_ps(s.coeffs[1], dz)),
                        _mm512_mul_ps(s.coeffs[2], dz),
                    ]
                };
                let [ax, ay, az] = to_ray(0);
                let [bx, by, bz] = to_ray(1);
                let [cx, cy, cz] = to_ray(2);
                let mul = |a, b| _mm512_mul_ps(a, b);
                let u = _mm512_sub_ps(mul(cx, by), mul(cy, bx));
                let v = _mm512_sub_ps(mul(ax, cy), mul(ay, cx));
                let wv = _mm512_sub_ps(mul(bx, ay), mul(by, ax));
                let lt0 = |x| _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, zero);
                let gt0 = |x| _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, zero);
                let eq0 = |x| _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, zero);
                let negative = lt0(u) | lt0(v) | lt0(wv);
                let positive = gt0(u) | gt0(v) | gt0(wv);
                let on_edge = rays & (eq0(u) | eq0(v) | eq0(wv));
                let det = _mm512_add_ps(_mm512_add_ps(u, v), wv);
                let inv_det = _mm512_div_ps(_mm512_set1_ps(1.0), det);
                let scaled = _mm512_add_ps(_mm512_add_ps(mul(u, az), mul(v, bz)), mul(wv, cz));
                let t = mul(scaled, inv_det);
                let hits = rays
                    & !on_edge
                    & !(negative & positive)
                    & _mm512_cmp_ps_mask::<_CMP_NEQ_UQ>(det, zero)
                    & _mm512_cmp_ps_mask::<_CMP_GT_OQ>(t, s.t_min)
                    & _mm512_cmp_ps_mask::<_CMP_LT_OQ>(t, bound);
                if hits != 0 {
                    // `is_closer`: nearer, or as near with a lower triangle index; without a
                    // hit yet, before the ray's end.
                    let index = _mm512_set1_epi32(triangle as i32);
                    let has_hit = _mm512_cmpneq_epi32_mask(s.best_triangle, no_hit);
                    let lower = _mm512_cmplt_epu32_mask(index, s.best_triangle);
                    let nearer = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(t, s.best_t)
                        | (_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(t, s.best_t) & lower);
                    let before_end = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(t, s.t_max);
                    let keep = hits & ((has_hit & nearer) | (!has_hit & before_end));
                    if keep != 0 {
                        s.best_t = _mm512_mask_mov_ps(s.best_t, keep, t);
                        s.best_u = _mm512_mask_mov_ps(s.best_u, keep, mul(v, inv_det));
                        s.best_v = _mm512_mask_mov_ps(s.best_v, keep, mul(wv, inv_det));
                        s.best_triangle = _mm512_mask_mov_epi32(s.best_triangle, keep, index);
                        let slot = _mm512_set1_epi32((4 * (first + p) + lane) as i32);
                        s.best_slot = _mm512_mask_mov_epi32(s.best_slot, keep, slot);
                        let far = if first_hit {
                            _mm512_set1_ps(f32::NEG_INFINITY)
                        } else {
                            t
                        };
                        s.t_far = _mm512_mask_mov_ps(s.t_far, keep, far);
                        bound = next_up(s.t_far);
                        closer = true;
                        if first_hit {
                            // A ray stops at its first hit: no later test can change it
                            // (its bound is now below every `t`), so it leaves the lanes
                            // tested, and once none is left, the leaf is done.
                            rays &= !keep;
                            if rays == 0 {
                                break 'packs;
                            }
                        }
                    }
                }
                if on_edge != 0 {
                    // An exact zero edge value: the scalar test decides, in double precision,
                    // as in the pack test.
                    s.scatter(w, t_far, at);
                    let slot = (4 * (first + p) + lane) as u32;
                    let mut edge = u32::from(on_edge);
                    while edge != 0 {
                        let r = at.ray(edge.trailing_zeros() as usize);
                        edge &= edge - 1;
                        closer |= w.scalar_test(r, pack, lane, slot, t_far, first_hit);
                    }
                    s = Lanes::gather(w, t_far, at);
                    bound = next_up(s.t_far);
                }
            }
        }
        s.scatter(w, t_far, at);
        closer
    }
}
