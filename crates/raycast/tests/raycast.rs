//! Ray casting against analytic answers and a brute-force reference.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::{Affine3A, Quat, Vec3, Vec3A};
use passerby_raycast::bvh::{Aabb, Bvh};
use passerby_raycast::{Ray, RayError, Scene, TriangleMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
use common::{cuboid, random_soup, turned_and_stretched};

fn ray(o: Vec3, d: Vec3) -> Ray {
    Ray::new(o.into(), d.into(), 0.0, f32::INFINITY).unwrap()
}

fn scene_of(mesh: TriangleMesh) -> Scene {
    let mut scene = Scene::new();
    let id = scene.add_mesh(mesh);
    scene.add_instance(id, Affine3A::IDENTITY);
    scene.commit();
    scene
}

fn random_dir(rng: &mut ChaCha8Rng) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if v.length() > 0.1 && v.length() <= 1.0 {
            return v.normalize();
        }
    }
}

#[test]
fn ranges_in_a_box_room_are_analytic() {
    let scene = scene_of(cuboid(
        Vec3::new(-5.0, -4.0, -3.0),
        Vec3::new(6.0, 4.0, 3.0),
    ));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let origin = Vec3::new(0.5, -0.25, 0.1);
    for _ in 0..2000 {
        let d = random_dir(&mut rng);
        let hit = scene
            .closest(&ray(origin, d))
            .expect("a closed room is always hit");
        let expected = [(-5.0, 6.0, 0), (-4.0, 4.0, 1), (-3.0, 3.0, 2)]
            .iter()
            .map(|&(lo, hi, a)| {
                if d[a] > 0.0 {
                    (hi - origin[a]) / d[a]
                } else {
                    (lo - origin[a]) / d[a]
                }
            })
            .fold(f32::INFINITY, f32::min);
        assert!(
            (hit.t - expected).abs() < 1e-4,
            "{d:?}: {} vs {expected}",
            hit.t
        );
        let p = origin + d * hit.t;
        assert!(
            hit.normal.length() > 0.99 && (hit.normal.dot(d)).abs() > 0.0,
            "{p:?}"
        );
    }
}

#[test]
fn agrees_with_brute_force_on_random_triangle_soups() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for size in [1usize, 2, 3, 10, 100, 1000, 5000] {
        let (vertices, triangles) = random_soup(&mut rng, size, 10.0);
        let mesh = TriangleMesh::new_dynamic(vertices.clone(), triangles.clone());
        let boxes: Vec<Aabb> = triangles
            .iter()
            .map(|t| {
                let mut b = Aabb::EMPTY;
                t.iter().for_each(|&i| b.grow(vertices[i as usize].into()));
                b
            })
            .collect();
        passerby_raycast::bvh::Bvh::build(&boxes)
            .validate(&boxes)
            .unwrap();
        mesh.validate().unwrap();
        let single: Vec<TriangleMesh> = triangles
            .iter()
            .map(|t| {
                TriangleMesh::new(
                    t.iter().map(|&i| vertices[i as usize]).collect(),
                    vec![[0, 1, 2]],
                )
            })
            .collect();
        for _ in 0..300 {
            let o = Vec3::new(
                rng.random_range(-15.0..15.0),
                rng.random_range(-15.0..15.0),
                rng.random_range(-15.0..15.0),
            );
            let d = random_dir(&mut rng);
            let got = mesh.closest(o.into(), d.into(), 0.0, f32::INFINITY);
            let expected = single
                .iter()
                .enumerate()
                .filter_map(|(i, m)| {
                    m.closest(o.into(), d.into(), 0.0, f32::INFINITY)
                        .map(|h| (h.t, i as u32))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            assert_eq!(got.map(|h| (h.t, h.triangle)), expected, "size {size}");
        }
    }
}

#[test]
fn rays_through_shared_edges_and_vertices_never_slip_through() {
    // A 20 x 20 grid of unit squares, two triangles each, at z = 0.
    let n = 20;
    let vertices: Vec<Vec3> = (0..=n)
        .flat_map(|j| (0..=n).map(move |i| Vec3::new(i as f32 * 0.37, j as f32 * 0.41, 0.0)))
        .collect();
    let idx = |i: u32, j: u32| j * (n + 1) + i;
    let triangles: Vec<[u32; 3]> = (0..n)
        .flat_map(|j| {
            (0..n).flat_map(move |i| {
                [
                    [idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)],
                    [idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)],
                ]
            })
        })
        .collect();
    let scene = scene_of(TriangleMesh::new(vertices.clone(), triangles.clone()));
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut targets: Vec<Vec3> = vertices
        .iter()
        .filter(|v| v.x > 0.0 && v.y > 0.0 && v.x < 7.0 && v.y < 8.0)
        .copied()
        .collect();
    for t in &triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        targets.extend([(a + b) * 0.5, (b + c) * 0.5, (a + c) * 0.5, a.lerp(c, 0.3)]);
    }
    for target in targets
        .iter()
        .filter(|p| p.x > 0.0 && p.y > 0.0 && p.x < 7.0 && p.y < 8.0)
    {
        for _ in 0..3 {
            let origin = Vec3::new(
                rng.random_range(-3.0..10.0),
                rng.random_range(-3.0..10.0),
                rng.random_range(0.5..5.0),
            );
            assert!(
                scene.closest(&ray(origin, *target - origin)).is_some(),
                "slipped through at {target:?} from {origin:?}"
            );
        }
    }
}

