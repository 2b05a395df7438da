//! MVSim's own `tests/test_vehicle_trajectories.cpp`, case by case: a vehicle built from the
//! same XML, commanded with the same twist for 1 s in 1 ms steps, ends within MVSim's
//! tolerance of the same expected pose (straight: (1, 0, 0); curve v = 1, ω = 1:
//! (0.841, 0.459, 1 rad)); curves under PID control show lateral friction above 1 N.

use passerby_dynamics::Physics;
use std::path::Path;

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Differential,
    /// MVSim's "differential_4w" case: `<dynamics class="differential">` with four wheel tags,
    /// of which the class reads `l_wheel` and `r_wheel` (at x = 0.3) only.
    Differential4w,
    Ackermann,
    /// Not in MVSim's test: the Ackermann case as `ackermann_drivetrain` with this
    /// `<drivetrain type>` (one motor torque through its differentials).
    Drivetrain(&'static str),
}

fn vehicle_xml(class: Class, controller: &str) -> String {
    let wheels = match class {
        Class::Differential => {
            r#"<l_wheel pos="0  0.5" mass="1.0" width="0.03" diameter="0.20" />
               <r_wheel pos="0 -0.5" mass="1.0" width="0.03" diameter="0.20" />"#
        }
        Class::Differential4w => {
            r#"<l_wheel  pos=" 0.3  0.5" mass="1.0" width="0.03" diameter="0.20" />
               <r_wheel  pos=" 0.3 -0.5" mass="1.0" width="0.03" diameter="0.20" />
               <lr_wheel pos="-0.3  0.5" mass="1.0" width="0.03" diameter="0.20" />
               <rr_wheel pos="-0.3 -0.5" mass="1.0" width="0.03" diameter="0.20" />"#
        }
        Class::Ackermann | Class::Drivetrain(_) => {
            r#"<rl_wheel pos="0  1" mass="6.0" width="0.30" diameter="0.62" />
               <rr_wheel pos="0 -1" mass="6.0" width="0.30" diameter="0.62" />
               <fl_wheel mass="6.0" width="0.30" diameter="0.62" />
               <fr_wheel mass="6.0" width="0.30" diameter="0.62" />
               <f_wheels_x>1.3</f_wheels_x>
               <f_wheels_d>2.0</f_wheels_d>
               <max_steer_ang_deg>60.0</max_steer_ang_deg>"#
        }
    };
    let (dynamics, pid) = match class {
        Class::Ackermann => (
            "ackermann",
            "<KP>1000</KP><KI>0</KI><KD>0</KD><max_torque>300</max_torque>".to_owned(),
        ),
        Class::Drivetrain(_) => (
            "ackermann_drivetrain",
            "<KP>1000</KP><KI>0</KI><KD>0</KD><max_torque>600</max_torque>".to_owned(),
        ),
        _ => (
            "differential",
            "<KP>4</KP><KI>3</KI><KD>0</KD><max_torque>20</max_torque>".to_owned(),
        ),
    };
    let drivetrain = match class {
        Class::Drivetrain(kind) => format!(r#"<drivetrain type="{kind}"/>"#),
        _ => String::new(),
    };
    format!(
        r#"<mvsim_world version="1.0">
             <simul_timestep>0.001</simul_timestep>
             <vehicle name="test_veh">
               <dynamics class="{dynamics}">
                 <chassis linear_damping="0" angular_damping="0" />
                 {wheels}
                 <controller class="{controller}">{pid}</controller>
                 {drivetrain}
               </dynamics>
               <init_pose>0 0 0</init_pose>
             </vehicle>
           </mvsim_world>"#
    )
}

/// Runs one case; returns the final (x, y, yaw) and the largest lateral wheel force seen.
fn run(class: Class, controller: &str, twist: [f64; 3]) -> ([f64; 3], f64) {
    let loaded = passerby_mvsim::load_world_str(
        Path::new("test_vehicle_trajectories.world.xml"),
        vehicle_xml(class, controller),
        &passerby_mvsim::LoadOptions::default(),
    );
    let world = loaded.value.expect("the test vehicle loads");
    let mut physics = Physics::new(&world, &[]);
    assert!(physics.drive_mut(0).controller.set_twist(twist));
    let mut max_lateral: f64 = 0.0;
    for _ in 0..1000 {
        physics.step(0.001, &[true]);
        for f in &physics.drive(0).wheel_forces {
            max_lateral = max_lateral.max(f[1].abs());
        }
    }
    (physics.pose(0), max_lateral)
}

const STRAIGHT: [f64; 3] = [1.0, 0.0, 0.0];
const CURVE: [f64; 3] = [1.0, 0.0, 1.0];
const AT_STRAIGHT: [f64; 3] = [1.0, 0.0, 0.0];
const AT_CURVE: [f64; 3] = [0.841, 0.459, 1.0];

fn check(class: Class, controller: &str, twist: [f64; 3], expected: [f64; 3], tolerance: f64) {
    let (pose, max_lateral) = run(class, controller, twist);
    for (axis, (got, want)) in ["x", "y", "yaw"].iter().zip(pose.iter().zip(expected)) {
        assert!(
            (got - want).abs() <= tolerance,
            "{controller}: {axis} = {got:.4}, expected {want} ± {tolerance} (pose {pose:?})"
        );
    }
    if controller != "twist_ideal" && twist[2] != 0.0 {
        assert!(max_lateral > 1.0, "lateral friction {max_lateral} N");
    }
}

#[test]
fn differential_twist_ideal() {
    check(
        Class::Differential,
        "twist_ideal",
        STRAIGHT,
        AT_STRAIGHT,
        0.04,
    );
    check(Class::Differential, "twist_ideal", CURVE, AT_CURVE, 0.04);
}

#[test]
fn differential_twist_pid() {
    check(
        Class::Differential,
        "twist_pid",
        STRAIGHT,
        AT_STRAIGHT,
        0.25,
    );
    check(Class::Differential, "twist_pid", CURVE, AT_CURVE, 0.25);
}

#[test]
fn differential_4w_twist_ideal() {
    check(
        Class::Differential4w,
        "twist_ideal",
        STRAIGHT,
        AT_STRAIGHT,
        0.04,
    );
    check(Class::Differential4w, "twist_ideal", CURVE, AT_CURVE, 0.04);
}

#[test]
fn differential_4w_twist_pid() {
    check(
        Class::Differential4w,
        "twist_pid",
        STRAIGHT,
        AT_STRAIGHT,
        0.25,
    );
    check(Class::Differential4w, "twist_pid", CURVE, AT_CURVE, 0.35);
}

#[test]
fn ackermann_twist_ideal() {
    check(Class::Ackermann, "twist_ideal", STRAIGHT, AT_STRAIGHT, 0.04);
    check(Class::Ackermann, "twist_ideal", CURVE, AT_CURVE, 0.04);
}

#[test]
fn ackermann_twist_front_steer_pid() {
    check(
        Class::Ackermann,
        "twist_front_steer_pid",
        STRAIGHT,
        AT_STRAIGHT,
        0.25,
    );
    check(
        Class::Ackermann,
        "twist_front_steer_pid",
        CURVE,
        AT_CURVE,
        0.25,
    );
}

/// MVSim has no test of `ackermann_drivetrain`: its straight case holds MVSim's Ackermann
/// tolerance through every differential; on the curve (one speed PID, the front wheels steered
/// to 52°) each turns the commanded way, less far than the per-wheel PIDs of `ackermann`, and
/// the differential matters (front drive measured 0.60 rad, rear 0.73 open / 0.64 Torsen, 4WD
/// 0.92 / 0.90).
#[test]
fn ackermann_drivetrain_twist_front_steer_pid_through_each_differential() {
    let mut curves = Vec::new();
    for kind in [
        "open_front",
        "open_rear",
        "open_4wd",
        "torsen_front",
        "torsen_rear",
        "torsen_4wd",
    ] {
        let class = Class::Drivetrain(kind);
        check(class, "twist_front_steer_pid", STRAIGHT, AT_STRAIGHT, 0.25);
        let ([x, y, yaw], _) = run(class, "twist_front_steer_pid", CURVE);
        assert!(
            x > 0.5 && y > 0.15 && (0.5..1.25).contains(&yaw),
            "{kind}: {:?}",
            [x, y, yaw]
        );
        curves.push(yaw);
    }
    // Open and Torsen rear drives share torque differently in the turn.
    assert!((curves[1] - curves[4]).abs() > 0.01, "{curves:?}");
    // Four driven wheels turn further than two steered driven ones.
    assert!(curves[2] > curves[0] + 0.1, "{curves:?}");
}
