//! Hits that round outside their instance's box: a huge flat mesh's hits are found with the
//! rounding of its coordinates (millimetres for MAVS's 200 km ground slab), more than its box
//! is widened by across its thin side. Every walk must still give the same answer.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::{Affine3A, Vec3};
use passerby_raycast::{Hit, Ray, Scene};

mod common;
use common::cuboid;

/// MAVS's ground (`surfaces/surface.obj`: a slab 200 km wide and 1 cm thick) and eight posts
/// standing through it about 25.8 m from the origin, placed ground first or posts first.
fn slab_and_posts(ground_first: bool) -> (Scene, u32) {
    let mut scene = Scene::new();
    let slab = scene.add_mesh(cuboid(
        Vec3::new(-1e5, -1e5, -0.005),
        Vec3::new(1e5, 1e5, 0.005),
    ));
    let post = scene.add_mesh(cuboid(
        Vec3::new(0.0, -0.15, -0.1),
        Vec3::new(0.3, 0.15, 1.5),
    ));
    let mut ground = 0;
    if ground_first {
        ground = scene.add_instance(slab, Affine3A::IDENTITY);
    }
    for k in 0..8 {
        let azimuth = (k as f32 * 40.0 + 13.0).to_radians();
        let place = Affine3A::from_rotation_z(azimuth)
            * Affine3A::from_translation(Vec3::new(25.78, 0.0, 0.0));
        scene.add_instance(post, place);
    }
    if !ground_first {
        ground = scene.add_instance(slab, Affine3A::IDENTITY);
    }
    scene.commit();
    (scene, ground)
}

/// Rays from a lidar 0.455 m up, grazing the ground about a degree down towards each post's
/// foot, where the ground's hit and the post's face are millimetres apart.
fn grazing_rays() -> Vec<Ray> {
    let origin = Vec3::new(0.0, 0.0, 0.455);
    let mut rays = Vec::new();
    for k in 0..8 {
        let centre = (k as f32 * 40.0 + 13.0).to_radians();
        for a in 0..32 {
            let azimuth = centre + (a as f32 - 16.0) * 0.0002;
            for e in 0..128 {
                let elevation = -(0.99f32 + e as f32 * 0.00015).to_radians();
                let dir = Vec3::new(
                    azimuth.cos() * elevation.cos(),
                    azimuth.sin() * elevation.cos(),
                    elevation.sin(),
                );
                rays.push(Ray::new(origin.into(), dir.into(), 0.0, 80.0).unwrap());
            }
        }
    }
    rays
}

/// What a hit says without naming instances: where, and whether on the ground.
fn seen(hit: &Option<Hit>, ground: u32) -> Option<(u32, bool)> {
    hit.map(|h| (h.t.to_bits(), h.instance == ground))
}

#[test]
fn hits_rounded_before_a_huge_slabs_box_answer_the_same_on_every_walk() {
    let rays = grazing_rays();
    let mut answers = Vec::new();
    for ground_first in [true, false] {
        let (scene, ground) = slab_and_posts(ground_first);
        let mut packets = vec![None; rays.len()];
        scene.closest_batch(&rays, &mut packets);
        let single: Vec<Option<Hit>> = rays.iter().map(|r| scene.closest(r)).collect();
        let differing = (packets.iter().zip(&single))
            .filter(|(p, s)| p != s)
            .count();
        assert_eq!(
            differing, 0,
            "packets and single rays differ (ground first: {ground_first})"
        );
        let on_ground = single
            .iter()
            .filter(|h| seen(h, ground).is_some_and(|s| s.1));
        let on_ground = on_ground.count();
        assert!(
            on_ground > 1000 && on_ground + 1000 < rays.len(),
            "{on_ground} of {} rays on the ground",
            rays.len()
        );
        answers.push(single.iter().map(|h| seen(h, ground)).collect::<Vec<_>>());
    }
    let differing = (answers[0].iter().zip(&answers[1]))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differing, 0, "the order of placement changed what rays hit");
}
