//! A triangle's coverage of a band, eight pixel centres of a row to a vector, in AVX-512 when
//! the CPU has it (chosen at run time, with the ray caster's switch:
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
//! decision, so the image is the same.
//!
//! Owns: the vector form of `cover`'s rows. Must not touch: which rows are covered, the
//! edges and depths' set-up (`TriangleCover`), the tie rule.
//!
//! `unsafe`: the call into code compiled for AVX-512, made only after the CPU reported it, and
//! masked loads and stores that touch only lanes within the row.
#![allow(unsafe_code)]

use super::ScreenTriangle;
use super::cover::{Depths, TriangleCover};

/// Draws the triangle of `c` into `depths` as the scalar `cover` does, if the CPU can (else
/// returns false and touches nothing). `triangles`: the band's list.
pub(super) fn cover(
    c: &TriangleCover<'_>,
    triangles: &[&ScreenTriangle],
    depths: &mut Depths,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if passerby_raycast::widest::width() == passerby_raycast::widest::Width::Avx512 {
        // SAFETY: the CPU has AVX-512F (`width`).
        unsafe { avx512::cover(c, triangles, depths) };
        return true;
    }
    let _ = (c, triangles, depths);
    false
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::super::cover::SEGMENT;
    use super::{Depths, ScreenTriangle, TriangleCover};
    use std::arch::x86_64::*;

    const _: () = assert!(SEGMENT == 8);

    #[target_feature(enable = "avx512f")]
    pub(super) fn cover(c: &TriangleCover<'_>, triangles: &[&ScreenTriangle], depths: &mut Depths) {
        let w = depths.width;
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
            let at_zero = _mm512_set1_pd(c.at_zero(&row_terms));
            let row_terms = row_terms.map(|t| _mm512_set1_pd(t));
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
                let in_bounds = ((0xFFu32 << from) & (0xFFu32 >> (SEGMENT - 1 - to))) as u8;
                let in_row = (0xFFu32 >> (SEGMENT - (w - start).min(SEGMENT))) as u8;
                // Pixel centres on integers: exact.
                let px = _mm512_add_pd(_mm512_set1_pd(start as f64), lane_offsets);
                let mut inside = in_bounds;
                for k in 0..3 {
                    // `row_terms[k] - dy * (px - lo.x)`, as the scalar test.
                    let e =
                        _mm512_sub_pd(row_terms[k], _mm512_mul_pd(dy[k], _mm512_sub_pd(px, lo[k])));
                    let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(e, zero);
                    let on_edge = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(e, zero);
                    inside &= positive | (on_edge & owns[k]);
                }
                if inside == 0 {
                    continue;
                }
                let inv_depth = _mm512_add_pd(at_zero, _mm512_mul_pd(per_column, px));
                // SAFETY: only the lanes of `in_row` are read, columns within the row.
                let (held, holder) = unsafe {
                    (
                        _mm512_maskz_loadu_pd(in_row, inv_depths.as_ptr().add(start)),
                        _mm512_maskz_loadu_epi32(
                            u16::from(in_row),
                            holders.as_ptr().add(start).cast(),
                        ),
                    )
                };
                let empty = _mm512_mask_cmpeq_epi32_mask(u16::from(inside), holder, nothing) as u8;
                // Nearer means a larger 1 / depth.
                let mut nearer =
                    empty | _mm512_mask_cmp_pd_mask::<_CMP_GT_OQ>(inside, inv_depth, held);
                let mut ties =
                    _mm512_mask_cmp_pd_mask::<_CMP_EQ_OQ>(inside, inv_depth, held) & !empty;
                while ties != 0 {
                    let lane = ties.trailing_zeros() as usize;
                    ties &= ties - 1;
                    if c.wins_tie(triangles[holders[start + lane] as usize]) {
                        nearer |= 1 << lane;
                    }
                }
                let beyond_far = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(inv_depth, inv_far);
                let take = nearer & !beyond_far & inside;
                if take == 0 {
                    continue;
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
                *farthest = first_least(now, in_row);
            }
        }
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
