//! Actors on paths: MVSim's timeline on its own demo, the turning-rate limit, pause and loop,
//! the gait state machine, and the API's refusals.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_sim::gait::{Gait, GaitMachine};
use passerby_sim::path::wrap;
use passerby_sim::{SimError, SimOptions, Simulation};
use passerby_world::{
    Actor, ActorPath, Pose3, TimedCommand, TimedTransform, Transform, Waypoint, WaypointAnimation,
    World,
};
use std::path::Path;

fn warehouse() -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/worlds/mvsim/mvsim_tutorial/demo_warehouse.world.xml");
    let opts = passerby_mvsim::LoadOptions {
        mvsim_data: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/mvsim"),
        ..Default::default()
    };
    passerby_mvsim::load_world_file(&path, &opts)
        .value
        .expect("the warehouse demo loads")
}

/// (time of arrival, waypoint index) for every waypoint reached in `seconds`.
fn arrivals(sim: &mut Simulation, seconds: f64) -> Vec<(f64, usize)> {
    let mut out = Vec::new();
    let mut was_paused = false;
    while sim.time() < seconds {
        sim.step();
        let follower = sim.actors()[0].path().unwrap();
        if follower.paused() && !was_paused {
            out.push((sim.time(), follower.target_index()));
        }
        was_paused = follower.paused();
    }
    out
}

#[test]
fn the_warehouse_actor_follows_mvsims_timeline_without_a_turning_rate() {
    let mut world = warehouse();
    assert_eq!(world.actors.len(), 1);
    world.actors[0].turning_rate = None;
    let actor = world.actors[0].clone();
    let path = actor.path.clone().unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    let dt = sim.timestep();
    assert_eq!(dt, 0.005, "auto time step: 5 ms");
    // Expected arrivals from the geometry: each segment at its speed, then its pause.
    let mut expected = Vec::new();
    let (mut t, mut from) = (0.0, actor.common.init_pose);
    for k in (0..path.waypoints.len()).chain([0]) {
        let wp = &path.waypoints[k];
        let length = ((wp.pose.x - from.x).powi(2) + (wp.pose.y - from.y).powi(2)).sqrt();
        let speed = match wp.animation {
            WaypointAnimation::Run => actor.running_speed,
            _ => actor.walking_speed,
        };
        t += if length < 1e-3 { dt } else { length / speed };
        expected.push((t, k));
        t += wp.pause;
        from = wp.pose;
    }
    let got = arrivals(&mut sim, t - 0.1);
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for (i, ((t_got, k_got), (t_want, k_want))) in got.iter().zip(&expected).enumerate() {
        assert_eq!(k_got, k_want);
        // Each segment and each pause end on a step boundary: up to two steps late per waypoint.
        assert!(
            (t_got - t_want).abs() <= 2.0 * dt * (i as f64 + 1.0),
            "waypoint {k_want}: {t_got} s, expected {t_want} s"
        );
    }
    // Segment 1 runs (4.70 m at 3.5 m/s, 1.34 s), as mvsim.md Appendix B traces.
    assert!((expected[1].0 - expected[0].0 - 2.0 - 1.343).abs() < 0.01);
}

#[test]
fn with_a_pause_the_actor_lands_on_the_waypoint_and_holds_its_yaw() {
    let mut world = warehouse();
    world.actors[0].turning_rate = None;
    let wps = world.actors[0].path.clone().unwrap().waypoints;
    let mut sim = Simulation::new(&world).unwrap();
    let mut checked = 0;
    while sim.time() < 30.0 {
        sim.step();
        let a = &sim.actors()[0];
        let f = a.path().unwrap();
        if f.paused() {
            let wp = &wps[f.target_index()].pose;
            assert!((a.pose.x - wp.x).abs() < 1e-9 && (a.pose.y - wp.y).abs() < 1e-9);
            assert!(wrap(a.pose.yaw - wp.yaw).abs() < 1e-9, "yaw {}", a.pose.yaw);
            assert_eq!(a.speed, 0.0);
            checked += 1;
        }
    }
    assert!(checked > 1000);
}

