//! MAVS scenes as MAVS's own data folder holds them (`shared/scenes/mavs`), and bad scenes
//! written here: every error names the JSON path, the file, line and column.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::{data, expect, messages, options, put};
use passerby_mavs::transform::apply;
use passerby_mavs::{Options, YprConvention, load_scene_file, origin_of};
use passerby_world::{Affine3x4, MeshInstance, World};

fn scene(name: &str, seed: u64) -> World {
    let loaded = load_scene_file(&data().join("scenes").join(name), &options(seed));
    let m = messages(&loaded);
    loaded.value.unwrap_or_else(|| panic!("{m:#?}"))
}

fn placed<'w>(world: &'w World, stem: &str) -> Vec<&'w MeshInstance> {
    world
        .meshes
        .iter()
        .filter(|m| m.name.to_str().starts_with(&format!("{stem}_")))
        .collect()
}

/// Lengths of the transform's columns: the scale along each mesh axis.
fn axis_scales(m: &Affine3x4) -> [f64; 3] {
    [0, 1, 2].map(|j| (0..3).map(|i| m[i][j] * m[i][j]).sum::<f64>().sqrt())
}

#[test]
fn cube_scene_scatters_3000_cubes_on_its_surface_inside_the_polygon_by_seed() {
    let world = scene("cube_scene.json", 1);
    let cubes = placed(&world, "cube");
    assert_eq!(cubes.len(), 3000);
    assert_eq!(world.surfaces.len(), 1);
    assert_eq!(world.surfaces[0].material, "dry");
    assert!((world.surfaces[0].cone_index_pa - 250.0 * 6894.76).abs() < 1e-6);
    // The surface's top is at z = 0.005; the entry's offset is -0.1.
    for c in &cubes {
        let [x, y, z] = origin_of(&c.world_from_model);
        assert!(x.abs() <= 1000.0 && y.abs() <= 1000.0, "({x}, {y})");
        assert!((z - (0.005 - 0.1)).abs() < 1e-4, "z {z}");
        let s = axis_scales(&c.world_from_model);
        assert!((1.0..=5.0).contains(&s[0]), "{s:?}");
        assert!(
            (s[0] - s[1]).abs() < 1e-9 && (s[0] - s[2]).abs() < 1e-9,
            "isotropic {s:?}"
        );
        assert_eq!(c.file.label.as_deref(), Some("obstacle"));
    }
    // Labels and classes come from the label file.
    let obstacle = world
        .label_classes
        .iter()
        .find(|c| c.name == "obstacle")
        .unwrap();
    assert_eq!(
        (obstacle.number, obstacle.color.r, obstacle.color.g),
        (5, 255, 0)
    );
    // The layered surface is the ground sensors see; its trail and layers are kept.
    let ground = world
        .meshes
        .iter()
        .find(|m| m.name.is("layered_surface"))
        .unwrap();
    assert_eq!(ground.file.label.as_deref(), Some("ground"));
    let layered = world
        .mavs
        .as_ref()
        .unwrap()
        .layered_surface
        .as_ref()
        .unwrap();
    let trail = layered.trail.as_ref().unwrap();
    assert_eq!((trail.trail_width, trail.wheelbase), (2.0, 1.25));
    assert!(trail.paths[0].ends_with("waypoints/vehicle2_pos_1.vprp"));
    assert!(
        layered
            .layers
            .as_ref()
            .unwrap()
            .ends_with("surface_textures/road_surfaces.json")
    );
    // Reproducible by seed, different for another.
    let again = scene("cube_scene.json", 1);
    assert_eq!(again.meshes, world.meshes);
    let other = scene("cube_scene.json", 2);
    assert_ne!(other.meshes, world.meshes);
}

#[test]
fn obstacle_field_keeps_its_minimum_spacing() {
    let world = scene("obstacle_field.json", 0);
    let cylinders = placed(&world, "cylinder");
    assert_eq!(cylinders.len(), 70);
    let points: Vec<[f64; 3]> = cylinders
        .iter()
        .map(|c| origin_of(&c.world_from_model))
        .collect();
    for (i, p) in points.iter().enumerate() {
        assert!((-35.0..=35.0).contains(&p[0]) && (-50.0..=50.0).contains(&p[1]));
        for q in &points[i + 1..] {
            let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
            assert!(d >= 5.0, "{p:?} {q:?} {d}");
        }
    }
}

