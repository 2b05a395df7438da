//! A lidar placed by a rig in a MAVS scene sees the scene's placed meshes with the classes of
//! MAVS's label file, and each return lies on a cylinder's wall or on the ground.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use passerby_assets::{ModelLibrary, Resolver};
use passerby_scene::build_scene;
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::{SimOptions, Simulation};
use std::path::Path;

/// A scene of `shared/scenes/mavs` joined by `rig`, and its built scene.
fn shared_scene(
    name: &str,
    rig: passerby_world::World,
) -> (passerby_world::World, passerby_scene::BuiltScene) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/mavs");
    let opts = passerby_mavs::Options {
        data_dir: Some(data.clone()),
        ..passerby_mavs::Options::default()
    };
    let scene = data.join("scenes").join(name);
    let loaded = passerby_mavs::load_scene(&scene, &opts, passerby_mavs::SourceMap::new(), rig);
    let world = loaded.value.unwrap();
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(&world, &mut library);
    (world, built)
}

/// Steps the simulation until a lidar completes a sweep; that cloud.
fn first_cloud(
    world: &passerby_world::World,
    built: &passerby_scene::BuiltScene,
) -> passerby_sensors::lidar::PointCloud {
    let mut sim = Simulation::with_options(
        world,
        &SimOptions {
            timestep: None,
            seed: 0,
        },
    )
    .unwrap();
    let mut rig = Rig::new(world, 0);
    loop {
        sim.step();
        let view = SceneView { built };
        let done = rig.step(&sim, &view).into_iter().find_map(|o| match o {
            Observation::PointCloud(c) => Some(c),
            _ => None,
        });
        if let Some(c) = done {
            return c;
        }
    }
}

#[test]
fn lidar_points_on_a_mavs_obstacle_field_carry_the_label_files_classes() {
    let rig = common::load(
        r#"<sensor class="lidar3d" name="lidar"><pose_3d>0 0 1 0 0 0</pose_3d>
        <sensor_period>0.1</sensor_period><vert_nrays>16</vert_nrays><vert_fov_degrees>30</vert_fov_degrees>
        <horz_nrays>720</horz_nrays><range_std_noise>0</range_std_noise><range_max>60</range_max></sensor>"#,
    );
    let (world, built) = shared_scene("obstacle_field.json", rig);
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    let cloud = &first_cloud(&world, &built);
    let class_of =
        |p: &passerby_sensors::lidar::LidarPoint| built.classes[p.label as usize].as_str();
    let cylinders: Vec<([f64; 3], f64)> = world
        .meshes
        .iter()
        .filter(|m| m.name.to_str().starts_with("cylinder_"))
        .map(|m| {
            let s = (0..3)
                .map(|i| m.world_from_model[i][0].powi(2))
                .sum::<f64>()
                .sqrt();
            (
                [
                    m.world_from_model[0][3],
                    m.world_from_model[1][3],
                    m.world_from_model[2][3],
                ],
                s,
            )
        })
        .collect();
    let (mut obstacle, mut ground) = (0, 0);
    for p in &cloud.points {
        let w = [
            f64::from(p.position[0]),
            f64::from(p.position[1]),
            f64::from(p.position[2]) + 1.0,
        ];
        match class_of(p) {
            "obstacle" => {
                obstacle += 1;
                // On the wall of some cylinder: cylinder.obj is an open 32-sided prism of
                // radius 0.5 and height 1, so a facet lies between 0.5 cos(π/32) and 0.5 from
                // the axis (scaled).
                let inner = 0.5 * (std::f64::consts::PI / 32.0).cos();
                let on_one = cylinders.iter().any(|(c, s)| {
                    let r = ((w[0] - c[0]).powi(2) + (w[1] - c[1]).powi(2)).sqrt();
                    (inner * s - 1e-3..=0.5 * s + 1e-3).contains(&r)
                        && (c[2] - 1e-3..=c[2] + s + 1e-3).contains(&w[2])
                });
                assert!(on_one, "obstacle point {w:?} on no cylinder");
            }
            "ground" => {
                ground += 1;
                // surface.obj's corners are 1e5 m out: in f32 its plane is good to millimetres.
                assert!((w[2] - 0.005).abs() < 5e-3, "ground point {w:?}");
            }
            other => panic!("unexpected class {other} at {w:?}"),
        }
    }
    assert!(
        obstacle > 500 && ground > 500,
        "{obstacle} obstacle, {ground} ground points"
    );
}

