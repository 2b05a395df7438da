//! The real MVSim worlds in `../shared` load, their summaries are right, and their parsed
//! descriptions are pinned by snapshots (paths redacted to `<shared>` / `<project>`).

use crate::util::*;
use passerby_world::*;
use std::path::PathBuf;

fn tutorial(name: &str) -> PathBuf {
    shared().join("worlds/mvsim/mvsim_tutorial").join(name)
}

/// The world as JSON with machine-specific paths replaced.
fn redacted(world: &World) -> serde_json::Value {
    let text = serde_json::to_string(world).unwrap();
    let shared = shared().display().to_string();
    let project = project_root().display().to_string();
    let text = text
        .replace(&shared, "<shared>")
        .replace(&project, "<project>");
    serde_json::from_str(&text).unwrap()
}

fn warnings(path: &std::path::Path) -> (World, Vec<String>) {
    let loaded = load_file(path);
    let heads = headlines(&loaded);
    (world(loaded), heads)
}

#[test]
fn demo_warehouse() {
    let (w, warns) = warnings(&tutorial("demo_warehouse.world.xml"));
    assert!(warns.is_empty(), "{warns:#?}");
    assert_eq!(w.actors.len(), 1);
    let person = &w.actors[0];
    assert_eq!(person.name, "person1");
    let path = person.path.as_ref().unwrap();
    assert_eq!(path.waypoints.len(), 5);
    assert!(path.looped);
    assert_eq!(path.waypoints[1].animation, WaypointAnimation::Run);
    assert_eq!(path.waypoints[1].pause, 3.0);
    assert_eq!(person.animation_run, "HumanArmature|Man_Run");
    assert_eq!(person.visuals[0].model_scale, 0.0027);
    let r1 = &w.vehicles[0];
    let lidar = r1.sensors.iter().find(|s| s.name == "lidar1").unwrap();
    let SensorKind::Lidar3d(l) = &lidar.kind else {
        panic!()
    };
    assert_eq!((l.vert_nrays, l.horz_nrays), (32, 1808));
    assert_eq!(l.beam_elevations().len(), 32);
    assert!(l.generate_intensity);
    assert_eq!(
        lidar.pose.z, 0.35,
        "$f{{0.27 + 0.08}} from the include attribute"
    );
    let SensorKind::Laser(scanner) = &r1.sensors[0].kind else {
        panic!()
    };
    assert!(
        scanner.raytrace_3d,
        "lidar2d_raytrace=\"true\" reaches the nested include"
    );
    assert_eq!(w.blocks.len(), 29);
    assert_eq!(
        w.blocks
            .iter()
            .filter(|b| b.class.as_deref() == Some("pallet"))
            .count(),
        10
    );
    let jack = w
        .blocks
        .iter()
        .find(|b| b.common.keyframes.is_some())
        .unwrap();
    assert_eq!(jack.common.keyframes.as_ref().unwrap().keyframes.len(), 7);
    assert_eq!(w.effective_timestep(), 0.005);
    insta::assert_json_snapshot!("demo_warehouse", redacted(&w));
}

#[test]
fn demo_many_robots() {
    let (w, warns) = warnings(&tutorial("demo_many_robots.world.xml"));
    assert!(warns.is_empty(), "{warns:#?}");
    assert_eq!(w.vehicles.len(), 25);
    for (i, v) in w.vehicles.iter().enumerate() {
        assert_eq!(v.name, format!("veh{}", i + 1));
        assert_eq!(v.sensors.len(), 1);
        let SensorKind::Laser(l) = &v.sensors[0].kind else {
            panic!()
        };
        assert_eq!(l.fov.to_degrees().round(), 360.0);
        assert_eq!(l.nrays, 100);
        assert!(!l.raytrace_3d);
        let p = v.common.init_pose;
        assert!(
            (-11.0..-1.0).contains(&p.x) && (-3.0..7.0).contains(&p.y),
            "{p:?}"
        );
    }
    assert_ne!(
        w.vehicles[0].common.init_pose, w.vehicles[1].common.init_pose,
        "rand() draws differ"
    );
    // The occupancy image is decoded: 320 x 200 pixels of 0.2 m, pixel (160, 100) at the origin.
    let grid = w
        .elements
        .iter()
        .find_map(|e| match &e.element {
            WorldElement::OccupancyGrid(g) => g.cells.as_ref(),
            _ => None,
        })
        .expect("decoded grid");
    assert_eq!((grid.cols, grid.rows, grid.resolution), (320, 200, 0.2));
    assert_eq!(grid.origin, [-32.0, -20.0]);
    let occupied = grid.occupied.iter().filter(|o| **o).count();
    assert!(
        occupied > 100 && occupied < grid.occupied.len() / 2,
        "{occupied}"
    );
    insta::assert_json_snapshot!("demo_many_robots", redacted(&w));
}