#[test]
fn the_brick_is_stood_up_and_turned_as_mavs_turns_it() {
    let world = scene("brick_scene.json", 0);
    let brick = placed(&world, "brick");
    assert_eq!(brick.len(), 1);
    let m = &brick[0].world_from_model;
    // brick.obj spans x -2.5..2.5, y 0..2.5, z -5..5 (Y up). `Rotate Y to Z` stands it on
    // the ground (mesh +Y up); yaw +π/2 in MAVS turns mesh +X to world −Y (clockwise), so the
    // long side (mesh Z, which the swap made mesh −Y) lies along world X.
    let corners: Vec<[f64; 3]> = [-2.5, 2.5]
        .iter()
        .flat_map(|&x| [0.0, 2.5].map(move |y| (x, y)))
        .flat_map(|(x, y)| [-5.0, 5.0].map(move |z| [x, y, z]))
        .map(|p| apply(m, p))
        .collect();
    let span = |k: usize| {
        let lo = corners.iter().map(|c| c[k]).fold(f64::INFINITY, f64::min);
        let hi = corners
            .iter()
            .map(|c| c[k])
            .fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let close = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-5 && (a.1 - b.1).abs() < 1e-5;
    assert!(close(span(0), (-0.25, 0.25)), "x {:?}", span(0));
    assert!(close(span(1), (-0.125, 0.125)), "y {:?}", span(1));
    assert!(close(span(2), (0.0, 0.125)), "z {:?}", span(2));
    // Mesh +X (the brick's width) points to world -Y.
    let x_axis = [m[0][0], m[1][0], m[2][0]];
    assert!(x_axis[1] < -0.04 && x_axis[0].abs() < 1e-6, "{x_axis:?}");
    // The first object is its 2e9 m ground slab, labelled from the label file.
    let surface = placed(&world, "surface");
    assert_eq!(surface[0].file.label.as_deref(), Some("rough trail"));
}

/// Loads `json` written to a temporary scene file, expecting it to fail; the messages.
fn failing(name: &str, json: &str) -> Vec<String> {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, json).unwrap();
    let loaded = load_scene_file(&path, &options(0));
    assert!(
        loaded.value.is_none(),
        "{name} should fail: {:#?}",
        messages(&loaded)
    );
    messages(&loaded)
}

#[test]
fn a_file_named_that_is_not_json_is_named_never_quoted() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    put(
        dir,
        "scenes/meshes/secret.txt",
        "root:SECRET-HASH:19000:0:99999:7:::\n",
    );
    put(dir, "secret.txt", "root:SECRET-HASH:19000:0:99999:7:::\n");
    put(
        dir,
        "scenes/leak.json",
        r#"{"Object Labels": "secret.txt"}"#,
    );
    put(
        dir,
        "actors.json",
        r#"{"Actors": [{"Mesh": "misc/cube.obj", "Instances": [{"Initial Position": [0, 0, 0],
            "Waypoints File": "secret.txt"}]}]}"#,
    );
    let opts = Options {
        data_dir: Some(dir.to_path_buf()),
        actors: Some(dir.join("actors.json")),
        ..options(0)
    };
    let loaded = load_scene_file(&dir.join("scenes/leak.json"), &opts);
    assert!(loaded.value.is_none());
    let rendered: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| d.render(&loaded.sources))
        .collect();
    let all = rendered.join("\n");
    assert!(
        all.contains("the label file `") && all.contains("is not a JSON file"),
        "{all}"
    );
    assert!(!all.contains("SECRET"), "{all}");
}

