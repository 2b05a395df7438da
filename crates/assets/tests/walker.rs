//! Skinning against Blender's own evaluation of the `Walker` character
//! (`../shared/assets/characters/Walker.truth.json`): every sample frame of every clip must
//! match within 0.1 mm (Hausdorff distance of the point sets).
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::Vec3;
use passerby_assets::{Pose, Poser, Wrap, load_model};
use std::path::PathBuf;

fn characters() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets/characters")
}

/// The larger of the two directed distances between point sets.
fn hausdorff(a: &[Vec3], b: &[Vec3]) -> f32 {
    let directed = |from: &[Vec3], to: &[Vec3]| {
        from.iter()
            .map(|p| {
                to.iter()
                    .map(|q| p.distance_squared(*q))
                    .fold(f32::INFINITY, f32::min)
            })
            .fold(0.0f32, f32::max)
            .sqrt()
    };
    directed(a, b).max(directed(b, a))
}

/// Poses `model` at every truth frame of every clip (named by `clip_name`) and returns the
/// worst Hausdorff distance to Blender's points, in metres, after converting the file's frame.
fn worst_distance(
    model: &passerby_assets::Model,
    clip_name: impl Fn(&str) -> String,
    only: Option<&str>,
) -> (f32, usize) {
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(characters().join("Walker.truth.json")).expect("truth file"),
    )
    .expect("json");
    let fps = truth["fps"].as_f64().expect("fps") as f32;
    let to_blender = model.frame.z_up_metres_from_file();
    let mut poser = Poser::new();
    let mut pose = Pose::rest(model);
    let mut checked = 0;
    let mut worst = 0.0f32;
    for (name, clip_truth) in truth["clips"].as_object().expect("clips") {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let clip = model.clip(&clip_name(name)).expect("the clip exists");
        let duration = clip_truth["duration_s"].as_f64().expect("duration") as f32;
        assert!(
            (clip.duration - duration).abs() < 2e-3,
            "{name}: {} s vs {duration} s",
            clip.duration
        );
        for (frame, points) in clip_truth["samples"].as_object().expect("samples") {
            let t = frame.parse::<f32>().expect("frame number") / fps;
            let expected: Vec<Vec3> = points
                .as_array()
                .expect("points")
                .iter()
                .map(|p| {
                    Vec3::new(
                        p[0].as_f64().unwrap() as f32,
                        p[1].as_f64().unwrap() as f32,
                        p[2].as_f64().unwrap() as f32,
                    )
                })
                .collect();
            pose.sample(model, clip, t, Wrap::Clamp);
            let posed: Vec<Vec3> = poser
                .posed_vertices(model, &pose)
                .iter()
                .map(|v| to_blender.transform_point3(*v))
                .collect();
            let d = hausdorff(&posed, &expected);
            eprintln!("  {name} frame {frame}: {:.5} mm", d * 1e3);
            worst = worst.max(d);
            checked += 1;
        }
    }
    (worst, checked)
}

#[test]
fn walker_glb_matches_blender_at_every_truth_frame() {
    let model = load_model(&characters().join("Walker.glb")).expect("Walker.glb loads");
    let (worst, checked) = worst_distance(&model, |n| n.to_owned(), None);
    assert_eq!(checked, 12);
    assert!(
        worst < 1e-4,
        "worst Hausdorff distance {:.4} mm",
        worst * 1e3
    );
}

#[test]
fn walker_fbx_matches_blender_at_every_truth_frame() {
    let model = load_model(&characters().join("Walker.fbx")).expect("Walker.fbx loads");
    eprintln!("{}", model.frame.description);
    let (worst, checked) = worst_distance(&model, |n| format!("WalkerArmature|{n}"), None);
    assert_eq!(checked, 12);
    assert!(
        worst < 1e-4,
        "worst Hausdorff distance {:.4} mm",
        worst * 1e3
    );
}

#[test]
fn walker_glb_structure() {
    let model = load_model(&characters().join("Walker.glb")).unwrap();
    assert_eq!(model.skins.len(), 1);
    assert_eq!(model.skins[0].joints.len(), 11);
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    for clip in ["Idle", "Walk", "Run"] {
        assert!(names.contains(&clip), "{names:?}");
    }
    let err = model.clip("Jog").unwrap_err().to_string();
    assert!(
        err.contains("no clip 'Jog'") && err.contains("'Walk'"),
        "{err}"
    );
    assert!(model.node_index("Hips").is_some());
}

/// Counts as this loader reports them. glTF: a vertex is a glTF vertex (exporters split vertices
/// along normal and UV seams, so Walker's 532 Blender vertices are 1180 here); one mesh per
/// primitive; unnamed animations are named by index, plus `all_unnamed` playing them together.
#[test]
fn gltf_samples_load_with_pinned_counts() {
    // (file, vertices, triangles, nodes, joints per skin, clips, duration of the first clip)
    type Case = (
        &'static str,
        usize,
        usize,
        usize,
        &'static [usize],
        usize,
        f32,
    );
    let cases: [Case; 6] = [
        ("characters/Walker.glb", 1180, 1040, 13, &[11], 3, 2.0),
        ("samples/CesiumMan.glb", 3273, 4672, 22, &[19], 1, 2.0),
        (
            "samples/RiggedSimple/RiggedSimple.gltf",
            96,
            188,
            5,
            &[2],
            3,
            2.083333,
        ),
        (
            "samples/RiggedFigure/RiggedFigure.gltf",
            370,
            256,
            22,
            &[19],
            20,
            1.25,
        ),
        // FBX: vertices are control points; joints are the bones a skin cluster binds (assimp
        // counts 13 bones in this file; it has 14 clusters and 16 bone nodes); nodes include
        // lights, cameras and `_end` leaf bones.
        ("characters/Walker.fbx", 532, 1040, 13, &[11], 3, 2.0),
        (
            "samples/fbx/animation_with_skeleton.fbx",
            1058,
            2112,
            20,
            &[14],
            1,
            0.8333333,
        ),
    ];
    for (file, vertices, triangles, nodes, joints, clips, duration) in cases {
        let m = load_model(&characters().join("..").join(file)).unwrap();
        let got_joints: Vec<usize> = m.skins.iter().map(|s| s.joints.len()).collect();
        assert_eq!(
            (
                m.vertex_count(),
                m.triangle_count(),
                m.nodes.len(),
                got_joints.as_slice(),
                m.clips.len()
            ),
            (vertices, triangles, nodes, joints, clips),
            "{file}"
        );
        assert!(
            (m.clips[0].duration - duration).abs() < 1e-5,
            "{file}: {}",
            m.clips[0].duration
        );
    }
    let figure =
        load_model(&characters().join("../samples/RiggedFigure/RiggedFigure.gltf")).unwrap();
    let all = figure.clip(passerby_assets::ALL_UNNAMED).unwrap();
    assert_eq!(
        all.channels.len(),
        57,
        "19 per-joint animations of 3 channels play as one clip"
    );
    assert!(
        figure.warnings[0].contains("31 vertices had skin weights not summing to 1"),
        "{:?}",
        figure.warnings
    );
    let cesium = load_model(&characters().join("../samples/CesiumMan.glb")).unwrap();
    let texture = cesium.materials[0].texture.as_ref().unwrap();
    assert!(texture.found && texture.source == "embedded #0");
}
