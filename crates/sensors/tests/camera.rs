//! The pinhole camera: depth along the optical axis is exact on a plane, every pixel is labelled,
//! a point projects to the pixel the intrinsics say, and frames do not depend on thread count.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::load;
use passerby_assets::{ModelLibrary, Resolver};
use passerby_scene::{LiveScene, build_scene};
use passerby_sensors::camera::CameraFrame;
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::Simulation;
use passerby_world::World;

/// A wall at x in [5, 6] filling the view, a 20 cm cube centred at (4, 1, 0.5) in front of it,
/// and a camera at the origin looking along +X (MVSim's optical pose: yaw -90, roll -90).
fn world() -> World {
    load(
        r#"<block name="wall"><init_pose3d>5 -50 -50 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="1" ly="100" lz="100"/></block>
           <block name="cube"><init_pose3d>3.9 0.9 0.4 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="0.2" ly="0.2" lz="0.2"/><label>target</label></block>
           <sensor class="camera" name="cam"><pose_3d>0 0 0 -90 0 -90</pose_3d><sensor_period>0.1</sensor_period>
             <ncols>64</ncols><nrows>48</nrows><cx>32</cx><cy>24</cy><fx>40</fx><fy>40</fy></sensor>"#,
    )
}

fn frame(world: &World) -> CameraFrame {
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let mut live = LiveScene::new(build_scene(world, &mut library), world).unwrap();
    let mut sim = Simulation::new(world).unwrap();
    let mut rig = Rig::new(world, 0);
    loop {
        sim.step();
        live.update(&sim).unwrap();
        let view = SceneView { built: &live.built };
        for o in rig.step(&sim, &view) {
            if let Observation::Camera(c) = o {
                return c;
            }
        }
    }
}

#[test]
fn depth_is_exact_on_a_plane_and_every_pixel_is_labelled() {
    let f = frame(&world());
    assert_eq!((f.rgb.len(), f.depth.len()), (64 * 48 * 3, 64 * 48));
    let (wall, cube) = (f.instance[0], f.instance[18 * 64 + 21]);
    for (i, d) in f.depth.iter().enumerate() {
        assert!(f.instance[i] > 0 && f.class[i] > 0, "pixel {i} unlabelled");
        if f.instance[i] == wall {
            assert!((d - 5.0).abs() < 1e-4, "pixel {i}: depth {d}");
        }
    }
    assert_ne!(wall, cube);
}

#[test]
fn a_point_projects_to_the_pixel_the_intrinsics_give() {
    let f = frame(&world());
    // The cube's near face centre (3.9, 1, 0.5) in the optical frame: x right = -y, y down = -z,
    // z forward = x; pixel = c + f * (x / z, y / z).
    let (x, y, z) = (-1.0f64, -0.5f64, 3.9f64);
    let u = (32.0 + 40.0 * x / z).floor() as usize;
    let v = (24.0 + 40.0 * y / z).floor() as usize;
    let i = v * 64 + u;
    assert!(f.class[i] > 5, "the `target` class: {}", f.class[i]);
    assert!((f.depth[i] - 3.9).abs() < 1e-4, "{}", f.depth[i]);
    // The opposite side of the image sees the wall.
    assert!((f.depth[(24 * 64 + 60) as usize] - 5.0).abs() < 1e-4);
}

#[test]
fn frames_are_identical_for_one_and_two_threads() {
    let w = world();
    let on = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(|| frame(&w))
    };
    assert_eq!(on(1), on(2));
}
