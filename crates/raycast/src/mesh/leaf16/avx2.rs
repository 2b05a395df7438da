//! The 16-lane leaf tests in AVX2, eight rays to a vector: for CPUs without AVX-512 (Zen 3 and
//! older, most laptops), where the walk would otherwise test a leaf's triangles a ray at a
//! time against four. The operations are the AVX-512 code's lane for lane (the same IEEE
//! operations, the same NaN rules of minima, maxima and comparisons), with each mask a vector
//! of lanes whose bits `movemask` gathers where the code branches, so every ray gets the same
//! hit.
//!
//! The rays a leaf's test takes are picked eight at a time: a quarter of the packet (rays
//! `8q..8q + 8`) is loaded as it is; any other up to eight rays are gathered by index.
//!
//! `unsafe`: these functions are compiled for AVX2 and called only after the CPU reported it
//! (`super::available`); the loads and stores of eight lanes lie within arrays of 32, and the
//! gathers read lanes `< PACKET` of them.
#![allow(unsafe_code)]

use super::{BoxRays, EMPTY_LANE, Groups, LeafRays, NO_HIT, PACKET, TriPack};
use crate::wide::lane_of;
use std::arch::x86_64::*;

/// Eight lanes of `values` from lane `8 · quarter` (`quarter` below 4).
#[inline]
#[target_feature(enable = "avx2")]
fn load<T>(values: &[T; PACKET], quarter: usize) -> __m256i {
    const { assert!(size_of::<T>() == 4) };
    // SAFETY: lanes 8·(quarter & 3) .. +8 of four bytes each lie within the 32.
    unsafe { _mm256_loadu_si256(values.as_ptr().add(8 * (quarter & 3)).cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn store<T>(values: &mut [T; PACKET], quarter: usize, v: __m256i) {
    const { assert!(size_of::<T>() == 4) };
    // SAFETY: as `load`.
    unsafe { _mm256_storeu_si256(values.as_mut_ptr().add(8 * (quarter & 3)).cast(), v) }
}

/// Eight lanes of a packet's eight 4-lane vectors, from lane `8 · quarter`.
#[inline]
#[target_feature(enable = "avx2")]
fn load_groups(values: &Groups, quarter: usize) -> __m256 {
    const { assert!(size_of::<Groups>() == 4 * PACKET) };
    // SAFETY: lanes 8·(quarter & 3) .. +8 of the 32 floats.
    unsafe { _mm256_loadu_ps(values.as_ptr().cast::<f32>().add(8 * (quarter & 3))) }
}

/// The lanes of `bits` as a vector mask (all ones in a lane whose bit is set).
#[inline]
#[target_feature(enable = "avx2")]
fn lanes_of(bits: u8) -> __m256 {
    let select = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
    let set = _mm256_and_si256(_mm256_set1_epi32(i32::from(bits)), select);
    _mm256_castsi256_ps(_mm256_cmpeq_epi32(set, select))
}

/// The lanes set in a vector mask, as bits.
#[inline]
#[target_feature(enable = "avx2")]
fn bits_of(m: __m256) -> u8 {
    _mm256_movemask_ps(m) as u8
}

/// `mask ? b : a` lane by lane (a blend on whole 32-bit lanes).
#[inline]
#[target_feature(enable = "avx2")]
fn select(mask: __m256, a: __m256, b: __m256) -> __m256 {
    _mm256_blendv_ps(a, b, mask)
}

#[inline]
#[target_feature(enable = "avx2")]
fn select_i(mask: __m256, a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(a, b, _mm256_castps_si256(mask))
}

#[inline]
#[target_feature(enable = "avx2")]
fn cmp<const P: i32>(a: __m256, b: __m256) -> __m256 {
    _mm256_cmp_ps::<P>(a, b)
}

/// `super::next_up` lane by lane: one ulp up for finite `t >= 0` (also -0), else `t`.
#[inline]
#[target_feature(enable = "avx2")]
fn next_up(t: __m256) -> __m256 {
    let magnitude = _mm256_and_ps(t, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX)));
    let finite = cmp::<_CMP_LT_OQ>(magnitude, _mm256_set1_ps(f32::INFINITY));
    let up = _mm256_and_ps(finite, cmp::<_CMP_GE_OQ>(t, _mm256_setzero_ps()));
    let one = _mm256_and_si256(_mm256_castps_si256(up), _mm256_set1_epi32(1));
    _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(t), one))
}