#[test]
fn the_default_turning_rate_bounds_every_yaw_change() {
    let world = warehouse();
    let rate = world.actors[0].turning_rate.unwrap();
    assert!((rate - 120f64.to_radians()).abs() < 1e-12);
    let mut sim = Simulation::new(&world).unwrap();
    let dt = sim.timestep();
    let mut yaw = sim.actors()[0].pose.yaw;
    let mut turned_in_place = false;
    while sim.time() < 60.0 {
        sim.step();
        let a = &sim.actors()[0];
        let change = wrap(a.pose.yaw - yaw).abs();
        assert!(change <= rate * dt + 1e-9, "{change} rad in one step");
        turned_in_place |= change > 0.0 && a.speed == 0.0;
        yaw = a.pose.yaw;
    }
    assert!(turned_in_place);
    // It still reaches every waypoint (the path is slower, not different).
    let wps = world.actors[0].path.as_ref().unwrap().waypoints.len();
    let mut sim = Simulation::new(&world).unwrap();
    let got = arrivals(&mut sim, 60.0);
    let reached: std::collections::BTreeSet<usize> = got.iter().map(|(_, k)| *k).collect();
    assert_eq!(reached.len(), wps, "{got:?}");
}

fn walker(waypoints: Vec<(f64, f64, f64, f64)>, looped: bool) -> World {
    let waypoints = waypoints
        .into_iter()
        .map(|(x, y, yaw_deg, pause)| Waypoint {
            pose: Pose3 {
                x,
                y,
                yaw: yaw_deg.to_radians(),
                ..Pose3::default()
            },
            is_3d: false,
            pause,
            animation: WaypointAnimation::Walk,
        })
        .collect();
    World {
        actors: vec![Actor {
            name: "walker".into(),
            turning_rate: None,
            path: Some(ActorPath { looped, waypoints }),
            ..Actor::default()
        }],
        ..World::default()
    }
}

#[test]
fn a_path_that_does_not_loop_ends_standing_on_its_last_waypoint() {
    let world = walker(vec![(2.0, 0.0, 0.0, 0.0), (2.0, 2.0, 90.0, 0.0)], false);
    let mut sim = Simulation::new(&world).unwrap();
    sim.run_until(10.0);
    let a = &sim.actors()[0];
    assert!(a.path().unwrap().finished());
    assert!((a.pose.x - 2.0).abs() < 1e-9 && (a.pose.y - 2.0).abs() < 1e-9);
    assert_eq!(a.speed, 0.0);
    assert_eq!(a.animation().gait, Gait::Idle);
}

#[test]
fn without_a_pause_the_next_segment_starts_where_the_actor_stood() {
    // MVSim's corner cut: the waypoint itself is never reached, by less than one step's walk.
    let world = walker(
        vec![
            (2.0, 0.0, 0.0, 0.0),
            (2.0, 2.0, 90.0, 0.0),
            (0.0, 0.0, 0.0, 0.0),
        ],
        true,
    );
    let mut sim = Simulation::new(&world).unwrap();
    let step = 1.4 * sim.timestep();
    let mut closest = f64::INFINITY;
    while sim.time() < 3.0 {
        sim.step();
        let p = sim.actors()[0].pose;
        closest = closest.min(((p.x - 2.0).powi(2) + p.y.powi(2)).sqrt());
    }
    assert!(closest > 0.0 && closest <= step + 1e-9, "{closest}");
    // It loops: after a full lap it is walking again near the start.
    sim.run_until(40.0);
    assert_eq!(sim.actors()[0].animation().gait, Gait::Walk);
}

