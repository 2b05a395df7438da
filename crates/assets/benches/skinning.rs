//! Posing and skinning a 10,000-vertex, 60-joint character (target: under 100 µs on one core).
//!
//! `cargo bench -p passerby-assets --bench skinning`. Prints the best of many runs of
//! (sample a clip + update node transforms + skin every vertex), and as a reference measured in
//! the same run, transforming the same vertices by one rigid matrix.

use glam::{Mat4, Quat, Vec3};
use passerby_assets::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

const JOINTS: usize = 60;
const VERTICES: usize = 10_000;

fn synthetic_character() -> Model {
    // A chain of joints 3 cm apart along +Y, each rotating a little about Z over a 1 s clip.
    let nodes: Vec<Node> = (0..JOINTS)
        .map(|i| Node {
            name: format!("j{i}"),
            parent: i.checked_sub(1),
            rest: Trs {
                translation: Vec3::new(0.0, if i == 0 { 0.0 } else { 0.03 }, 0.0),
                ..Trs::default()
            },
        })
        .collect();
    let mut inverse_bind = Vec::new();
    for i in 0..JOINTS {
        inverse_bind.push(Mat4::from_translation(Vec3::new(
            0.0,
            -0.03 * i as f32,
            0.0,
        )));
    }
    let mut positions = Vec::new();
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for v in 0..VERTICES {
        let y = 1.8 * v as f32 / VERTICES as f32;
        let angle = v as f32 * 0.7;
        positions.push(Vec3::new(0.1 * angle.cos(), y, 0.1 * angle.sin()));
        let j = ((y / 0.03) as usize).min(JOINTS - 4);
        joints.push([j as u16, j as u16 + 1, j as u16 + 2, j as u16 + 3]);
        weights.push([0.4, 0.3, 0.2, 0.1]);
    }
    let channels = (0..JOINTS)
        .map(|i| {
            let a = Quat::from_rotation_z(0.02 * (i % 5) as f32);
            let b = Quat::from_rotation_z(-0.02);
            Channel {
                node: i,
                property: Property::Rotation,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 0.5, 1.0],
                values: [a, b, a].iter().flat_map(|q| q.to_array()).collect(),
            }
        })
        .collect();
    Model {
        source: "synthetic".into(),
        frame: ModelFrame {
            description: "synthetic".into(),
            right: Vec3::X,
            up: Vec3::Y,
            front: Vec3::Z,
            metres_per_unit: 1.0,
            assimp_from_file: Mat4::IDENTITY,
        },
        eval_order: (0..JOINTS).collect(),
        nodes,
        meshes: vec![Mesh {
            name: "body".into(),
            node: 0,
            positions,
            normals: vec![],
            uvs: vec![],
            triangles: vec![],
            material: None,
            skin: Some(SkinBinding {
                skin: 0,
                joints,
                weights,
            }),
        }],
        skins: vec![Skin {
            name: "skin".into(),
            joints: (0..JOINTS).collect(),
            inverse_bind,
        }],
        clips: vec![Clip {
            name: "wave".into(),
            duration: 1.0,
            channels,
        }],
        materials: vec![],
        lines: vec![],
        warnings: vec![],
    }
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
    let runs = if cfg!(debug_assertions) { 3 } else { 2000 };
    let model = synthetic_character();
    let clip = &model.clips[0];
    let mut pose = Pose::rest(&model);
    let mut poser = Poser::new();
    let mut out = vec![Vec3::ZERO; VERTICES];
    let skin = best_of(runs, |i| {
        pose.sample(&model, clip, i as f32 * 0.013, Wrap::Loop);
        poser.update(&model, &pose);
        poser.pose_mesh(&model, &model.meshes[0], &mut out, None);
        black_box(&out);
    });
    assert!(out.iter().all(|v| v.is_finite()));
    let rigid_matrix = Mat4::from_rotation_translation(Quat::from_rotation_z(0.3), Vec3::X);
    let rigid = best_of(runs, |_| {
        for (o, v) in out.iter_mut().zip(&model.meshes[0].positions) {
            *o = black_box(rigid_matrix).transform_point3(*v);
        }
        black_box(&out);
    });
    println!(
        "pose + skin {VERTICES} vertices, {JOINTS} joints: {:.1} µs (best of {runs}); one rigid transform of the same vertices: {:.1} µs; ratio {:.1}",
        skin.as_secs_f64() * 1e6,
        rigid.as_secs_f64() * 1e6,
        skin.as_secs_f64() / rigid.as_secs_f64()
    );
}
