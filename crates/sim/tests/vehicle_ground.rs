//! Vehicles and the ground they stand on: MVSim's own `tests/test_drift_on_elevation.cpp`
//! (a robot told to stay put on a slope does not creep, with `twist_ideal` or `twist_pid`), and
//! friction zones (`property_region` `friction_mu`): where μ is low the wheels slip.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_sim::{SimOptions, Simulation};
use std::path::Path;

fn simulation(xml: String, timestep: f64) -> Simulation {
    seeded(xml, timestep, 0)
}

fn seeded(xml: String, timestep: f64, seed: u64) -> Simulation {
    let loaded = passerby_mvsim::load_world_str(
        Path::new("ground.world.xml"),
        xml,
        &passerby_mvsim::LoadOptions::default(),
    );
    let world = loaded.value.expect("the test world loads");
    let options = SimOptions {
        timestep: Some(timestep),
        seed,
    };
    Simulation::with_options(&world, &options).unwrap()
}

/// MVSim's drift test world, verbatim but for the controller class.
fn drift_world(controller: &str) -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worlds/drift_on_elevation.world.xml");
    let xml = std::fs::read_to_string(path).expect("the drift world");
    xml.replace("class=\"twist_ideal\"", &format!("class=\"{controller}\""))
}

#[test]
fn a_robot_left_on_a_slope_does_not_drift() {
    for controller in ["twist_ideal", "twist_pid"] {
        let mut sim = simulation(drift_world(controller), 0.005);
        sim.step();
        let start = sim.pose("test_veh").unwrap();
        // The slope is real: the robot stands tilted.
        assert!(start.pitch.abs() + start.roll.abs() > 0.05, "{start:?}");
        sim.run_until(3.0);
        let end = sim.pose("test_veh").unwrap();
        let (dx, dy, dyaw) = (end.x - start.x, end.y - start.y, end.yaw - start.yaw);
        assert!(
            dx.abs() < 0.001 && dy.abs() < 0.001 && dyaw.abs() < 0.01,
            "{controller}: drift ({dx}, {dy}, {dyaw})"
        );
    }
}

#[test]
fn without_friction_a_robot_on_a_slope_slides_down() {
    // The same world with μ = 0.01: the slope's pull exceeds what friction holds.
    let xml = drift_world("twist_pid").replace("<mu>0.8</mu>", "<mu>0.01</mu>");
    let mut sim = simulation(xml, 0.005);
    sim.step();
    let start = sim.pose("test_veh").unwrap();
    sim.run_until(2.0);
    let end = sim.pose("test_veh").unwrap();
    let moved = (end.x - start.x).hypot(end.y - start.y);
    assert!(moved > 0.5, "slid {moved} m: {start:?} -> {end:?}");
    // Downhill: lower than it started.
    assert!(end.z < start.z - 0.05, "{start:?} -> {end:?}");
}

/// A robot on a floor whose μ is `mu` (a property region around it), told to go 2 m/s.
fn sprint_on(mu: f64) -> Simulation {
    let xml = format!(
        r#"<mvsim_world version="1.0">
  <element class="property_region">
    <property_name>friction_mu</property_name>
    <value_double>{mu}</value_double>
    <x_min>-10</x_min> <y_min>-10</y_min> <z_min>-1</z_min>
    <x_max>10</x_max> <y_max>10</y_max> <z_max>1</z_max>
  </element>
  <vehicle name="r1">
    <dynamics class="differential">
      <l_wheel pos="0 0.5" mass="2" width="0.1" diameter="0.4"/>
      <r_wheel pos="0 -0.5" mass="2" width="0.1" diameter="0.4"/>
      <controller class="twist_pid"><KP>100</KP><KI>20</KI><max_torque>200</max_torque></controller>
    </dynamics>
    <init_pose>0 0 0</init_pose>
  </vehicle>
</mvsim_world>"#
    );
    let mut sim = simulation(xml, 0.002);
    sim.set_twist("r1", [2.0, 0.0, 0.0]).unwrap();
    sim.run_until(0.5);
    sim
}

#[test]
fn on_a_friction_zone_with_low_mu_the_wheels_slip() {
    // μ g caps the acceleration: 0.1 -> 0.98 m/s², 0.8 -> 7.8 m/s².
    let slippery = sprint_on(0.1);
    let grippy = sprint_on(0.8);
    let speed = |s: &Simulation| s.vehicles()[0].velocity[0];
    assert!(speed(&slippery) < 0.6, "μ 0.1: {} m/s", speed(&slippery));
    assert!(speed(&grippy) > 1.8, "μ 0.8: {} m/s", speed(&grippy));
    // Slip: the wheels' rim speed runs ahead of the ground's on the slippery floor only.
    let slip = |s: &Simulation| {
        let odometry = s.vehicle_odometry_twist(0)[0];
        odometry - speed(s)
    };
    assert!(
        slip(&slippery) > 0.3,
        "slip at μ 0.1: {} m/s",
        slip(&slippery)
    );
    assert!(
        slip(&grippy).abs() < 0.05,
        "slip at μ 0.8: {} m/s",
        slip(&grippy)
    );
}