#[test]
fn instances_are_hit_in_their_own_frame_even_when_huge() {
    let unit_square = TriangleMesh::new(
        vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    );
    let mut scene = Scene::new();
    let id = scene.add_mesh(unit_square);
    // A 2e5 m plane, rotated a little, lifted to z = 0.5.
    let plane = Affine3A::from_scale_rotation_translation(
        Vec3::new(1e5, 1e5, 1.0),
        Quat::from_rotation_z(0.3),
        Vec3::new(0.0, 0.0, 0.5),
    );
    scene.add_instance(id, plane);
    // A second, small square turned to face -X, standing at x = 3 above the plane.
    let tilted = Affine3A::from_scale_rotation_translation(
        Vec3::splat(0.5),
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        Vec3::new(3.0, 0.0, 1.0),
    );
    scene.add_instance(id, tilted);
    scene.commit();
    for (x, y) in [(0.0013, -0.0021), (1.2345, 0.5), (-7.0, 3.0)] {
        let hit = scene
            .closest(&ray(Vec3::new(x, y, 10.0), Vec3::NEG_Z))
            .unwrap();
        assert_eq!(hit.instance, 0);
        assert!((hit.t - 9.5).abs() < 1e-3, "t = {}", hit.t);
        assert!((hit.normal - Vec3::Z).length() < 1e-5);
    }
    let hit = scene
        .closest(&ray(Vec3::new(0.0, 0.2, 1.1), Vec3::X))
        .unwrap();
    assert_eq!(hit.instance, 1);
    assert!((hit.t - 3.0).abs() < 1e-5, "t = {}", hit.t);
    let miss = scene.closest(&ray(Vec3::new(0.0, 5.0, 1.1), Vec3::X));
    assert!(miss.is_none());
}

/// What a placement costs grows with instances, not with their mesh: a transform, a world box
/// and a share of the top level's tree, about a hundred bytes (a stored inverse transform
/// and padded boxes made it 150 and more).
#[test]
fn a_placement_holds_a_transform_a_box_and_a_share_of_the_top_level() {
    let mut scene = Scene::new();
    let id = scene.add_mesh(cuboid(Vec3::ZERO, Vec3::splat(0.5)));
    let side = 100;
    for i in 0..side * side {
        let at = Vec3::new((i % side) as f32, (i / side) as f32, 0.0);
        let turn = Quat::from_rotation_z(i as f32 * 0.01);
        scene.add_instance(id, Affine3A::from_rotation_translation(turn, at));
    }
    scene.commit();
    let (meshes, placements) = scene.memory_bytes_split();
    let per_instance = placements / (side * side);
    assert!(meshes < 10_000, "the cuboid's mesh holds {meshes} bytes");
    assert!(
        (80..=128).contains(&per_instance),
        "{per_instance} bytes per instance"
    );
    // Each placement is still where it was put, hit in its own frame (above one's centre).
    let i = 52 * side + 37;
    let turn = Quat::from_rotation_z(i as f32 * 0.01);
    let above = Vec3::new(37.0, 52.0, 0.0) + turn * Vec3::new(0.25, 0.25, 5.0);
    let hit = scene.closest(&ray(above, Vec3::NEG_Z)).unwrap();
    assert_eq!(hit.instance as usize, i);
    assert!((hit.t - 4.5).abs() < 1e-5, "t = {}", hit.t);
}

