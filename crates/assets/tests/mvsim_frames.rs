//! Models placed with the `<visual>` settings of the shipped MVSim worlds stand upright: the
//! world's `model_*` values are written for assimp's presentation of each file (Collada turned
//! to +Y up and scaled by its unit), which is why Z-up files carry `model_roll 90`.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::{DMat4, Vec3};
use passerby_assets::{Pose, Poser, Resolver, load_model};
use passerby_world::Visual;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn world(name: &str) -> passerby_world::World {
    let path = shared().join("worlds/mvsim/mvsim_tutorial").join(name);
    passerby_mvsim::load_world_file(&path, &passerby_mvsim::LoadOptions::default())
        .value
        .unwrap()
}

/// The extent along x, y, z (metres) of a model placed by a visual, in the object's frame.
fn placed_extent(visual: &Visual, as_assimp_presents: bool) -> [f32; 3] {
    let mut resolver = Resolver::new(shared().join("assets/mvsim-models"));
    let scratch = tempfile::tempdir().unwrap();
    resolver.extract_dir = scratch.path().to_path_buf();
    let path = resolver.resolve(&visual.model_uri, Path::new("/")).unwrap();
    let model = load_model(&path).unwrap();
    let m = visual.object_from_model(None);
    let presented = if as_assimp_presents {
        model.frame.assimp_from_file
    } else {
        glam::Mat4::IDENTITY
    };
    let object_from_model = DMat4::from_cols_array_2d(&m).transpose().as_mat4() * presented;
    let points = Poser::new().posed_vertices(&model, &Pose::rest(&model));
    let (lo, hi) = points
        .iter()
        .map(|p| object_from_model.transform_point3(*p))
        .fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(p), hi.max(p)),
        );
    (hi - lo).to_array()
}

#[test]
fn jackal_velodyne_shelf_and_chair_stand_upright() {
    let warehouse = world("demo_warehouse.world.xml");
    let jackal = &warehouse.vehicles[0].visuals[0];
    let shelf = &warehouse
        .blocks
        .iter()
        .find(|b| b.class.as_deref() == Some("shelf"))
        .unwrap()
        .visuals[0];
    let chair = &warehouse
        .blocks
        .iter()
        .find(|b| b.class.as_deref() == Some("chair_x3"))
        .unwrap()
        .visuals[0];
    let elevation = world("demo_elevation_map.world.xml");
    let velodyne = &elevation.vehicles[0]
        .sensors
        .iter()
        .find(|s| s.name == "lidar1")
        .unwrap()
        .visuals[0];
    // (visual, expected height, expected length along the larger horizontal axis), metres.
    for (name, visual, height, length) in [
        ("jackal", jackal, 0.184, 0.503),
        ("velodyne", velodyne, 0.0755, 0.127),
        ("shelf", shelf, 6.063, 18.06),
        ("chair_x3 (Y_UP, centimetres)", chair, 0.807, 1.624),
    ] {
        let [x, y, z] = placed_extent(visual, true);
        assert!(
            (z - height).abs() < 2e-3,
            "{name}: height {z} m, expected {height} m (extents {x} {y} {z})"
        );
        assert!(
            (x.max(y) - length).abs() < 2e-3,
            "{name}: length {} m, expected {length} m",
            x.max(y)
        );
    }
    // Reading the Z-up Collada files as stored would lay the jackal on its side.
    let [_, _, z] = placed_extent(jackal, false);
    assert!(
        (z - 0.43).abs() < 0.01,
        "as stored, model_roll 90 tips the jackal over: height {z}"
    );
}
