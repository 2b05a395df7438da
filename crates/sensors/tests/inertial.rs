//! IMU and GNSS against analytic motion and geodesy: at rest, on a turning robot with a lever
//! arm, bias drift growing as sigma^2 t, fixes at and around the georeference, no coverage.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::load;

use glam::{DQuat, DVec3};
use passerby_sensors::gnss::{
    WGS84_A, WGS84_F, ecef_to_geodetic, enu_to_geodetic, geodetic_to_ecef,
};
use passerby_sensors::imu::Imu;
use passerby_sensors::noise::SensorRng;
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::Simulation;
use passerby_world::SensorRef;
use passerby_world::{Georeference, ImuParams, World};

/// Runs the world (no geometry needed for these sensors) and returns its observations.
fn run(world: &World, seconds: f64) -> (Vec<Observation>, Vec<String>) {
    let mut sim = Simulation::new(world).unwrap();
    let mut rig = Rig::new(world, 0);
    let built = passerby_scene::BuiltScene::default();
    let view = SceneView { built: &built };
    let mut out = Vec::new();
    while sim.time() < seconds - 1e-9 {
        sim.step();
        out.extend(rig.step(&sim, &view));
    }
    (out, rig.notices().to_vec())
}

fn imu_xml(pose: &str) -> String {
    format!(
        r#"<sensor class="imu" name="imu"><pose_3d>{pose}</pose_3d><sensor_period>0.05</sensor_period>
        <angular_velocity_std_noise>0</angular_velocity_std_noise><linear_acceleration_std_noise>0</linear_acceleration_std_noise></sensor>"#
    )
}

fn robot(twist: &str, sensors: &str) -> String {
    format!(
        r#"<vehicle name="r"><init_pose>1 2 30</init_pose><init_vel>{twist}</init_vel>
        <dynamics class="differential"><chassis linear_damping="0" angular_damping="0"/><controller class="twist_ideal"/></dynamics>{sensors}</vehicle>"#
    )
}

fn imu_samples(obs: &[Observation]) -> Vec<&passerby_sensors::imu::ImuSample> {
    obs.iter()
        .filter_map(|o| match o {
            Observation::Imu(s) => Some(s),
            _ => None,
        })
        .collect()
}

#[test]
fn an_imu_at_rest_reads_plus_g_on_z_and_no_rotation() {
    let world = load(&robot("0 0 0", &imu_xml("0.3 0.1 0.2 0 0 0")));
    let (obs, _) = run(&world, 1.0);
    let samples = imu_samples(&obs);
    assert_eq!(samples.len(), 20);
    for s in samples {
        assert!(s.angular_velocity.iter().all(|w| w.abs() < 1e-12), "{s:?}");
        let [ax, ay, az] = s.linear_acceleration;
        assert!(
            ax.abs() < 1e-9 && ay.abs() < 1e-9 && (az - 9.81).abs() < 1e-9,
            "{s:?}"
        );
    }
}

#[test]
fn an_imu_on_a_turning_robot_reads_the_rate_and_the_acceleration_at_its_lever_arm() {
    // 1 m/s forward turning at 0.5 rad/s; the IMU 0.5 m ahead of the centre, 0.2 m up.
    let (v, w) = (1.0, 0.5);
    let world = load(&robot("1 0 28.64788975654116", &imu_xml("0.5 0 0.2 0 0 0")));
    let (obs, _) = run(&world, 2.0);
    let samples = imu_samples(&obs);
    assert!(samples.len() >= 30);
    for s in &samples[2..] {
        let [gx, gy, gz] = s.angular_velocity;
        assert!(
            gx.abs() < 1e-9 && gy.abs() < 1e-9 && (gz - w).abs() < 1e-6,
            "{s:?}"
        );
        // a = ω × v at the centre, plus ω × (ω × r) at the arm; +g on z. The body is
        // integrated step by step as MVSim's Box2D does (not along exact arcs): within 1e-3.
        let expected = [-w * w * 0.5, w * v, 9.81];
        for (got, want) in s.linear_acceleration.iter().zip(expected) {
            assert!((got - want).abs() < 1e-3, "{s:?} vs {expected:?}");
        }
    }
    // Mounted turned by 90° about z: the same vector seen from axes turned by 90°.
    let world = load(&robot(
        "1 0 28.64788975654116",
        &imu_xml("0.5 0 0.2 90 0 0"),
    ));
    let (obs, _) = run(&world, 2.0);
    let s = imu_samples(&obs)[10];
    let [ax, ay, _] = s.linear_acceleration;
    assert!(
        (ax - w * v).abs() < 1e-3 && (ay - w * w * 0.5).abs() < 1e-3,
        "{s:?}"
    );
}

