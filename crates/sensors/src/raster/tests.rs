//! The rasteriser's row bounds against the definition of coverage: every pixel centre of a
//! triangle's box whose exact edge values put it inside (ties to the edges the triangle owns).

use super::*;

/// Whether the pixel centre `(col, row)` is inside by the edge values `cover` decides with.
fn inside_by_definition(setup: &Setup, col: usize, row: usize) -> bool {
    let (px, py) = (coordinate(col), coordinate(row));
    setup.edges.iter().all(|&(lo, dx, dy, owns_ties)| {
        let e = dx * (py - lo[1]) - dy * (px - lo[0]);
        e > 0.0 || (e == 0.0 && owns_ties)
    })
}

/// A small deterministic generator (xorshift), uniform in `0..1`.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn a_lone_triangle_covers_exactly_the_pixel_centres_its_edges_hold() {
    let h = 16usize;
    let mut draws = Draws(0x2545_f491_4f6c_dd1d);
    let (mut covered, mut triangles) = (0usize, 0usize);
    for case in 0..4000 {
        // A width of whole segments of eight, and one that ends in a part of one.
        let w = if case % 2 == 0 { 48 } else { 45 };
        // Corners around the image, some far beyond it; on whole and half pixels (edges through
        // pixel centres: ties), or anywhere; a third of the triangles slivers.
        let reach = [2.0, 40.0, 3e4][case % 3];
        let corner = |d: &mut Draws| {
            let p = [
                -reach + (w as f64 + 2.0 * reach) * d.next(),
                -reach + (h as f64 + 2.0 * reach) * d.next(),
            ];
            match case % 4 {
                0 => p.map(f64::round),
                1 => p.map(|v| (2.0 * v).round() / 2.0),
                _ => p,
            }
        };
        let (a, b) = (corner(&mut draws), corner(&mut draws));
        let c = if case % 3 == 1 {
            let s = draws.next();
            let lean = 1e-3 * (draws.next() - 0.5);
            [
                a[0] + (b[0] - a[0]) * s + lean,
                a[1] + (b[1] - a[1]) * s - lean,
            ]
        } else {
            corner(&mut draws)
        };
        let mut out = Vec::new();
        push(&mut out, [a, b, c], [1.0; 3], None, 0, 0, (w, h));
        let Some(t) = out.first() else { continue };
        let Some(setup) = Setup::new(t) else { continue };
        let mut depths = Depths::new(0, h, w);
        cover(t, &setup, 0, 1e6, &[t], &mut depths);
        triangles += 1;
        for row in 0..h {
            for col in 0..w {
                let in_box = (t.rows().0..=t.rows().1).contains(&row)
                    && (t.cols().0..=t.cols().1).contains(&col);
                let expected = in_box && inside_by_definition(&setup, col, row);
                let taken = depths.triangle[row * w + col] == 0;
                assert_eq!(
                    taken, expected,
                    "case {case}: corners {a:?} {b:?} {c:?}, pixel ({col}, {row})"
                );
                covered += usize::from(taken);
            }
        }
    }
    // The cases reach the image (not all thrown away as out of view or degenerate).
    assert!(
        triangles > 1000 && covered > 10_000,
        "{triangles} triangles, {covered} pixels"
    );
}

#[test]
fn box_centres_are_the_library_roundings_where_they_matter() {
    let size = 640;
    let last = size as f64 - 1.0;
    let values = [
        f64::NAN,
        f64::NEG_INFINITY,
        f64::INFINITY,
        -1e300,
        -2.5,
        -1.0,
        -0.5,
        -0.0,
        0.0,
        1e-300,
        0.5,
        1.0,
        5.0,
        5.5,
        last - 0.5,
        last,
        last + 0.5,
        2147483647.5,
        2147483648.0,
        1e15,
        1e300,
    ];
    for v in values {
        let (first, expected_first) = (first_centre(v), v.ceil().max(0.0));
        if expected_first <= last {
            assert_eq!(first, expected_first, "first centre from {v}");
        } else {
            assert!(first > last, "first centre from {v}: {first}");
        }
        let (end, expected_end) = (last_centre(v, size), v.floor().min(last));
        if expected_end >= 0.0 {
            assert_eq!(end, expected_end, "last centre from {v}");
        } else {
            assert!(end < 0.0, "last centre from {v}: {end}");
        }
    }
}

