//! Rays of one direction answered from a grid over the plane across it: every answer must be
//! `Scene::any_hit`'s, however the rays meet the leaves' boxes and the triangles' edges.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::{Affine3A, Quat, Vec3, Vec3A};
use passerby_raycast::{GridBudget, ParallelGrid, Ray, Scene, TriangleMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
use common::{cuboid, random_soup, turned_and_stretched};

const ROOMY: GridBudget = GridBudget {
    max_leaves: 1 << 20,
    max_entries: 1 << 22,
};

/// A room without a ceiling (floor and walls merged into one mesh placed as it is), shelves of
/// random triangles turned and stretched, blocks, a one-triangle mesh (a tree that is a single
/// leaf) and a moving instance.
fn scene(rng: &mut ChaCha8Rng) -> Scene {
    let mut scene = Scene::new();
    let mut room = Vec::new();
    let mut room_triangles = Vec::new();
    for (min, max) in [
        (Vec3::new(-8.0, -8.0, -0.1), Vec3::new(8.0, 8.0, 0.0)),
        (Vec3::new(-8.0, -8.0, 0.0), Vec3::new(-7.8, 8.0, 3.0)),
        (Vec3::new(-8.0, 7.8, 0.0), Vec3::new(8.0, 8.0, 3.0)),
    ] {
        let part = cuboid(min, max);
        let base = room.len() as u32;
        room.extend(part.vertices().iter().map(|&v| Vec3::from(v)));
        room_triangles.extend(part.triangles().iter().map(|t| t.map(|k| k + base)));
    }
    let room = scene.add_mesh(TriangleMesh::new(room, room_triangles));
    scene.add_instance(room, Affine3A::IDENTITY);
    let (vertices, triangles) = random_soup(rng, 600, 1.0);
    let soup = scene.add_mesh(TriangleMesh::new(vertices, triangles));
    let block = scene.add_mesh(cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)));
    for i in 0..24 {
        let at = Vec3::new(
            rng.random_range(-6.0..6.0),
            rng.random_range(-6.0..6.0),
            rng.random_range(0.6..2.5),
        );
        let place = if i % 3 == 0 {
            turned_and_stretched(rng, true, at)
        } else {
            Affine3A::from_scale_rotation_translation(
                Vec3::splat(rng.random_range(0.5..1.5)),
                Quat::from_rotation_z(rng.random_range(0.0..6.0)),
                at,
            )
        };
        scene.add_instance(if i % 2 == 0 { soup } else { block }, place);
    }
    let one = scene.add_mesh(TriangleMesh::new(
        vec![
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.5, 0.0, 1.2),
            Vec3::new(0.0, 1.5, 1.1),
        ],
        vec![[0, 1, 2]],
    ));
    scene.add_instance(one, Affine3A::from_translation(Vec3::new(-3.0, 2.0, 0.0)));
    let mover = scene.add_moving_instance(block, Affine3A::from_translation(Vec3::ZERO));
    scene.set_transform(mover, Affine3A::from_translation(Vec3::new(2.0, -3.0, 1.0)));
    scene.commit();
    scene
}

/// Rays from `origins` along `dir`, ray `i` with the range `range(i)` picks: 2 m, unbounded,
/// or 10 km.
fn rays_from(origins: &[Vec3A], dir: Vec3A, range: impl Fn(usize) -> usize) -> Vec<Ray> {
    (origins.iter().enumerate())
        .map(|(i, &o)| {
            let t_max = [2.0, f32::INFINITY, 1e4][range(i).min(2)];
            Ray::new(o, dir, 0.0, t_max).unwrap()
        })
        .collect()
}

/// Towards the suns: high, low, straight up (two zero components), level.
const SUNS: [Vec3; 4] = [
    Vec3::new(0.3, -0.2, 0.93),
    Vec3::new(-0.5, 0.1, 0.3),
    Vec3::new(0.0, 0.0, 1.0),
    Vec3::new(1.0, 0.0, 0.0),
];

