//! 1,000 actors on looping four-waypoint paths (motion and gait, no clips, skinning or sensors):
//! time per step (target: under 1 ms on one core). `cargo bench -p passerby-sim --bench actors`.
//! Reference measured in the same run: one pass of a trivial update over the same poses.

use passerby_sim::Simulation;
use passerby_world::{Actor, ActorPath, Pose3, Waypoint, WaypointAnimation, World};
use std::time::Instant;

fn main() {
    let actors = (0..1000)
        .map(|i| {
            let (cx, cy) = ((i % 40) as f64 * 5.0, (i / 40) as f64 * 5.0);
            let corner = |dx: f64, dy: f64, pause: f64, run: bool| Waypoint {
                pose: Pose3 {
                    x: cx + dx,
                    y: cy + dy,
                    ..Pose3::default()
                },
                is_3d: false,
                pause,
                animation: if run {
                    WaypointAnimation::Run
                } else {
                    WaypointAnimation::Walk
                },
            };
            Actor {
                name: format!("a{i}"),
                path: Some(ActorPath {
                    looped: true,
                    waypoints: vec![
                        corner(4.0, 0.0, 0.0, false),
                        corner(4.0, 4.0, 1.0, true),
                        corner(0.0, 4.0, 0.0, false),
                        corner(0.0, 0.0, 0.5, false),
                    ],
                }),
                ..Actor::default()
            }
        })
        .collect();
    let world = World {
        actors,
        ..World::default()
    };
    let mut sim = Simulation::with_options(
        &world,
        &passerby_sim::SimOptions {
            timestep: Some(0.005),
            seed: 0,
        },
    )
    .expect("valid actors");
    let steps = 4000; // 20 simulated seconds: every phase of every path
    let t = Instant::now();
    for _ in 0..steps {
        sim.step();
    }
    let per_step = t.elapsed().as_secs_f64() / steps as f64;
    let mut poses: Vec<Pose3> = sim.actors().iter().map(|a| a.pose).collect();
    let t = Instant::now();
    for _ in 0..steps {
        for p in &mut poses {
            p.x += 1e-3 * p.yaw.cos();
        }
        std::hint::black_box(&mut poses);
    }
    let reference = t.elapsed().as_secs_f64() / steps as f64;
    println!(
        "1000 actors: {:.3} ms per step; a trivial pass over the poses {:.4} ms (ratio {:.1})",
        per_step * 1e3,
        reference * 1e3,
        per_step / reference
    );
}