#[test]
fn the_gait_follows_the_documented_thresholds_and_playback_rates() {
    let actor = Actor {
        walking_speed: 1.4,
        running_speed: 3.5,
        ..Actor::default()
    };
    let m = GaitMachine::new(&actor);
    assert_eq!(m.classify(0.0, 0.0), Gait::Idle);
    assert_eq!(m.classify(0.1, 0.0), Gait::Idle);
    assert_eq!(m.classify(0.11, 0.0), Gait::Walk);
    assert_eq!(m.classify(2.8, 0.0), Gait::Walk);
    assert_eq!(m.classify(2.81, 0.0), Gait::Run);
    assert_eq!(m.classify(0.0, 1.0), Gait::Turn);
    assert!((m.rate(Gait::Walk, 0.7) - 0.5).abs() < 1e-12);
    assert!((m.rate(Gait::Run, 3.5) - 1.0).abs() < 1e-12);
    let awsim = GaitMachine::new(&Actor {
        run_threshold: Some(1.6),
        ..actor.clone()
    });
    assert_eq!(awsim.classify(1.61, 0.0), Gait::Run);
    // Clip changes cross-fade: the new clip's weight grows from 0 to 1 over the fade.
    let mut m = GaitMachine::new(&actor);
    let s = m.step(0.01, 1.4, 0.0).clone();
    assert_eq!(s.current.clip, "walk");
    let (old, w) = s.fading.unwrap();
    assert_eq!(old.clip, "idle");
    assert!(w > 0.0 && w < 0.1);
    for _ in 0..30 {
        m.step(0.01, 1.4, 0.0);
    }
    assert!(m.state().fading.is_none());
    assert!((m.state().current.time - 0.31).abs() < 1e-9);
}

#[test]
fn the_api_refuses_bad_inputs_with_clear_errors() {
    let mut world = walker(vec![(1.0, 0.0, 0.0, 0.0)], true);
    let mut sim = Simulation::new(&world).unwrap();
    let nan = Pose3 {
        x: f64::NAN,
        ..Pose3::default()
    };
    let e = sim.set_pose("walker", nan).unwrap_err();
    assert!(e.to_string().contains("not finite"), "{e}");
    assert_eq!(
        sim.set_pose("nobody", Pose3::default()),
        Err(SimError::UnknownObject("nobody".into()))
    );
    assert_eq!(
        sim.set_twist("walker", [1.0, 0.0, 0.0]),
        Err(SimError::NotAVehicle("walker".into()))
    );
    world.actors[0].walking_speed = -1.0;
    let e = Simulation::new(&world).unwrap_err();
    assert!(e.to_string().contains("walking_speed"), "{e}");
    assert!(matches!(
        Simulation::with_options(
            &World::default(),
            &SimOptions {
                timestep: Some(0.0),
                seed: 0
            }
        ),
        Err(SimError::BadTimestep(_))
    ));
}

#[test]
fn a_held_actor_stays_where_it_was_set_and_resumes_its_path_when_released() {
    let world = walker(vec![(10.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0)], true);
    let mut sim = Simulation::new(&world).unwrap();
    sim.run_until(1.0);
    let here = Pose3 {
        x: 3.0,
        y: 4.0,
        yaw: 1.0,
        ..Pose3::default()
    };
    sim.set_pose("walker", here).unwrap();
    sim.run_until(2.0);
    assert_eq!(sim.pose("walker"), Some(here));
    assert_eq!(sim.actors()[0].animation().gait, Gait::Idle);
    sim.release("walker").unwrap();
    sim.run_until(3.0);
    let p = sim.pose("walker").unwrap();
    assert!(p != here && sim.actors()[0].speed > 0.0);
}

/// A vehicle whose controller imposes the commanded twist (MVSim's `twist_ideal`).
fn ideal_vehicle(name: &str) -> passerby_world::Vehicle {
    let mut v = passerby_world::Vehicle {
        name: name.into(),
        ..Default::default()
    };
    v.dynamics.controller.class = "twist_ideal".into();
    v
}