#[test]
fn bias_random_walk_variance_grows_as_sigma_squared_times_time() {
    let sigma = 0.01;
    let params = ImuParams {
        angular_velocity_white_noise: 0.0,
        linear_acceleration_white_noise: 0.0,
        angular_velocity_random_walk: sigma,
        linear_acceleration_random_walk: 0.0,
        orientation_std_noise: 0.0,
        measure_orientation: false,
    };
    let (count, seconds, rate) = (400, 4.0, 20.0);
    let mut finals = Vec::new();
    for k in 0..count {
        let name = format!("r/imu{k}");
        let sensor = SensorRef {
            vehicle: Some("r".into()),
            name: name.clone(),
        };
        let mut imu = Imu::new(sensor, &params, 9.81, 0.0, SensorRng::new(7, &name));
        let mut last = 0.0;
        for i in 0..=(seconds * rate) as usize {
            let t = i as f64 / rate;
            imu.record(t, DVec3::ZERO, DQuat::IDENTITY);
            last = imu.sample(t).angular_velocity[0];
        }
        finals.push(last);
    }
    let n = finals.len() as f64;
    let mean = finals.iter().sum::<f64>() / n;
    let var = finals.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let expected = sigma * sigma * seconds;
    assert!(
        (var - expected).abs() < 0.25 * expected,
        "{var} vs {expected}"
    );
}

#[test]
fn geodesy_round_trips_and_matches_the_meridian_radius() {
    let reference = Georeference {
        latitude_deg: 36.8949,
        longitude_deg: -2.3170,
        height: 120.0,
        world_to_enu_rotation: 0.0,
        world_is_utm: false,
    };
    let (lat, lon, h) = enu_to_geodetic(&reference, DVec3::ZERO);
    assert!(
        (lat - 36.8949).abs() < 1e-10 && (lon + 2.3170).abs() < 1e-10 && (h - 120.0).abs() < 1e-6
    );
    for (la, lo, he) in [
        (0.0, 0.0, 0.0),
        (89.9, 10.0, 5000.0),
        (-45.0, 170.0, -50.0),
        (36.8949, -2.317, 120.0),
    ] {
        let (a, b, c) = ecef_to_geodetic(geodetic_to_ecef(la, lo, he));
        assert!((a - la).abs() < 1e-11 && (b - lo).abs() < 1e-11 && (c - he).abs() < 1e-6);
    }
    // 100 m north: the latitude grows by 100 m over the meridian radius of curvature (textbook
    // M = a(1-e²)/(1-e² sin²φ)^1.5, at the ellipsoid height), to 1 mm.
    let e2 = WGS84_F * (2.0 - WGS84_F);
    let phi = 36.8949f64.to_radians();
    let m = WGS84_A * (1.0 - e2) / (1.0 - e2 * phi.sin().powi(2)).powf(1.5) + 120.0;
    let (lat_n, lon_n, _) = enu_to_geodetic(&reference, DVec3::new(0.0, 100.0, 0.0));
    let north = (lat_n - 36.8949).to_radians() * m;
    assert!((north - 100.0).abs() < 1e-3, "{north}");
    assert!((lon_n + 2.3170).abs() < 1e-12);
}