#[test]
fn refit_follows_moved_vertices_and_rebuilds_when_degraded() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let n = 2000;
    let (mut vertices, triangles) = random_soup(&mut rng, n, 1.0);
    // A static mesh becomes dynamic (one rebuild) on its first update.
    let mut static_mesh = TriangleMesh::new(vertices.clone(), triangles.clone());
    assert!(static_mesh.update_vertices(&vertices));
    let mut mesh = TriangleMesh::new_dynamic(vertices.clone(), triangles.clone());
    // A small motion: refit only, and the answers are those of a fresh build.
    for v in &mut vertices {
        *v += Vec3::new(0.0, 0.0, 0.05 * v.x);
    }
    assert!(
        !mesh.update_vertices(&vertices),
        "a small motion is refitted"
    );
    mesh.validate().unwrap();
    let fresh = TriangleMesh::new(vertices.clone(), triangles.clone());
    for _ in 0..300 {
        let o = Vec3::new(
            rng.random_range(-3.0..3.0),
            rng.random_range(-3.0..3.0),
            5.0,
        );
        let d = (Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            0.0,
        ) - o)
            .normalize();
        let a = mesh
            .closest(o.into(), d.into(), 0.0, f32::INFINITY)
            .map(|h| (h.t, h.triangle));
        let b = fresh
            .closest(o.into(), d.into(), 0.0, f32::INFINITY)
            .map(|h| (h.t, h.triangle));
        assert_eq!(a, b);
    }
    // Small triangles on a line, then spread out so each spans the whole line: rebuilt.
    let strip: Vec<Vec3> = (0..3000)
        .map(|i| Vec3::new(i as f32 / 3.0, (i % 3) as f32 * 0.01, 0.0))
        .collect();
    let tris: Vec<[u32; 3]> = (0..1000u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    let mut mesh = TriangleMesh::new_dynamic(strip.clone(), tris);
    let spread: Vec<Vec3> = (0..3000)
        .map(|i| {
            if i % 3 == 0 {
                strip[i]
            } else {
                Vec3::new(1000.0 - strip[i].x, strip[i].y, 1.0)
            }
        })
        .collect();
    assert!(mesh.update_vertices(&spread), "a degraded tree is rebuilt");
}

#[test]
fn degenerate_empty_and_invalid_inputs() {
    let line = TriangleMesh::new(
        vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0, Vec3::Y],
        vec![[0, 1, 2], [0, 0, 3], [0, 1, 9]],
    );
    assert_eq!(line.triangle_count(), 2, "out-of-range indices are dropped");
    let scene = scene_of(line);
    for d in [
        Vec3::NEG_Z,
        Vec3::new(0.0, -1.0, -1.0),
        Vec3::new(1.0, 0.0, -1.0),
    ] {
        assert!(
            scene.closest(&ray(Vec3::new(0.5, 0.0, 1.0), d)).is_none(),
            "zero-area triangles are never hit"
        );
    }
    assert!(Scene::new().closest(&ray(Vec3::ZERO, Vec3::X)).is_none());
    let mut empty = Scene::new();
    empty.commit();
    assert!(empty.closest(&ray(Vec3::ZERO, Vec3::X)).is_none());
    assert_eq!(
        Ray::new(Vec3A::ZERO, Vec3A::ZERO, 0.0, 1.0),
        Err(RayError::ZeroDirection)
    );
    assert_eq!(
        Ray::new(Vec3A::ZERO, Vec3A::new(f32::NAN, 0.0, 1.0), 0.0, 1.0),
        Err(RayError::NotFinite)
    );
    assert_eq!(
        Ray::new(Vec3A::splat(f32::INFINITY), Vec3A::X, 0.0, 1.0),
        Err(RayError::NotFinite)
    );
    assert!(Bvh::build(&[]).nodes.is_empty());
}

#[test]
fn batches_are_identical_for_any_thread_count() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (vertices, triangles) = random_soup(&mut rng, 10_000, 10.0);
    let rays: Vec<Ray> = (0..20_000)
        .map(|_| ray(Vec3::new(0.0, 0.0, 12.0), random_dir(&mut rng)))
        .collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let scene = scene_of(TriangleMesh::new(vertices.clone(), triangles.clone()));
            let mut out = vec![None; rays.len()];
            scene.closest_batch(&rays, &mut out);
            out
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert!(one.iter().filter(|h| h.is_some()).count() > 1000);
}

/// A UV sphere of radius 1 about the origin: vertices on the sphere, outward-facing triangles.
fn unit_sphere(rings: u32, segments: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut vertices = vec![Vec3::Z, Vec3::NEG_Z];
    for ring in 1..rings {
        let polar = std::f32::consts::PI * ring as f32 / rings as f32;
        for segment in 0..segments {
            let azimuth = std::f32::consts::TAU * segment as f32 / segments as f32;
            vertices.push(Vec3::new(
                polar.sin() * azimuth.cos(),
                polar.sin() * azimuth.sin(),
                polar.cos(),
            ));
        }
    }
    let at = |ring: u32, segment: u32| 2 + (ring - 1) * segments + segment % segments;
    let mut triangles = Vec::new();
    for s in 0..segments {
        triangles.push([0, at(1, s), at(1, s + 1)]);
        triangles.push([1, at(rings - 1, s + 1), at(rings - 1, s)]);
        for ring in 1..rings - 1 {
            let (a, b) = (at(ring, s), at(ring, s + 1));
            let (c, d) = (at(ring + 1, s), at(ring + 1, s + 1));
            triangles.push([a, c, d]);
            triangles.push([a, d, b]);
        }
    }
    (vertices, triangles)
}