#[test]
fn actors_stand_on_the_surface_mesh_not_on_objects() {
    // A person placed right on the brick of brick_scene: MAVS's height queries see only the
    // `Surface Mesh` (top at 0.005 x 0.0025 m), not the 0.125 m brick, which a person would
    // otherwise step onto.
    let rig = common::load(r#"<actor name="p"><init_pose>0 0 0</init_pose></actor>"#);
    let (world, built) = shared_scene("brick_scene.json", rig);
    let ground = passerby_scene::SceneGround::new(&built, &world);
    let mut sim = Simulation::with_options(
        &world,
        &SimOptions {
            timestep: None,
            seed: 0,
        },
    )
    .unwrap();
    sim.set_ground(Box::new(ground));
    sim.step();
    let z = sim.actors()[0].pose.z;
    assert!((z - 0.005 * 0.0025).abs() < 1e-4, "actor at z {z}");
}

/// Writes `text` at `root/rel`, making folders.
fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_keyframe_animation_plays_at_its_frame_rate_and_walks_its_path() {
    let data_scratch = tempfile::tempdir().unwrap();
    let data = data_scratch.path().to_path_buf();
    // Three frames of a triangle standing in the x-z plane whose apex rises 1 m per frame.
    for k in 0..3 {
        put(
            &data,
            &format!("scenes/meshes/anim/f{k}.obj"),
            &format!("v -0.3 0 0\nv 0.3 0 0\nv 0 0 {}\nf 1 2 3\n", 1 + k),
        );
    }
    // No newline after the last name (MAVS would drop that frame).
    put(
        &data,
        "scenes/meshes/anim/frames.txt",
        "f0.obj\nf1.obj f2.obj",
    );
    put(
        &data,
        "scenes/meshes/ground.obj",
        "v -50 -50 0\nv 50 -50 0\nv 50 50 0\nv -50 50 0\nf 1 2 3\nf 1 3 4\n",
    );
    put(
        &data,
        "waypoints/line.json",
        r#"{"Waypoints": [[0, 0], [20, 0]]}"#,
    );
    put(
        &data,
        "scenes/anim.json",
        r#"{"Objects": [{"Mesh": "ground.obj", "Instances": [{"Position": [0, 0, 0]}]}],
            "Animations": [{"Animation Folder": "anim", "Frame List": "anim/frames.txt",
                "Frame Rate": 2.0, "Speed": 1.0, "Path": "waypoints/line.json"}]}"#,
    );
    let opts = passerby_mavs::Options {
        data_dir: Some(data.clone()),
        ..passerby_mavs::Options::default()
    };
    let loaded = passerby_mavs::load_scene_file(&data.join("scenes/anim.json"), &opts);
    let messages: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| d.headline(&loaded.sources))
        .collect();
    let world = loaded.value.unwrap_or_else(|| panic!("{messages:#?}"));
    assert_eq!(world.actors.len(), 1);
    assert_eq!(
        world.actors[0]
            .keyframe_meshes
            .as_ref()
            .unwrap()
            .frames
            .len(),
        3
    );
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(&world, &mut library);
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    let ground = passerby_scene::SceneGround::new(&built, &world);
    let mut live = passerby_scene::LiveScene::new(built, &world).unwrap();
    let mut sim = Simulation::with_options(
        &world,
        &SimOptions {
            timestep: Some(0.005),
            seed: 0,
        },
    )
    .unwrap();
    sim.set_ground(Box::new(ground));
    // At 0.75 s: 0.75 m along the path, frame 1.5 (apex at 2.5 m); at 1.6 s: frame 3.2, which
    // wraps to 0.2 of the way from frame 0 to frame 1 (apex at 1.2 m).
    for (t, apex) in [(0.75, 2.5), (1.6, 1.2)] {
        while sim.time() < t - 1e-9 {
            sim.step();
        }
        live.update(&sim).unwrap();
        let pose = sim.actors()[0].pose;
        assert!(
            (pose.x - t).abs() < 0.02 && pose.y.abs() < 1e-9 && pose.yaw.abs() < 1e-9,
            "{pose:?}"
        );
        let scene = &live.built.scene;
        let hits = |z: f32| {
            let ray = passerby_raycast::Ray::new(
                glam::Vec3A::new(pose.x as f32, -5.0, z),
                glam::Vec3A::Y,
                0.0,
                10.0,
            )
            .unwrap();
            scene.closest(&ray).map(|h| {
                live.built
                    .object_of(h.instance, h.triangle)
                    .unwrap()
                    .clone()
            })
        };
        let below =
            hits(apex as f32 - 0.05).unwrap_or_else(|| panic!("no hit below the apex at {t} s"));
        let class = live.built.class_name(&below);
        assert_eq!((&*below.name.to_str(), class), ("anim_1", "pedestrian"));
        assert!(
            hits(apex as f32 + 0.05).is_none(),
            "a hit above the apex at {t} s"
        );
    }
}

