//! Vehicles against the world, through the simulation: a wall stops a robot and raises its
//! collision flag, a robot pushes a dynamic block but not a static one, two robots meeting head
//! on do not pass through each other. The robot is MVSim's small differential robot with a
//! `twist_pid` controller, so the wheels, not the command, push the chassis.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_sim::{SimOptions, Simulation};
use passerby_world::{LabeledElement, OccupancyCells, OccupancyGrid, World, WorldElement};
use std::path::Path;

fn robot(name: &str, x: f64, yaw_deg: f64) -> String {
    format!(
        r#"<vehicle name="{name}">
             <dynamics class="differential">
               <chassis mass="15" zmin="0.05" zmax="0.6"/>
               <l_wheel pos="0 0.5" mass="4" width="0.1" diameter="0.4"/>
               <r_wheel pos="0 -0.5" mass="4" width="0.1" diameter="0.4"/>
               <controller class="twist_pid"><KP>20</KP><KI>10</KI><max_torque>100</max_torque></controller>
             </dynamics>
             <init_pose>{x} 0 {yaw_deg}</init_pose>
           </vehicle>"#
    )
}

fn load(body: &str) -> World {
    let xml = format!(r#"<mvsim_world version="1.0">{body}</mvsim_world>"#);
    let loaded = passerby_mvsim::load_world_str(
        Path::new("contacts.world.xml"),
        xml,
        &passerby_mvsim::LoadOptions::default(),
    );
    loaded.value.expect("the test world loads")
}

fn simulate(world: &World) -> Simulation {
    let options = SimOptions {
        timestep: Some(0.005),
        seed: 0,
    };
    Simulation::with_options(world, &options).unwrap()
}

fn simulation(body: &str) -> Simulation {
    simulate(&load(body))
}

const WALL_AT_3: &str = r#"<element class="vertical_plane">
    <x0>3</x0> <y0>-5</y0> <x1>3</x1> <y1>5</y1> <height>1</height> <thickness>0.1</thickness>
  </element>"#;

#[test]
fn a_robot_driven_into_a_wall_stops_at_it_and_reports_the_collision() {
    let mut sim = simulation(&format!("{WALL_AT_3}{}", robot("r1", 0.0, 0.0)));
    sim.set_twist("r1", [1.0, 0.0, 0.0]).unwrap();
    sim.run_until(1.0);
    assert!(!sim.vehicles()[0].in_collision, "nothing near yet");
    let mut first_touch = None;
    while sim.time() < 8.0 {
        sim.step();
        if sim.vehicles()[0].in_collision && first_touch.is_none() {
            first_touch = Some(sim.time());
        }
    }
    let p = sim.pose("r1").unwrap();
    // The chassis' nose (x = 0.6) stops at the wall's face (x = 2.95), give or take the skin.
    assert!((p.x + 0.6 - 2.95).abs() < 0.02, "{p:?}");
    assert!(p.y.abs() < 0.05 && p.yaw.abs() < 0.05, "{p:?}");
    let touched = first_touch.expect("the collision flag was raised");
    assert!((2.0..4.0).contains(&touched), "first touch at {touched} s");
    assert!(sim.vehicles()[0].in_collision, "still pressing on the wall");
}

fn block(name: &str, is_static: bool) -> String {
    format!(
        r#"<block name="{name}">
             <static>{is_static}</static>
             <mass>5</mass> <ground_friction>0.3</ground_friction>
             <shape><pt>-0.3 -0.3</pt><pt>0.3 -0.3</pt><pt>0.3 0.3</pt><pt>-0.3 0.3</pt></shape>
             <init_pose>2 0 0</init_pose>
           </block>"#
    )
}

#[test]
fn a_robot_pushes_a_dynamic_block_and_not_a_static_one() {
    for (is_static, moves) in [(false, true), (true, false)] {
        let mut sim = simulation(&format!(
            "{}{}",
            block("crate", is_static),
            robot("r1", 0.0, 0.0)
        ));
        sim.set_twist("r1", [0.5, 0.0, 0.0]).unwrap();
        sim.run_until(8.0);
        let b = sim.pose("crate").unwrap();
        let r = sim.pose("r1").unwrap();
        if moves {
            assert!(b.x > 3.5, "pushed: block at {b:?}");
            // The robot's nose stays at the block's back face.
            assert!((b.x - 0.3 - (r.x + 0.6)).abs() < 0.05, "{r:?} {b:?}");
        } else {
            assert!(b.x == 2.0 && b.y == 0.0, "static: {b:?}");
            assert!(
                (r.x + 0.6 - 1.7).abs() < 0.02,
                "stopped at the block: {r:?}"
            );
        }
    }
}

#[test]
fn two_robots_meeting_head_on_do_not_pass_through_each_other() {
    let mut sim = simulation(&format!(
        "{}{}",
        robot("a", -2.0, 0.0),
        robot("b", 2.0, 180.0)
    ));
    sim.set_twist("a", [1.0, 0.0, 0.0]).unwrap();
    sim.set_twist("b", [1.0, 0.0, 0.0]).unwrap();
    let mut met = false;
    while sim.time() < 6.0 {
        sim.step();
        let (a, b) = (sim.pose("a").unwrap(), sim.pose("b").unwrap());
        // Noses at x + 0.6 and x - 0.6: never overlapping by more than the skin.
        assert!(a.x + 0.6 <= b.x - 0.6 + 0.02, "{a:?} {b:?}");
        met |= sim.vehicles().iter().all(|v| v.in_collision);
    }
    assert!(met, "they met");
}

/// MVSim's own `demo_articulated_vehicle`: an Ackermann tractor (`twist_ideal`) towing a
/// passive two-wheel trailer through a revolute hitch limited to ±45°.
fn articulated() -> Simulation {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path =
        dir.join("../../../shared/worlds/mvsim/mvsim_tutorial/demo_articulated_vehicle.world.xml");
    let opts = passerby_mvsim::LoadOptions {
        mvsim_data: dir.join("../../data/mvsim"),
        ..Default::default()
    };
    let world =
        (passerby_mvsim::load_world_file(&path, &opts).value).expect("the articulated demo loads");
    Simulation::new(&world).unwrap()
}

/// Where a vehicle-frame point of a vehicle is in the world.
fn point_of(sim: &Simulation, name: &str, [x, y]: [f64; 2]) -> [f64; 2] {
    let p = sim.pose(name).unwrap();
    let (s, c) = p.yaw.sin_cos();
    [p.x + c * x - s * y, p.y + s * x + c * y]
}

#[test]
fn the_trailer_follows_its_truck_through_a_turn() {
    let mut sim = articulated();
    // 1 m/s, turning left at 0.3 rad/s: a quarter circle of radius 3.3 m in about 5 s.
    sim.set_twist("tractor", [1.0, 0.0, 0.3]).unwrap();
    let mut widest: f64 = 0.0;
    while sim.time() < 6.0 {
        sim.step();
        // The hitch holds: the tractor's anchor and the trailer's stay together.
        let a = point_of(&sim, "tractor", [-0.524, 0.0]);
        let b = point_of(&sim, "trailer", [0.0, 0.0]);
        let gap = (a[0] - b[0]).hypot(a[1] - b[1]);
        assert!(gap < 0.02, "hitch opened by {gap} m at {} s", sim.time());
        let (t, r) = (sim.pose("tractor").unwrap(), sim.pose("trailer").unwrap());
        let angle = (t.yaw - r.yaw).sin().atan2((t.yaw - r.yaw).cos());
        widest = widest.max(angle.abs());
    }
    let (t, r) = (sim.pose("tractor").unwrap(), sim.pose("trailer").unwrap());
    // The tractor turned ~1.8 rad; the trailer turned with it, lagging by less than the limit.
    assert!(t.yaw > 1.5, "{t:?}");
    assert!(r.yaw > 1.0, "the trailer turned: {r:?}");
    assert!(
        widest > 0.05 && widest < 45f64.to_radians() + 0.02,
        "hitch angle {widest}"
    );
}

#[test]
fn a_walking_actor_pushes_a_robot_out_of_its_way() {
    let actor = r#"<actor name="walker">
        <init_pose>0 0 0</init_pose>
        <path loop="false"><waypoint>0 0 0</waypoint><waypoint>6 0 0</waypoint></path>
      </actor>"#;
    let mut sim = simulation(&format!("{actor}{}", robot("r1", 2.0, 0.0)));
    sim.run_until(4.0);
    let r = sim.pose("r1").unwrap();
    let a = sim.pose("walker").unwrap();
    // The actor walked on (kinematic); the robot, in its way, was pushed ahead of it.
    assert!(a.x > 4.5, "{a:?}");
    assert!(
        r.x - 0.4 > a.x,
        "the robot's back stays ahead of the actor: {r:?} {a:?}"
    );
}

#[test]
fn occupied_cells_of_an_occupancy_grid_stop_a_robot() {
    // 20 x 20 cells of 0.5 m from (-5, -5); column 10 (x from 0 to 0.5) occupied: a wall
    // across the robot's way.
    let cells = OccupancyCells {
        cols: 20,
        rows: 20,
        resolution: 0.5,
        origin: [-5.0, -5.0],
        yaw: 0.0,
        occupied: (0..400).map(|i| i % 20 == 10).collect(),
        shade: vec![255; 400],
    };
    let mut world = load(&robot("r1", -3.0, 0.0));
    world.elements.push(LabeledElement {
        element: WorldElement::OccupancyGrid(OccupancyGrid {
            file: String::new(),
            ros_map: None,
            resolution: 0.5,
            center_pixel: [None, None],
            show_collisions: false,
            restitution: 0.01,
            lateral_friction: 0.5,
            wall_height: 0.0,
            cells: Some(cells),
        }),
        label: None,
    });
    let mut sim = simulate(&world);
    sim.set_twist("r1", [1.0, 0.0, 0.0]).unwrap();
    sim.run_until(6.0);
    let r = sim.pose("r1").unwrap();
    assert!(
        (r.x + 0.6).abs() < 0.03,
        "stopped at the cells' face x = 0: {r:?}"
    );
    assert!(sim.vehicles()[0].in_collision);
}

#[test]
fn a_block_shaped_by_its_visual_collides_as_the_outline_it_is_given() {
    // `<shape_from_visual/>` with no model loaded: a 1 m square until the scene gives the
    // visual's outline (here 0.2 m deep, its face 0.1 m before the block's origin at x = 2).
    let block = r#"<block name="shelf"><static>true</static><shape_from_visual/>
        <visual><model_uri>shelf.dae</model_uri></visual>
        <init_pose>2 0 0</init_pose></block>"#;
    let mut sim = simulation(&format!("{block}{}", robot("r1", 0.0, 0.0)));
    assert!(
        sim.notices()
            .iter()
            .any(|n| n.contains("<shape_from_visual/>")),
        "{:?}",
        sim.notices()
    );
    sim.set_outline(
        "shelf",
        &[[-0.1, -2.0], [0.1, -2.0], [0.1, 2.0], [-0.1, 2.0]],
    )
    .unwrap();
    assert!(
        !sim.notices()
            .iter()
            .any(|n| n.contains("<shape_from_visual/>")),
        "{:?}",
        sim.notices()
    );
    sim.set_twist("r1", [1.0, 0.0, 0.0]).unwrap();
    sim.run_until(5.0);
    let r = sim.pose("r1").unwrap();
    assert!(
        (r.x + 0.6 - 1.9).abs() < 0.02,
        "stopped at the outline's face: {r:?}"
    );
    assert!(sim.set_outline("nobody", &[[0.0, 0.0]]).is_err());
}

#[test]
fn two_simulations_of_one_world_move_bit_for_bit_alike() {
    // The engine poses the next step with a second simulation of the same world and swaps it
    // in: the physics (contacts, joints, PID, friction) must repeat exactly.
    let body = format!(
        "{WALL_AT_3}{}{}{}",
        block("crate", false),
        robot("a", -2.0, 0.0),
        robot("b", 1.0, 90.0)
    );
    let (mut one, mut two) = (simulation(&body), simulation(&body));
    let mut trailer = (articulated(), articulated());
    for sim in [&mut one, &mut two] {
        sim.set_twist("a", [1.0, 0.0, 0.2]).unwrap();
        sim.set_twist("b", [0.8, 0.0, -0.5]).unwrap();
    }
    for sim in [&mut trailer.0, &mut trailer.1] {
        sim.set_twist("tractor", [1.0, 0.0, 0.4]).unwrap();
    }
    let bits = |s: &Simulation| -> Vec<u64> {
        (s.vehicles().iter())
            .flat_map(|v| [v.pose.x, v.pose.y, v.pose.yaw, v.velocity[0], v.odometry[0]])
            .chain(s.pose("crate").map(|p| p.x))
            .map(f64::to_bits)
            .collect()
    };
    while one.time() < 4.0 {
        for sim in [&mut one, &mut two, &mut trailer.0, &mut trailer.1] {
            sim.step();
        }
        assert_eq!(bits(&one), bits(&two), "at {} s", one.time());
        assert_eq!(bits(&trailer.0), bits(&trailer.1), "at {} s", one.time());
    }
}

#[test]
fn the_collision_flag_rises_within_the_worlds_collision_threshold() {
    // The robot's nose (x = 0.6 ahead of it) 2.5 cm short of the wall's face (x = 2.95).
    let near = robot("r1", 2.95 - 0.6 - 0.025, 0.0);
    let flag = |threshold: &str| {
        let mut sim = simulation(&format!("{threshold}{WALL_AT_3}{near}"));
        sim.run_until(0.1);
        sim.vehicles()[0].in_collision
    };
    assert!(flag(""), "MVSim's default threshold is 3 cm");
    assert!(flag("<collision_threshold>0.05</collision_threshold>"));
    assert!(!flag("<collision_threshold>0.02</collision_threshold>"));
}