#[test]
fn a_sphere_instance_is_hit_at_its_radius_within_the_tessellation_error() {
    let (vertices, triangles) = unit_sphere(24, 48);
    // The tessellation error, computed from the mesh itself: no point of a triangle whose
    // corners lie on the unit sphere is nearer the centre than the triangle's plane.
    let inner = triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let n = (b - a).cross(c - a).normalize();
            n.dot(a)
        })
        .fold(f32::INFINITY, f32::min);
    assert!(inner > 0.99 && inner < 1.0, "inner radius {inner}");
    let mut scene = Scene::new();
    let id = scene.add_mesh(TriangleMesh::new(vertices, triangles));
    let (radius, centre) = (2.5, Vec3::new(10.0, -4.0, 1.5));
    let world_from_sphere = Affine3A::from_scale_rotation_translation(
        Vec3::splat(radius),
        Quat::from_euler(glam::EulerRot::ZYX, 0.7, -0.4, 1.9),
        centre,
    );
    scene.add_instance(id, world_from_sphere);
    scene.commit();
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for _ in 0..2000 {
        // From inside the sphere outwards, and from outside towards its centre.
        let dir = random_dir(&mut rng);
        let inside = centre + random_dir(&mut rng) * rng.random_range(0.0..0.5);
        let outside = centre - dir * rng.random_range(3.0..50.0);
        for origin in [inside, outside] {
            let hit = scene.closest(&ray(origin, dir)).unwrap();
            assert!(
                hit.t.is_finite() && hit.u.is_finite() && hit.v.is_finite(),
                "{hit:?}"
            );
            assert!(hit.normal.is_finite() && (hit.normal.length() - 1.0).abs() < 1e-5);
            let point = origin + dir * hit.t;
            let distance = (point - centre).length();
            assert!(
                distance >= radius * inner - 1e-4 && distance <= radius + 1e-4,
                "hit at {distance} from the centre"
            );
            // The front of an outward-facing sphere faces away from its centre.
            let radial = (point - centre).normalize();
            assert!(hit.normal.dot(radial) > 0.99);
        }
    }
}

#[test]
fn batches_trace_rays_in_packets_with_the_single_ray_answers() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut scene = Scene::new();
    let (vertices, triangles) = random_soup(&mut rng, 2000, 3.0);
    let soup = TriangleMesh::new(vertices, triangles);
    let soup = scene.add_mesh(soup);
    let tiny = scene.add_mesh(cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)));
    for i in 0..6 {
        let place = Affine3A::from_scale_rotation_translation(
            Vec3::splat(0.5 + 0.3 * i as f32),
            Quat::from_rotation_z(i as f32),
            Vec3::new(8.0 * (i % 3) as f32, 8.0 * (i / 3) as f32, 0.0),
        );
        scene.add_instance(if i % 2 == 0 { soup } else { tiny }, place);
    }
    // Coincident instances: ties between them must resolve as for single rays.
    scene.add_instance(tiny, Affine3A::from_translation(Vec3::new(8.0, 0.0, 0.0)));
    scene.commit();
    // A lidar-like fan from one origin, then scattered rays with varied ranges (and a count
    // that is not a multiple of four).
    let origin = Vec3::new(8.0, 4.0, 0.3);
    let mut rays: Vec<Ray> = (0..64 * 32)
        .map(|i| {
            let azimuth = (i / 32) as f32 * std::f32::consts::TAU / 64.0;
            let elevation = ((i % 32) as f32 - 16.0) * 0.03;
            let dir = Vec3::new(
                azimuth.cos() * elevation.cos(),
                azimuth.sin() * elevation.cos(),
                elevation.sin(),
            );
            ray(origin, dir)
        })
        .collect();
    for _ in 0..1003 {
        let o = Vec3::new(
            rng.random_range(-5.0..20.0),
            rng.random_range(-5.0..12.0),
            rng.random_range(-4.0..4.0),
        );
        let t_max = rng.random_range(0.5..30.0);
        rays.push(Ray::new(o.into(), random_dir(&mut rng).into(), 0.1, t_max).unwrap());
    }
    let mut batch = vec![None; rays.len()];
    scene.closest_batch(&rays, &mut batch);
    let single: Vec<_> = rays.iter().map(|r| scene.closest(r)).collect();
    assert_eq!(batch, single);
    assert!(single.iter().filter(|h| h.is_some()).count() > 1000);
    assert!(single.iter().any(|h| h.is_some_and(|h| h.instance == 6)));
    // With raw normals: the same hits, each normal the unit normal's direction before its
    // turn into the world (the instances here turn and scale evenly).
    let mut raw = vec![None; rays.len()];
    scene.closest_batch_raw(&rays, &mut raw);
    let mut compared = 0;
    for (raw, unit) in raw.iter().zip(&single) {
        assert_eq!(raw.is_some(), unit.is_some());
        let (Some(raw), Some(unit)) = (raw, unit) else {
            continue;
        };
        let strip = |h: &passerby_raycast::Hit| (h.t, h.u, h.v, h.triangle, h.instance);
        assert_eq!(strip(raw), strip(unit));
        let place = scene.instance(raw.instance).world_from_mesh();
        let turned = place.transform_vector3a(raw.normal.into()).normalize();
        assert!(
            turned.dot(unit.normal.into()) > 0.9999,
            "{turned} against {}",
            unit.normal
        );
        compared += 1;
    }
    assert!(compared > 1000);
}