/// The least of eight lanes (none NaN).
#[inline]
#[target_feature(enable = "avx2")]
fn least(v: __m256) -> f32 {
    let four = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
    let two = _mm_min_ps(four, _mm_movehl_ps(four, four));
    let one = _mm_min_ss(two, _mm_shuffle_ps::<0b01>(two, two));
    _mm_cvtss_f32(one)
}

/// [`super::reach_box`] in AVX2: the walk's 4-lane operations, eight lanes at a time.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
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
    for q in 0..4 {
        let rays = (mask >> (8 * q)) as u8;
        if rays == 0 {
            continue;
        }
        let slab = |a: usize| {
            let (o, inv) = (load_groups(&origin[a], q), load_groups(&inv_dir[a], q));
            let t0 = _mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(min[a]), o), inv);
            let t1 = _mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(max[a]), o), inv);
            (_mm256_min_ps(t0, t1), _mm256_max_ps(t0, t1))
        };
        let ((x0, x1), (y0, y1), (z0, z1)) = (slab(0), slab(1), slab(2));
        let near = _mm256_max_ps(
            _mm256_max_ps(_mm256_max_ps(x0, y0), z0),
            load_groups(t_min, q),
        );
        // Widened by 2·gamma(3), as the single-ray test.
        let widen = _mm256_set1_ps(1.0 + 6.0 * f32::EPSILON);
        let far = _mm256_mul_ps(_mm256_min_ps(_mm256_min_ps(x1, y1), z1), widen);
        let far = _mm256_min_ps(far, load_groups(t_max, q));
        let hit = rays & bits_of(cmp::<_CMP_LE_OQ>(near, far));
        if hit != 0 {
            reached |= u32::from(hit) << (8 * q);
            let nearest = select(lanes_of(hit), _mm256_set1_ps(f32::INFINITY), near);
            entry = crate::ray::smaller_or(least(nearest), entry);
        }
    }
    (reached, entry)
}

/// The shears of the `active` rays of `dir` into `w`, as the AVX-512 `shears` makes them.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn shears(w: &mut LeafRays, dir: &[Groups; 3], active: u32) {
    for q in 0..4 {
        if (active >> (8 * q)) as u8 == 0 {
            continue;
        }
        let d = [0, 1, 2].map(|a| load_groups(&dir[a], q));
        let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
        let a = d.map(|x| _mm256_and_ps(x, abs));
        let ge = |x, y| cmp::<_CMP_GE_OQ>(x, y);
        // The dominant axis: x if |x| >= |y| and |x| >= |z|, else y if |y| >= |z|, else z.
        let x_major = _mm256_and_ps(ge(a[0], a[1]), ge(a[0], a[2]));
        let y_major = _mm256_andnot_ps(x_major, ge(a[1], a[2]));
        let int = _mm256_set1_epi32;
        let kz = select_i(x_major, select_i(y_major, int(2), int(1)), int(0));
        let pick = |axis: __m256i| {
            let is = |k: i32| _mm256_castsi256_ps(_mm256_cmpeq_epi32(axis, int(k)));
            select(is(0), select(is(1), d[2], d[1]), d[0])
        };
        let dz = pick(kz);
        // (kz + 1) % 3 and (kz + 2) % 3, swapped when the ray goes towards -kz.
        let next = |k: __m256i, by: i32| {
            let sum = _mm256_add_epi32(k, int(by));
            let wrap = _mm256_cmpgt_epi32(sum, int(2));
            _mm256_sub_epi32(sum, _mm256_and_si256(wrap, int(3)))
        };
        let (kx, ky) = (next(kz, 1), next(kz, 2));
        let backwards = cmp::<_CMP_LT_OQ>(dz, _mm256_setzero_ps());
        let (kx, ky) = (select_i(backwards, kx, ky), select_i(backwards, ky, kx));
        let coeffs = [
            _mm256_div_ps(pick(kx), dz),
            _mm256_div_ps(pick(ky), dz),
            _mm256_div_ps(_mm256_set1_ps(1.0), dz),
        ];
        for (role, k) in [kx, ky, kz].into_iter().enumerate() {
            store(&mut w.axes[role], q, k);
            store(&mut w.coeffs[role], q, _mm256_castps_si256(coeffs[role]));
        }
    }
}

