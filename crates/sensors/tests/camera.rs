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
use passerby_world::{Transform, World};

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
    frame_after(world, |_| {})
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

/// A skinned actor seen from the sun's side by a camera: `model` (a file of
/// `../shared/assets`), and the rgb of the pixels labelled as the actor.
fn actor_pixels(model: &str, clip: &str) -> Vec<[u8; 3]> {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/assets")
        .join(model);
    let world = load(&format!(
        r#"<element class="horizontal_plane"><x_min>-10</x_min><x_max>10</x_max><y_min>-10</y_min><y_max>10</y_max></element>
           <actor name="a"><init_pose>1.6 0 180</init_pose>
             <animation_idle>{clip}</animation_idle><animation_walk>{clip}</animation_walk><animation_run>{clip}</animation_run>
             <visual><model_uri>{}</model_uri><model_roll>90</model_roll></visual></actor>
           <sensor class="camera" name="cam"><pose_3d>3.4 0.8 1 90 0 -90</pose_3d><sensor_period>0.1</sensor_period>
             <ncols>240</ncols><nrows>180</nrows><cx>120</cx><cy>90</cy><fx>100</fx><fy>100</fy></sensor>"#,
        model.display()
    ));
    let f = frame(&world);
    // Two things are seen besides the sky: the ground (most pixels) and the actor.
    let mut counts = std::collections::BTreeMap::<i32, usize>::new();
    for &i in f.instance.iter().filter(|&&i| i > 0) {
        *counts.entry(i).or_default() += 1;
    }
    let (&actor, _) = counts.iter().min_by_key(|(_, n)| **n).unwrap();
    assert_eq!(counts.len(), 2, "{counts:?}");
    (0..f.instance.len())
        .filter(|&i| f.instance[i] == actor)
        .map(|i| [f.rgb[3 * i], f.rgb[3 * i + 1], f.rgb[3 * i + 2]])
        .collect()
}

/// Issue 24, item 7: skinned actors looked flat grey. Their textures reach the camera and their
/// posed surfaces are shaded by the sun: a lit side and a shaded side.
#[test]
fn skinned_actors_show_their_textures_and_are_shaded() {
    let cesium = actor_pixels("samples/CesiumMan.glb", "animation_0");
    assert!(cesium.len() > 300, "{} actor pixels", cesium.len());
    // CesiumMan's texture is mostly white with blue bands (an untextured body would be one
    // grey albedo, as the Walker below).
    let blue = cesium
        .iter()
        .filter(|p| p[2] as i32 > p[0] as i32 + 40)
        .count();
    let white = cesium.iter().filter(|p| p.iter().all(|&c| c > 170)).count();
    assert!(
        blue > 20 && white > 20,
        "blue {blue}, white {white} of {}",
        cesium.len()
    );
    // The untextured Walker: one grey albedo, lit unevenly by its posed facets.
    let walker = actor_pixels("characters/Walker.glb", "Walk");
    let luma: Vec<f32> = walker
        .iter()
        .map(|p| (p[0] as f32 + p[1] as f32 + p[2] as f32) / 3.0)
        .collect();
    let (lo, hi) = luma
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &l| (lo.min(l), hi.max(l)));
    assert!(hi - lo > 40.0, "luma {lo}..{hi}");
}

/// A differential robot at (4, 0) before the wall of [`world`], seen by its camera.
fn world_with_robot() -> World {
    load(
        r#"<block name="wall"><init_pose3d>5 -50 -50 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="1" ly="100" lz="100"/></block>
           <vehicle name="robot"><init_pose>4 0 0</init_pose>
             <dynamics class="differential">
               <l_wheel pos="0 0.5" diameter="0.4" width="0.2"/>
               <r_wheel pos="0 -0.5" diameter="0.4" width="0.2"/>
               <controller class="twist_ideal"/>
             </dynamics></vehicle>
           <sensor class="camera" name="cam"><pose_3d>0 0 0 -90 0 -90</pose_3d><sensor_period>0.1</sensor_period>
             <ncols>64</ncols><nrows>48</nrows><cx>32</cx><cy>24</cy><fx>40</fx><fy>40</fy></sensor>"#,
    )
}

fn frame_after(world: &World, set: impl FnOnce(&mut Simulation)) -> CameraFrame {
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let mut live = LiveScene::new(build_scene(world, &mut library), world).unwrap();
    let mut sim = Simulation::new(world).unwrap();
    set(&mut sim);
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
fn a_vehicles_wheels_are_drawn_and_follow_their_transforms() {
    let world = world_with_robot();
    let rest = frame_after(&world, |_| {});
    // The left wheel's tread at rest: its centre (4, 0.5, 0.2) projects to u = 32 - 40 * 0.5 / 4
    // = 27, v = 24 - 40 * 0.2 / 4 = 22.
    let robot = rest.instance[22 * 64 + 27];
    assert!(
        robot > 0 && rest.depth[22 * 64 + 27] < 4.0,
        "the wheel at rest"
    );
    // Pixel (32, 4) looks over the robot at the wall.
    let above = 4 * 64 + 32;
    assert!((rest.depth[above] - 5.0).abs() < 1e-4);
    // The second wheel (by index, as a Simulink transform set addresses it) lifted to 2 m
    // above the robot's centre: the pixel now sees it, as part of the robot.
    let lifted = Transform {
        translation: [0.0, 0.0, 2.0],
        ..Transform::default()
    };
    let moved = frame_after(&world, |sim| {
        sim.set_transform("robot", Some("#2"), lifted).unwrap()
    });
    assert_eq!(moved.instance[above], robot);
    assert!(moved.depth[above] < 4.0, "{}", moved.depth[above]);
    assert_ne!(
        moved.rgb[above * 3..above * 3 + 3],
        rest.rgb[above * 3..above * 3 + 3]
    );
}
