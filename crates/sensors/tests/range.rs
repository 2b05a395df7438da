//! Range sensors against analytic geometry: a lidar in a closed room, its gates, noise and
//! ordering; motion distortion of a rotating sweep; a 2D laser in both modes; labels on a
//! walking skinned actor; the same output for any thread count.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::load;

use glam::Vec3;
use passerby_assets::{ModelLibrary, Resolver};
use passerby_scene::{LiveScene, build_scene};
use passerby_sensors::lidar::PointCloud;
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::{SimOptions, Simulation};
use passerby_world::World;
use std::path::Path;

/// Runs `world` for `seconds`, returning every observation with the step it came from.
fn run(
    world: &World,
    seconds: f64,
    seed: u64,
    each_step: impl FnMut(&Simulation, &LiveScene),
) -> Vec<Observation> {
    run_posing(world, seconds, seed, false, each_step)
}

/// As `run`; with `spare`, re-skins only the actors the step's rays may meet (as `passerby`
/// runs do), else every actor every step.
fn run_posing(
    world: &World,
    seconds: f64,
    seed: u64,
    spare: bool,
    mut each_step: impl FnMut(&Simulation, &LiveScene),
) -> Vec<Observation> {
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(world, &mut library);
    let mut live = LiveScene::new(built, world).unwrap();
    let options = SimOptions {
        timestep: None,
        seed,
    };
    let mut sim = Simulation::with_options(world, &options).unwrap();
    let mut rig = Rig::new(world, seed);
    let mut out = Vec::new();
    while sim.time() < seconds - 1e-9 {
        sim.step();
        if spare {
            live.update_within(&sim, Some(&rig.reach(&sim))).unwrap();
        } else {
            live.update(&sim).unwrap();
        }
        each_step(&sim, &live);
        let view = SceneView { built: &live.built };
        out.extend(rig.step(&sim, &view));
    }
    out
}

