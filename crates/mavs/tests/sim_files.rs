//! MAVS simulation input files: the shared one as MAVS's data folder holds it, and files
//! written here with every sensor kind and pose file MAVS reads, and their errors.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::{data, expect, messages, options, put};
use passerby_mavs::{Loaded, Options, load_scene_file};
use passerby_world::{Sensor, SensorKind, World};
use std::path::{Path, PathBuf};

/// A scratch MAVS data folder holding copies of the shared scenes, meshes and waypoints and
/// the files written by the test.
/// (Removed when the returned guard is dropped, also when the test fails.)
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let guard = tempfile::tempdir().unwrap();
    let dir = guard.path().to_path_buf();
    for folder in ["scenes", "waypoints"] {
        copy_dir(&data().join(folder), &dir.join(folder));
    }
    (guard, dir)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn load(dir: &Path, sim: &str) -> Loaded {
    let opts = Options {
        data_dir: Some(dir.to_path_buf()),
        ..options(0)
    };
    load_scene_file(&dir.join(sim), &opts)
}

fn loaded_world(loaded: Loaded) -> (World, Vec<String>) {
    let m = messages(&loaded);
    (loaded.value.unwrap_or_else(|| panic!("{m:#?}")), m)
}

fn sensor<'w>(world: &'w World, name: &str) -> &'w Sensor {
    world.vehicles[0]
        .sensors
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no sensor `{name}`"))
}

/// The sensor's optical axis (+Z of its frame) in its mount's frame.
fn optical_axis(s: &Sensor) -> [f64; 3] {
    let q = glam::DQuat::from_euler(glam::EulerRot::ZYX, s.pose.yaw, s.pose.pitch, s.pose.roll);
    (q * glam::DVec3::Z).to_array()
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
}

#[test]
fn the_shared_simulation_file_brings_its_scene_origin_poses_cameras_and_lidar() {
    let loaded = load_scene_file(
        &data().join("sims/sensor_sims/mrzr_cube_sim.json"),
        &options(0),
    );
    let (world, _) = loaded_world(loaded);
    assert_eq!(
        world
            .meshes
            .iter()
            .filter(|m| m.name.to_str().starts_with("cube_"))
            .count(),
        3000,
        "the scene it names"
    );
    let geo = world.georeference.as_ref().unwrap();
    assert_eq!(
        (geo.latitude_deg, geo.longitude_deg, geo.height),
        (32.3526, 90.8779, 73.152)
    );
    let vehicle = &world.vehicles[0];
    assert_eq!(vehicle.sensors.len(), 3);
    let lidar = sensor(&world, "top_lidar");
    assert_eq!((lidar.pose.x, lidar.pose.z, lidar.period), (0.0, 1.1, 0.1));
    let SensorKind::Lidar3d(l) = &lidar.kind else {
        panic!("{:?}", lidar.kind)
    };
    let angles = l.beam_elevations();
    assert_eq!((angles.len(), l.horz_nrays), (64, 1024));
    assert!(
        (angles[0].to_degrees() + 15.8).abs() < 1e-9
            && (angles[63].to_degrees() - 15.8).abs() < 1e-9
    );
    // MAVS's MachineVision: 224 x 224 pixels, a 3.5 mm focal plane at 3.5 mm, looking along
    // the vehicle's +X from its offset.
    let camera = sensor(&world, "top_left_camera");
    let SensorKind::Camera(c) = &camera.kind else {
        panic!("{:?}", camera.kind)
    };
    assert_eq!(
        (c.intrinsics.ncols, c.intrinsics.fx, c.intrinsics.cx),
        (224, 224.0, 111.5)
    );
    assert_eq!(
        (camera.pose.x, camera.pose.y, camera.pose.z),
        (1.35, 0.5, 0.85)
    );
    assert!(
        close(optical_axis(camera), [1.0, 0.0, 0.0]),
        "{:?}",
        optical_axis(camera)
    );
    // Its poses: the ANVEL replay, one row per record, for the vehicle.
    assert_eq!(world.replay.len(), 1700);
    assert_eq!(world.replay[0].object, vehicle.name);
    assert_eq!(
        world.replay[0].transform.translation,
        [-12.5825, 2.35755, 0.725]
    );
}

