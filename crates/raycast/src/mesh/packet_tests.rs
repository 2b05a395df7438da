//! Packets through one mesh, with and without the 16-lane leaf tests, against single rays:
//! rays aimed exactly at shared vertices and edges (where an edge value comes out zero and the
//! scalar test decides), coherent fans (leaves reached by many rays: the 16-lane test, both
//! halves of the packet gathered densely or not), scattered origins, and first hits.
#![allow(clippy::unwrap_used)]

use super::{LocalHit, PACKET, RayPacket, TriangleMesh};
use glam::{Vec3, Vec3A, Vec4};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A wavy grid of `n` x `n` cells, two triangles each: neighbours share every edge.
fn wavy_grid(n: u32) -> TriangleMesh {
    let vertices: Vec<Vec3> = (0..=n)
        .flat_map(|j| {
            (0..=n).map(move |i| {
                let (x, y) = (i as f32 * 0.37, j as f32 * 0.41);
                Vec3::new(x, y, 0.3 * (x * 1.7).sin() * (y * 0.9).cos())
            })
        })
        .collect();
    let idx = |i: u32, j: u32| j * (n + 1) + i;
    let triangles = (0..n)
        .flat_map(|j| {
            (0..n).flat_map(move |i| {
                [
                    [idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)],
                    [idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)],
                ]
            })
        })
        .collect();
    TriangleMesh::new(vertices, triangles)
}

/// A packet of `rays` (`(origin, direction)`, at most [`PACKET`]), those of `active` used.
fn packet(rays: &[(Vec3A, Vec3A)], active: u32) -> RayPacket {
    let mut p = RayPacket {
        origin: [[Vec4::ZERO; PACKET / 4]; 3],
        dir: [[Vec4::X; PACKET / 4]; 3],
        inv_dir: [[Vec4::ONE; PACKET / 4]; 3],
        t_min: [0.0; PACKET],
        t_max: [f32::INFINITY; PACKET],
        active,
        beam: None,
    };
    for (r, (origin, dir)) in rays.iter().enumerate() {
        let inv = dir.recip();
        for a in 0..3 {
            p.origin[a][r / 4][r % 4] = origin[a];
            p.dir[a][r / 4][r % 4] = dir[a];
            p.inv_dir[a][r / 4][r % 4] = inv[a];
        }
    }
    p
}

fn same(a: &Option<LocalHit>, b: &Option<LocalHit>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.t.to_bits() == b.t.to_bits()
                && a.u.to_bits() == b.u.to_bits()
                && a.v.to_bits() == b.v.to_bits()
                && a.triangle == b.triangle
                && a.normal == b.normal
        }
        _ => false,
    }
}

/// Both leaf tests give each active ray the same hit, bit for bit, and its single-ray answer,
/// except where two triangles meet the ray within a few ulps (a shared corner or edge): boxes
/// are tested against one ulp past the hit so far, and rounding in a box's entry can pass over
/// the other, so which wins depends on the order a walk meets them (so it was before the
/// 16-lane test).
fn check(mesh: &TriangleMesh, rays: &[(Vec3A, Vec3A)], active: u32) {
    let p = packet(rays, active);
    let trace = |wide: bool| {
        let mut closest = [None; PACKET];
        mesh.closest_packet_with(&p, false, wide, |r, hit| {
            // The walk leaves the normal for its caller to make unit.
            let normal = hit.normal.normalize_or_zero();
            closest[r] = Some(LocalHit { normal, ..*hit });
        });
        let mut blocked = 0u32;
        mesh.closest_packet_with(&p, true, wide, |r, _| blocked |= 1 << r);
        (closest, blocked)
    };
    let (packs, blocked) = trace(false);
    let (wide, wide_blocked) = trace(true);
    assert_eq!(blocked, wide_blocked, "first hits");
    for (r, &(origin, dir)) in rays.iter().enumerate() {
        assert!(
            same(&packs[r], &wide[r]),
            "ray {r}: {:?} against {:?}",
            wide[r],
            packs[r]
        );
        let single = (active & (1 << r) != 0)
            .then(|| mesh.closest(origin, dir, 0.0, f32::INFINITY))
            .flatten();
        assert_eq!(
            blocked & (1 << r) != 0,
            single.is_some(),
            "first hit, ray {r}"
        );
        match (&packs[r], &single) {
            (Some(a), Some(b)) if a.triangle != b.triangle => {
                let ulps = a.t.to_bits().abs_diff(b.t.to_bits());
                assert!(ulps <= 4, "ray {r}: {a:?} against {b:?}")
            }
            _ => assert!(
                same(&packs[r], &single),
                "ray {r}: {:?} against {single:?}",
                packs[r]
            ),
        }
    }
}

#[test]
fn packets_answer_as_single_rays_with_either_leaf_test() {
    packets_answer_as_single_rays(wavy_grid(24), 600);
    // Every triangle twice, the copies in reverse order: each hit is a tie, which the lower
    // index wins.
    let grid = wavy_grid(12);
    let mut triangles = grid.triangles().to_vec();
    triangles.extend(grid.triangles().iter().rev());
    let vertices = grid.vertices().iter().map(|&v| v.into()).collect();
    packets_answer_as_single_rays(TriangleMesh::new(vertices, triangles), 200);
}

fn packets_answer_as_single_rays(mesh: TriangleMesh, packets: usize) {
    let vertices = mesh.vertices().to_vec();
    // Points where edge values come out exactly zero: vertices and edge midpoints.
    let mut targets: Vec<Vec3A> = vertices.clone();
    for t in mesh.triangles() {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        targets.extend([(a + b) * 0.5, (b + c) * 0.5, a.lerp(c, 0.5)]);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut masks = vec![u32::MAX, 0x0000_FFFF, 0xFFFF_0000, 0x8000_0001, 0x00F0_0F00];
    masks.extend((0..40).map(|_| rng.random::<u32>() & rng.random::<u32>()));
    masks.extend((0..40).map(|_| rng.random::<u32>() | rng.random::<u32>()));
    for (k, &mask) in masks.iter().enumerate().cycle().take(packets) {
        let origin = Vec3A::new(
            rng.random_range(-2.0..11.0),
            rng.random_range(-2.0..11.0),
            rng.random_range(0.6..6.0),
        );
        // Half the packets from one origin (lidars, cameras), half from scattered ones.
        let shared = k % 2 == 0;
        let centre = targets[rng.random_range(0..targets.len())];
        let rays: Vec<(Vec3A, Vec3A)> = (0..PACKET)
            .map(|_| {
                let o = if shared {
                    origin
                } else {
                    origin + Vec3A::new(rng.random_range(-0.2..0.2), 0.0, 0.0)
                };
                // A coherent fan near one point, some rays aimed exactly at shared corners
                // and edges around it.
                let target = if rng.random_bool(0.5) {
                    let near = targets.iter().filter(|t| t.distance(centre) < 0.9);
                    let near: Vec<_> = near.collect();
                    *near[rng.random_range(0..near.len())]
                } else {
                    centre
                        + Vec3A::new(
                            rng.random_range(-0.5..0.5),
                            rng.random_range(-0.5..0.5),
                            0.0,
                        )
                };
                (o, target - o)
            })
            .collect();
        check(&mesh, &rays, mask);
    }
}