#[test]
fn a_broken_file_given_on_the_command_line_is_an_error_at_its_place() {
    // The user's own actor file (`--mavs-actors`) with a byte that is not UTF-8: its syntax
    // error is shown where it is (found by the mutation campaign: "not a JSON file", no place).
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    put(dir, "scenes/empty.json", "{}");
    let actors = dir.join("actors.json");
    std::fs::write(&actors, b"{\"Actors\": \xff}").unwrap();
    let opts = Options {
        data_dir: Some(dir.to_path_buf()),
        actors: Some(actors),
        ..options(0)
    };
    let loaded = load_scene_file(&dir.join("scenes/empty.json"), &opts);
    assert!(loaded.value.is_none());
    expect(&messages(&loaded), "actors.json:1:12: error: ");
}

#[test]
fn scale_factors_beyond_any_object_are_refused_at_their_place() {
    // 3000 random cubes scaled up to 1e9 each spanned the scene: a 0.5 s run took minutes.
    let m = failing(
        "huge_random",
        r#"{"Objects": [{"Mesh": "misc/cube.obj", "Random": {"Number": 3000,
            "Polygon": [[-10, -10], [-10, 10], [10, 10], [10, -10]], "Scale": [1e9, 5.0]}}]}"#,
    );
    expect(
        &m,
        "huge_random.json:2:79: error: `Objects[0].Random.Scale`: a scale factor over 1e5",
    );
    let m = failing(
        "huge_instance",
        r#"{"Objects": [{"Mesh": "misc/cube.obj", "Instances": [{"Scale": [1, 1, -2e5]}]}]}"#,
    );
    expect(
        &m,
        "`Objects[0].Instances[0].Scale`: a scale factor over 1e5",
    );
}

#[test]
fn bad_scenes_are_errors_with_their_place_not_crashes() {
    // A missing mesh is a warning (its objects get a placeholder), as a missing model is.
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("missing_mesh.json");
    std::fs::write(
        &path,
        r#"{"Objects": [{"Mesh": "misc/nope.obj", "Instances": [{"Position": [0, 0, 0]}]}]}"#,
    )
    .unwrap();
    let loaded = load_scene_file(&path, &options(0));
    let m = messages(&loaded);
    assert_eq!(loaded.value.map(|w| w.meshes.len()), Some(1), "{m:#?}");
    expect(
        &m,
        "missing_mesh.json:1:23: warning: `Objects[0].Mesh`: mesh file `",
    );
    expect(
        &m,
        "scenes/meshes/misc/nope.obj` does not exist; its objects get a placeholder",
    );

    let m = failing(
        "two_points",
        "{\"Objects\": [{\"Mesh\": \"misc/cube.obj\",\n \"Random\": {\"Number\": 5, \"Polygon\": [[0,0],[2,1]]}}]}",
    );
    expect(
        &m,
        "two_points.json:2:37: error: `Objects[0].Random.Polygon`: a polygon needs at least 3 points, found 2",
    );

    let m = failing(
        "flat_spaced",
        r#"{"Objects": [{"Mesh": "misc/cube.obj", "Random": {"Number": 5, "Polygon": [[0,0],[1,1],[2,2]], "Minimum Spacing": 1.0}}]}"#,
    );
    expect(
        &m,
        "`Objects[0].Random.Polygon`: the polygon has no area, so no `Minimum Spacing` can be kept",
    );

    let m = failing(
        "short_array",
        r#"{"Objects": [{"Mesh": "misc/cube.obj", "Instances": [{"Position": [1, 2]}]}]}"#,
    );
    expect(
        &m,
        "`Objects[0].Instances[0].Position`: expected 3 numbers, found 2",
    );

    let m = failing(
        "wrong_types",
        r#"{"Objects": [{"Mesh": 7, "Random": {"Number": "many", "Polygon": [[0,0],[1,0],[0,1]], "Scale": [1, 2, 3, 4]}}],
            "Surface Mesh": {"Mesh": "x"}}"#,
    );
    expect(
        &m,
        "`Objects[0].Mesh`: expected a string, found the number 7",
    );
    expect(
        &m,
        "`Objects[0].Random.Number`: expected a number, found the string \"many\"",
    );
    expect(
        &m,
        "`Objects[0].Random.Scale`: expected [lo, hi] or [[xlo, xhi], [ylo, yhi], [zlo, zhi]], found an array of 4",
    );
    expect(&m, "`Surface Mesh`: expected an array, found an object");

    let m = failing(
        "no_placement",
        r#"{"Objects": [{"Mesh": "misc/cube.obj"}]}"#,
    );
    expect(&m, "`Objects[0]`: neither `Instances` nor `Random`");

    let m = failing(
        "syntax",
        "{\"Objects\": [\n  {\"Mesh\": \"misc/cube.obj\",}\n]}",
    );
    expect(
        &m,
        "syntax.json:2:28: error: expected a member name in double quotes, found `}`",
    );

    let m = failing("not_an_object", "[1, 2]");
    expect(&m, "`$`: expected an object, found an array of 2");
}