#[test]
fn twist_ideal_vehicles_track_their_velocity_command_on_arcs() {
    let world = World {
        vehicles: vec![ideal_vehicle("r1")],
        ..World::default()
    };
    let mut sim = Simulation::with_options(
        &world,
        &SimOptions {
            timestep: Some(0.01),
            seed: 0,
        },
    )
    .unwrap();
    // 1 m/s forward turning at 1 rad/s: a circle of radius 1 m, back home after 2π s; one
    // step (1 cm) behind, as in MVSim, where the command sets the body's velocity after the
    // first step.
    sim.set_twist("r1", [1.0, 0.0, 1.0]).unwrap();
    sim.run_until(std::f64::consts::PI);
    let half = sim.pose("r1").unwrap();
    assert!(
        half.x.abs() < 0.03 && (half.y - 2.0).abs() < 0.01,
        "{half:?}"
    );
    assert_eq!(sim.vehicles()[0].velocity, [1.0, 0.0, 1.0]);
    sim.run_until(std::f64::consts::TAU);
    let home = sim.pose("r1").unwrap();
    assert!(home.x.abs() < 0.03 && home.y.abs() < 0.03, "{home:?}");
}

fn behaving(behavior: passerby_world::Behavior, seed: u64) -> Simulation {
    let world = World {
        actors: vec![Actor {
            name: "b".into(),
            behavior: Some(behavior),
            ..Actor::default()
        }],
        ..World::default()
    };
    let options = SimOptions {
        timestep: Some(0.01),
        seed,
    };
    Simulation::with_options(&world, &options).unwrap()
}

#[test]
fn the_awsim_walker_walks_legs_of_duration_times_speed_and_turns_in_half_a_second() {
    use passerby_world::Behavior;
    let mut sim = behaving(
        Behavior::Walker {
            duration: 4.0,
            speed: 1.2,
        },
        0,
    );
    let mut farthest: f64 = 0.0;
    let mut turn_steps = 0;
    while sim.time() < 9.0 - 1e-9 {
        sim.step();
        let a = &sim.actors()[0];
        farthest = farthest.max(a.pose.x);
        if a.animation().gait == Gait::Turn {
            turn_steps += 1;
        }
    }
    assert!((farthest - 4.8).abs() < 1e-9, "leg {farthest} m");
    // Two turns of 0.5 s at 10 ms steps (a step ending on a boundary already walks).
    assert!(
        (98..=100).contains(&turn_steps),
        "{turn_steps} turning steps"
    );
    // After both legs and turns it is home, facing the start heading.
    let p = sim.actors()[0].pose;
    assert!(
        p.x.abs() < 1e-9 && p.y.abs() < 1e-9 && wrap(p.yaw).abs() < 1e-9,
        "{p:?}"
    );
}

#[test]
fn wander_is_repeatable_for_a_seed_and_stays_near_home() {
    use passerby_world::Behavior;
    let walk = |seed| {
        let mut sim = behaving(
            Behavior::Wander {
                speed: 1.0,
                radius: 5.0,
            },
            seed,
        );
        let mut track = Vec::new();
        while sim.time() < 60.0 {
            sim.step();
            let p = sim.actors()[0].pose;
            assert!(p.x.hypot(p.y) <= 5.0 + 1e-9, "{p:?}");
            track.push((p.x, p.y, p.yaw));
        }
        track
    };
    let a = walk(1);
    assert_eq!(a, walk(1));
    assert_ne!(a, walk(2));
    let travelled: f64 = a
        .windows(2)
        .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
        .sum();
    assert!(travelled > 20.0, "{travelled} m in a minute");
}

#[test]
fn circle_is_a_true_circle_about_the_start_point() {
    use passerby_world::Behavior;
    let mut sim = behaving(
        Behavior::Circle {
            speed: 1.5,
            radius: 10.0,
        },
        0,
    );
    let start = sim.actors()[0].pose;
    let lap = std::f64::consts::TAU * 10.0 / 1.5;
    while sim.time() < 3.0 * lap {
        sim.step();
        let p = sim.actors()[0].pose;
        assert!((p.x.hypot(p.y) - 10.0).abs() < 1e-9, "{p:?}");
        // Facing along the circle (counter-clockwise tangent).
        let tangent = p.y.atan2(p.x) + std::f64::consts::FRAC_PI_2;
        assert!(wrap(p.yaw - tangent).abs() < 1e-9);
    }
    sim.run_until(3.0 * lap);
    let p = sim.actors()[0].pose;
    assert!(
        (p.x - start.x).hypot(p.y - start.y) < 1.5 * 0.01 + 1e-6,
        "{p:?}"
    );
}

