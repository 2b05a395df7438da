//! A triangle's coverage of a band, eight pixel centres of a row at a time, in AVX-512 (one
//! vector) or AVX2 (two) when the CPU has it (chosen at run time, with the ray caster's switch:
//! `passerby_raycast::widest::width`).
//!
//! The scalar `cover` finds each row's run of covered pixels by testing its ends, then writes
//! the run's depths one pixel at a time; rows are short (about eight pixels), so the ends'
//! tests and the per-pixel loop were two thirds of it. Here every pixel centre between the
//! row's bounds (of a narrow triangle, its box's, without the bounds' arithmetic: they only
//! ever leave out centres the exact test rejects) is tested, a segment of eight at a time,
//! with the very IEEE operations of the scalar code lane for lane (differences and products
//! never fused, the comparisons' NaN rules): the centres found inside are the scalar run (each
//! edge value is monotonic along a row), and each takes the same depth and the same tie
//! decision, so the image is the same (`tests.rs` compares the bits with the scalar rows').
//!
//! Owns: the vector forms of `cover`'s rows. Must not touch: which rows are covered, the
//! edges and depths' set-up (`TriangleCover`), the tie rule.
//!
//! `unsafe`: the calls into code compiled for AVX-512 or AVX2, made only after the CPU
//! reported it, and loads and stores that touch only lanes within the row (masked, or whole
//! segments of the band, which is the calling thread's alone).
#![allow(unsafe_code)]

use super::ScreenTriangle;
#[cfg(target_arch = "x86_64")]
use super::cover::SEGMENT;
use super::cover::{Depths, TriangleCover};

/// Draws the triangle of `c` into `depths` as the scalar `cover` does, if the CPU can (else
/// returns false and touches nothing). `triangles`: the band's list.
pub(super) fn cover(
    c: &TriangleCover<'_>,
    triangles: &[&ScreenTriangle],
    depths: &mut Depths,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    match passerby_raycast::widest::width() {
        passerby_raycast::widest::Width::Avx512 => {
            // SAFETY: the CPU has AVX-512F (`width`).
            unsafe { avx512::cover(c, triangles, depths) };
            return true;
        }
        passerby_raycast::widest::Width::Avx2 => {
            // SAFETY: the CPU has AVX2 (`width`).
            unsafe { avx2::cover(c, triangles, depths) };
            return true;
        }
        passerby_raycast::widest::Width::Baseline => {}
    }
    let _ = (c, triangles, depths);
    false
}

/// A segment of a row that a triangle reaches and may win, as both vector forms take it.
#[cfg(target_arch = "x86_64")]
struct Segment<'r> {
    /// The row's edge terms and `1 / depth` at column 0 (`TriangleCover::row_terms`,
    /// `TriangleCover::at_zero`).
    row_terms: [f64; 3],
    at_zero: f64,
    /// Its first column.
    start: usize,
    /// Its lanes (bit per pixel) between the row's bounds, and those within the row.
    in_bounds: u8,
    in_row: u8,
    /// The row's depths and holders, and the segment's farthest depth.
    inv_depths: &'r mut [f64],
    holders: &'r mut [u32],
    farthest: &'r mut f64,
}

/// Calls `test` on each segment of the triangle's rows that it reaches (between the rows'
/// bounds; a narrow triangle's whole box) and where not everything is nearer.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn for_each_segment(c: &TriangleCover<'_>, depths: &mut Depths, mut test: impl FnMut(Segment<'_>)) {
    let w = depths.width;
    // A triangle whose box spans at most three segments has every centre of its box
    // tested: the rows' bounds would cost as much as the tests they spare.
    let (box_first, box_last) = c.t.cols();
    let narrow = box_last / SEGMENT - box_first / SEGMENT < 3;
    for row in c.rows.0..=c.rows.1 {
        let row_terms = c.row_terms(row);
        let bounds = if narrow {
            Some((box_first, box_last))
        } else {
            c.bounds(row, &row_terms)
        };
        let Some((first, last)) = bounds else {
            continue;
        };
        if last >= w {
            continue; // (bounds lie within the triangle's box, within the image)
        }
        let at_zero = c.at_zero(&row_terms);
        let (inv_depths, holders, farthest) = depths.row(row);
        let spanned = first / SEGMENT..=last / SEGMENT;
        for (segment, farthest) in spanned.zip(&mut farthest[first / SEGMENT..]) {
            // Everything here is strictly nearer: the triangle can neither win nor tie.
            if c.nearest_possible < *farthest {
                continue;
            }
            let start = segment * SEGMENT;
            // The lanes from `first` to `last`, and those within the row.
            let from = first.saturating_sub(start);
            let to = (last - start).min(SEGMENT - 1);
            test(Segment {
                row_terms,
                at_zero,
                start,
                in_bounds: ((0xFFu32 << from) & (0xFFu32 >> (SEGMENT - 1 - to))) as u8,
                in_row: (0xFFu32 >> (SEGMENT - (w - start).min(SEGMENT))) as u8,
                inv_depths: &mut *inv_depths,
                holders: &mut *holders,
                farthest,
            });
        }
    }
}