#[test]
fn unknown_keys_warn_once_and_legacy_scenes_put_the_yaw_at_index_one() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("legacy.json");
    std::fs::write(
        &path,
        r#"{"Sky": 1, "Objects": [{"Mesh": "misc/cube.obj", "Colour": 1, "Instances": [
            {"YawPitchRoll": [0, 1.5707963267948966, 0], "Position": [1, 2, 3], "Colour": 2},
            {"YawPitchRoll": [0, 1.5707963267948966, 0], "Position": [1, 2, 3]}]}]}"#,
    )
    .unwrap();
    let opts = Options {
        ypr: YprConvention::Legacy,
        ..options(0)
    };
    let loaded = load_scene_file(&path, &opts);
    let m = messages(&loaded);
    let world = loaded.value.unwrap_or_else(|| panic!("{m:#?}"));
    assert_eq!(
        m.iter().filter(|m| m.contains("unknown key")).count(),
        3,
        "{m:#?}"
    );
    let cube = &world.meshes[0];
    let p = apply(&cube.world_from_model, [1.0, 0.0, 0.0]);
    assert!(
        (p[0] - 1.0).abs() < 1e-9 && (p[1] - 1.0).abs() < 1e-9 && (p[2] - 3.0).abs() < 1e-9,
        "{p:?}"
    );
    assert_eq!(cube.file.label, None, "no label file");
}

#[test]
fn a_heightmap_is_the_ground_and_random_objects_stand_on_it() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    // 5 x 4 pixels; grey = 10 x column + 40 x (row from the bottom).
    let (w, h) = (5u32, 4u32);
    let image = image::GrayImage::from_fn(w, h, |c, r| {
        image::Luma([(10 * c + 40 * (h - 1 - r)) as u8])
    });
    let map = dir.join("hills.bmp");
    image.save(&map).unwrap();
    let scene = dir.join("hills.json");
    std::fs::write(
        &scene,
        format!(
            r#"{{"UseFullPaths": true,
                "Layered Surface": {{"Heightmap": {{"Map": "{}", "Resolution": 2.0, "Scale": 0.5}}}},
                "Objects": [{{"Mesh": "misc/cube.obj", "Random": {{"Number": 50, "Offset": [0, 0, 0.5],
                    "Polygon": [[-4, -3], [4, -3], [4, 3], [-4, 3]], "Scale": [1, 1]}}}}]}}"#,
            map.display()
        ),
    )
    .unwrap();
    let loaded = load_scene_file(&scene, &options(3));
    let m = messages(&loaded);
    let world = loaded.value.unwrap_or_else(|| panic!("{m:#?}"));
    // Centred: column c at x = (c - 2) * 2, row-from-bottom j at y = (j - 1.5) * 2.
    for c in 0..w {
        for j in 0..h {
            let (x, y) = ((f64::from(c) - 2.0) * 2.0, (f64::from(j) - 1.5) * 2.0);
            let z = world.highest_elevation_under(x, y, 1e9);
            let expected = f64::from(10 * c + 40 * j) * 0.5;
            assert!((z - expected).abs() < 1e-9, "({x}, {y}): {z} != {expected}");
        }
    }
    // Between samples the surface is planar (this map is a plane: 2.5 z/m along x, 10 along y).
    let plane = |x: f64, y: f64| 2.5 * x + 10.0 * y + 40.0;
    assert!((world.highest_elevation_under(0.7, -0.3, 1e9) - plane(0.7, -0.3)).abs() < 1e-9);
    let cubes = placed(&world, "cube");
    assert_eq!(cubes.len(), 50);
    for c in cubes {
        let [x, y, z] = origin_of(&c.world_from_model);
        assert!(
            (z - 0.5 - plane(x, y)).abs() < 1e-9,
            "cube at ({x}, {y}, {z})"
        );
    }
}