#[test]
fn demo_greenhouse() {
    let (w, warns) = warnings(&tutorial("demo_greenhouse.world.xml"));
    assert_eq!(warns.len(), 2, "{warns:#?}");
    assert!(warns[0].starts_with(
        "demo_greenhouse.world.xml:266:27: warning: raw `<` inside an attribute value"
    ));
    assert!(warns[1].starts_with(
        "agricobiot2.vehicle.xml:93:31: warning: closing tag `</model_offset_z>` does not match"
    ));
    // 21·2 + 10·2 tilted beams, 2·4·(4+4) thick and thin poles (iY in 0..=3 or 6..=10 gives 9 of 11
    // rows, so 5·9 each), 5 corridors × (5+6) × 2 plants.
    let count = |class: &str| {
        w.blocks
            .iter()
            .filter(|b| b.class.as_deref() == Some(class))
            .count()
    };
    assert_eq!(count("pole_tilted"), 62);
    assert_eq!(count("pole_009"), 45);
    assert_eq!(count("pole_004"), 45);
    assert_eq!(count("plant_tomato"), 110);
    let g = w.georeference.as_ref().unwrap();
    assert_eq!(g.world_to_enu_rotation.to_degrees().round(), 45.0);
    let r1 = &w.vehicles[0];
    assert_eq!(r1.dynamics.class, DynamicsClass::AckermannDrivetrain);
    assert_eq!(r1.visuals.len(), 4);
    assert_eq!(
        r1.visuals[3].model_offset[0], -0.245,
        "the mismatched closing tag still closes model_offset_x"
    );
    let names: Vec<&str> = r1.sensors.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["lidar1", "cam1", "gps1", "imu"]);
    let SensorKind::Imu(imu) = &r1.sensors[3].kind else {
        panic!()
    };
    assert!(imu.measure_orientation);
    insta::assert_json_snapshot!("demo_greenhouse", redacted(&w));
}

#[test]
fn demo_elevation_map() {
    let (w, warns) = warnings(&tutorial("demo_elevation_map.world.xml"));
    assert!(warns.is_empty(), "{warns:#?}");
    assert_eq!(w.params.simul_timestep, Timestep::Fixed(2e-3));
    let WorldElement::ElevationMap(e) = &w.elements[0].element else {
        panic!()
    };
    assert!(
        matches!(&e.source, ElevationSource::Image { min_z, max_z, .. } if *min_z == -1.0 && *max_z == 2.0)
    );
    assert_eq!(w.blocks.len(), 17);
    assert!(w.blocks.iter().all(|b| b.common.init_pose_is_3d));
    let SensorKind::RgbdCamera(c) = &w.vehicles[0].sensors[1].kind else {
        panic!()
    };
    assert_eq!((c.depth.fx, c.depth_noise_sigma), (400.0, 0.05));
    insta::assert_json_snapshot!("demo_elevation_map", redacted(&w));
}

#[test]
fn reference_benchmark_world() {
    let (w, warns) = warnings(&shared().join("perf/refscene.world.xml"));
    assert!(warns.is_empty(), "{warns:#?}");
    assert_eq!(w.standalone_sensors.len(), 1);
    let SensorKind::Lidar3d(l) = &w.standalone_sensors[0].kind else {
        panic!()
    };
    assert_eq!(
        (l.vert_nrays, l.horz_nrays, l.min_range, l.max_range),
        (128, 1024, 0.0, 200.0)
    );
    assert!(w.blocks[0].common.skip_elevation_adjust);
}