fn clouds(obs: &[Observation]) -> Vec<&PointCloud> {
    obs.iter()
        .filter_map(|o| match o {
            Observation::PointCloud(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// A closed box room x in [-5, 5], y in [-4, 4], z in [0, 4] (a hollow block seen from inside).
// Intangible: the robots drive inside the box, which as a solid body would push them out.
const ROOM: &str = r#"<block name="room"><init_pose>-5 -4 0</init_pose><static>true</static>
    <intangible>true</intangible><geometry type="box" lx="10" ly="8" lz="4"/></block>"#;

fn room_distance(o: Vec3, d: Vec3) -> f32 {
    let (lo, hi) = (Vec3::new(-5.0, -4.0, 0.0), Vec3::new(5.0, 4.0, 4.0));
    (0..3)
        .filter(|&a| d[a] != 0.0)
        .map(|a| {
            let bound = if d[a] > 0.0 { hi[a] } else { lo[a] };
            (bound - o[a]) / d[a]
        })
        .fold(f32::INFINITY, f32::min)
}

fn lidar(extra: &str) -> String {
    format!(
        r#"<sensor class="lidar3d" name="lidar"><pose_3d>0.5 0.25 1.5 0 0 0</pose_3d>
        <sensor_period>0.1</sensor_period><vert_nrays>16</vert_nrays><vert_fov_degrees>30</vert_fov_degrees>
        <horz_nrays>360</horz_nrays><range_std_noise>0</range_std_noise>{extra}</sensor>"#
    )
}

#[test]
fn every_lidar_range_in_a_closed_room_is_the_analytic_distance() {
    let world = load(&format!("{ROOM}{}", lidar("<scan_mode>flash</scan_mode>")));
    let obs = run(&world, 0.1, 0, |_, _| {});
    let c = clouds(&obs);
    assert_eq!(c.len(), 1);
    let cloud = c[0];
    assert_eq!(cloud.stamp, 0.1);
    assert_eq!(
        cloud.points.len(),
        16 * 360,
        "a closed room returns every beam"
    );
    let origin = Vec3::new(0.5, 0.25, 1.5);
    for (i, p) in cloud.points.iter().enumerate() {
        let v = Vec3::from_array(p.position);
        let expected = room_distance(origin, v.normalize());
        assert!(
            (v.length() - expected).abs() < 1e-4,
            "point {i}: {} vs {expected}",
            v.length()
        );
        assert_eq!(p.ring as usize, i % 16, "rings ascend within a column");
        assert!(
            p.instance >= 1 && p.label == 3,
            "the room is a static block: {p:?}"
        );
        assert!(p.intensity > 0.0 && p.intensity <= 1.0);
    }
    // The organised image holds the same ranges, ring by ring.
    assert_eq!(cloud.range_image.len(), 16 * 360);
    for (i, p) in cloud.points.iter().enumerate() {
        let (column, ring) = (i / 16, i % 16);
        let r = cloud.range_image[ring * 360 + column];
        assert!((r - Vec3::from_array(p.position).length()).abs() < 1e-5);
    }
    // Column 0 looks along -X (azimuth +180), the lowest ring first.
    let first = Vec3::from_array(cloud.points[0].position);
    assert!(
        first.x < 0.0 && first.y.abs() < 1e-3 && first.z < 0.0,
        "{first}"
    );
}

#[test]
fn range_gates_drop_far_returns_and_near_surfaces_block_the_beam() {
    let world = load(&format!(
        "{ROOM}{}",
        lidar("<scan_mode>flash</scan_mode><min_range>3.2</min_range><max_range>4.5</max_range>")
    ));
    let cloud = clouds(&run(&world, 0.1, 0, |_, _| {}))[0].clone();
    assert!(!cloud.points.is_empty());
    for p in &cloud.points {
        let r = Vec3::from_array(p.position).length();
        assert!((3.2..=4.5).contains(&r), "{r}");
    }
}

#[test]
fn range_noise_has_the_configured_sigma_and_is_repeatable_for_a_seed() {
    let world = load(&format!(
        "{ROOM}{}",
        lidar("<scan_mode>flash</scan_mode>").replace(
            "<range_std_noise>0</range_std_noise>",
            "<range_std_noise>0.05</range_std_noise>"
        )
    ));
    let origin = Vec3::new(0.5, 0.25, 1.5);
    let residuals = |seed| -> Vec<f64> {
        clouds(&run(&world, 0.1, seed, |_, _| {}))[0]
            .points
            .iter()
            .map(|p| {
                let v = Vec3::from_array(p.position);
                f64::from(v.length() - room_distance(origin, v.normalize()))
            })
            .collect()
    };
    let r = residuals(3);
    let n = r.len() as f64;
    let mean = r.iter().sum::<f64>() / n;
    let sigma = (r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    assert!(mean.abs() < 3.0 * 0.05 / n.sqrt(), "mean {mean}");
    assert!(
        (sigma - 0.05).abs() < 0.05 * 4.0 / (2.0 * n).sqrt(),
        "sigma {sigma}"
    );
    assert_eq!(r, residuals(3));
    assert_ne!(r, residuals(4));
}

#[test]
fn a_rotating_sweep_of_a_moving_sensor_shows_the_analytic_skew() {
    // A robot drives at 2 m/s towards a wall at x = 5 (the room's); its lidar's columns are cast
    // one step after another, so the wall's distance shrinks along the sweep.
    let world = load(&format!(
        r#"{ROOM}<vehicle name="r"><init_pose>-2 0 0</init_pose><init_vel>2 0 0</init_vel><dynamics class="differential"><controller class="twist_ideal"/></dynamics>{}</vehicle>"#,
        lidar("<ignore_parent_body>true</ignore_parent_body>")
    ));
    let dt = 0.005;
    let obs = run(&world, 0.2, 0, |_, _| {});
    let c = clouds(&obs);
    assert_eq!(c.len(), 2, "sweeps of 0-0.1 s and 0.1-0.2 s");
    let cloud = c[1];
    assert_eq!(cloud.stamp, 0.1);
    let mut checked = 0;
    for p in &cloud.points {
        let v = Vec3::from_array(p.position);
        let d = v.normalize();
        if d.x < 0.9 {
            continue; // beams ahead, towards the wall at x = 5
        }
        // Cast at the end of the step holding its column's time.
        let column_time = cloud.stamp + f64::from(p.time);
        // (The point's time is single precision: allow for its rounding.)
        let cast_at = ((column_time - 1e-6) / dt).ceil() * dt;
        let sensor_x = -2.0 + 2.0 * cast_at + 0.5;
        let expected = room_distance(Vec3::new(sensor_x as f32, 0.25, 1.5), d);
        if (v.length() - expected).abs() > 1e-3 {
            panic!("column at {column_time} s: {} vs {expected}", v.length());
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
    // The skew: the last columns facing the wall read nearer than the first ones by v·Δt.
    let times: Vec<f32> = cloud.points.iter().map(|p| p.time).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "points in column order"
    );
    assert!(*times.last().unwrap() > 0.099 - 0.001);
}

#[test]
fn a_2d_laser_sees_footprints_in_cheap_mode_and_the_scene_in_3d_mode() {
    let laser = |mode: &str, name: &str| {
        format!(
            r#"<sensor class="laser" name="{name}"><pose_3d>0 0 0.3 0 0 0</pose_3d><sensor_period>0.1</sensor_period>
            <fov_degrees>360</fov_degrees><nrays>361</nrays><max_range>30</max_range><range_std_noise>0</range_std_noise>
            <angle_std_noise_deg>0</angle_std_noise_deg><raytrace_3d>{mode}</raytrace_3d></sensor>"#
        )
    };
    let world = load(&format!(
        r#"<walls><shape><pt>-5 -4</pt><pt>5 -4</pt><pt>5 4</pt><pt>-5 4</pt><pt>-5 -4</pt></shape>
        <wallThickness>0.2</wallThickness><wallHeight>2</wallHeight></walls>
        <actor name="p"><init_pose>2 0 0</init_pose></actor>{}{}"#,
        laser("false", "flat"),
        laser("true", "full")
    ));
    let obs = run(&world, 0.1, 0, |_, _| {});
    let scans: Vec<_> = obs
        .iter()
        .filter_map(|o| match o {
            Observation::LaserScan(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(scans.len(), 2);
    for scan in scans {
        assert_eq!(scan.ranges.len(), 361);
        // Beam 180 looks along +X: the actor's circle (radius 0.3 at x = 2) in 2D mode, its
        // placeholder cylinder (same radius) in 3D.
        assert!(
            (scan.ranges[180] - 1.7).abs() < 2e-3,
            "{}: {}",
            scan.sensor.name,
            scan.ranges[180]
        );
        // Beam 90 looks along -Y: the wall's inner face at y = -3.9.
        assert!(
            (scan.ranges[90] - 3.9).abs() < 1e-3,
            "{}: {}",
            scan.sensor.name,
            scan.ranges[90]
        );
        // Beam 0 along -X: x = -4.9.
        assert!(
            (scan.ranges[0] - 4.9).abs() < 1e-3,
            "{}: {}",
            scan.sensor.name,
            scan.ranges[0]
        );
        assert!(
            scan.instances[180] > 0 && scan.labels[180] == 5,
            "the actor is a pedestrian"
        );
    }
}

#[test]
fn lidar_output_is_identical_for_one_and_two_threads() {
    let world = load(&format!(
        "{ROOM}{}<actor name=\"p\"><init_pose>2 1 0</init_pose><path><waypoint>-2 1 0</waypoint><waypoint>2 1 0</waypoint></path></actor>",
        lidar("").replace(
            "<range_std_noise>0</range_std_noise>",
            "<range_std_noise>0.02</range_std_noise>"
        )
    ));
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| run(&world, 0.3, 9, |_, _| {}))
    };
    let one = on(1);
    assert_eq!(clouds(&one).len(), 3);
    assert_eq!(one, on(2));
}

fn point_triangle_distance(p: Vec3, [a, b, c]: [Vec3; 3]) -> f32 {
    // Closest point on a triangle (Ericson, Real-Time Collision Detection 5.1.5).
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return p.distance(a);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return p.distance(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return p.distance(a + ab * (d1 / (d1 - d3)));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return p.distance(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return p.distance(a + ac * (d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return p.distance(b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let denom = 1.0 / (va + vb + vc);
    p.distance(a + ab * (vb * denom) + ac * (vc * denom))
}

fn walker_world() -> World {
    let walker =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets/characters/Walker.glb");
    load(&format!(
        r#"<actor name="walker"><init_pose>3 -1 90</init_pose><turning_rate>0</turning_rate>
          <animation_idle>Idle</animation_idle><animation_walk>Walk</animation_walk><animation_run>Run</animation_run>
          <visual><model_uri>{}</model_uri><model_roll>90</model_roll></visual>
          <path><waypoint>3 1 90</waypoint><waypoint>3 -1 -90</waypoint></path></actor>
        <sensor class="lidar3d" name="vlp16"><pose_3d>0 0 0.8 0 0 0</pose_3d><sensor_period>0.1</sensor_period>
          <vert_nrays>16</vert_nrays><vert_fov_degrees>30</vert_fov_degrees><horz_nrays>1800</horz_nrays>
          <range_std_noise>0</range_std_noise></sensor>"#,
        walker.display()
    ))
}

#[test]
fn a_walking_skinned_actor_is_labelled_and_its_points_lie_on_its_body_as_posed_when_cast() {
    let world = walker_world();
    // The actor's triangles in the world at the end of every step.
    let mut bodies: Vec<(f64, Vec<[Vec3; 3]>)> = Vec::new();
    let obs = run(&world, 0.3, 0, |sim, live| {
        let s = &live.built.skinned[0];
        let mesh = live.built.scene.mesh(s.mesh);
        let m = live.built.scene.instance(s.instance).world_from_mesh();
        let v: Vec<Vec3> = mesh
            .vertices()
            .iter()
            .map(|p| Vec3::from(m.transform_point3a(*p)))
            .collect();
        let tris = mesh
            .triangles()
            .iter()
            .map(|t| t.map(|i| v[i as usize]))
            .collect();
        bodies.push((sim.time(), tris));
    });
    let actor_id = {
        let mut library = ModelLibrary::new(Resolver::new(
            std::env::temp_dir().join("passerby-no-cache"),
        ));
        let built = build_scene(&world, &mut library);
        built
            .objects
            .iter()
            .find(|o| o.name.is("walker"))
            .unwrap()
            .id
    };
    let mut on_body = 0;
    for cloud in clouds(&obs) {
        for p in cloud.points.iter().filter(|p| p.instance == actor_id) {
            assert_eq!(p.label, 5, "pedestrian class");
            let world_point = Vec3::from_array(p.position) + Vec3::new(0.0, 0.0, 0.8);
            let cast_at = cloud.stamp + f64::from(p.time);
            let (_, tris) = bodies.iter().find(|(t, _)| *t >= cast_at - 1e-6).unwrap();
            let d = tris
                .iter()
                .map(|t| point_triangle_distance(world_point, *t))
                .fold(f32::INFINITY, f32::min);
            assert!(
                d < 1e-3,
                "a point {d} m off the body as posed at {cast_at} s"
            );
            on_body += 1;
        }
    }
    assert!(on_body > 100, "{on_body} points on the walker");
}

/// A 20 x 10 pixel occupancy image, white but for a black column at x = 15, written in `dir`.
fn grid_png(dir: &std::path::Path) -> std::path::PathBuf {
    let png_path = dir.join("grid.png");
    let (w, h) = (20u32, 10u32);
    let pixels: Vec<u8> = (0..h)
        .flat_map(|_| (0..w).map(|x| if x == 15 { 0u8 } else { 255 }))
        .collect();
    let file = std::fs::File::create(&png_path).unwrap();
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .unwrap()
        .write_image_data(&pixels)
        .unwrap();
    png_path
}

#[test]
fn a_2d_laser_sees_an_occupancy_image_as_mvsim_places_it() {
    // Pixel (5, 5) (from the left and from the bottom) at the world origin, 0.1 m per pixel:
    // the black column spans x in [1.0, 1.1).
    let dir = tempfile::tempdir().unwrap();
    let png_path = grid_png(dir.path());
    let world = load(&format!(
        r#"<element class="occupancy_grid"><file>{}</file><resolution>0.1</resolution>
          <centerpixel_x>5</centerpixel_x><centerpixel_y>5</centerpixel_y></element>
        <sensor class="laser" name="flat"><pose_3d>0 0 0.2 0 0 0</pose_3d><sensor_period>0.1</sensor_period>
          <fov_degrees>90</fov_degrees><nrays>91</nrays><max_range>10</max_range>
          <range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg></sensor>"#,
        png_path.display()
    ));
    let obs = run(&world, 0.1, 0, |_, _| {});
    let Observation::LaserScan(scan) = &obs[0] else {
        panic!("{obs:?}")
    };
    // Straight ahead: the column's near face; at 20° (y = 0.36 at x = 1, inside the grid's
    // y range [-0.5, 0.5)) 1 / cos 20°; at 30° (y = 0.58) the beam has left the grid.
    assert!((scan.ranges[45] - 1.0).abs() < 1e-5, "{}", scan.ranges[45]);
    let at = |deg: f32| scan.ranges[(45.0 + deg) as usize];
    assert!(
        (at(20.0) - 1.0 / 20f32.to_radians().cos()).abs() < 1e-4,
        "{}",
        at(20.0)
    );
    assert!(
        at(30.0).is_infinite(),
        "y = 0.58 at x = 1 is off the grid: {}",
        at(30.0)
    );
    assert!(
        scan.instances[45] > 0 && scan.labels[45] == 2,
        "the grid is a wall"
    );
}

#[test]
fn a_3d_lidar_sees_an_occupancy_grid_flat_as_mvsim_or_standing_with_wall_height() {
    // The grid of the 2D laser test (x in [-0.5, 1.5), y in [-0.5, 0.5), black column at
    // x in [1.0, 1.1)); a lidar 0.2 m above x = 0.5 with rings every 2 degrees from -20.
    let dir = tempfile::tempdir().unwrap();
    let png_path = grid_png(dir.path());
    let world = |extra: &str| {
        load(&format!(
            r#"<element class="occupancy_grid"><file>{}</file><resolution>0.1</resolution>
              <centerpixel_x>5</centerpixel_x><centerpixel_y>5</centerpixel_y>{extra}</element>
            <sensor class="lidar3d" name="l"><pose_3d>0.5 0 0.2 0 0 0</pose_3d><sensor_period>0.1</sensor_period>
              <vert_nrays>21</vert_nrays><vert_fov_degrees>40</vert_fov_degrees><horz_nrays>360</horz_nrays>
              <range_std_noise>0</range_std_noise><scan_mode>flash</scan_mode></sensor>"#,
            png_path.display()
        ))
    };
    // The return along unit direction (yaw, pitch), if any.
    let along = |cloud: &PointCloud, yaw: f32, pitch: f32| {
        let (yaw, pitch) = (yaw.to_radians(), pitch.to_radians());
        let d = Vec3::new(
            yaw.cos() * pitch.cos(),
            yaw.sin() * pitch.cos(),
            pitch.sin(),
        );
        cloud
            .points
            .iter()
            .find(|p| Vec3::from_array(p.position).normalize().dot(d) > 1.0 - 1e-6)
            .map(|p| (Vec3::from_array(p.position).length(), p.label))
    };
    let (ground, wall) = (1, 2);
    let flat = world("");
    let obs = run(&flat, 0.1, 0, |_, _| {});
    let cloud = clouds(&obs)[0];
    // Down 20 degrees ahead: the floor at x = 1.05, an occupied cell drawn on the plane.
    let (r, label) = along(cloud, 0.0, -20.0).expect("the plane's occupied cell");
    assert!((r - 0.2 / 20f32.to_radians().sin()).abs() < 1e-4, "{r}");
    assert_eq!(label, wall);
    // Down 20 degrees behind: x = -0.05, a free cell.
    let (r, label) = along(cloud, 180.0, -20.0).expect("the plane's free cell");
    assert!((r - 0.2 / 20f32.to_radians().sin()).abs() < 1e-4, "{r}");
    assert_eq!(label, ground);
    // Level: nothing stands up from a flat grid.
    assert_eq!(along(cloud, 0.0, 0.0), None);
    // With `<wall_height>`, the column stands: the level beam meets its face at x = 1.0.
    let standing = world("<wall_height>1.0</wall_height>");
    let obs = run(&standing, 0.1, 0, |_, _| {});
    let (r, label) = along(clouds(&obs)[0], 0.0, 0.0).expect("the wall");
    assert!((r - 0.5).abs() < 1e-4, "{r}");
    assert_eq!(label, wall);
}

#[test]
fn sparing_actors_away_from_a_steps_lidar_columns_changes_no_point() {
    let world = walker_world();
    let all = run_posing(&world, 0.3, 0, false, |_, _| {});
    // In the spared run, the steps whose columns look away leave the walker's body as it was.
    let mut previous: Option<Vec<glam::Vec3A>> = None;
    let (mut kept, mut steps) = (0, 0);
    let spared = run_posing(&world, 0.3, 0, true, |_, live| {
        let body = live.built.scene.mesh(live.built.skinned[0].mesh).vertices();
        kept += usize::from(previous.as_deref() == Some(body));
        steps += 1;
        previous = Some(body.to_vec());
    });
    assert!(
        kept > steps / 2,
        "the walker was re-skinned in {} of {steps} steps",
        steps - kept
    );
    assert!(kept < steps, "the walker was never re-skinned");
    let (a, b) = (clouds(&all), clouds(&spared));
    assert_eq!(a.len(), 3);
    assert_eq!(b.len(), 3);
    let bits = |c: &PointCloud| {
        c.range_image
            .iter()
            .map(|r| r.to_bits())
            .collect::<Vec<_>>()
    };
    for (a, b) in a.into_iter().zip(b) {
        // Not `assert_eq!`: thousands of points would be printed.
        assert!(a.points == b.points, "the same points at {} s", a.stamp);
        assert!(bits(a) == bits(b), "the same range image at {} s", a.stamp);
    }
}

#[test]
fn a_vehicle_under_raised_terrain_starts_on_it_and_its_lidar_sees_the_ground_around() {
    // A 50 m plateau (an elevation map) over the origin and a robot placed there in 2D: it
    // stayed at z = 0 inside the terrain (as a MAVS rig's vehicle under a heightmap did).
    let world = load(
        r#"<element class="elevation_map"><elevation_data_matrix>[50 50 50 50; 50 50 50 50; 50 50 50 50; 50 50 50 50]</elevation_data_matrix>
             <resolution>20</resolution><corner_min_x>-30</corner_min_x><corner_min_y>-30</corner_min_y></element>
           <vehicle name="r"><init_pose>0 0 0</init_pose>
             <dynamics class="differential"><controller class="twist_ideal"/></dynamics>
             <sensor class="lidar3d" name="l"><pose_3d>0 0 1 0 0 0</pose_3d><sensor_period>0.1</sensor_period>
               <vert_nrays>16</vert_nrays><vert_fov_degrees>30</vert_fov_degrees><horz_nrays>360</horz_nrays>
               <range_std_noise>0</range_std_noise><max_range>40</max_range></sensor></vehicle>"#,
    );
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(&world, &mut library);
    let ground = passerby_scene::SceneGround::new(&built, &world);
    let mut live = LiveScene::new(built, &world).unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    sim.set_ground(Box::new(ground));
    let mut rig = Rig::new(&world, 0);
    let mut obs = Vec::new();
    while sim.time() < 0.1 - 1e-9 {
        sim.step();
        live.update(&sim).unwrap();
        obs.extend(rig.step(&sim, &SceneView { built: &live.built }));
    }
    let z = sim.vehicles()[0].pose.z;
    assert!(
        (z - 50.0).abs() < 0.01,
        "the robot stands on the plateau: z {z}"
    );
    let cloud = clouds(&obs)[0];
    // The lower beams (down to -15 degrees from 1 m up) meet the plateau 3.7 m and more away.
    let on_ground: Vec<_> = cloud
        .points
        .iter()
        .filter(|p| (p.position[2] + 1.0).abs() < 0.05)
        .collect();
    assert!(
        on_ground.len() > 360,
        "{} of {}",
        on_ground.len(),
        cloud.points.len()
    );
}

#[test]
fn demo_1robots_lasers_see_its_mrpt_gridmap() {
    // `uma_campus.gridmap.gz` is the world's only obstacle: decoded now, it was unseen (every
    // range infinite) before.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/worlds/mvsim/mvsim_tutorial/demo_1robot.world.xml");
    let world = passerby_mvsim::load_world_file(&path, &passerby_mvsim::LoadOptions::default())
        .value
        .unwrap();
    let obs = run(&world, 0.05, 0, |_, _| {});
    let scan = obs
        .iter()
        .find_map(|o| match o {
            Observation::LaserScan(s) => Some(s),
            _ => None,
        })
        .unwrap();
    let hits = scan.ranges.iter().filter(|r| r.is_finite()).count();
    assert!(hits > 50, "{hits} of {} rays hit", scan.ranges.len());
}