fn odometry_run(odometry: &str, seed: u64) -> Simulation {
    let xml = format!(
        r#"<mvsim_world version="1.0">
  <vehicle name="r1">
    <dynamics class="differential"><controller class="twist_ideal"/></dynamics>
    {odometry}
    <init_pose>1 2 90</init_pose>
  </vehicle>
</mvsim_world>"#
    );
    let mut sim = seeded(xml, 0.01, seed);
    sim.set_twist("r1", [1.0, 0.0, 0.0]).unwrap();
    sim.run_until(2.0);
    sim
}

#[test]
fn wheel_odometry_scales_true_increments_by_the_vehicles_multipliers() {
    // x increments 10 % long: the odometry runs ahead of the truth along the heading (+y).
    let sim = odometry_run(
        r#"<odometry x_multiplier="1.1" y_multiplier="1" yaw_multiplier="1"/>"#,
        0,
    );
    let v = &sim.vehicles()[0];
    let travelled = v.pose.y - 2.0;
    assert!(travelled > 1.9, "{:?}", v.pose);
    let [ox, oy, oyaw] = v.odometry;
    assert!((ox - 1.0).abs() < 1e-6, "{:?}", v.odometry);
    assert!(
        (oy - 2.0 - 1.1 * travelled).abs() < 1e-6,
        "{:?}",
        v.odometry
    );
    assert!((oyaw - v.pose.yaw).abs() < 1e-9);
    // The wheels roll at the ground's speed under the ideal controller.
    assert!(
        (v.odometry_twist[0] - 1.0).abs() < 1e-3,
        "{:?}",
        v.odometry_twist
    );
}

#[test]
fn without_odometry_multipliers_each_vehicle_draws_its_own_from_the_seed() {
    let multipliers = |seed| odometry_run("", seed).vehicles()[0].odometry_multipliers;
    let a = multipliers(7);
    assert_eq!(a, multipliers(7), "a seed gives one draw");
    assert_ne!(a, multipliers(8));
    // N(1, 0.02²): within 5 sigma, and not all exactly 1.
    assert!(
        a.iter().all(|k| (k - 1.0).abs() < 0.1) && a.iter().any(|&k| k != 1.0),
        "{a:?}"
    );
    // One axis given: that one is kept, the others still drawn as before.
    let b = odometry_run(r#"<odometry yaw_multiplier="1"/>"#, 7).vehicles()[0].odometry_multipliers;
    assert_eq!([b[0], b[1], b[2]], [a[0], a[1], 1.0]);
}

/// A robot (wheels 0.2 m across: it climbs 0.11 m) driving +x at 0.5 m/s towards a terrain step
/// of `rise` metres whose foot is at x = 2, for 8 s; whether it ever reported a collision.
fn drive_at_step(rise: f64) -> (Simulation, bool) {
    // MVSim's matrix: rows along +x, columns along +y.
    let matrix = (0..60)
        .map(|row| if row < 20 { ["0"; 15] } else { ["1"; 15] }.join(" "))
        .collect::<Vec<_>>()
        .join(";\n");
    let xml = format!(
        r#"<mvsim_world version="1.0">
  <element class="elevation_map">
    <resolution>0.1</resolution>
    <elevation_data_matrix>[{matrix}]</elevation_data_matrix>
    <elevation_data_matrix_scale>{rise}</elevation_data_matrix_scale>
    <corner_min_x>0</corner_min_x>
    <corner_min_y>-0.7</corner_min_y>
  </element>
  <vehicle name="r1">
    <dynamics class="differential">
      <chassis mass="15" zmin="0.05" zmax="0.3"/>
      <l_wheel pos="0 0.25" mass="2" width="0.05" diameter="0.2"/>
      <r_wheel pos="0 -0.25" mass="2" width="0.05" diameter="0.2"/>
      <controller class="twist_pid"><KP>20</KP><KI>10</KI><max_torque>50</max_torque></controller>
    </dynamics>
    <init_pose>0.5 0 0</init_pose>
  </vehicle>
</mvsim_world>"#
    );
    let mut sim = simulation(xml, 0.005);
    sim.set_twist("r1", [0.5, 0.0, 0.0]).unwrap();
    let mut collided = false;
    while sim.time() < 8.0 {
        sim.step();
        collided |= sim.vehicles()[0].in_collision;
    }
    (sim, collided)
}

#[test]
fn a_terrain_step_higher_than_half_a_wheel_stops_a_robot() {
    // The differential class's default outline reaches 0.6 m ahead of the axle: its nose
    // stops where the ground under it has risen 0.11 m (x = 1.94), give or take the obstacle.
    let (blocked, collided) = drive_at_step(0.3);
    let p = blocked.pose("r1").unwrap();
    assert!(
        (p.x + 0.6 - 1.94).abs() < 0.1,
        "drove onto a 0.3 m step: {p:?}"
    );
    assert!(p.z.abs() < 0.01 && collided, "{p:?}");
    // A 5 cm step is climbed.
    let (climbing, collided) = drive_at_step(0.05);
    let climbed = climbing.pose("r1").unwrap();
    assert!(
        climbed.x > 3.5 && (climbed.z - 0.05).abs() < 0.01,
        "{climbed:?}"
    );
    assert!(!collided);
}
