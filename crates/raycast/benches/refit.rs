//! 50 actors of 10,000 triangles each, re-posed: refit every mesh and rebuild the top level
//! (target: under 5 ms in total). `cargo bench -p passerby-raycast --bench refit`.
//! Reference measured in the same run: rebuilding the same 50 BVHs from scratch.

use glam::{Affine3A, Vec3};
use passerby_raycast::{Scene, TriangleMesh};
use std::time::{Duration, Instant};

const ACTORS: usize = 50;
const SIDE: usize = 71; // 71 x 71 quads x 2 = 10,082 triangles

fn body(phase: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    // A cylinder-like sheet 1.8 m tall that sways with `phase`, as a walking body does.
    let mut v = Vec::new();
    for j in 0..=SIDE {
        for i in 0..=SIDE {
            let a = i as f32 / SIDE as f32 * std::f32::consts::TAU;
            let h = j as f32 / SIDE as f32 * 1.8;
            let sway = 0.05 * (phase + h * 2.0).sin();
            v.push(Vec3::new(0.25 * a.cos() + sway, 0.2 * a.sin(), h));
        }
    }
    let w = (SIDE + 1) as u32;
    let mut t = Vec::new();
    for j in 0..SIDE as u32 {
        for i in 0..SIDE as u32 {
            let a = j * w + i;
            t.push([a, a + 1, a + w + 1]);
            t.push([a, a + w + 1, a + w]);
        }
    }
    (v, t)
}

fn best_of(runs: usize, mut f: impl FnMut(usize)) -> Duration {
    (0..runs)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let runs = if cfg!(debug_assertions) { 2 } else { 30 };
    let (v0, tris) = body(0.0);
    let mut scene = Scene::new();
    let ids: Vec<_> = (0..ACTORS)
        .map(|_| scene.add_mesh(TriangleMesh::new_dynamic(v0.clone(), tris.clone())))
        .collect();
    for (k, id) in ids.iter().enumerate() {
        scene.add_instance(
            *id,
            Affine3A::from_translation(Vec3::new(
                (k % 10) as f32 * 2.0,
                (k / 10) as f32 * 2.0,
                0.0,
            )),
        );
    }
    scene.commit();
    let poses: Vec<Vec<Vec3>> = (0..4).map(|p| body(p as f32 * 0.1).0).collect();
    let refit = best_of(runs, |i| {
        for id in &ids {
            scene.mesh_mut(*id).update_vertices(&poses[i % poses.len()]);
        }
        scene.commit();
    });
    let parallel = best_of(runs, |i| {
        let posed = vec![Some(&poses[i % poses.len()][..]); scene.mesh_count()];
        scene.update_meshes(&posed);
        scene.commit();
    });
    let rebuild = best_of(runs.min(5), |i| {
        for id in &ids {
            *scene.mesh_mut(*id) =
                TriangleMesh::new_dynamic(poses[i % poses.len()].clone(), tris.clone());
        }
        scene.commit();
    });
    println!(
        "{ACTORS} actors x {} triangles: refit + top level {:.2} ms on one thread, {:.2} ms on {} (best of {runs}); full rebuild {:.2} ms; ratio {:.2}",
        tris.len(),
        refit.as_secs_f64() * 1e3,
        parallel.as_secs_f64() * 1e3,
        rayon::current_num_threads(),
        rebuild.as_secs_f64() * 1e3,
        refit.as_secs_f64() / rebuild.as_secs_f64()
    );
}
