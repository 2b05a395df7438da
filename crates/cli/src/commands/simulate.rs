//! `passerby bench WORLD --simulate SECONDS`: the whole loop (simulation step, scene update with
//! skinning and refits, every sensor) for a stretch of simulated time, timed against the wall
//! clock: the real-time factor is simulated seconds per wall second.

use passerby_engine::Engine;
use passerby_scene::BuiltScene;
use passerby_world::World;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

/// Per sensor: observations and points (or rays) produced.
#[derive(Default)]
struct Tally {
    observations: u64,
    points: u64,
}

/// Runs the loop and prints its figures.
pub fn run(
    world: World,
    built: BuiltScene,
    pool: &rayon::ThreadPool,
    seed: u64,
    seconds: f64,
    json: bool,
    visibility: passerby_sensors::camera::Visibility,
) -> anyhow::Result<ExitCode> {
    let mut run = Engine::new(world, built, seed)?;
    run.set_camera_visibility(visibility);
    for w in run.warnings() {
        eprintln!("warning: {w}");
    }
    for n in run.notices() {
        eprintln!("note: {n}");
    }
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let started = Instant::now();
    pool.install(|| -> anyhow::Result<()> {
        while run.sim().time() < seconds - 1e-9 {
            for o in run.step()?.iter() {
                let (name, points) = (full_name(o.sensor()), o.samples());
                let entry = tally.entry(name).or_default();
                entry.observations += 1;
                entry.points += points as u64;
            }
        }
        Ok(())
    })?;
    let wall = started.elapsed().as_secs_f64();
    let (sim, times) = (run.sim(), run.times);
    let (t_sim, t_scene, t_sensors) = (times.simulation, times.scene, times.sensors);
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
            "{{\"world\":{:?},\"threads\":{},\"simulated_seconds\":{simulated:.3},\"wall_seconds\":{wall:.3},\"real_time_factor\":{factor:.3},\"steps\":{},\"seconds_in\":{{\"simulation\":{:.3},\"scene_update\":{:.3},\"sensors\":{:.3}}},\"steps_posed_ahead\":{},\"sensors\":[{}]}}",
            run.world().source.display().to_string(),
            pool.current_num_threads(),
            sim.steps(),
            t_sim.as_secs_f64(),
            t_scene.as_secs_f64(),
            t_sensors.as_secs_f64(),
            times.posed_ahead,
            sensors.join(",")
        );
    } else {
        println!(
            "simulated {simulated:.2} s in {wall:.2} s wall on {} thread(s): {factor:.2}x real time ({} steps of {:.4} s; simulation {:.2} s, scene updates {:.2} s, sensors and posing ahead {:.2} s; {} steps posed ahead)",
            pool.current_num_threads(),
            sim.steps(),
            sim.timestep(),
            t_sim.as_secs_f64(),
            t_scene.as_secs_f64(),
            t_sensors.as_secs_f64(),
            times.posed_ahead
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

fn full_name(s: &passerby_world::SensorRef) -> String {
    passerby_record::full_name(s)
}