/// Of the lanes `ties` (bit per pixel: at the depth held there), those whose holder (in
/// `holders`, from the segment's start) the triangle wins the tie from.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tie_winners(
    c: &TriangleCover<'_>,
    triangles: &[&ScreenTriangle],
    mut ties: u8,
    holders: &[u32],
) -> u8 {
    let mut won = 0;
    while ties != 0 {
        let lane = ties.trailing_zeros() as usize;
        ties &= ties - 1;
        if c.wins_tie(triangles[holders[lane] as usize]) {
            won |= 1 << lane;
        }
    }
    won
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::tie_winners;
    use super::{Depths, SEGMENT, ScreenTriangle, Segment, TriangleCover, for_each_segment};
    use std::arch::x86_64::*;

    const _: () = assert!(SEGMENT == 8);

    #[target_feature(enable = "avx512f")]
    pub(super) fn cover(c: &TriangleCover<'_>, triangles: &[&ScreenTriangle], depths: &mut Depths) {
        let edges = &c.setup.edges;
        let zero = _mm512_setzero_pd();
        let lo = edges.map(|e| _mm512_set1_pd(e.0[0]));
        let dy = edges.map(|e| _mm512_set1_pd(e.2));
        let owns: [u8; 3] = edges.map(|e| if e.3 { 0xFF } else { 0 });
        let lane_offsets = _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0);
        let per_column = _mm512_set1_pd(c.per_column);
        let inv_far = _mm512_set1_pd(c.inv_far);
        let nothing = _mm512_set1_epi32(-1); // u32::MAX: no triangle yet
        let index = _mm512_set1_epi32(c.index as i32);
        for_each_segment(c, depths, |segment| {
            let Segment {
                start,
                in_row,
                inv_depths,
                holders,
                ..
            } = segment;
            // Pixel centres on integers: exact.
            let px = _mm512_add_pd(_mm512_set1_pd(start as f64), lane_offsets);
            let mut inside = segment.in_bounds;
            for k in 0..3 {
                // `row_terms[k] - dy * (px - lo.x)`, as the scalar test.
                let row_term = _mm512_set1_pd(segment.row_terms[k]);
                let e = _mm512_sub_pd(row_term, _mm512_mul_pd(dy[k], _mm512_sub_pd(px, lo[k])));
                let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(e, zero);
                let on_edge = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(e, zero);
                inside &= positive | (on_edge & owns[k]);
            }
            if inside == 0 {
                return;
            }
            let at_zero = _mm512_set1_pd(segment.at_zero);
            let inv_depth = _mm512_add_pd(at_zero, _mm512_mul_pd(per_column, px));
            // SAFETY: only the lanes of `in_row` are read, columns within the row.
            let (held, holder) = unsafe {
                (
                    _mm512_maskz_loadu_pd(in_row, inv_depths.as_ptr().add(start)),
                    _mm512_maskz_loadu_epi32(u16::from(in_row), holders.as_ptr().add(start).cast()),
                )
            };
            let empty = _mm512_mask_cmpeq_epi32_mask(u16::from(inside), holder, nothing) as u8;
            // Nearer means a larger 1 / depth.
            let mut nearer = empty | _mm512_mask_cmp_pd_mask::<_CMP_GT_OQ>(inside, inv_depth, held);
            let ties = _mm512_mask_cmp_pd_mask::<_CMP_EQ_OQ>(inside, inv_depth, held) & !empty;
            nearer |= tie_winners(c, triangles, ties, &holders[start..]);
            let beyond_far = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(inv_depth, inv_far);
            let take = nearer & !beyond_far & inside;
            if take == 0 {
                return;
            }
            // SAFETY: only the lanes of `take` (within `inside`) are written.
            unsafe {
                _mm512_mask_storeu_pd(inv_depths.as_mut_ptr().add(start), take, inv_depth);
                _mm512_mask_storeu_epi32(
                    holders.as_mut_ptr().add(start).cast(),
                    u16::from(take),
                    index,
                );
            }
            let now = _mm512_mask_blend_pd(take, held, inv_depth);
            *segment.farthest = first_least(now, in_row);
        });
    }

    /// What the scalar code's fold over a segment's columns in order gives (`m = if d < m { d }
    /// else { m }` from infinity, over the lanes of `lanes`): the first of the least values,
    /// NaN never taken. With NaN and the other lanes made infinite (which the fold leaves as
    /// it would a NaN), a tree of `minpd` (`a < b ? a : b`, the later half as `a`) keeps the
    /// earlier of equal values at every step, so it gives the same bits.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn first_least(values: __m512d, lanes: u8) -> f64 {
        let infinity = _mm512_set1_pd(f64::INFINITY);
        let numbers = lanes & !_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(values, values);
        let v = _mm512_mask_blend_pd(numbers, infinity, values);
        // Lane 2i against lane 2i + 1, then 4i against 4i + 2, then 0 against 4.
        let swap_pairs = _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1);
        let pairs = _mm512_min_pd(_mm512_permutexvar_pd(swap_pairs, v), v);
        let swap_quads = _mm512_set_epi64(4, 4, 6, 6, 0, 0, 2, 2);
        let quads = _mm512_min_pd(_mm512_permutexvar_pd(swap_quads, pairs), pairs);
        let all = _mm512_min_pd(_mm512_permutexvar_pd(_mm512_set1_epi64(4), quads), quads);
        _mm512_cvtsd_f64(all)
    }
}