#[test]
fn sensors_come_by_model_or_from_files_and_text_poses_are_frames() {
    let (_guard, dir) = scratch();
    put(
        &dir,
        "sensors/planar.json",
        r#"{"Min Range": 0.5, "Max Range": 30.0, "Mode": 1,
            "Beam Properties": {"Shape": "circle", "Divergence": [0.001, 0.001]},
            "Scan Pattern": {"Horizontal Range": [-45.0, 45.0], "Horizontal Step": 0.5}}"#,
    );
    put(
        &dir,
        "sensors/wide.json",
        r#"{"Pixels": [320, 200], "FocalLength": 0.002, "FocalPlaneDimensions": [0.004, 0.0025],
            "Gamma": 0.7, "Anti Aliasing": {"Type": "oversampled", "Samples Per Pixel": 2},
            "Distortion": {"KC": [-0.1, 0.01, 0.0, 0.0, 0.0]}}"#,
    );
    put(
        &dir,
        "waypoints/poses.txt",
        "0 0 0 1 0 0 0\n1 0 0 1 0 0 0\n2 0 0\n 1 0 0 0\n",
    );
    put(
        &dir,
        "sims/all.json",
        r#"{"Scene": {"Input File": "scenes/brick_scene.json", "Origin": [32.0, -90.0, 70.0]},
        "Poses": {"Pose File": "waypoints/poses.txt", "Pose Type": "text"},
        "Sensors": [
          {"Type": "lidar", "Model": "HDL-64E", "Name": "hdl", "Repitition Rate (Hz)": 5.0},
          {"Type": "lidar", "Model": "M8", "Name": "m8", "Repitition Rate (Hz)": 20.0},
          {"Type": "lidar", "Input File": "sensors/planar.json", "Name": "planar"},
          {"Type": "camera", "Model": "XCD-V60", "Name": "xcd",
           "Orientation": [0.7071068, 0.0, 0.0, 0.7071068]},
          {"Type": "camera", "Input File": "sensors/wide.json", "Name": "wide"},
          {"Type": "gps", "Name": "gps", "Repitition Rate (Hz)": 5.0},
          {"Type": "radar", "Model": "Delphi Long Range", "Name": "radar"}
        ]}"#,
    );
    let (world, m) = loaded_world(load(&dir, "sims/all.json"));
    expect(
        &m,
        "`Sensors[6]`: `radar` sensors are not built from MAVS files yet",
    );
    // MAVS's GPS defaults to its perfect mode: an exact fix.
    let gps = sensor(&world, "gps");
    let SensorKind::Gnss(g) = &gps.kind else {
        panic!("{:?}", gps.kind)
    };
    assert_eq!(
        (g.horizontal_std_noise, g.vertical_std_noise, gps.period),
        (0.0, 0.0, 0.2)
    );
    expect(&m, "`Mode`: every beam is one exact ray here");
    let SensorKind::Lidar3d(hdl) = &sensor(&world, "hdl").kind else {
        panic!()
    };
    assert_eq!(
        (hdl.horz_nrays, hdl.rays_per_sweep()),
        (6248, 32 * 1562 + 32 * 6248)
    );
    let SensorKind::Lidar3d(m8) = &sensor(&world, "m8").kind else {
        panic!()
    };
    assert_eq!(
        (m8.beam_elevations().len(), m8.horz_nrays, m8.max_range),
        (8, 2625, 150.0)
    );
    assert_eq!(sensor(&world, "m8").period, 0.05);
    let SensorKind::Lidar3d(planar) = &sensor(&world, "planar").kind else {
        panic!()
    };
    assert_eq!(
        (planar.beam_elevations(), planar.horz_nrays),
        (vec![0.0], 181)
    );
    assert_eq!((planar.min_range, planar.max_range), (0.5, 30.0));
    // Turned a quarter about +Z, the XCD-V60 looks along the vehicle's +Y.
    let xcd = sensor(&world, "xcd");
    assert!(
        close(optical_axis(xcd), [0.0, 1.0, 0.0]),
        "{:?}",
        optical_axis(xcd)
    );
    let SensorKind::Camera(wide) = &sensor(&world, "wide").kind else {
        panic!()
    };
    let i = &wide.intrinsics;
    assert_eq!(
        (i.ncols, i.nrows, i.fx, i.fy, i.cx, i.cy),
        (320, 200, 160.0, 160.0, 159.5, 99.5)
    );
    assert_eq!((i.distortion[0], wide.antialias), (-0.1, 2));
    // Three text poses, one per frame of the fastest sensor (the M8 at 20 Hz), the pose
    // split over two lines read as MAVS's stream reader reads it.
    let times: Vec<f64> = world.replay.iter().map(|p| p.time).collect();
    assert_eq!(times, vec![0.0, 0.05, 0.1]);
    assert_eq!(world.replay[2].transform.translation, [2.0, 0.0, 0.0]);
}

