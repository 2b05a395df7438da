//! Scenes shared by the ray-casting tests.
#![allow(dead_code)] // each test file uses some

use glam::{Affine3A, Quat, Vec3};
use passerby_raycast::TriangleMesh;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// An axis-aligned box as 12 triangles.
pub fn cuboid(min: Vec3, max: Vec3) -> TriangleMesh {
    let v: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        })
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let tris = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriangleMesh::new(v, tris)
}

/// `count` unconnected triangles with corners uniform in the cube `[-half, half]^3`.
pub fn random_soup(rng: &mut ChaCha8Rng, count: usize, half: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let vertices = (0..3 * count)
        .map(|_| {
            Vec3::new(
                rng.random_range(-half..half),
                rng.random_range(-half..half),
                rng.random_range(-half..half),
            )
        })
        .collect();
    let triangles = (0..count as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    (vertices, triangles)
}

/// A placement at `at`, stretched unevenly and (if `turned`) turned about every axis.
pub fn turned_and_stretched(rng: &mut ChaCha8Rng, turned: bool, at: Vec3) -> Affine3A {
    let turn = if turned {
        Quat::from_euler(
            glam::EulerRot::ZYX,
            rng.random_range(0.0..6.0),
            rng.random_range(-1.5..1.5),
            rng.random_range(-3.0..3.0),
        )
    } else {
        Quat::IDENTITY
    };
    let stretch = Vec3::new(
        rng.random_range(0.4..2.0),
        rng.random_range(0.4..2.0),
        rng.random_range(0.4..2.0),
    );
    Affine3A::from_scale_rotation_translation(stretch, turn, at)
}