#[test]
fn shadow_runs_answer_as_single_rays_and_closest_hits() {
    // Parallel rays from points spread over a few instances' surfaces, as a camera's shadow
    // rays: neighbours share blockers, which runs try first; every answer must still be
    // whether the ray's range holds a hit at all.
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut scene = Scene::new();
    let (vertices, triangles) = random_soup(&mut rng, 3000, 4.0);
    let soup = scene.add_mesh(TriangleMesh::new(vertices, triangles));
    let slab = scene.add_mesh(cuboid(Vec3::new(-6.0, -6.0, 5.0), Vec3::new(6.0, 6.0, 5.2)));
    scene.add_instance(soup, Affine3A::IDENTITY);
    scene.add_instance(soup, Affine3A::from_translation(Vec3::new(3.0, 1.0, 2.0)));
    scene.add_instance(slab, Affine3A::from_rotation_x(0.05));
    scene.commit();
    let to_sun = Vec3::new(0.2, 0.3, 1.0).normalize();
    let mut rays = Vec::new();
    for row in 0..80 {
        for col in 0..80 {
            let o = Vec3::new(-6.0 + 0.15 * col as f32, -6.0 + 0.15 * row as f32, -3.0);
            let t_max = if (row + col) % 7 == 0 { 4.0 } else { 1e4 };
            rays.push(Ray::new(o.into(), to_sun.into(), 0.0, t_max).unwrap());
        }
    }
    let mut run = vec![false; rays.len()];
    scene.any_hit_run(&rays, &mut run);
    let single: Vec<bool> = rays.iter().map(|r| scene.any_hit(r)).collect();
    let closest: Vec<bool> = rays.iter().map(|r| scene.closest(r).is_some()).collect();
    assert_eq!(run, single);
    assert_eq!(run, closest);
    let blocked = run.iter().filter(|&&b| b).count();
    assert!(blocked > 1000 && blocked < rays.len(), "{blocked}");
}

#[test]
fn shadow_runs_at_corners_edges_and_range_ends_answer_as_single_rays() {
    // Runs of parallel rays aimed at a turned roof's shared corners and edge midpoints (where
    // rounding decides which triangle, or none, is hit), and at points inside its triangles
    // with each ray's range ending just before, at or just after its hit: the last blocking
    // pack, tried on a whole run at once, must settle exactly the rays that single any-hit
    // rays find blocked. (Ranges end well away from corners' hits: there, within a few ulps,
    // a walk may pass over a triangle another finds, the tie case `mesh/packet.rs` names.)
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    let n = 24;
    let vertices: Vec<Vec3> = (0..=n)
        .flat_map(|j| (0..=n).map(move |i| (i, j)))
        .map(|(i, j)| {
            let (x, y) = (i as f32 * 0.25, j as f32 * 0.25);
            Vec3::new(x, y, 0.2 * (1.3 * x).sin() * (0.7 * y).cos())
        })
        .collect();
    let at = |i: u32, j: u32| j * (n + 1) + i;
    let triangles: Vec<[u32; 3]> = (0..n)
        .flat_map(|j| (0..n).map(move |i| (i, j)))
        .flat_map(|(i, j)| {
            let quad = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]]
        })
        .collect();
    let mut scene = Scene::new();
    let roof = scene.add_mesh(TriangleMesh::new(vertices.clone(), triangles.clone()));
    let places = [
        turned_and_stretched(&mut rng, true, Vec3::new(0.0, 0.0, 6.0)),
        Affine3A::from_translation(Vec3::new(-3.0, -3.0, 4.0)),
    ];
    for place in places {
        scene.add_instance(roof, place);
    }
    scene.commit();
    let to_sun = Vec3::new(0.15, -0.25, 1.0).normalize();
    let mut rays = Vec::new();
    let mut aim_at = |aim: Vec3, rng: &mut ChaCha8Rng, range_ends_at_hit: bool| {
        let origin = aim - to_sun * rng.random_range(1.0..9.0);
        let ray = Ray::new(origin.into(), to_sun.into(), 0.0, 1e4).unwrap();
        let hit = scene.closest(&ray).map(|hit| hit.t);
        let t_max = match (rays.len() % 4, hit) {
            (0, Some(t)) if range_ends_at_hit => t,
            (1, Some(t)) if range_ends_at_hit => t.next_up(),
            (2, Some(t)) if range_ends_at_hit => t.next_down(),
            (3, Some(t)) => 0.5 * t,
            _ => 1e4,
        };
        rays.push(Ray { t_max, ..ray });
    };
    for place in places {
        let world = |v: Vec3| place.transform_point3(v);
        for &v in &vertices {
            aim_at(world(v), &mut rng, false);
        }
        for v in vertices.windows(2) {
            aim_at(world(0.5 * (v[0] + v[1])), &mut rng, false);
        }
        for t in &triangles {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let (u, v) = (rng.random_range(0.1..0.45), rng.random_range(0.1..0.45));
            aim_at(world(a + u * (b - a) + v * (c - a)), &mut rng, true);
        }
    }
    let mut run = vec![false; rays.len()];
    scene.any_hit_run(&rays, &mut run);
    let single: Vec<bool> = rays.iter().map(|r| scene.any_hit(r)).collect();
    let differ: Vec<usize> = (0..rays.len()).filter(|&i| run[i] != single[i]).collect();
    assert!(
        differ.is_empty(),
        "{} differ, first {:?}",
        differ.len(),
        rays[differ[0]]
    );
    let blocked = single.iter().filter(|&&b| b).count();
    assert!(
        blocked > rays.len() / 3 && blocked < rays.len() * 2 / 3,
        "{blocked}"
    );
}