#[test]
fn bad_sensors_and_pose_files_are_errors_at_their_place() {
    let (_guard, dir) = scratch();
    put(&dir, "waypoints/short.txt", "0 0 0 1 0 0 0\n1 2 3 1 0\n");
    put(
        &dir,
        "sensors/inverted.json",
        r#"{"Scan Pattern": {"Horizontal Range": [45.0, -45.0], "Horizontal Step": 0.5}}"#,
    );
    put(
        &dir,
        "sensors/flat.json",
        r#"{"Pixels": [640, 480], "FocalLength": 0.0}"#,
    );
    put(
        &dir,
        "sims/bad.json",
        r#"{"Scene": {"Input File": "scenes/brick_scene.json"},
        "Poses": {"Pose File": "waypoints/short.txt", "Pose Type": "text"},
        "Sensors": [
          {"Type": "lidar", "Model": "HDL-65E", "Name": "a"},
          {"Type": "lidar", "Input File": "sensors/inverted.json", "Name": "b"},
          {"Type": "lidar", "Input File": "sensors/missing.json", "Name": "c"},
          {"Type": "camera", "Input File": "sensors/flat.json", "Name": "d"},
          {"Type": "camera", "Model": "Nikon", "Name": "e"},
          {"Type": "lidar", "Model": "VLP-16", "Repitition Rate (Hz)": 0}
        ]}"#,
    );
    let loaded = load(&dir, "sims/bad.json");
    assert!(loaded.value.is_none());
    let m = messages(&loaded);
    expect(&m, "short.txt:2: the file ends inside a pose (5 of");
    expect(
        &m,
        "`Sensors[0].Model`: MAVS lidar model `HDL-65E` is not one we know; known: M8, HDL-64E",
    );
    expect(
        &m,
        "`$.Scan Pattern`: horizontal range [45, -45] with step 0.5",
    );
    expect(&m, "`Sensors[2].Input File`: cannot read the lidar file");
    expect(&m, "focal length 0 m on a 0.0035 x 0.0035 m focal plane");
    expect(&m, "camera model `Nikon` is not one we know");
    expect(
        &m,
        "`Sensors[5].Repitition Rate (Hz)`: must be positive, found 0",
    );
    // Sizes and rates beyond any real sensor are refused before anything is allocated.
    put(
        &dir,
        "sensors/huge.json",
        r#"{"Pixels": [20000, 480], "FocalLength": 0.0035}"#,
    );
    put(
        &dir,
        "sensors/dense.json",
        r#"{"Scan Pattern": {"Horizontal Range": [-180.0, 180.0], "Horizontal Step": 0.0001,
            "Vertical Range": [-15.0, 15.0], "Vertical Step": 2.0}}"#,
    );
    // A vertical step of 1e-12 degrees asked for 3e13 beams (an abort, allocating them).
    put(
        &dir,
        "sensors/tiny_step.json",
        r#"{"Scan Pattern": {"Horizontal Range": [-180.0, 180.0], "Horizontal Step": 1.0,
            "Vertical Range": [-15.0, 15.0], "Vertical Step": 1e-12}}"#,
    );
    put(
        &dir,
        "sims/huge.json",
        r#"{"Scene": {"Input File": "scenes/brick_scene.json"},
        "Sensors": [
          {"Type": "camera", "Input File": "sensors/huge.json", "Name": "wide"},
          {"Type": "lidar", "Model": "VLP-16", "Name": "fast", "Repitition Rate (Hz)": 1e9},
          {"Type": "lidar", "Input File": "sensors/dense.json", "Name": "dense"},
          {"Type": "lidar", "Input File": "sensors/tiny_step.json", "Name": "tiny"}
        ]}"#,
    );
    let loaded = load(&dir, "sims/huge.json");
    assert!(loaded.value.is_none());
    let m = messages(&loaded);
    expect(
        &m,
        "`Sensors[0].Input File`: camera `wide`: an image side of 20000 pixels is over the limit",
    );
    expect(
        &m,
        "`Sensors[1].Repitition Rate (Hz)`: lidar3d `fast`: a rate of 1.000e9 Hz is over the limit",
    );
    expect(&m, "`Sensors[2].Input File`: lidar3d `dense`");
    expect(
        &m,
        "`$.Scan Pattern`: 10830000000000360 rays per scan: too many",
    );
    put(
        &dir,
        "sims/kind.json",
        r#"{"Scene": {"Input File": "scenes/brick_scene.json"},
        "Poses": {"Pose File": "waypoints/short.txt", "Pose Type": "csv"}}"#,
    );
    let m = messages(&load(&dir, "sims/kind.json"));
    expect(&m, "`Poses.Pose Type`: `csv`: expected `anvel` or `text`");
}
