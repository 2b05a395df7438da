//! Hits on huge triangles are as exact as on small ones. MAVS's ground is a slab 200 km wide
//! and 1 cm thick, two triangles a face: found with the rounding of coordinates of 1e5 m, a
//! grazing lidar ray's hit on it would be millimetres off along the ray.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::{Affine3A, DAffine3, DVec3, Vec3};
use passerby_raycast::{Hit, Ray, Scene};

mod common;
use common::cuboid;

/// Rays from `origin` in every direction a few degrees below the horizon.
fn grazing_rays(origin: Vec3) -> Vec<Ray> {
    let mut rays = Vec::new();
    for a in 0..360 {
        let azimuth = (a as f32 + 0.37).to_radians();
        for e in 0..16 {
            let elevation = -(0.6f32 + e as f32 * 0.37).to_radians();
            let dir = Vec3::new(
                azimuth.cos() * elevation.cos(),
                azimuth.sin() * elevation.cos(),
                elevation.sin(),
            );
            rays.push(Ray::new(origin.into(), dir.into(), 0.0, 200.0).unwrap());
        }
    }
    rays
}

/// The largest distance (metres, along the ray) between a hit and where the ray meets the
/// plane `up · (mesh_from_world · p) = height`, worked out in doubles.
fn worst_error(
    rays: &[Ray],
    hits: &[Option<Hit>],
    world_from_mesh: Affine3A,
    (up, height): (DVec3, f64),
) -> f64 {
    let mesh_from_world =
        DAffine3::from_mat4(glam::Mat4::from(world_from_mesh).as_dmat4()).inverse();
    let mut worst: f64 = 0.0;
    for (ray, hit) in rays.iter().zip(hits) {
        let hit = hit.expect("every grazing ray meets the ground");
        let o = mesh_from_world.transform_point3(Vec3::from(ray.origin).as_dvec3());
        let d = mesh_from_world.transform_vector3(Vec3::from(ray.dir).as_dvec3());
        let exact = (height - up.dot(o)) / up.dot(d);
        let length = Vec3::from(ray.dir).as_dvec3().length();
        worst = worst.max((f64::from(hit.t) - exact).abs() * length);
    }
    worst
}

fn check(world_from_mesh: Affine3A, slab: (Vec3, Vec3), top: (DVec3, f64), origin: Vec3) {
    let mut scene = Scene::new();
    let mesh = scene.add_mesh(cuboid(slab.0, slab.1));
    scene.add_instance(mesh, world_from_mesh);
    scene.commit();
    let rays = grazing_rays(origin);
    let single: Vec<Option<Hit>> = rays.iter().map(|r| scene.closest(r)).collect();
    let mut packets = vec![None; rays.len()];
    scene.closest_batch(&rays, &mut packets);
    for (name, hits) in [("single rays", &single), ("packets", &packets)] {
        let worst = worst_error(&rays, hits, world_from_mesh, top);
        eprintln!("{name}: {worst:e} m");
        assert!(worst < 2e-5, "{name}: a hit {worst} m off the ground");
    }
}

#[test]
fn hits_on_a_200_km_slab_are_exact_to_micrometres() {
    let (lo, hi) = (Vec3::new(-1e5, -1e5, -0.005), Vec3::new(1e5, 1e5, 0.005));
    let up = (DVec3::Z, 0.005);
    check(Affine3A::IDENTITY, (lo, hi), up, Vec3::new(0.0, 0.0, 0.455));
    check(
        Affine3A::IDENTITY,
        (lo, hi),
        up,
        Vec3::new(137.25, -61.5, 1.8),
    );
}

#[test]
fn hits_on_a_placed_200_km_slab_are_exact_to_micrometres() {
    // Y up, as OBJ files have it, turned to Z up and moved.
    let (lo, hi) = (Vec3::new(-1e5, -0.005, -1e5), Vec3::new(1e5, 0.005, 1e5));
    let place = Affine3A::from_translation(Vec3::new(3.5, -2.25, 0.125))
        * Affine3A::from_rotation_x(90f32.to_radians());
    check(
        place,
        (lo, hi),
        (DVec3::Y, 0.005),
        Vec3::new(12.0, 7.0, 0.9),
    );
}