#[test]
fn packets_through_many_instances_per_top_level_leaf_answer_as_single_rays() {
    // Forty instances about a lidar (the top-level tree's leaves hold several each, which a
    // packet enters one by one, only with the rays that reach each one's box and one of its
    // mesh's parts, moved to the world), including a large ground under all of them and
    // instances overlapping each other's boxes; placed near the origin and 5 km away (where
    // moving boxes and rays between frames rounds more), turned about every axis and
    // stretched unevenly.
    for (seed, far) in [(41, 0.0), (42, 5000.0)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut scene = Scene::new();
        let (vertices, triangles) = random_soup(&mut rng, 300, 1.0);
        let soup = scene.add_mesh(TriangleMesh::new(vertices, triangles));
        let tiny = scene.add_mesh(cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)));
        let ground = scene.add_mesh(cuboid(
            Vec3::new(-20.0, -20.0, -1.1),
            Vec3::new(20.0, 20.0, -1.0),
        ));
        let offset = Vec3::new(far, -far, 0.5 * far);
        scene.add_instance(ground, Affine3A::from_translation(offset));
        for i in 0..39 {
            let at = Vec3::new(
                rng.random_range(-12.0..12.0),
                rng.random_range(-12.0..12.0),
                rng.random_range(-0.5..1.5),
            );
            let place = turned_and_stretched(&mut rng, true, at + offset);
            scene.add_instance(if i % 3 == 0 { tiny } else { soup }, place);
        }
        scene.commit();
        let origin = Vec3::new(0.3, -0.2, 0.4) + offset;
        let rays: Vec<Ray> = (0..256 * 16)
            .map(|i| {
                let azimuth = (i / 16) as f32 * std::f32::consts::TAU / 256.0;
                let elevation = ((i % 16) as f32 - 8.0) * 0.035;
                let dir = Vec3::new(
                    azimuth.cos() * elevation.cos(),
                    azimuth.sin() * elevation.cos(),
                    elevation.sin(),
                );
                Ray::new(origin.into(), dir.into(), 0.0, rng.random_range(5.0..40.0)).unwrap()
            })
            .collect();
        let mut batch = vec![None; rays.len()];
        scene.closest_batch(&rays, &mut batch);
        let single: Vec<_> = rays.iter().map(|r| scene.closest(r)).collect();
        assert_eq!(batch, single, "{far} m away");
        let instances_hit: std::collections::HashSet<u32> =
            single.iter().flatten().map(|h| h.instance).collect();
        assert!(
            instances_hit.len() > 20,
            "{} instances hit {far} m away",
            instances_hit.len()
        );
    }
}