#[test]
fn a_mavs_simulation_files_vehicle_replays_its_poses() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/mavs");
    let opts = passerby_mavs::Options {
        data_dir: Some(data.clone()),
        ..passerby_mavs::Options::default()
    };
    let loaded =
        passerby_mavs::load_scene_file(&data.join("sims/sensor_sims/mrzr_cube_sim.json"), &opts);
    let world = loaded.value.unwrap();
    let mut sim = Simulation::with_options(
        &world,
        &SimOptions {
            timestep: Some(0.01),
            seed: 0,
        },
    )
    .unwrap();
    sim.step();
    sim.step();
    // The second record of vehicle2_pos_1.vprp, at 0.02 s.
    let p = sim.vehicles()[0].pose;
    assert!(
        (p.x + 12.5825).abs() < 1e-9
            && (p.y - 2.35755).abs() < 1e-9
            && (p.z - 0.724415).abs() < 1e-9,
        "{p:?}"
    );
}

#[test]
fn an_hdl64e_sweeps_from_minus_180_degrees_with_its_lower_block_on_every_fourth_column() {
    let mut rig = passerby_world::World::default();
    let pose = passerby_world::Pose3 {
        z: 2.0,
        ..passerby_world::Pose3::default()
    };
    let hdl = passerby_mavs::lidars::lidar_sensor("HDL-64E", "hdl", pose, 10.0).unwrap();
    rig.standalone_sensors.push(hdl);
    let (world, built) = shared_scene("obstacle_field.json", rig);
    let cloud = first_cloud(&world, &built);
    let columns = cloud.columns as usize;
    assert_eq!((cloud.rings, columns), (64, 3124));
    let returns = |ring: usize, keep: &dyn Fn(usize) -> bool| {
        (0..columns)
            .filter(|&c| keep(c) && !cloud.range_image[ring * columns + c].is_nan())
            .count()
    };
    // The lower block sees the ground 2 m below on the columns it fires on, never on others.
    for ring in [0, 15, 31] {
        assert!(returns(ring, &|c| c % 4 == 0) > 700, "ring {ring}");
        assert_eq!(returns(ring, &|c| c % 4 != 0), 0, "ring {ring}");
    }
    assert!(returns(32, &|c| c % 4 != 0) > 2000);
    // Column 0 looks along -X (MAVS starts its sweep at -180 degrees), the ground 2 m down.
    let first = cloud.points.iter().find(|p| p.ring == 0).unwrap().position;
    let expected = 2.0 / 24.8f32.to_radians().tan();
    assert!(
        (first[0] + expected).abs() < 0.05
            && first[1].abs() < 0.01
            && (first[2] + 2.0).abs() < 0.02,
        "{first:?}"
    );
}