#[test]
fn keyframes_move_blocks_from_their_initial_pose_and_loop() {
    let xml = r#"<mvsim_world version="1.0">
      <block name="jack">
        <init_pose>1 2 90</init_pose>
        <shape><pt>0 0</pt><pt>1 0</pt><pt>1 1</pt></shape>
        <animation type="keyframes">
          <time_pose>0 0 0 0</time_pose>
          <time_pose>2 2 0 90</time_pose>
        </animation>
      </block>
    </mvsim_world>"#;
    let loaded = passerby_mvsim::load_world_str(
        Path::new("inline.world.xml"),
        xml.into(),
        &passerby_mvsim::LoadOptions::default(),
    );
    let world = loaded.value.unwrap();
    let options = SimOptions {
        timestep: Some(0.01),
        seed: 0,
    };
    let mut sim = Simulation::with_options(&world, &options).unwrap();
    for t in [1.0, 3.0] {
        sim.run_until(t);
        let p = sim.pose("jack").unwrap();
        // Halfway: 1 m along the block's own x (world +y, as it faces 90°), turned 45° more.
        assert!(
            (p.x - 1.0).abs() < 1e-9 && (p.y - 3.0).abs() < 1e-9,
            "{p:?}"
        );
        assert!((p.yaw - 135f64.to_radians()).abs() < 1e-9, "{p:?}");
    }
}

/// z = 0.1 x, with a 0.6 m cliff up at x = 5 (within the probe's reach, above a stair).
struct SlopeWithCliff;

impl passerby_sim::ground::Ground for SlopeWithCliff {
    fn surface_below(&self, x: f64, _y: f64, top: f64, depth: f64) -> Option<f64> {
        let z = 0.1 * x + if x >= 5.0 { 0.6 } else { 0.0 };
        (z <= top && z >= top - depth).then_some(z)
    }
}

#[test]
fn actors_follow_the_ground_in_the_same_step_and_stop_climbing_at_walls() {
    let mut sim = Simulation::new(&walker(vec![(8.0, 0.0, 0.0, 0.0)], false)).unwrap();
    sim.set_ground(Box::new(SlopeWithCliff));
    let mut wall = None;
    while sim.time() < 10.0 {
        sim.step();
        let p = sim.actors()[0].pose;
        if let Some(c) = sim.contacts().first() {
            wall.get_or_insert(c.clone());
        }
        if p.x < 5.0 {
            assert!((p.z - 0.1 * p.x).abs() < 1e-12, "{p:?}");
        } else {
            // Past the cliff's foot it keeps the height it had.
            assert!(p.z < 0.5, "{p:?}");
        }
    }
    let wall = wall.expect("the cliff is reported");
    assert_eq!(
        (wall.object.as_str(), wall.other.as_str()),
        ("walker", "ground")
    );
    assert!((wall.point[0] - 5.0).abs() < 0.01, "{wall:?}");
}

#[test]
fn a_ceiling_is_never_taken_for_the_floor() {
    use passerby_world::{HorizontalPlane, LabeledElement, WorldElement};
    let plane = |z| LabeledElement {
        element: WorldElement::HorizontalPlane(HorizontalPlane {
            extent: [-50.0, 50.0, -50.0, 50.0],
            z,
            color: passerby_world::Color::rgb(0, 0, 0),
            enable_shadows: false,
            cull_face: "NONE".into(),
            texture: String::new(),
            texture_size: [1.0, 1.0],
            init_pose: None,
            keyframes: None,
        }),
        label: None,
    };
    let mut world = walker(vec![(5.0, 0.0, 0.0, 0.0)], false);
    world.elements = vec![plane(0.0), plane(2.5)];
    let mut sim = Simulation::new(&world).unwrap();
    sim.run_until(5.0);
    let p = sim.actors()[0].pose;
    assert!((p.x - 5.0).abs() < 1e-9 && p.z == 0.0, "{p:?}");
}