/// The same in AVX2: a segment's eight pixel centres as two vectors of four doubles, their
/// decisions gathered into the same eight-bit masks as AVX-512's, and masked loads and stores
/// made from them.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::tie_winners;
    use super::{Depths, SEGMENT, ScreenTriangle, Segment, TriangleCover, for_each_segment};
    use std::arch::x86_64::*;

    const _: () = assert!(SEGMENT == 8);

    /// Lanes `lanes` (bit per lane) as a vector of four 64-bit masks, lanes `4 half ..`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane_mask_pd(lanes: u8, half: usize) -> __m256i {
        let bits = _mm256_set_epi64x(8, 4, 2, 1);
        let picked = _mm256_and_si256(_mm256_set1_epi64x(i64::from(lanes >> (4 * half))), bits);
        _mm256_cmpeq_epi64(picked, bits)
    }

    /// Lanes `lanes` as a vector of eight 32-bit masks.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane_mask_epi32(lanes: u8) -> __m256i {
        let bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
        let picked = _mm256_and_si256(_mm256_set1_epi32(i32::from(lanes)), bits);
        _mm256_cmpeq_epi32(picked, bits)
    }

    /// The eight lanes of a comparison made half by half, as bits.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bits(halves: [__m256d; 2]) -> u8 {
        (_mm256_movemask_pd(halves[0]) | _mm256_movemask_pd(halves[1]) << 4) as u8
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn cover(c: &TriangleCover<'_>, triangles: &[&ScreenTriangle], depths: &mut Depths) {
        let edges = &c.setup.edges;
        let zero = _mm256_setzero_pd();
        let lo = edges.map(|e| _mm256_set1_pd(e.0[0]));
        let dy = edges.map(|e| _mm256_set1_pd(e.2));
        let owns: [u8; 3] = edges.map(|e| if e.3 { 0xFF } else { 0 });
        let lane_offsets = [
            _mm256_set_pd(3.0, 2.0, 1.0, 0.0),
            _mm256_set_pd(7.0, 6.0, 5.0, 4.0),
        ];
        let per_column = _mm256_set1_pd(c.per_column);
        let inv_far = _mm256_set1_pd(c.inv_far);
        let nothing = _mm256_set1_epi32(-1); // u32::MAX: no triangle yet
        let index = _mm256_set1_epi32(c.index as i32);
        for_each_segment(c, depths, |segment| {
            let Segment {
                start,
                in_row,
                inv_depths,
                holders,
                ..
            } = segment;
            // Pixel centres on integers: exact.
            let px = lane_offsets.map(|o| _mm256_add_pd(_mm256_set1_pd(start as f64), o));
            let mut inside = segment.in_bounds;
            for k in 0..3 {
                // `row_terms[k] - dy * (px - lo.x)`, as the scalar test.
                let row_term = _mm256_set1_pd(segment.row_terms[k]);
                let e = px.map(|px| {
                    _mm256_sub_pd(row_term, _mm256_mul_pd(dy[k], _mm256_sub_pd(px, lo[k])))
                });
                let positive = bits(e.map(|e| _mm256_cmp_pd::<_CMP_GT_OQ>(e, zero)));
                let on_edge = bits(e.map(|e| _mm256_cmp_pd::<_CMP_EQ_OQ>(e, zero)));
                inside &= positive | (on_edge & owns[k]);
            }
            if inside == 0 {
                return;
            }
            let at_zero = _mm256_set1_pd(segment.at_zero);
            let inv_depth = px.map(|px| _mm256_add_pd(at_zero, _mm256_mul_pd(per_column, px)));
            let whole = in_row == 0xFF;
            let row_lanes = [lane_mask_pd(in_row, 0), lane_mask_pd(in_row, 1)];
            // SAFETY: only the lanes of `in_row` are read, columns within the row (all eight
            // when `whole`).
            let (held, holder) = unsafe {
                let (at, holders_at) =
                    (inv_depths.as_ptr().add(start), holders.as_ptr().add(start));
                if whole {
                    (
                        [_mm256_loadu_pd(at), _mm256_loadu_pd(at.add(4))],
                        _mm256_loadu_si256(holders_at.cast()),
                    )
                } else {
                    (
                        [
                            _mm256_maskload_pd(at, row_lanes[0]),
                            _mm256_maskload_pd(at.add(4), row_lanes[1]),
                        ],
                        _mm256_maskload_epi32(holders_at.cast(), lane_mask_epi32(in_row)),
                    )
                }
            };
            let empty = inside
                & _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(holder, nothing)))
                    as u8;
            let compare = |f: fn(__m256d, __m256d) -> __m256d| {
                bits([f(inv_depth[0], held[0]), f(inv_depth[1], held[1])])
            };
            // Nearer means a larger 1 / depth.
            let mut nearer = empty | (inside & compare(|a, b| _mm256_cmp_pd::<_CMP_GT_OQ>(a, b)));
            let ties = inside & compare(|a, b| _mm256_cmp_pd::<_CMP_EQ_OQ>(a, b)) & !empty;
            nearer |= tie_winners(c, triangles, ties, &holders[start..]);
            let beyond_far = bits(inv_depth.map(|d| _mm256_cmp_pd::<_CMP_LT_OQ>(d, inv_far)));
            let take = nearer & !beyond_far & inside;
            if take == 0 {
                return;
            }
            let taken = [lane_mask_pd(take, 0), lane_mask_pd(take, 1)];
            let taken32 = lane_mask_epi32(take);
            let now = [0, 1]
                .map(|h| _mm256_blendv_pd(held[h], inv_depth[h], _mm256_castsi256_pd(taken[h])));
            // A whole segment is written back whole, the lanes not taken as they were read:
            // AMD's masked stores are slow (4 % of the camera benchmark, one thread). The band
            // is this thread's alone.
            // SAFETY: only lanes within the row are written, and of those only the lanes of
            // `take` (within `inside`) change.
            unsafe {
                let (at, holders_at) = (
                    inv_depths.as_mut_ptr().add(start),
                    holders.as_mut_ptr().add(start),
                );
                if whole {
                    _mm256_storeu_pd(at, now[0]);
                    _mm256_storeu_pd(at.add(4), now[1]);
                    let holder = _mm256_blendv_epi8(holder, index, taken32);
                    _mm256_storeu_si256(holders_at.cast(), holder);
                } else {
                    _mm256_maskstore_pd(at, taken[0], inv_depth[0]);
                    _mm256_maskstore_pd(at.add(4), taken[1], inv_depth[1]);
                    _mm256_maskstore_epi32(holders_at.cast(), taken32, index);
                }
            }
            *segment.farthest = first_least(now, row_lanes);
        });
    }

    /// As AVX-512's `first_least` (the scalar fold's first of the least values over the lanes
    /// of `lanes`, NaN never taken), with the same tree: lane 2i against 2i + 1, then 4i
    /// against 4i + 2, then 0 against 4, the later lane as `minpd`'s first operand.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn first_least(values: [__m256d; 2], lanes: [__m256i; 2]) -> f64 {
        let infinity = _mm256_set1_pd(f64::INFINITY);
        let quads = [0, 1].map(|h| {
            let v = values[h];
            let numbers = _mm256_and_pd(
                _mm256_castsi256_pd(lanes[h]),
                _mm256_cmp_pd::<_CMP_ORD_Q>(v, v),
            );
            let v = _mm256_blendv_pd(infinity, v, numbers);
            let pairs = _mm256_min_pd(_mm256_permute_pd::<0b0101>(v), v);
            let swapped = _mm256_permute4x64_pd::<0b0000_1010>(pairs);
            _mm256_min_pd(swapped, pairs)
        });
        _mm_cvtsd_f64(_mm_min_sd(
            _mm256_castpd256_pd128(quads[1]),
            _mm256_castpd256_pd128(quads[0]),
        ))
    }
}