#[test]
fn a_rig_vehicle_stands_on_a_raised_mavs_heightmap_and_its_lidar_sees_the_terrain() {
    // A flat heightmap of grey 200 (hundreds of metres up at a metre per level): the rig's
    // vehicle stayed at z = 0 under it and its lidar returned nothing.
    let scratch = tempfile::tempdir().unwrap();
    let map = scratch.path().join("plateau.png");
    let mut encoder = png::Encoder::new(std::fs::File::create(&map).unwrap(), 16, 16);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&[200u8; 256])
        .unwrap();
    let scene = scratch.path().join("plateau.json");
    std::fs::write(
        &scene,
        format!(
            r#"{{"UseFullPaths": true,
                "Layered Surface": {{"Heightmap": {{"Map": "{}", "Resolution": 4.0, "Scale": 1.0}}}}}}"#,
            map.display()
        ),
    )
    .unwrap();
    let rig = common::load(
        r#"<vehicle name="r"><init_pose>0 0 0</init_pose>
             <dynamics class="differential"><controller class="twist_ideal"/></dynamics>
             <sensor class="lidar3d" name="lidar"><pose_3d>0 0 1 0 0 0</pose_3d>
               <sensor_period>0.1</sensor_period><vert_nrays>16</vert_nrays><vert_fov_degrees>30</vert_fov_degrees>
               <horz_nrays>360</horz_nrays><range_std_noise>0</range_std_noise><max_range>40</max_range></sensor></vehicle>"#,
    );
    let opts = passerby_mavs::Options::default();
    let loaded = passerby_mavs::load_scene(&scene, &opts, passerby_mavs::SourceMap::new(), rig);
    let world = loaded.value.unwrap();
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(&world, &mut library);
    let ground = passerby_scene::SceneGround::new(&built, &world);
    let mut sim = Simulation::new(&world).unwrap();
    sim.set_ground(Box::new(ground));
    let mut rig = Rig::new(&world, 0);
    let mut cloud = None;
    while cloud.is_none() {
        sim.step();
        let view = SceneView { built: &built };
        cloud = rig.step(&sim, &view).into_iter().find_map(|o| match o {
            Observation::PointCloud(c) => Some(c),
            _ => None,
        });
    }
    let z = sim.vehicles()[0].pose.z;
    assert!(z > 100.0, "the vehicle stands on the terrain: z {z}");
    let cloud = cloud.unwrap();
    let on_ground = cloud
        .points
        .iter()
        .filter(|p| (p.position[2] + 1.0).abs() < 0.05)
        .count();
    assert!(
        on_ground > 360,
        "{on_ground} of {} points on the terrain",
        cloud.points.len()
    );
}

#[test]
fn an_object_placed_beyond_single_precision_is_left_out_with_a_warning() {
    // A position of 1e308 gave the ray caster infinite bounds: every ray tested the object and
    // a 0.5 s run took seconds (mutation campaign). It is now left out, said once.
    let scratch = tempfile::tempdir().unwrap();
    let scene = scratch.path().join("far.json");
    std::fs::write(
        &scene,
        r#"{"Objects": [{"Mesh": "misc/cube.obj", "Instances": [
            {"Position": [1e308, 0, 0]}, {"Position": [3, 0, 0]}]}]}"#,
    )
    .unwrap();
    let opts = passerby_mavs::Options {
        data_dir: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/mavs")),
        ..passerby_mavs::Options::default()
    };
    let loaded = passerby_mavs::load_scene(
        &scene,
        &opts,
        passerby_mavs::SourceMap::new(),
        passerby_world::World::default(),
    );
    let world = loaded.value.unwrap();
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(&world, &mut library);
    assert_eq!(
        built
            .warnings
            .iter()
            .filter(|w| w.contains("beyond single precision"))
            .count(),
        1,
        "{:?}",
        built.warnings
    );
    // The near cube is there and casting against the scene is unaffected.
    let ray = passerby_raycast::Ray::new(
        glam::Vec3A::new(3.0, 0.0, 100.0),
        glam::Vec3A::NEG_Z,
        0.0,
        200.0,
    )
    .unwrap();
    assert!(built.scene.closest(&ray).is_some());
}