#[test]
fn parallel_rays_answer_as_any_hit_from_surfaces_edges_and_corners() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let scene = scene(&mut rng);
    for sun in SUNS {
        let dir = Vec3A::from(sun.normalize());
        let grid = ParallelGrid::new(&scene, dir, ROOMY).unwrap();
        assert!(grid.entry_count() > 0);
        let mut origins: Vec<Vec3A> = Vec::new();
        // On the floor, lifted a little, as a camera's shadow rays start.
        for _ in 0..6000 {
            let (x, y) = (rng.random_range(-8.5..8.5), rng.random_range(-8.5..8.5));
            origins.push(Vec3A::new(x, y, 1e-4));
        }
        // Anywhere in the room.
        for _ in 0..3000 {
            origins.push(Vec3A::new(
                rng.random_range(-9.0..9.0),
                rng.random_range(-9.0..9.0),
                rng.random_range(-0.5..3.5),
            ));
        }
        // Aimed exactly at the corners of triangles (the rays pass through shared vertices
        // and along shared edges) and at points on their edges.
        for k in 0..scene.instance_count() as u32 {
            let inst = scene.instance(k);
            let mesh = scene.mesh(inst.mesh);
            for (i, tri) in mesh.triangles().iter().enumerate().step_by(7) {
                let [a, b, _] = tri.map(|v| {
                    inst.world_from_mesh()
                        .transform_point3a(mesh.vertices()[v as usize])
                });
                let on_edge = a.lerp(b, if i % 2 == 0 { 0.5 } else { 0.25 });
                for target in [a, on_edge] {
                    origins.push(target - dir * rng.random_range(0.5..4.0));
                }
            }
        }
        let rays = rays_from(&origins, dir, |i| i % 5);
        let walked: Vec<bool> = rays.iter().map(|r| scene.any_hit(r)).collect();
        let gridded: Vec<bool> = rays.iter().map(|r| grid.any_hit(&scene, r)).collect();
        let differ = (walked.iter().zip(&gridded))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            differ,
            0,
            "{differ} of {} rays differ for {sun}",
            rays.len()
        );
        let blocked = walked.iter().filter(|&&b| b).count();
        assert!(
            blocked > 1000 && blocked < rays.len() - 1000,
            "{blocked} of {} blocked",
            rays.len()
        );
    }
}

#[test]
fn other_rays_and_far_origins_take_the_walk_and_budgets_are_kept() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let scene = scene(&mut rng);
    let dir = Vec3A::new(0.0, 0.0, 1.0);
    let grid = ParallelGrid::new(&scene, dir, ROOMY).unwrap();
    // Another direction, and an origin beyond the grid's reach: both as the walk answers.
    for ray in [
        Ray::new(Vec3A::new(0.0, 0.0, 10.0), -dir, 0.0, 1e4).unwrap(),
        Ray::new(Vec3A::new(0.0, 0.0, -2e4), dir, 0.0, 1e5).unwrap(),
        Ray::new(Vec3A::new(30.0, 0.0, 0.5), dir, 0.0, 1e4).unwrap(),
    ] {
        assert_eq!(grid.any_hit(&scene, &ray), scene.any_hit(&ray));
    }
    assert!(grid.any_hit(
        &scene,
        &Ray::new(Vec3A::new(0.0, 0.0, -2e4), dir, 0.0, 1e5).unwrap()
    ));
    // Too small a budget, a placement stretched a thousandfold, a zero direction: no grid.
    let small = |max_leaves, max_entries| GridBudget {
        max_leaves,
        max_entries,
    };
    assert!(ParallelGrid::new(&scene, dir, small(1 << 20, 10)).is_none());
    assert!(ParallelGrid::new(&scene, dir, small(3, 1 << 22)).is_none());
    assert!(ParallelGrid::new(&scene, Vec3A::ZERO, ROOMY).is_none());
    let mut stretched = Scene::new();
    let block = stretched.add_mesh(cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)));
    stretched.add_instance(block, Affine3A::from_scale(Vec3::new(1000.0, 1.0, 1.0)));
    stretched.commit();
    assert!(ParallelGrid::new(&stretched, dir, ROOMY).is_none());
    // Clutter of many small leaves on a ground 8 km wide: the ground is listed for every ray,
    // and the cells are of the clutter's size (not the ground's).
    let mut wide = Scene::new();
    let ground = wide.add_mesh(cuboid(
        Vec3::new(-4000.0, -4000.0, -1.0),
        Vec3::new(4000.0, 4000.0, 0.0),
    ));
    wide.add_instance(ground, Affine3A::IDENTITY);
    let (vertices, triangles) = random_soup(&mut rng, 3000, 1.0);
    let clutter = wide.add_mesh(TriangleMesh::new(vertices, triangles));
    wide.add_instance(
        clutter,
        Affine3A::from_translation(Vec3::new(0.0, 0.0, 1.5)),
    );
    wide.commit();
    let grid = ParallelGrid::new(&wide, dir, ROOMY).unwrap();
    assert!(grid.entry_count() < 100_000, "{}", grid.entry_count());
    for (x, y, z) in [
        (0.2, 0.1, 0.5),
        (0.0, 0.0, 1e-3),
        (3000.0, 10.0, 1e-3),
        (0.3, -0.4, -0.5),
    ] {
        let ray = Ray::new(Vec3A::new(x, y, z), dir, 0.0, 1e4).unwrap();
        assert_eq!(
            grid.any_hit(&wide, &ray),
            wide.any_hit(&ray),
            "from {x} {y} {z}"
        );
    }
    // An empty scene: a grid of nothing, blocking nothing.
    let mut empty = Scene::new();
    empty.commit();
    let none = ParallelGrid::new(&empty, dir, ROOMY).unwrap();
    assert!(!none.any_hit(&empty, &Ray::new(Vec3A::ZERO, dir, 0.0, 1e4).unwrap()));
}