#[test]
fn animations_come_inline_or_from_a_file_and_crowds_spread_in_their_box() {
    let data_scratch = tempfile::tempdir().unwrap();
    let data = data_scratch.path().to_path_buf();
    let put = |rel: &str, text: &str| put(&data, rel, text);
    put(
        "scenes/meshes/walk/a.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    put(
        "scenes/meshes/walk/b.obj",
        "v 0 0 0\nv 1 0 0\nv 0 2 0\nf 1 2 3\n",
    );
    put("scenes/meshes/walk/list.txt", "a.obj b.obj\n");
    put(
        "scenes/anims.json",
        r#"{"Animations": [
            {"Animation Folder": "walk", "Frame List": "walk/list.txt", "Behavior": "crowd", "Number": 5,
             "Bounding Box": [[-3, -2], [4, 6]], "Speed": 1.2, "Mesh Scale": 0.01, "Rotate Y to X": true},
            {"Animation Folder": "walk", "Frame List": "walk/list.txt", "Behavior": "circle",
             "Initial Position": [0, 5, 0], "Speed": 1.0},
            {"Animation Folder": "walk", "Frame List": "walk/list.txt"}]}"#,
    );
    put(
        "scenes/by_file.json",
        r#"{"Objects": [], "Animations": "scenes/anims.json"}"#,
    );
    let opts = Options {
        data_dir: Some(data.clone()),
        ..options(4)
    };
    let loaded = load_scene_file(&data.join("scenes/by_file.json"), &opts);
    let m = messages(&loaded);
    let world = loaded.value.unwrap_or_else(|| panic!("{m:#?}"));
    expect(
        &m,
        "`Animations[2]`: neither `Path` nor `Behavior`: skipped",
    );
    assert_eq!(world.actors.len(), 6);
    for a in &world.actors[..5] {
        let p = a.common.init_pose;
        assert!(
            (-3.0..=4.0).contains(&p.x) && (-2.0..=6.0).contains(&p.y),
            "{p:?}"
        );
        assert_eq!(
            a.behavior,
            Some(passerby_world::Behavior::WanderInBox {
                speed: 1.2,
                min: [-3.0, -2.0],
                max: [4.0, 6.0]
            })
        );
        let k = a.keyframe_meshes.as_ref().unwrap();
        assert_eq!(k.frames.len(), 2);
        // Scale 0.01, then mesh +X to +Y.
        assert!(
            (k.object_from_model[1][0] - 0.01).abs() < 1e-12,
            "{:?}",
            k.object_from_model
        );
    }
    assert_ne!(
        world.actors[0].common.init_pose,
        world.actors[1].common.init_pose
    );
    // The circle goes about the origin through the start point.
    let circle = &world.actors[5];
    assert_eq!(
        circle.behavior,
        Some(passerby_world::Behavior::Circle {
            speed: 1.0,
            radius: 5.0
        })
    );
    assert_eq!(
        (circle.common.init_pose.x, circle.common.init_pose.y),
        (0.0, 0.0)
    );

    // A missing frame is an error naming the frame list.
    put("scenes/meshes/walk/bad.txt", "a.obj missing.obj");
    put(
        "scenes/bad.json",
        r#"{"Animations": [{"Animation Folder": "walk", "Frame List": "walk/bad.txt", "Behavior": "wander"}]}"#,
    );
    let loaded = load_scene_file(&data.join("scenes/bad.json"), &opts);
    assert!(loaded.value.is_none());
    expect(
        &messages(&loaded),
        "`Animations[0].Frame List`: frame `missing.obj`",
    );
}