#[test]
fn every_shipped_definition_loads_as_an_include() {
    let defs = project_root().join("data/mvsim/share/mvsim/definitions");
    let mut names: Vec<_> = std::fs::read_dir(&defs)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut body = String::new();
    for name in names.iter().filter(|n| n.ends_with(".vehicle.xml")) {
        body.push_str(&format!("<include file=\"$(ros2 pkg prefix mvsim)/share/mvsim/definitions/{name}\" default_sensors=\"false\"/>\n"));
    }
    body.push_str("<vehicle name=\"rig\" class=\"small_robot\"><init_pose>0 0 0</init_pose>\n");
    for (i, name) in names
        .iter()
        .filter(|n| n.ends_with(".sensor.xml"))
        .enumerate()
    {
        body.push_str(&format!(
            "<include file=\"$(ros2 pkg prefix mvsim)/share/mvsim/definitions/{name}\" sensor_name=\"s{i}\"/>\n"
        ));
    }
    body.push_str("</vehicle>");
    let loaded = load(&body);
    let heads = headlines(&loaded);
    let w = world(loaded);
    assert!(
        heads
            .iter()
            .all(|h| h.contains("agricobiot2.vehicle.xml:93")),
        "{heads:#?}"
    );
    assert_eq!(
        w.vehicles[0].sensors.len(),
        names.iter().filter(|n| n.ends_with(".sensor.xml")).count()
    );
    let classes: std::collections::BTreeSet<&str> = w.vehicles[0]
        .sensors
        .iter()
        .map(|s| s.class_name())
        .collect();
    assert_eq!(
        classes.len(),
        6,
        "the definitions cover all six sensor classes"
    );
    // Helios-32 variants: explicit angles, 32 rings, 1808 columns at 10 Hz.
    for s in &w.vehicles[0].sensors {
        if let SensorKind::Lidar3d(l) = &s.kind
            && l.vertical_ray_angles.is_some()
        {
            assert_eq!((l.vert_nrays, l.horz_nrays), (32, 1808));
        }
    }
}

#[test]
fn bundled_examples_load() {
    for name in ["actors.world.xml", "sensor_rig.world.xml"] {
        let (w, warns) = warnings(&project_root().join("examples").join(name));
        assert!(warns.is_empty(), "{name}: {warns:#?}");
        if name == "actors.world.xml" {
            assert_eq!(w.actors.len(), 2);
            let runner = &w.actors[1];
            assert_eq!(
                runner.path.as_ref().unwrap().waypoints[1].animation,
                WaypointAnimation::Run
            );
        } else {
            let classes: std::collections::BTreeSet<&str> = w.vehicles[0]
                .sensors
                .iter()
                .map(|s| s.class_name())
                .collect();
            assert_eq!(classes.len(), 6);
        }
    }
}

#[test]
fn demo_1robot_decodes_its_mrpt_gridmap() {
    // `uma_campus.gridmap.gz`: an MRPT `COccupancyGridMap2D` (version 3, 8-bit cells). It was
    // warned about and left unseen before. The figures are the file's own header; the count of
    // occupied cells (negative log-odds) was taken independently with Python's gzip + struct.
    let (world, w) = warnings(&tutorial("demo_1robot.world.xml"));
    assert!(w.iter().all(|m| !m.contains("gridmap")), "{w:?}");
    let grid = world
        .elements
        .iter()
        .find_map(|e| match &e.element {
            WorldElement::OccupancyGrid(g) => g.cells.as_ref(),
            _ => None,
        })
        .expect("the grid's cells");
    assert_eq!((grid.cols, grid.rows), (1888, 2738));
    assert!((grid.resolution - 0.08).abs() < 1e-7);
    assert!((grid.origin[0] + 10.0).abs() < 1e-6 && (grid.origin[1] + 127.04).abs() < 1e-4);
    assert_eq!(grid.occupied.iter().filter(|&&o| o).count(), 27_656);
}