#[test]
fn vehicles_take_pitch_and_roll_from_the_ground_under_their_wheels() {
    use passerby_world::{Pose2, Vehicle, Wheel};
    let wheel = |x, y| Wheel {
        pose: Pose2 { x, y, yaw: 0.0 },
        diameter: 0.4,
        ..Wheel::default()
    };
    let mut vehicle: Vehicle = ideal_vehicle("r1");
    vehicle.dynamics.wheels = vec![
        wheel(0.5, 0.3),
        wheel(0.5, -0.3),
        wheel(-0.5, 0.3),
        wheel(-0.5, -0.3),
    ];
    vehicle.common.init_vel = [1.0, 0.0, 0.0];
    let world = World {
        vehicles: vec![vehicle],
        ..World::default()
    };
    let mut sim = Simulation::new(&world).unwrap();
    sim.set_ground(Box::new(SlopeWithCliff));
    sim.run_until(2.0);
    let p = sim.pose("r1").unwrap();
    // Within a step of 2 m (the chassis' damping slows each step a little).
    assert!((p.x - 2.0).abs() < 1e-3, "{p:?}");
    assert!((p.z - 0.1 * p.x).abs() < 1e-9, "{p:?}");
    // Nose up on a 10 % climb: negative pitch in MRPT's convention, no roll.
    assert!(
        (p.pitch + 0.1f64.atan()).abs() < 1e-9 && p.roll.abs() < 1e-9,
        "{p:?}"
    );
}

fn row(time: f64, object: &str, part: Option<&str>, xyz: [f64; 3], yaw: f64) -> TimedTransform {
    TimedTransform {
        time,
        object: object.into(),
        part: part.map(Into::into),
        transform: Transform {
            translation: xyz,
            yaw_pitch_roll: [yaw, 0.0, 0.0],
            scale: [1.0; 3],
        },
        planar: false,
    }
}

#[test]
fn replayed_transforms_reach_the_commanded_poses_at_the_commanded_times() {
    let world = walker(vec![(10.0, 0.0, 0.0, 0.0)], false);
    let mut sim = Simulation::new(&world).unwrap();
    let rows = vec![
        row(1.0, "walker", None, [0.0, 5.0, 0.0], 0.0),
        row(2.0, "walker", None, [2.0, 5.0, 0.0], 0.0),
        row(3.5, "walker", None, [2.0, 8.0, 0.0], 1.0),
        row(2.0, "walker", Some("head"), [0.0, 0.0, 1.7], 0.5),
    ];
    sim.set_replay(rows, Vec::new()).unwrap();
    // Before its first row the actor walks its path.
    sim.run_until(0.5);
    assert!(sim.actors()[0].pose.x > 0.5 && !sim.actors()[0].held);
    for (t, x, y, yaw) in [
        (1.0, 0.0, 5.0, 0.0),
        (1.5, 1.0, 5.0, 0.0),
        (2.0, 2.0, 5.0, 0.0),
        (3.5, 2.0, 8.0, 1.0),
        (5.0, 2.0, 8.0, 1.0),
    ] {
        sim.run_until(t);
        let p = sim.pose("walker").unwrap();
        assert!(
            (p.x - x).abs() < 1e-9 && (p.y - y).abs() < 1e-9 && (p.yaw - yaw).abs() < 1e-9,
            "t = {t}: {p:?}"
        );
    }
    // The part's transform is recorded as applied.
    let head = sim.external("walker").unwrap().parts["head"];
    assert_eq!(head.translation, [0.0, 0.0, 1.7]);
    assert!((head.yaw_pitch_roll[0] - 0.5).abs() < 1e-12);
    // Naming an unknown object is refused up front.
    let e = sim
        .set_replay(vec![row(0.0, "ghost", None, [0.0; 3], 0.0)], Vec::new())
        .unwrap_err();
    assert_eq!(e, SimError::UnknownObject("ghost".into()));
}

