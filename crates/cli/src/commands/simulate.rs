//! `passerby bench WORLD --simulate SECONDS`: the whole loop (simulation step, scene update with
//! skinning and refits, every sensor) for a stretch of simulated time, timed against the wall
//! clock: the real-time factor is simulated seconds per wall second.

use passerby_engine::Engine;
use passerby_scene::BuiltScene;
use passerby_world::World;
use std::process::ExitCode;

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
    let report = pool.install(|| passerby_engine::bench::simulate(&mut run, seconds))?;
    if json {
        println!("{}", report.json());
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}
