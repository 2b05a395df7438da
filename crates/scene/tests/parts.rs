//! Parts that transform sets move: a movable block's model split by node stands exactly where
//! the whole model stands, and a node set from outside moves with its children; vehicles'
//! wheels are parts by name and by index; unknown parts are errors naming what exists.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::Vec3A;
use passerby_assets::{ModelLibrary, Resolver};
use passerby_raycast::Ray;
use passerby_scene::{LiveScene, build_scene};
use passerby_sim::Simulation;
use passerby_world::{Transform, World};
use std::path::Path;

/// The VLP-16 model (nodes `Body.001`, `Bottom`, `Top.001`, `Body`) on a movable block at
/// (0, 0) and on a static one at (10, 0), and a robot with two wheels at (0, 10).
fn world() -> World {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let model = root.join("data/mvsim/share/mvsim/models/velodyne-vlp16.dae");
    let block = |name: &str, x: f64, fixed: bool| {
        format!(
            r#"<block name="{name}"><init_pose>{x} 0 0</init_pose><static>{fixed}</static>
                 <visual><model_uri>{}</model_uri><model_scale>10</model_scale></visual></block>"#,
            model.display()
        )
    };
    let xml = format!(
        r#"<mvsim_world version="1.0">{}{}
             <vehicle name="robot"><init_pose>0 10 0</init_pose>
               <dynamics class="differential"><controller class="twist_ideal"/></dynamics></vehicle>
           </mvsim_world>"#,
        block("sensor", 0.0, false),
        block("still", 10.0, true)
    );
    let loaded = passerby_mvsim::load_world_str(
        &root.join("inline.world.xml"),
        xml,
        &passerby_mvsim::LoadOptions::default(),
    );
    loaded.value.unwrap()
}

fn library() -> ModelLibrary {
    ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ))
}

/// Distance down to whatever is below `(x, y)`, from 20 m up.
fn drop(live: &LiveScene, x: f32, y: f32) -> Option<f32> {
    let ray = Ray::new(Vec3A::new(x, y, 20.0), Vec3A::NEG_Z, 0.0, 100.0).unwrap();
    live.built.scene.closest(&ray).map(|h| h.t)
}

#[test]
fn a_model_split_by_node_stands_where_the_whole_model_stands() {
    let world = world();
    let live = LiveScene::new(build_scene(&world, &mut library()), &world).unwrap();
    let names = live.built.part_names("sensor");
    assert_eq!(
        names,
        ["Body.001", "Bottom", "Top.001", "Body", "Camera", "Light"]
    );
    assert!(
        live.built.part_names("still").is_empty(),
        "a static block has no parts"
    );
    // The split model (movable) and the whole one (static, 10 m along x) meet every ray alike.
    let mut hits = 0;
    for i in 0..40 {
        for j in 0..40 {
            let (x, y) = (-1.0 + i as f32 * 0.05, -1.0 + j as f32 * 0.05);
            let (split, whole) = (drop(&live, x, y), drop(&live, x + 10.0, y));
            match (split, whole) {
                (Some(a), Some(b)) => {
                    assert!((a - b).abs() < 1e-4, "({x}, {y}): {a} vs {b}");
                    hits += 1;
                }
                (a, b) => assert_eq!(a.is_some(), b.is_some(), "({x}, {y})"),
            }
        }
    }
    assert!(hits > 100, "{hits} rays met the model");
}

#[test]
fn a_node_set_from_outside_moves_and_unknown_parts_are_errors() {
    let world = world();
    let mut live = LiveScene::new(build_scene(&world, &mut library()), &world).unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    sim.step();
    live.update(&sim).unwrap();
    let top_before = drop(&live, 0.0, 0.0).unwrap();
    // Every node moved 100 m away along x (each root's local transform replaced): nothing
    // stays under the block.
    for k in 1..=6 {
        let far = Transform {
            translation: [100.0, 0.0, 0.0],
            ..Transform::default()
        };
        sim.set_transform("sensor", Some(&format!("#{k}")), far)
            .unwrap();
    }
    sim.step();
    live.update(&sim).unwrap();
    assert_eq!(drop(&live, 0.0, 0.0), None, "was {top_before} m down");
    // Wheels by name and by index.
    assert_eq!(live.built.part_names("robot"), ["l_wheel", "r_wheel"]);
    assert_eq!(live.built.resolve_part("robot", "#2").unwrap(), "r_wheel");
    let e = live.built.resolve_part("robot", "#0").unwrap_err();
    assert!(
        e.contains("no part `#0`") && e.contains("l_wheel, r_wheel"),
        "{e}"
    );
    // Through the API, an unknown part is an error when the scene is posed.
    sim.set_transform("robot", Some("spoiler"), Transform::default())
        .unwrap();
    sim.step();
    let e = live.update(&sim).unwrap_err().to_string();
    assert!(e.contains("`spoiler`") && e.contains("l_wheel"), "{e}");
}

#[test]
fn a_model_of_too_many_nodes_moves_whole_with_a_warning() {
    // A glTF of 300 nodes, each holding one triangle: over the 256 a block is split into.
    let dir = tempfile::tempdir().unwrap();
    let nodes: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"mesh":0,"translation":[{i},0,0]}}"#))
        .collect();
    let gltf = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[{}]}}],"nodes":[{}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}}]}}"#,
        (0..300)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(","),
        nodes.join(",")
    );
    let model = dir.path().join("many.gltf");
    std::fs::write(&model, gltf).unwrap();
    let xml = format!(
        r#"<mvsim_world version="1.0"><block name="crowd"><init_pose>0 0 0</init_pose>
             <visual><model_uri>{}</model_uri></visual></block></mvsim_world>"#,
        model.display()
    );
    let loaded = passerby_mvsim::load_world_str(
        &dir.path().join("w.world.xml"),
        xml,
        &passerby_mvsim::LoadOptions::default(),
    );
    let world = loaded.value.unwrap();
    let built = build_scene(&world, &mut library());
    assert!(built.part_names("crowd").is_empty());
    assert!(
        built
            .warnings
            .iter()
            .any(|w| w.contains("300 nodes with meshes")),
        "{:?}",
        built.warnings
    );
    // It is still there, whole: one instance for the block.
    let body = built.bodies.iter().find(|b| b.object == "crowd").unwrap();
    assert_eq!(body.instances.len(), 1);
}
