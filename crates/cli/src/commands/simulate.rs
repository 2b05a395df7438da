//! `passerby bench WORLD --simulate SECONDS`: the whole loop (simulation step, scene update with
//! skinning and refits, every sensor) for a stretch of simulated time, timed against the wall
//! clock: the real-time factor is simulated seconds per wall second.

use passerby_scene::{BuiltScene, LiveScene, SceneGround};
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::{SimOptions, Simulation};
use passerby_world::World;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Per sensor: observations and points (or rays) produced.
#[derive(Default)]
struct Tally {
    observations: u64,
    points: u64,
}

/// Runs the loop and prints its figures.
pub fn run(
    world: &World,
    built: BuiltScene,
    pool: &rayon::ThreadPool,
    seed: u64,
    seconds: f64,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let ground = SceneGround::new(&built, world);
    let mut live = LiveScene::new(built, world)?;
    let options = SimOptions {
        timestep: None,
        seed,
    };
    let mut sim = Simulation::with_options(world, &options)?;
    sim.set_ground(Box::new(ground));
    let mut rig = Rig::new(world, seed);
    for n in sim.notices().iter().chain(rig.notices()) {
        eprintln!("note: {n}");
    }
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut t_sim, mut t_scene, mut t_sensors) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let started = Instant::now();
    pool.install(|| -> anyhow::Result<()> {
        while sim.time() < seconds - 1e-9 {
            let t0 = Instant::now();
            sim.step();
            let t1 = Instant::now();
            live.update(&sim)?;
            let t2 = Instant::now();
            let view = SceneView { built: &live.built };
            for o in rig.step(&sim, &view) {
                let (name, points) = match &o {
                    Observation::PointCloud(c) => (full_name(&c.sensor), c.points.len()),
                    Observation::LaserScan(s) => (full_name(&s.sensor), s.ranges.len()),
                    Observation::Imu(s) => (full_name(&s.sensor), 1),
                    Observation::Gnss(f) => (full_name(&f.sensor), 1),
                };
                let entry = tally.entry(name).or_default();
                entry.observations += 1;
                entry.points += points as u64;
            }
            let t3 = Instant::now();
            (t_sim, t_scene, t_sensors) = (
                t_sim + (t1 - t0),
                t_scene + (t2 - t1),
                t_sensors + (t3 - t2),
            );
        }
        Ok(())
    })?;
    let wall = started.elapsed().as_secs_f64();
    let simulated = sim.time();
    let factor = simulated / wall.max(1e-9);
    if json {
        let sensors: Vec<String> = tally
            .iter()
            .map(|(n, t)| {
                format!(
                    "{{\"sensor\":\"{n}\",\"observations\":{},\"points\":{}}}",
                    t.observations, t.points
                )
            })
            .collect();
        println!(
            "{{\"world\":{:?},\"threads\":{},\"simulated_seconds\":{simulated:.3},\"wall_seconds\":{wall:.3},\"real_time_factor\":{factor:.3},\"steps\":{},\"seconds_in\":{{\"simulation\":{:.3},\"scene_update\":{:.3},\"sensors\":{:.3}}},\"sensors\":[{}]}}",
            world.source.display().to_string(),
            pool.current_num_threads(),
            sim.steps(),
            t_sim.as_secs_f64(),
            t_scene.as_secs_f64(),
            t_sensors.as_secs_f64(),
            sensors.join(",")
        );
    } else {
        println!(
            "simulated {simulated:.2} s in {wall:.2} s wall on {} thread(s): {factor:.2}x real time ({} steps of {:.4} s; simulation {:.2} s, scene updates {:.2} s, sensors {:.2} s)",
            pool.current_num_threads(),
            sim.steps(),
            sim.timestep(),
            t_sim.as_secs_f64(),
            t_scene.as_secs_f64(),
            t_sensors.as_secs_f64()
        );
        for (n, t) in &tally {
            println!(
                "  {n}: {} observations, {} points",
                t.observations, t.points
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn full_name(s: &passerby_sim::schedule::SensorRef) -> String {
    format!("{}/{}", s.vehicle.as_deref().unwrap_or("world"), s.name)
}