#[test]
fn packets_aimed_at_the_corners_of_instances_parts_answer_as_single_rays() {
    // Tufts of thin blades (a mesh whose root's children hug a few blades each, as MAVS's
    // grass does), turned and stretched, near the origin and 5 km away; packets of rays aimed
    // at every blade's corners and just about them, so that the boxes a packet is turned away
    // by (the parts' boxes moved to the world) are grazed exactly where they are tight; as
    // closest-hit rays and as shadow rays.
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for blade in 0..40u32 {
        let base = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            0.0,
        );
        let lean = Vec3::new(
            rng.random_range(-0.3..0.3),
            rng.random_range(-0.3..0.3),
            1.0,
        );
        let side = Vec3::new(
            rng.random_range(0.005..0.02),
            rng.random_range(0.005..0.02),
            0.0,
        );
        vertices.extend([base, base + side, base + lean * rng.random_range(0.3..1.0)]);
        triangles.push([3 * blade, 3 * blade + 1, 3 * blade + 2]);
    }
    for far in [0.0, 5000.0] {
        let mut scene = Scene::new();
        let tuft = scene.add_mesh(TriangleMesh::new(vertices.clone(), triangles.clone()));
        let offset = Vec3::new(far, -far, 0.5 * far);
        let mut places = Vec::new();
        for i in 0..12 {
            let at = Vec3::new(
                rng.random_range(4.0..10.0),
                rng.random_range(-6.0..6.0),
                0.0,
            );
            // Half of them not turned: their parts' boxes moved to the world are as tight as
            // in the mesh's frame (blade corners on their faces).
            let place = turned_and_stretched(&mut rng, i % 2 == 1, at + offset);
            scene.add_instance(tuft, place);
            places.push(place);
        }
        scene.commit();
        let origin = Vec3::new(0.0, 0.0, 0.5) + offset;
        let mut rays = Vec::new();
        for place in &places {
            for v in &vertices {
                // One packet per corner: a narrow beam about it.
                let aim = (place.transform_point3(*v) - origin).normalize();
                for k in 0..32 {
                    let nudge = Vec3::new((k % 4) as f32 - 1.5, (k / 4) as f32 - 3.5, 0.5);
                    let dir = aim + nudge * 2e-6;
                    rays.push(Ray::new(origin.into(), dir.into(), 0.0, 100.0).unwrap());
                }
            }
        }
        let mut batch = vec![None; rays.len()];
        scene.closest_batch(&rays, &mut batch);
        let single: Vec<_> = rays.iter().map(|r| scene.closest(r)).collect();
        let differ = (0..rays.len()).filter(|&i| batch[i] != single[i]);
        let differ: Vec<usize> = differ.collect();
        assert!(
            differ.is_empty(),
            "{far} m away: {} rays differ, first {:?}: {:?} (packet) != {:?} (single)",
            differ.len(),
            rays[differ[0]],
            batch[differ[0]],
            single[differ[0]]
        );
        let hits = single.iter().flatten().count();
        assert!(hits > rays.len() / 8, "{hits} of {} rays hit", rays.len());
        // As shadow rays: a run (packets that stop at a first hit, blockers tried first) and
        // single any-hit rays answer whether the closest hit exists.
        let mut run = vec![false; rays.len()];
        scene.any_hit_run(&rays, &mut run);
        let any: Vec<bool> = rays.iter().map(|r| scene.any_hit(r)).collect();
        let some: Vec<bool> = single.iter().map(Option::is_some).collect();
        assert!(run == some, "{far} m away: a shadow run differs");
        assert!(any == some, "{far} m away: single shadow rays differ");
    }
}