#[test]
fn gnss_fixes_the_georeference_at_the_origin_and_nothing_without_coverage() {
    let gnss = r#"<sensor class="gnss" name="gps"><pose_3d>0 0 0 0 0 0</pose_3d><sensor_period>0.5</sensor_period>
        <horizontal_std_noise>0</horizontal_std_noise><vertical_std_noise>0</vertical_std_noise></sensor>"#;
    let georef = "<georeference><latitude>36.8949</latitude><longitude>-2.3170</longitude><height>120</height></georeference>";
    let world = load(&format!("{georef}{gnss}"));
    let (obs, _) = run(&world, 1.0);
    let fixes: Vec<_> = obs
        .iter()
        .filter_map(|o| match o {
            Observation::Gnss(f) => Some(f),
            _ => None,
        })
        .collect();
    assert_eq!(fixes.len(), 2);
    assert!((fixes[0].latitude_deg - 36.8949).abs() < 1e-10);
    assert!((fixes[0].longitude_deg + 2.3170).abs() < 1e-10);
    assert!((fixes[0].altitude - 120.0).abs() < 1e-6);
    let shadow = r#"<element class="property_region"><property_name>gps_no_coverage</property_name>
        <value_bool>true</value_bool><x_min>-1</x_min><x_max>1</x_max><y_min>-1</y_min><y_max>1</y_max></element>"#;
    let world = load(&format!("{georef}{shadow}{gnss}"));
    assert!(run(&world, 1.0).0.is_empty(), "no fix under the roof");
    let world = load(gnss);
    let (obs, notices) = run(&world, 1.0);
    assert!(obs.is_empty());
    assert!(
        notices.iter().any(|n| n.contains("no <georeference>")),
        "{notices:?}"
    );
}

#[test]
fn utm_coordinates_match_proj() {
    use passerby_sensors::gnss::geodetic_to_utm;
    // Reference values from PROJ 9 through pyproj (`Transformer.from_crs("EPSG:4326",
    // "+proj=utm +zone=Z [+south] +ellps=WGS84", always_xy=True)`), computed once by hand.
    for (lat, lon, zone, south, e, n) in [
        (
            36.894718,
            -2.316988,
            30,
            false,
            560_855.813_422_891_8,
            4_083_410.966_450_693,
        ),
        (
            -33.8688,
            151.2093,
            56,
            true,
            334_368.633_648_097,
            6_250_948.345_385_009,
        ),
        (
            64.1466,
            -21.9426,
            27,
            false,
            454_138.376_516_023_4,
            7_113_689.868_973_987,
        ),
        (0.5, 3.0, 31, false, 500_000.0, 55_265.037_142_649_1),
    ] {
        let (ee, nn, z, s) = geodetic_to_utm(lat, lon);
        assert_eq!((z, s), (zone, south), "{lat} {lon}");
        assert!(
            (ee - e).abs() < 1e-3 && (nn - n).abs() < 1e-3,
            "{lat} {lon}: {ee} {nn}"
        );
    }
}

#[test]
fn gnss_in_a_utm_world_reads_its_position_about_the_reference() {
    // MVSim's `world_is_utm`: world x, y, z are easting, northing and height; the antenna's
    // position less the reference's is taken as ENU about it.
    let (e, n, _, _) = passerby_sensors::gnss::geodetic_to_utm(36.894718, -2.316988);
    let georef = "<georeference><world_is_utm>true</world_is_utm><latitude>36.894718</latitude>\
        <longitude>-2.316988</longitude><height>100</height></georeference>";
    let gnss = r#"<sensor class="gnss" name="gps"><pose_3d>0 0 0 0 0 0</pose_3d><sensor_period>0.5</sensor_period>
        <horizontal_std_noise>0</horizontal_std_noise><vertical_std_noise>0</vertical_std_noise></sensor>"#;
    let vehicle = format!(
        r#"<vehicle name="r"><init_pose>{} {} 0</init_pose>
        <dynamics class="differential"><chassis linear_damping="0" angular_damping="0"/><controller class="twist_ideal"/></dynamics>{gnss}</vehicle>"#,
        e + 30.0,
        n - 40.0
    );
    let world = load(&format!("{georef}{vehicle}"));
    let (obs, notices) = run(&world, 0.5);
    assert!(notices.iter().all(|n| !n.contains("utm")), "{notices:?}");
    let fix = obs
        .iter()
        .find_map(|o| match o {
            Observation::Gnss(f) => Some(f),
            _ => None,
        })
        .unwrap();
    let reference = Georeference {
        latitude_deg: 36.894718,
        longitude_deg: -2.316988,
        height: 100.0,
        world_to_enu_rotation: 0.0,
        world_is_utm: true,
    };
    // The vehicle stands at world z 0: 100 m below the reference's height.
    let (lat, lon, h) = enu_to_geodetic(&reference, DVec3::new(30.0, -40.0, -100.0));
    assert!(
        (fix.latitude_deg - lat).abs() < 1e-9,
        "{} vs {lat}",
        fix.latitude_deg
    );
    assert!((fix.longitude_deg - lon).abs() < 1e-9);
    assert!((fix.altitude - h).abs() < 1e-4, "{} vs {h}", fix.altitude);
}