#[test]
fn actor_files_add_rigid_meshes_on_waypoint_paths() {
    let data_scratch = tempfile::tempdir().unwrap();
    let data = data_scratch.path().to_path_buf();
    let put = |rel: &str, text: &str| put(&data, rel, text);
    put(
        "scenes/meshes/cart.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    put(
        "waypoints/loop.json",
        r#"{"Waypoints": [[1, 2], [5, 2], [5, 6]]}"#,
    );
    put(
        "actors/carts.json",
        r#"{"Actors": [{"Mesh": "cart.obj", "Rotate Y to Z": true, "Locked to Ground": false, "Instances": [
            {"Initial Position": [1, 2, 0.5], "Offset": [0, 0, 0.25], "Scale": [2, 2, 2], "Speed": 3.0,
             "Waypoints File": "waypoints/loop.json"},
            {"Initial Position": [5, 6, 0], "Waypoints File": "waypoints/loop.json"}]},
            {"Mesh": "lorry.obj", "Instances": [{"Waypoints File": "waypoints/loop.json"}]}]}"#,
    );
    put("scenes/empty.json", r#"{"Objects": []}"#);
    let opts = Options {
        data_dir: Some(data.clone()),
        actors: Some(data.join("actors/carts.json")),
        ..options(0)
    };
    let loaded = load_scene_file(&data.join("scenes/empty.json"), &opts);
    let m = messages(&loaded);
    let world = loaded.value.unwrap_or_else(|| panic!("{m:#?}"));
    expect(&m, "`Actors[1].Mesh`: mesh file `");
    assert_eq!(
        world.actors.len(),
        3,
        "every instance, and the one without a mesh"
    );
    let cart = &world.actors[0];
    let points = vec![[1.0, 2.0], [5.0, 2.0], [5.0, 6.0]];
    assert_eq!(
        cart.behavior,
        Some(passerby_world::Behavior::Waypoints {
            speed: 3.0,
            points: points.clone()
        })
    );
    assert!(
        cart.common.skip_elevation_adjust,
        "not locked to the ground"
    );
    assert_eq!(
        (cart.common.init_pose.x, cart.common.init_pose.z),
        (1.0, 0.5)
    );
    let body = cart.keyframe_meshes.as_ref().unwrap();
    // Scale 2 after the Y-to-Z swap, raised by the offset.
    assert_eq!(
        apply(&body.object_from_model, [0.0, 1.0, 0.0]),
        [0.0, 0.0, 2.25]
    );
    assert_eq!(
        world.actors[1].behavior,
        Some(passerby_world::Behavior::Waypoints { speed: 1.4, points })
    );
    assert!(
        world.actors[2].keyframe_meshes.is_none(),
        "placeholder body"
    );
}