/// Runs of neighbouring rays (a camera's shadow rays: origins a little apart along a line, on
/// the floor, sloping up through the room, or passing by triangles' corners a hair apart),
/// answered together: every answer is `Scene::any_hit`'s. A run of rays over one cell passes
/// over a leaf only when it lies behind every one of their origins, so the slopes put leaves
/// behind some of a run's origins and ahead of others.
#[test]
fn runs_of_neighbouring_rays_answer_as_any_hit() {
    let mut rng = ChaCha8Rng::seed_from_u64(47);
    let scene = scene(&mut rng);
    for sun in SUNS {
        let dir = Vec3A::from(sun.normalize());
        let grid = ParallelGrid::new(&scene, dir, ROOMY).unwrap();
        let mut origins: Vec<Vec3A> = Vec::new();
        for line in 0..400 {
            let start = Vec3A::new(
                rng.random_range(-8.5..8.5),
                rng.random_range(-8.5..8.5),
                if line % 2 == 0 {
                    1e-4
                } else {
                    rng.random_range(-0.2..3.2)
                },
            );
            let step = Vec3A::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                if line % 2 == 0 {
                    0.0
                } else {
                    rng.random_range(-1.0..1.0)
                },
            ) * rng.random_range(0.001..0.03);
            // Not a whole number of runs, so runs straddle lines.
            origins.extend((0..37).map(|k| start + step * k as f32));
        }
        // Past the corners of triangles, a hair apart across the direction.
        let across = dir.any_orthonormal_vector();
        for k in 0..scene.instance_count() as u32 {
            let inst = scene.instance(k);
            let mesh = scene.mesh(inst.mesh);
            for tri in mesh.triangles().iter().step_by(11) {
                let a = inst
                    .world_from_mesh()
                    .transform_point3a(mesh.vertices()[tri[0] as usize]);
                let from = a - dir * rng.random_range(0.5..4.0);
                origins.extend((-8..8).map(|k| from + across * (k as f32 * 1e-6)));
            }
        }
        let rays = rays_from(&origins, dir, |i| (i / 37) % 3);
        let walked: Vec<bool> = rays.iter().map(|r| scene.any_hit(r)).collect();
        let mut together = vec![false; rays.len()];
        grid.any_hit_run(&scene, &rays, &mut together);
        let differ: Vec<usize> = (0..rays.len())
            .filter(|&i| walked[i] != together[i])
            .collect();
        assert!(
            differ.is_empty(),
            "{} of {} rays differ for {sun}, first {:?}",
            differ.len(),
            rays.len(),
            differ.first().map(|&i| rays[i])
        );
        let blocked = walked.iter().filter(|&&b| b).count();
        assert!(
            blocked > 1000 && blocked < rays.len() - 1000,
            "{blocked} of {} blocked",
            rays.len()
        );
        // The same rays given as their origins, axis by axis, one range at a time.
        let axes = [0, 1, 2].map(|a| origins.iter().map(|o| o[a]).collect::<Vec<f32>>());
        for t_max in [2.0, f32::INFINITY, 1e4] {
            let mut from = vec![false; origins.len()];
            let [xs, ys, zs] = &axes;
            grid.any_hit_from(&scene, [xs, ys, zs], (0.0, t_max), &mut from);
            for (i, &o) in origins.iter().enumerate() {
                let ray = Ray::new(o, dir, 0.0, t_max).unwrap();
                assert_eq!(
                    from[i],
                    scene.any_hit(&ray),
                    "{ray:?} from its origin, {sun}"
                );
            }
        }
    }
}
