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

/// A truth sample's points: `[[x, y, z], ...]`.
fn truth_points(points: &serde_json::Value) -> Vec<Vec3> {
    let coordinate = |v: &serde_json::Value| v.as_f64().expect("a number") as f32;
    points
        .as_array()
        .expect("points")
        .iter()
        .map(|p| Vec3::new(coordinate(&p[0]), coordinate(&p[1]), coordinate(&p[2])))
        .collect()
}

/// Poses `model` at every truth frame of every clip (named by `clip_name`) and returns the
/// worst Hausdorff distance to Blender's points, in metres, after converting the file's frame.
fn worst_distance(
    model: &passerby_assets::Model,
    clip_name: impl Fn(&str) -> String,
    only: Option<&str>,
) -> (f32, usize) {
    worst_distance_to(
        model,
        &characters().join("Walker.truth.json"),
        clip_name,
        only,
    )
}

/// As [`worst_distance`], against the truth file `truth`.
fn worst_distance_to(
    model: &passerby_assets::Model,
    truth: &std::path::Path,
    clip_name: impl Fn(&str) -> String,
    only: Option<&str>,
) -> (f32, usize) {
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(truth).expect("truth file")).expect("json");
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
            let expected = truth_points(points);
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

/// Finding (docs/assets.md): `Walker.dae` has no keys for the forearms in its Walk clip
/// (Blender's Collada exporter dropped them), while the Walk action bends the elbows (the glTF
/// and FBX exports have those keys). Posed as stored it is off by up to 30 mm at the forearms;
/// with only the forearm rotations taken from `Walker.glb`, it matches Blender within 0.1 mm,
/// so our Collada pipeline (bind shape, inverse binds, matrix keys) is right and the file is not.
#[test]
fn walker_dae_matches_blender_once_its_missing_forearm_keys_are_supplied() {
    let dae = load_model(&characters().join("Walker.dae")).expect("Walker.dae loads");
    let glb = load_model(&characters().join("Walker.glb")).unwrap();
    assert_eq!(
        dae.clips.len(),
        1,
        "Collada has no clip names: one clip named after its <animation>"
    );
    let clip = dae.clip("WalkerArmature").unwrap();
    let glb_walk = glb.clip("Walk").unwrap();
    let animated = |m: &passerby_assets::Model, c: &passerby_assets::Clip, name: &str| {
        let n = m.node_index(name).unwrap();
        c.channels.iter().any(|ch| ch.node == n)
    };
    for forearm in ["Forearm.L", "Forearm.R"] {
        assert!(
            !animated(&dae, clip, forearm) && animated(&glb, glb_walk, forearm),
            "{forearm}"
        );
    }
    let (as_stored, supplied) =
        dae_against_truth(&dae, clip, &characters().join("Walker.truth.json"));
    assert!(as_stored > 0.02, "as stored: {:.3} mm", as_stored * 1e3);
    assert!(
        supplied < 1e-4,
        "with the forearm keys supplied: {:.4} mm",
        supplied * 1e3
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
    let cases: [Case; 8] = [
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
        // FBX: vertices are control points, one more for each further texture coordinate a
        // control point takes (Walker has none; the sample's 1058 points take 1348 pairs);
        // joints are the bones a skin cluster binds (assimp counts 13 bones in this file; it
        // has 14 clusters and 16 bone nodes); nodes include lights, cameras and `_end` leaf
        // bones.
        ("characters/Walker.fbx", 532, 1040, 13, &[11], 3, 2.0),
        (
            "samples/fbx/animation_with_skeleton.fbx",
            1348,
            2112,
            20,
            &[14],
            1,
            0.8333333,
        ),
        // Collada: vertices are POSITION entries (control points), one more for each further
        // texture coordinate a control point takes; one clip per file.
        ("characters/Walker.dae", 532, 1040, 13, &[11], 1, 1.0),
        (
            "samples/collada/box_nested_animation.dae",
            20,
            12,
            3,
            &[1],
            1,
            1.6666666,
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
    // Static models of the MVSim worlds: (file, meshes, vertices, triangles, metres per unit).
    for (file, meshes, vertices, triangles, unit) in [
        ("assets/mvsim-models/chair_x3.dae", 1, 2221, 2748, 0.01),
        // One mesh per material: the stairs have eight.
        ("assets/mvsim-models/metal-stairs.dae", 8, 8601, 9888, 1.0),
        ("assets/mvsim-models/tote.dae", 1, 2484, 4972, 1.0),
        ("worlds/mvsim/models/hokuyo_utm30.dae", 2, 5180, 8844, 1.0),
        ("worlds/mvsim/models/simple_camera.dae", 2, 79, 74, 1.0),
        ("worlds/mvsim/models/simple_imu.dae", 1, 14, 12, 1.0),
        ("worlds/mvsim/models/velodyne-vlp16.dae", 4, 520, 496, 1.0),
        (
            "worlds/mvsim/models/jackal_description/jackal-wheel.dae",
            1,
            1331,
            2672,
            1.0,
        ),
        (
            "worlds/mvsim/models/jackal_description/jackal.dae",
            2,
            582,
            1160,
            1.0,
        ),
    ] {
        let m = load_model(&characters().join("../..").join(file)).unwrap();
        assert_eq!(
            (
                m.meshes.len(),
                m.vertex_count(),
                m.triangle_count(),
                m.frame.metres_per_unit
            ),
            (meshes, vertices, triangles, unit),
            "{file}"
        );
        assert!(
            m.clips.is_empty() && m.warnings.is_empty(),
            "{file}: {:?} {:?}",
            m.clips.len(),
            m.warnings
        );
    }
    let cesium = load_model(&characters().join("../samples/CesiumMan.glb")).unwrap();
    let texture = cesium.materials[0].texture.as_ref().unwrap();
    assert!(texture.found && texture.source == "embedded #0");
    let image = texture
        .image
        .as_ref()
        .expect("the embedded JPEG is decoded");
    assert_eq!(
        (image.width, image.height, image.rgba.len()),
        (1024, 1024, 1024 * 1024 * 4)
    );
    // Formats read without normals get smooth ones, unit length.
    let fbx = load_model(&characters().join("Walker.fbx")).unwrap();
    let normals = &fbx.meshes[0].normals;
    assert_eq!(normals.len(), fbx.meshes[0].positions.len());
    assert!(normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-4));
}

/// `<instance_node>` (SketchUp, ROS exports) places library nodes; a node that instantiates
/// itself is cut off instead of recursing for ever.
#[test]
fn collada_instance_nodes_are_placed_and_cycles_cut() {
    let path_scratch = tempfile::tempdir().unwrap();
    let path = path_scratch.path().join("instance-node.dae");
    std::fs::write(&path, INSTANCE_NODE_DAE).unwrap();
    let model = load_model(&path).unwrap();
    assert_eq!((model.meshes.len(), model.triangle_count()), (2, 2));
    let posed = Poser::new().posed_vertices(&model, &Pose::rest(&model));
    assert!(
        posed.contains(&Vec3::new(2.0, 0.0, 0.0)),
        "instance under a (translated by +X): {posed:?}"
    );
    assert!(
        posed.contains(&Vec3::new(0.0, 1.0, 5.0)),
        "instance under b (translated by +Z): {posed:?}"
    );
    assert!(
        model.nodes.len() < 100,
        "the self-instancing node is cut off: {} nodes",
        model.nodes.len()
    );
}

const INSTANCE_NODE_DAE: &str = r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><created>2026-01-01T00:00:00</created><modified>2026-01-01T00:00:00</modified><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tri" name="tri">
      <mesh>
        <source id="tri-pos">
          <float_array id="tri-pos-array" count="9">0 0 0 1 0 0 0 1 0</float_array>
          <technique_common><accessor source="#tri-pos-array" count="3" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common>
        </source>
        <vertices id="tri-v"><input semantic="POSITION" source="#tri-pos"/></vertices>
        <triangles count="1"><input semantic="VERTEX" source="#tri-v" offset="0"/><p>0 1 2</p></triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_nodes>
    <node id="lib" name="lib"><instance_geometry url="#tri"/></node>
    <node id="loop" name="loop"><instance_node url="#loop"/></node>
  </library_nodes>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="a" name="a"><translate>1 0 0</translate><instance_node url="#lib"/></node>
      <node id="b" name="b"><translate>0 0 5</translate><instance_node url="#lib"/><instance_node url="#loop"/></node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"##;

/// `data/test-characters/WalkerTransformedArmature.dae`: the Walker with its armature object
/// turned, moved and scaled non-uniformly, exported and evaluated by Blender 4.5 itself (the
/// script beside it). Blender writes the rig object's transform as the armature node's <matrix>
/// above the joints, with the body's node under it and inverse binds that include the
/// transform; read without the body node's frame it posed ~900 mm off.
#[test]
fn a_collada_character_with_a_transformed_armature_matches_blender() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/test-characters");
    let dae = load_model(&dir.join("WalkerTransformedArmature.dae")).expect("loads");
    let clip = dae.clip("WalkerArmature").unwrap();
    let truth = dir.join("WalkerTransformedArmature.truth.json");
    let (as_stored, supplied) = dae_against_truth(&dae, clip, &truth);
    // As stored only the forearms are off, by their missing keys (as in Walker.dae).
    assert!(as_stored < 0.035, "as stored: {:.3} mm", as_stored * 1e3);
    assert!(
        supplied < 1e-4,
        "with the forearm keys supplied: {:.4} mm",
        supplied * 1e3
    );
}

/// The worst Hausdorff distances (metres) of a Collada export of the Walker to Blender's truth
/// at every truth frame of its Walk clip: posed as stored, and with the forearms' rotations
/// taken from `Walker.glb`'s Walk clip (Blender's Collada exporter drops those keys).
fn dae_against_truth(
    dae: &passerby_assets::Model,
    clip: &passerby_assets::Clip,
    truth: &std::path::Path,
) -> (f32, f32) {
    let glb = load_model(&characters().join("Walker.glb")).unwrap();
    let glb_walk = glb.clip("Walk").unwrap();
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(truth).unwrap()).unwrap();
    let walk = &truth["clips"]["Walk"];
    let to_blender = dae.frame.z_up_metres_from_file();
    let (mut as_stored, mut supplied) = (0.0f32, 0.0f32);
    for (frame, points) in walk["samples"].as_object().unwrap() {
        let t = frame.parse::<f32>().unwrap() / 30.0;
        let expected = truth_points(points);
        let mut pose = Pose::rest(dae);
        pose.sample(dae, clip, t, Wrap::Clamp);
        let posed: Vec<Vec3> = Poser::new()
            .posed_vertices(dae, &pose)
            .iter()
            .map(|v| to_blender.transform_point3(*v))
            .collect();
        as_stored = as_stored.max(hausdorff(&posed, &expected));
        let mut glb_pose = Pose::rest(&glb);
        glb_pose.sample(&glb, glb_walk, t, Wrap::Clamp);
        for forearm in ["Forearm.L", "Forearm.R"] {
            pose.locals[dae.node_index(forearm).unwrap()] =
                glb_pose.locals[glb.node_index(forearm).unwrap()];
        }
        let posed: Vec<Vec3> = Poser::new()
            .posed_vertices(dae, &pose)
            .iter()
            .map(|v| to_blender.transform_point3(*v))
            .collect();
        supplied = supplied.max(hausdorff(&posed, &expected));
    }
    (as_stored, supplied)
}