#[test]
fn vegetation_is_planted_by_zone_density_with_heights_from_trunk_diameters() {
    let data_scratch = tempfile::tempdir().unwrap();
    let data = data_scratch.path().to_path_buf();
    let put = |rel: &str, text: &str| put(&data, rel, text);
    put(
        "scenes/meshes/ground.obj",
        "v -100 -100 0\nv 100 -100 0\nv 100 100 0\nv -100 100 0\nf 1 2 3\nf 1 3 4\n",
    );
    put(
        "scenes/meshes/tree.obj",
        "v 0 0 0\nv 1 0 0\nv 0 0 2\nf 1 2 3\n",
    );
    put(
        "scenes/forest.json",
        r#"{"Surface Mesh": [{"Mesh": "ground.obj"}], "Objects": [],
            "Vegetation Distribution": {"Species": [{"Name": "oak", "Mesh": "tree.obj", "Mesh Height": 2.0}],
              "Zones": [{"Coordinates": [-100, 0], "Species": [{"Density": 0.01, "MinDiam": 10, "MaxDiam": 20}]},
                        {"Coordinates": [100, 0], "Species": [{"Density": 0.0, "MinDiam": 10, "MaxDiam": 20}]}]}}"#,
    );
    let opts = Options {
        data_dir: Some(data.clone()),
        ..options(5)
    };
    let load = || {
        let loaded = load_scene_file(&data.join("scenes/forest.json"), &opts);
        let m = messages(&loaded);
        loaded.value.unwrap_or_else(|| panic!("{m:#?}"))
    };
    let world = load();
    let oaks = placed(&world, "oak");
    // 100 cells of 20 m; the west half near 0.01/m² (4 a cell), the east half near none.
    let (west, east) = oaks.iter().fold((0, 0), |(w, e), o| {
        if origin_of(&o.world_from_model)[0] < 0.0 {
            (w + 1, e)
        } else {
            (w, e + 1)
        }
    });
    assert!(
        west > 150 && west < 250 && east < west / 3,
        "west {west}, east {east}"
    );
    for o in &oaks {
        let [x, y, z] = origin_of(&o.world_from_model);
        assert!(
            x.abs() <= 100.0 && y.abs() <= 100.0 && z.abs() < 1e-4,
            "({x}, {y}, {z})"
        );
        // D in [10, 20] cm: h in [3.6, 6.242] m on a 2 m mesh.
        let s = axis_scales(&o.world_from_model)[0];
        assert!((1.8 - 1e-9..=3.121 + 1e-9).contains(&s), "scale {s}");
    }
    assert_eq!(load().meshes, world.meshes, "reproducible by seed");

    // A trail 20 m wide along the x axis (an ANVEL replay) stays clear.
    put(
        "waypoints/road.vprp",
        "Vehicle Objects: 0\n@Data\n0.1:-100 0 0:1 0 0 0\n0.2:100 0 0:1 0 0 0\n@END OF REPLAY FILE\n",
    );
    let scene = std::fs::read_to_string(data.join("scenes/forest.json")).unwrap().replacen(
        "{",
        r#"{"Layered Surface": {"Mesh": "ground.obj", "Trail": {"Trail Width": 20, "Path": "waypoints/road.vprp"}},"#,
        1,
    );
    put("scenes/forest.json", &scene);
    let world = load();
    let oaks = placed(&world, "oak");
    assert!(oaks.len() > 100, "{}", oaks.len());
    for o in &oaks {
        let [x, y, _] = origin_of(&o.world_from_model);
        assert!(y.abs() > 10.0, "an oak on the trail at ({x}, {y})");
    }
}

#[test]
fn label_by_group_hands_the_label_table_to_the_scene_and_smooth_normals_are_kept() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    put(
        &dir,
        "meshes/lemons.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\ng Lemon_Fruit_Caps\nf 1 2 3\ng Lemon_Fruit_Leaves\nf 1 3 2\n",
    );
    std::fs::copy(
        data().join("scenes/meshes/lemon_group_labels.json"),
        dir.join("meshes/lemon_group_labels.json"),
    )
    .unwrap();
    put(
        &dir,
        "lemons.json",
        &format!(
            r#"{{"PathToMeshes": "{}/meshes/", "Object Labels": "lemon_group_labels.json",
                "Objects": [{{"Mesh": "lemons.obj", "Label By Group": true, "Smooth Normals": true,
                    "Instances": [{{"YawPitchRoll": [0, 0, 0], "Position": [0, 0, 0], "Scale": [1, 1, 1]}}]}}]}}"#,
            dir.display()
        ),
    );
    let loaded = load_scene_file(&dir.join("lemons.json"), &options(0));
    let m = messages(&loaded);
    let world = loaded.value.unwrap_or_else(|| panic!("{m:#?}"));
    let lemons = &world.meshes[0];
    assert!(lemons.file.smooth_normals);
    let groups = lemons.file.group_labels.as_ref().unwrap();
    assert_eq!(groups["Lemon_Fruit_Caps"], "lemon");
    assert_eq!(groups["Lemon_Fruit_Leaves"], "leaf");
    assert!(
        world.label_classes.iter().any(|c| c.name == "leaf"),
        "{:?}",
        world.label_classes
    );
}