#[test]
fn two_settings_in_one_step_warn_and_the_later_wins() {
    let world = walker(vec![(10.0, 0.0, 0.0, 0.0)], false);
    let mut sim = Simulation::new(&world).unwrap();
    let at = |x| Pose3 {
        x,
        ..Pose3::default()
    };
    sim.set_pose("walker", at(1.0)).unwrap();
    sim.set_pose("walker", at(2.0)).unwrap();
    sim.step();
    assert_eq!(sim.pose("walker").unwrap().x, 2.0);
    let w = sim.take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("`walker`") && w[0].contains("later"), "{w:?}");
    sim.set_pose("walker", at(3.0)).unwrap();
    sim.step();
    assert!(sim.take_warnings().is_empty());
}

#[test]
fn replayed_commands_drive_vehicles_from_their_times() {
    let world = World {
        vehicles: vec![ideal_vehicle("r1")],
        ..World::default()
    };
    let mut sim = Simulation::new(&world).unwrap();
    let cmd = |time, vx| TimedCommand {
        time,
        vehicle: "r1".into(),
        twist: [vx, 0.0, 0.0],
    };
    sim.set_replay(Vec::new(), vec![cmd(1.0, 2.0), cmd(2.0, 0.0)])
        .unwrap();
    sim.run_until(4.0);
    let p = sim.pose("r1").unwrap();
    assert!((p.x - 2.0).abs() < 1e-3, "{p:?}");
    assert_eq!(
        sim.set_replay(
            Vec::new(),
            vec![TimedCommand {
                vehicle: "nobody".into(),
                ..cmd(0.0, 1.0)
            }]
        ),
        Err(SimError::UnknownObject("nobody".into()))
    );
}

#[test]
fn an_actor_walking_into_a_vehicle_or_block_reports_one_contact_where_it_begins() {
    use passerby_world::{Block, SimulableCommon, Vehicle};
    let mut world = walker(vec![(10.0, 0.0, 0.0, 0.0)], false);
    let at = |x: f64, y: f64| SimulableCommon {
        init_pose: Pose3 {
            x,
            y,
            ..Pose3::default()
        },
        ..SimulableCommon::default()
    };
    let mut robot = Vehicle {
        name: "robot".into(),
        common: at(5.0, 0.0),
        ..Vehicle::default()
    };
    robot.dynamics.chassis.shape = Some(vec![[-0.3, -0.3], [0.3, -0.3], [0.3, 0.3], [-0.3, 0.3]]);
    (robot.dynamics.chassis.zmin, robot.dynamics.chassis.zmax) = (0.05, 0.5);
    world.vehicles.push(robot);
    world.blocks.push(Block {
        name: "ghost".into(),
        common: at(7.0, 0.0),
        intangible: true,
        ..Block::default()
    });
    world.blocks.push(Block {
        name: "aside".into(),
        common: at(8.0, 1.5),
        ..Block::default()
    });
    let mut sim = Simulation::new(&world).unwrap();
    let mut contacts = Vec::new();
    while sim.time() < 10.0 {
        sim.step();
        contacts.extend(sim.contacts().iter().cloned());
    }
    assert_eq!(contacts.len(), 1, "{contacts:?}");
    let c = &contacts[0];
    assert_eq!((c.object.as_str(), c.other.as_str()), ("walker", "robot"));
    // The capsule (radius 0.3) meets the chassis's near face (x = 4.7) when its axis is at 4.4.
    assert!(
        (c.point[0] - 4.7).abs() < 1e-9 && c.point[1].abs() < 1e-9,
        "{c:?}"
    );
    assert!((c.time - 4.4 / 1.4).abs() <= sim.timestep() + 1e-9, "{c:?}");
    assert!(c.point[2] > 0.05 && c.point[2] < 0.5);
}