#[test]
fn still_and_moving_instances_answer_as_a_scene_built_afresh() {
    // Instances placed still and placed moving; then some of each moved, and a mesh shared by
    // several reshaped (its instances' boxes change without their transforms). The scene must
    // answer as one built from scratch in the final state, and a copy taken before the
    // changes as before them.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (soup_vertices, soup_triangles) = random_soup(&mut rng, 200, 1.0);
    let placements: Vec<(bool, Affine3A)> = (0..60)
        .map(|i| {
            let at = Vec3::new(
                rng.random_range(-10.0..10.0),
                rng.random_range(-10.0..10.0),
                rng.random_range(-1.0..1.0),
            );
            (i % 4 == 0, Affine3A::from_translation(at))
        })
        .collect();
    let stretched: Vec<Vec3> = soup_vertices
        .iter()
        .map(|v| *v * Vec3::new(3.0, 0.5, 2.0))
        .collect();
    let make = |final_state: bool| {
        let mut scene = Scene::new();
        let box_mesh = scene.add_mesh(cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)));
        let soup = scene.add_mesh(TriangleMesh::new_dynamic(
            if final_state {
                stretched.clone()
            } else {
                soup_vertices.clone()
            },
            soup_triangles.clone(),
        ));
        for (i, (moving, place)) in placements.iter().enumerate() {
            let mesh = if i % 5 == 0 { soup } else { box_mesh };
            let moved = final_state && i % 3 == 0;
            let place = if moved {
                Affine3A::from_translation(Vec3::new(0.0, 1.5, 0.3)) * *place
            } else {
                *place
            };
            if *moving {
                scene.add_moving_instance(mesh, place);
            } else {
                scene.add_instance(mesh, place);
            }
        }
        scene.commit();
        scene
    };
    let mut scene = make(false);
    let before = scene.clone();
    for (i, (_, place)) in placements.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        let moved = Affine3A::from_translation(Vec3::new(0.0, 1.5, 0.3)) * *place;
        scene.set_transform(i as u32, moved);
    }
    scene.commit();
    scene
        .mesh_mut(passerby_raycast::MeshId(1))
        .update_vertices(&stretched);
    scene.commit();
    let fresh = make(true);
    let original = make(false);
    let rays: Vec<Ray> = (0..3000)
        .map(|_| {
            let o = Vec3::new(
                rng.random_range(-12.0..12.0),
                rng.random_range(-12.0..12.0),
                rng.random_range(-2.0..2.0),
            );
            Ray::new(o.into(), random_dir(&mut rng).into(), 0.0, 30.0).unwrap()
        })
        .collect();
    let answers = |s: &Scene| {
        let mut batch = vec![None; rays.len()];
        s.closest_batch(&rays, &mut batch);
        let single: Vec<_> = rays.iter().map(|r| s.closest(r)).collect();
        assert_eq!(batch, single);
        let mut shadow = vec![false; rays.len()];
        s.any_hit_run(&rays, &mut shadow);
        (single, shadow)
    };
    let now = answers(&scene);
    assert_eq!(now, answers(&fresh));
    assert_eq!(answers(&before), answers(&original));
    assert_ne!(now, answers(&original), "the changes changed nothing");
    // Walking the top level by boxes finds exactly the instances whose world boxes pass.
    let world_box = |s: &Scene, i: u32| {
        let inst = s.instance(i);
        let b = s.mesh(inst.mesh).bounds();
        let mut out = Aabb::EMPTY;
        for k in 0..8 {
            let corner = Vec3A::new(
                if k & 1 == 0 { b.min.x } else { b.max.x },
                if k & 2 == 0 { b.min.y } else { b.max.y },
                if k & 4 == 0 { b.min.z } else { b.max.z },
            );
            out.grow(inst.world_from_mesh().transform_point3a(corner));
        }
        out
    };
    let inside = |b: &Aabb| b.max.x > 2.0 && b.min.y < 0.0;
    let mut walked = Vec::new();
    scene.visit_boxes(inside, |i| {
        walked.push(i);
        std::ops::ControlFlow::Continue(())
    });
    walked.sort_unstable();
    let expected: Vec<u32> = (0..scene.instance_count() as u32)
        .filter(|&i| inside(&world_box(&scene, i)))
        .collect();
    assert!(expected.len() > 5, "{}", expected.len());
    assert_eq!(walked, expected);
    let mut first_three = 0;
    scene.visit_boxes(inside, |_| {
        first_three += 1;
        if first_three == 3 {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    assert_eq!(first_three, 3);
}

#[test]
fn parallel_rays_from_many_points_answer_as_single_rays() {
    // Shadow rays: one direction (towards the sun), origins on a patch of surface, traced as
    // packets whose beam is a prism. Some origins sit exactly on boxes' faces and edges.
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut scene = Scene::new();
    let (vertices, triangles) = random_soup(&mut rng, 400, 1.0);
    let soup = scene.add_mesh(TriangleMesh::new(vertices, triangles));
    let block = scene.add_mesh(cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)));
    for i in 0..30 {
        let at = Vec3::new(
            rng.random_range(-6.0..6.0),
            rng.random_range(-6.0..6.0),
            rng.random_range(0.5..3.0),
        );
        let place = Affine3A::from_scale_rotation_translation(
            Vec3::splat(rng.random_range(0.5..1.5)),
            Quat::from_rotation_z(rng.random_range(0.0..6.0)),
            at,
        );
        scene.add_instance(if i % 2 == 0 { soup } else { block }, place);
    }
    scene.commit();
    for sun in [
        Vec3::new(0.3, -0.2, 0.93),
        Vec3::new(-0.5, 0.1, 0.86),
        Vec3::new(0.0, 0.0, 1.0),
    ] {
        let sun = sun.normalize();
        let rays: Vec<Ray> = (0..64 * 64)
            .map(|i| {
                let (x, y) = ((i % 64) as f32 * 0.2 - 6.4, (i / 64) as f32 * 0.2 - 6.4);
                // A few origins on instance boxes' faces (x = 0.5 of a unit block at 0, 0).
                let z = if i % 7 == 0 {
                    0.5
                } else {
                    rng.random_range(0.0..0.3)
                };
                Ray::new(Vec3A::new(x, y, z), sun.into(), 0.0, 100.0).unwrap()
            })
            .collect();
        let mut batch = vec![None; rays.len()];
        scene.closest_batch(&rays, &mut batch);
        let single: Vec<_> = rays.iter().map(|r| scene.closest(r)).collect();
        assert_eq!(batch, single);
        let mut shadow = vec![false; rays.len()];
        scene.any_hit_run(&rays, &mut shadow);
        let one_by_one: Vec<bool> = rays.iter().map(|r| scene.any_hit(r)).collect();
        assert_eq!(shadow, one_by_one);
        let blocked = shadow.iter().filter(|&&b| b).count();
        assert!(
            blocked > 100 && blocked < rays.len() - 100,
            "{blocked} blocked"
        );
    }
}