/// Up to eight of the packet's rays in the lanes: a quarter as it is, or listed rays.
#[derive(Clone, Copy)]
enum Selection {
    Quarter(usize),
    /// Lane `l < count` holds ray `ray[l]` (the other lanes repeat the first).
    Listed {
        ray: [u32; 8],
        count: usize,
    },
}

impl Selection {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn gather<T>(&self, values: &[T; PACKET]) -> __m256i {
        const { assert!(size_of::<T>() == 4) };
        match self {
            Selection::Quarter(q) => load(values, *q),
            Selection::Listed { ray, .. } => {
                // SAFETY: eight lanes of four bytes from an array of eight; every index is a
                // ray of the packet, below `PACKET`.
                unsafe {
                    let index = _mm256_loadu_si256(ray.as_ptr().cast());
                    _mm256_i32gather_epi32::<4>(values.as_ptr().cast(), index)
                }
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn scatter<T>(&self, values: &mut [T; PACKET], v: __m256i) {
        const { assert!(size_of::<T>() == 4) };
        match self {
            Selection::Quarter(q) => store(values, *q, v),
            Selection::Listed { ray, count } => {
                let mut lanes = [0u32; 8];
                // SAFETY: eight lanes of four bytes into an array of eight.
                unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
                for (&r, &bits) in ray.iter().zip(&lanes).take(*count) {
                    let r = r as usize % PACKET;
                    // SAFETY: `T` is four bytes (asserted) and `r` a lane of the 32; the bits
                    // are what the lane held of a `T` (gathered from these arrays).
                    unsafe {
                        values
                            .as_mut_ptr()
                            .cast::<u32>()
                            .add(r)
                            .write_unaligned(bits)
                    };
                }
            }
        }
    }

    /// The packet's ray in lane `l`.
    fn ray(&self, l: usize) -> usize {
        match self {
            Selection::Quarter(q) => 8 * q + l,
            Selection::Listed { ray, .. } => ray[l & 7] as usize,
        }
    }
}

/// Selected rays' state in registers.
struct Lanes {
    origin: [__m256; 3],
    coeffs: [__m256; 3],
    /// Per role (`kx`, `ky`, `kz`): the lanes whose axis is x, and those whose axis is y.
    axis_x: [__m256; 3],
    axis_y: [__m256; 3],
    t_min: __m256,
    t_max: __m256,
    best_t: __m256,
    best_u: __m256,
    best_v: __m256,
    best_triangle: __m256i,
    best_slot: __m256i,
    t_far: __m256,
}

impl Lanes {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn gather(w: &LeafRays, t_far: &[f32; PACKET], at: &Selection) -> Lanes {
        let f = |values: &[f32; PACKET]| _mm256_castsi256_ps(at.gather(values));
        let axes = [0, 1, 2].map(|k| at.gather(&w.axes[k]));
        let is = |axis: __m256i, k: i32| {
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(axis, _mm256_set1_epi32(k)))
        };
        Lanes {
            origin: [0, 1, 2].map(|a| f(&w.origin[a])),
            coeffs: [0, 1, 2].map(|a| f(&w.coeffs[a])),
            axis_x: axes.map(|axis| is(axis, 0)),
            axis_y: axes.map(|axis| is(axis, 1)),
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

    #[inline]
    #[target_feature(enable = "avx2")]
    fn scatter(&self, w: &mut LeafRays, t_far: &mut [f32; PACKET], at: &Selection) {
        at.scatter(&mut w.best_t, _mm256_castps_si256(self.best_t));
        at.scatter(&mut w.best_u, _mm256_castps_si256(self.best_u));
        at.scatter(&mut w.best_v, _mm256_castps_si256(self.best_v));
        at.scatter(&mut w.best_triangle, self.best_triangle);
        at.scatter(&mut w.best_slot, self.best_slot);
        at.scatter(t_far, _mm256_castps_si256(self.t_far));
    }
}

/// Rays' shared axes (per role) and their origin on those axes.
type Frame = ([usize; 3], [f32; 3]);

/// When every ray of `rays` (packet indices) starts at one origin (bit for bit) and picks the
/// same axis for each role: the axes and the origin on them, as the AVX-512 `shared_frame`.
fn shared_frame(w: &LeafRays, rays: &[u32]) -> Option<Frame> {
    let (&first, rest) = rays.split_first()?;
    let first = first as usize % PACKET;
    for &r in rest {
        let r = r as usize % PACKET;
        let same_axes = (0..3).all(|k| w.axes[k][r] == w.axes[k][first]);
        let same_origin = (0..3).all(|a| w.origin[a][r].to_bits() == w.origin[a][first].to_bits());
        if !(same_axes && same_origin) {
            return None;
        }
    }
    let axes = [0, 1, 2].map(|k| w.axes[k][first] as usize % 3);
    Some((axes, axes.map(|k| w.origin[k][first])))
}

/// [`LeafRays::test_leaf`] in AVX2: the rays of `mask` eight at a time, a whole quarter of the
/// packet where all its rays are in `mask`, else listed in order.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn test_leaf(
    w: &mut LeafRays,
    packs: &[TriPack],
    leaf: (usize, usize),
    mask: u32,
    t_far: &mut [f32; PACKET],
    first_hit: bool,
) -> bool {
    let mut closer = false;
    let mut listed = [0u32; 8];
    let mut count = 0;
    let flush = |w: &mut LeafRays, t_far: &mut [f32; PACKET], listed: &[u32; 8], count| {
        let mut ray = *listed;
        ray[count..].fill(listed[0]);
        let at = Selection::Listed { ray, count };
        let rays = ((1u32 << count) - 1) as u8;
        let shared = shared_frame(w, &listed[..count]);
        test_selected(w, packs, leaf, (at, rays, shared), t_far, first_hit)
    };
    for q in 0..4 {
        let rays = (mask >> (8 * q)) as u8;
        if rays == 0xFF {
            let quarter: [u32; 8] = std::array::from_fn(|l| (8 * q + l) as u32);
            let shared = shared_frame(w, &quarter);
            let at = Selection::Quarter(q);
            closer |= test_selected(w, packs, leaf, (at, rays, shared), t_far, first_hit);
            continue;
        }
        let mut left = rays;
        while left != 0 {
            listed[count] = (8 * q) as u32 + left.trailing_zeros();
            left &= left - 1;
            count += 1;
            if count == 8 {
                closer |= flush(w, t_far, &listed, count);
                count = 0;
            }
        }
    }
    if count > 0 {
        closer |= flush(w, t_far, &listed, count);
    }
    closer
}

/// The leaf's triangles against the lanes `rays` of the selection `at` (with the rays'
/// shared frame, if they have one).
#[target_feature(enable = "avx2")]
fn test_selected(
    w: &mut LeafRays,
    packs: &[TriPack],
    (first, count): (usize, usize),
    (at, mut rays, shared): (Selection, u8, Option<Frame>),
    t_far: &mut [f32; PACKET],
    first_hit: bool,
) -> bool {
    let mut closer = false;
    let mut s = Lanes::gather(w, t_far, &at);
    let mut bound = next_up(s.t_far);
    let zero = _mm256_setzero_ps();
    let no_hit = _mm256_set1_epi32(NO_HIT as i32);
    let sign = _mm256_set1_epi32(i32::MIN);
    let mul = |a, b| _mm256_mul_ps(a, b);
    let or = |a, b| _mm256_or_ps(a, b);
    'packs: for (p, pack) in packs[first..first + count].iter().enumerate() {
        for (lane, &triangle) in pack.prim.iter().enumerate() {
            if triangle == EMPTY_LANE {
                continue;
            }
            // Each corner relative to each ray's origin, on the ray's sheared axes.
            let to_ray = |j: usize| -> [__m256; 3] {
                let (dx, dy, dz) = match shared {
                    Some((axes, origin)) => {
                        let d = |role: usize| {
                            let corner = lane_of(&pack.v[j][axes[role]], lane);
                            _mm256_set1_ps(corner - origin[role])
                        };
                        (d(0), d(1), d(2))
                    }
                    None => {
                        let d = [0, 1, 2].map(|a| {
                            let corner = _mm256_set1_ps(lane_of(&pack.v[j][a], lane));
                            _mm256_sub_ps(corner, s.origin[a])
                        });
                        let pick = |role: usize| {
                            let y_or_z = select(s.axis_y[role], d[2], d[1]);
                            select(s.axis_x[role], y_or_z, d[0])
                        };
                        (pick(0), pick(1), pick(2))
                    }
                };
                [
                    _mm256_sub_ps(dx, mul(s.coeffs[0], dz)),
                    _mm256_sub_ps(dy, mul(s.coeffs[1], dz)),
                    mul(s.coeffs[2], dz),
                ]
            };
            let [ax, ay, az] = to_ray(0);
            let [bx, by, bz] = to_ray(1);
            let [cx, cy, cz] = to_ray(2);
            let u = _mm256_sub_ps(mul(cx, by), mul(cy, bx));
            let v = _mm256_sub_ps(mul(ax, cy), mul(ay, cx));
            let wv = _mm256_sub_ps(mul(bx, ay), mul(by, ax));
            let lt0 = |x| cmp::<_CMP_LT_OQ>(x, zero);
            let gt0 = |x| cmp::<_CMP_GT_OQ>(x, zero);
            let eq0 = |x| cmp::<_CMP_EQ_OQ>(x, zero);
            let negative = or(or(lt0(u), lt0(v)), lt0(wv));
            let positive = or(or(gt0(u), gt0(v)), gt0(wv));
            let on_edge = rays & bits_of(or(or(eq0(u), eq0(v)), eq0(wv)));
            let det = _mm256_add_ps(_mm256_add_ps(u, v), wv);
            let inv_det = _mm256_div_ps(_mm256_set1_ps(1.0), det);
            let scaled = _mm256_add_ps(_mm256_add_ps(mul(u, az), mul(v, bz)), mul(wv, cz));
            let t = mul(scaled, inv_det);
            let inside = _mm256_andnot_ps(
                _mm256_and_ps(negative, positive),
                _mm256_and_ps(
                    cmp::<_CMP_NEQ_UQ>(det, zero),
                    _mm256_and_ps(cmp::<_CMP_GT_OQ>(t, s.t_min), cmp::<_CMP_LT_OQ>(t, bound)),
                ),
            );
            let hits = rays & !on_edge & bits_of(inside);
            if hits != 0 {
                // `is_closer`: nearer, or as near with a lower triangle index; without a hit
                // yet, before the ray's end.
                let index = _mm256_set1_epi32(triangle as i32);
                let no_hit_yet = _mm256_castsi256_ps(_mm256_cmpeq_epi32(s.best_triangle, no_hit));
                // Unsigned `index < best_triangle`, as signed with the top bits flipped.
                let lower = _mm256_cmpgt_epi32(
                    _mm256_xor_si256(s.best_triangle, sign),
                    _mm256_xor_si256(index, sign),
                );
                let nearer = or(
                    cmp::<_CMP_LT_OQ>(t, s.best_t),
                    _mm256_and_ps(cmp::<_CMP_EQ_OQ>(t, s.best_t), _mm256_castsi256_ps(lower)),
                );
                let before_end = cmp::<_CMP_LT_OQ>(t, s.t_max);
                let wins = or(
                    _mm256_andnot_ps(no_hit_yet, nearer),
                    _mm256_and_ps(no_hit_yet, before_end),
                );
                let keep = hits & bits_of(wins);
                if keep != 0 {
                    let k = lanes_of(keep);
                    s.best_t = select(k, s.best_t, t);
                    s.best_u = select(k, s.best_u, mul(v, inv_det));
                    s.best_v = select(k, s.best_v, mul(wv, inv_det));
                    s.best_triangle = select_i(k, s.best_triangle, index);
                    let slot = _mm256_set1_epi32((4 * (first + p) + lane) as i32);
                    s.best_slot = select_i(k, s.best_slot, slot);
                    let far = if first_hit {
                        _mm256_set1_ps(f32::NEG_INFINITY)
                    } else {
                        t
                    };
                    s.t_far = select(k, s.t_far, far);
                    bound = next_up(s.t_far);
                    closer = true;
                    if first_hit {
                        // A ray stops at its first hit: it leaves the lanes tested, and once
                        // none is left, the leaf is done.
                        rays &= !keep;
                        if rays == 0 {
                            break 'packs;
                        }
                    }
                }
            }
            if on_edge != 0 {
                // An exact zero edge value: the scalar test decides, in double precision.
                s.scatter(w, t_far, &at);
                let slot = (4 * (first + p) + lane) as u32;
                let mut edge = on_edge;
                while edge != 0 {
                    let r = at.ray(edge.trailing_zeros() as usize);
                    edge &= edge - 1;
                    closer |= w.scalar_test(r, pack, lane, slot, t_far, first_hit);
                }
                s = Lanes::gather(w, t_far, &at);
                bound = next_up(s.t_far);
            }
        }
    }
    s.scatter(w, t_far, &at);
    closer
}