/// A Collada surface (`Z_UP`, the plane z = x / 2) under objects scattered at random: each
/// object stands where the drawn surface is, as MAVS stands objects on what it draws.
#[test]
fn objects_stand_on_a_collada_surface_where_it_is_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let meshes = dir.path().join("scenes/meshes");
    std::fs::create_dir_all(&meshes).unwrap();
    std::fs::write(
        meshes.join("slope.dae"),
        r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><created>2026-11-25T00:00:00</created><modified>2026-11-25T00:00:00</modified><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries><geometry id="slope" name="slope"><mesh>
    <source id="slope-pos"><float_array id="slope-arr" count="12">-10 -10 -5 10 -10 5 10 10 5 -10 10 -5</float_array>
      <technique_common><accessor source="#slope-arr" count="4" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="slope-vtx"><input semantic="POSITION" source="#slope-pos"/></vertices>
    <triangles count="2"><input semantic="VERTEX" source="#slope-vtx" offset="0"/><p>0 1 2 0 2 3</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n" name="n"><instance_geometry url="#slope"/></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>"##,
    )
    .unwrap();
    let scene = dir.path().join("scenes/slope.json");
    std::fs::write(
        &scene,
        r#"{"Surface Mesh": [{"Mesh": "slope.dae", "Rotate Y to Z": true, "Position": [0, 0, 0],
             "YawPitchRoll": [0, 0, 0], "Scale": [1, 1, 1]}],
            "Objects": [{"Mesh": "slope.dae", "Random": {"Number": 50, "Offset": [0, 0, 0],
             "Polygon": [[-5, -5], [5, -5], [5, 5], [-5, 5]], "Scale": [0.1, 0.1]}}]}"#,
    )
    .unwrap();
    let opts = passerby_mavs::Options {
        data_dir: Some(dir.path().to_path_buf()),
        ..passerby_mavs::Options::default()
    };
    let loaded = passerby_mavs::load_scene(
        &scene,
        &opts,
        passerby_mavs::SourceMap::new(),
        passerby_world::World::default(),
    );
    let Some(world) = loaded.value else {
        let text: Vec<_> = (loaded.diagnostics.iter())
            .map(|d| d.headline(&loaded.sources))
            .collect();
        panic!("{text:#?}");
    };
    let mut library = ModelLibrary::new(Resolver::new(dir.path().join("no-cache")));
    let built = build_scene(&world, &mut library);
    let surfaces = built.height_surfaces.as_ref().unwrap();
    let objects: Vec<_> = (world.meshes.iter())
        .filter(|m| m.name.to_str().starts_with("slope_"))
        .collect();
    assert_eq!(objects.len(), 50);
    for o in objects {
        let [x, y, z] = [0, 1, 2].map(|i| o.world_from_model[i][3]);
        let down = passerby_raycast::Ray::new(
            glam::Vec3A::new(x as f32, y as f32, 100.0),
            glam::Vec3A::NEG_Z,
            0.0,
            1000.0,
        )
        .unwrap();
        let drawn = 100.0 - f64::from(surfaces.closest(&down).unwrap().t);
        assert!((drawn - x / 2.0).abs() < 1e-3, "drawn at {drawn}, x = {x}");
        assert!(
            (z - drawn).abs() < 1e-3,
            "({x}, {y}) stands at {z}, drawn at {drawn}"
        );
    }
}