/// `run_length` finds the runs `chunk_by` finds: short and long, at the ends, of one value.
#[test]
fn run_lengths_are_the_runs_of_equal_values() {
    let mut values = Vec::new();
    // Runs of 1 to 40 values, some repeating the value before a different one.
    for k in 0..200u32 {
        let len = (k * 7 + 3) % 41 + 1;
        values.extend(std::iter::repeat_n(k % 5, len as usize));
    }
    values.extend([u32::MAX; 9]);
    let mut found = Vec::new();
    let mut at = 0;
    while at < values.len() {
        let n = super::run_length(&values[at..]);
        assert!(n >= 1);
        found.push(n);
        at += n;
    }
    let expected: Vec<usize> = values.chunk_by(|a, b| a == b).map(<[u32]>::len).collect();
    assert_eq!(found, expected);
    assert_eq!(super::run_length(&[]), 0);
    assert_eq!(super::run_length(&[3; 17]), 17);
}

#[test]
fn vector_rows_give_the_scalar_rows_bits() {
    // Overlapping triangles, many at equal depths (ties, decided by the tie rule), drawn in
    // turn into two bands: by the vector rows this CPU runs and by the scalar rows.
    let h = 16usize;
    let mut draws = Draws(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0usize;
    for case in 0..300 {
        let w = [45, 48, 61][case % 3];
        let mut out: Vec<ScreenTriangle> = Vec::new();
        for k in 0..40u32 {
            let corner = |d: &mut Draws| {
                let p = [-8.0 + (w as f64 + 16.0) * d.next(), -8.0 + 32.0 * d.next()];
                if case % 2 == 0 { p.map(f64::round) } else { p }
            };
            let xy = [corner(&mut draws), corner(&mut draws), corner(&mut draws)];
            let inv_z = match k % 3 {
                0 => [0.5; 3],
                1 => [0.25, 0.5, 1.0].map(|v| v * (1.0 + (case % 5) as f64 * 0.125)),
                _ => [draws.next(), draws.next(), draws.next()],
            };
            // Every fifth a copy of the one before, under another name: exact ties.
            match out.last() {
                Some(t) if k % 5 == 4 => {
                    let (xy, inv_z) = (t.xy, t.inv_z);
                    push(&mut out, xy, inv_z, None, (k * 7) % 4, k, (w, h));
                }
                _ => push(&mut out, xy, inv_z, None, k % 4, k, (w, h)),
            }
        }
        let triangles: Vec<&ScreenTriangle> = out.iter().collect();
        let (mut vector, mut scalar) = (Depths::new(0, h, w), Depths::new(0, h, w));
        for (index, t) in triangles.iter().enumerate() {
            let Some(setup) = Setup::new(t) else { continue };
            let c = cover::TriangleCover::new(t, &setup, index as u32, 1.5, &vector);
            if !segments::cover(&c, &triangles, &mut vector) {
                return; // no vector rows on this CPU: nothing to compare
            }
            cover::cover_rows(&c, &triangles, &mut scalar);
        }
        let bits = |v: &[f64]| v.iter().map(|d| d.to_bits()).collect::<Vec<_>>();
        assert_eq!(vector.triangle, scalar.triangle, "case {case}: winners");
        assert_eq!(
            bits(&vector.inv_depth),
            bits(&scalar.inv_depth),
            "case {case}"
        );
        assert_eq!(
            bits(&vector.farthest),
            bits(&scalar.farthest),
            "case {case}"
        );
        compared += scalar.triangle.iter().filter(|&&t| t != u32::MAX).count();
    }
    assert!(compared > 50_000, "{compared} pixels drawn");
}