#[test]
fn actors_follow_an_elevation_map_of_the_world() {
    // Rows run along +X: heights 0, 1, 2 m at x = -1, 0, 1 (a map centred on the origin).
    let xml = r#"<mvsim_world version="1.0">
      <element class="elevation_map">
        <elevation_data_matrix>[0 0 0; 1 1 1; 2 2 2]</elevation_data_matrix>
        <resolution>1</resolution>
      </element>
      <actor name="hiker">
        <init_pose>-0.9 0 0</init_pose>
        <turning_rate>0</turning_rate>
        <path loop="false"><waypoint>0.9 0 0</waypoint></path>
      </actor>
    </mvsim_world>"#;
    let loaded = passerby_mvsim::load_world_str(
        Path::new("inline.world.xml"),
        xml.into(),
        &passerby_mvsim::LoadOptions::default(),
    );
    let world = loaded.value.unwrap();
    assert_eq!(world.elevations_at_unsorted(0.5, 0.0), vec![1.5]);
    let mut sim = Simulation::new(&world).unwrap();
    let mut steps = 0;
    while sim.time() < 2.0 {
        sim.step();
        let p = sim.actors()[0].pose;
        // 1.4 m/s up a 100 % slope rises 7 mm per step: a stair, not a wall.
        assert!((p.z - (p.x + 1.0)).abs() < 1e-9, "{p:?}");
        steps += 1;
    }
    assert!(steps > 100 && sim.contacts().is_empty());
    assert!((sim.actors()[0].pose.x - 0.9).abs() < 1e-9);
}

#[test]
fn mavs_waypoint_paths_loop_at_constant_speed_and_crowd_members_stay_in_their_box() {
    use passerby_world::Behavior;
    let square = vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]];
    let mut sim = behaving(
        Behavior::Waypoints {
            speed: 2.0,
            points: square,
        },
        0,
    );
    assert_eq!((sim.actors()[0].pose.x, sim.actors()[0].pose.y), (0.0, 0.0));
    let (mut corners, mut near_corner) = (0, false);
    let mut last = (0.0, 0.0);
    while sim.time() < 16.0 {
        sim.step();
        let p = sim.actors()[0].pose;
        // On the square's edges (MAVS retargets within 2·speed·dt of a point: corners are cut
        // by at most 4 cm), moving 2 cm per 10 ms step.
        let on_edge = [p.x, p.y]
            .iter()
            .any(|v| v.abs() < 0.04 || (v - 4.0).abs() < 0.04);
        assert!(on_edge, "{p:?}");
        let moved = (p.x - last.0).hypot(p.y - last.1);
        assert!(moved <= 0.02 + 1e-9, "{moved}");
        let near = (p.x - 4.0).hypot(p.y - 4.0) < 0.05;
        corners += usize::from(near && !near_corner);
        near_corner = near;
        last = (p.x, p.y);
    }
    assert_eq!(
        corners, 2,
        "two laps of 16 m in 16 s pass the far corner twice"
    );
    let mut crowd = behaving(
        Behavior::WanderInBox {
            speed: 1.4,
            min: [-3.0, 10.0],
            max: [3.0, 12.0],
        },
        5,
    );
    while crowd.time() < 60.0 {
        crowd.step();
        let p = crowd.actors()[0].pose;
        // It starts at the origin, walks into the box and never leaves it.
        if crowd.time() > 15.0 {
            assert!(
                (-3.0..=3.0).contains(&p.x) && (10.0..=12.0).contains(&p.y),
                "{p:?}"
            );
        }
    }
}

#[test]
fn static_blocks_cannot_be_moved() {
    use passerby_world::Block;
    let mut world = walker(vec![(1.0, 0.0, 0.0, 0.0)], false);
    world.blocks.push(Block {
        name: "shelf".into(),
        is_static: true,
        ..Block::default()
    });
    let mut sim = Simulation::new(&world).unwrap();
    let e = sim.set_pose("shelf", Pose3::default()).unwrap_err();
    assert_eq!(e, SimError::Fixed("shelf".into()));
    assert!(e.to_string().contains("<static>true</static>"));
    let rows = vec![row(1.0, "shelf", None, [0.0; 3], 0.0)];
    assert_eq!(
        sim.set_replay(rows, Vec::new()),
        Err(SimError::Fixed("shelf".into()))
    );
}
