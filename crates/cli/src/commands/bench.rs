//! `passerby bench WORLD [--scans N] [--threads N] [--json]`: builds the world's ray-casting
//! scene at its initial state and casts every lidar and laser scan N times, reporting per
//! sensor: rays, hits, scene build time, seconds per scan and millions of rays per second.
//! With `--simulate SECONDS` it runs the whole loop instead (simulation, scene updates with
//! skinning, every sensor) and reports the real-time factor.

use crate::GlobalArgs;
use crate::commands::open::{load_or_report, model_library, open_engine, thread_pool};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The world file.
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
    /// Scans cast per sensor (the figure is the mean over them).
    #[arg(long, default_value_t = 20)]
    pub scans: u32,
    /// Worker threads for ray casting [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Run the full simulation loop for this many simulated seconds and report its speed
    /// against real time, instead of casting scans at the initial state.
    #[arg(long, value_name = "SECONDS")]
    pub simulate: Option<f64>,
    /// How cameras find what their pixels see, with `--simulate`: `auto` (each frame
    /// rasterises, unless the view holds so many triangles that a ray per pixel is cheaper: the
    /// default), `raster` (rasterised triangles) or `rays` (one ray per pixel).
    #[arg(long, value_name = "HOW", default_value = "auto", value_parser = ["auto", "raster", "rays"])]
    pub camera_visibility: String,
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let pool = thread_pool(args.threads)?;
    if let Some(seconds) = args.simulate {
        return simulate(global, args, &pool, seconds);
    }
    let loading = Instant::now();
    let Some(loaded) = load_or_report(global, &args.world) else {
        return Ok(ExitCode::from(1));
    };
    let Some(world) = loaded.value else {
        return Ok(ExitCode::from(1));
    };
    let mut library = model_library(global);
    let load_secs = loading.elapsed().as_secs_f64();
    let started = Instant::now();
    let built = pool.install(|| passerby_scene::build_scene(&world, &mut library));
    let build_secs = started.elapsed().as_secs_f64();
    if !global.quiet {
        for w in &built.warnings {
            eprintln!("warning: {w}");
        }
    }
    let report = pool.install(|| {
        passerby_engine::bench::ScanReport::measure(
            &world,
            &built,
            args.scans,
            (load_secs, build_secs),
        )
    });
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}

/// `--simulate SECONDS`: the whole loop (simulation step, scene update with skinning and
/// refits, every sensor) timed against the wall clock; the real-time factor is simulated
/// seconds per wall second.
fn simulate(
    global: &GlobalArgs,
    args: &BenchArgs,
    pool: &rayon::ThreadPool,
    seconds: f64,
) -> anyhow::Result<ExitCode> {
    let Some(mut engine) = open_engine(global, &args.world, pool)? else {
        return Ok(ExitCode::from(1));
    };
    use passerby_sensors::camera::Visibility;
    engine.set_camera_visibility(match args.camera_visibility.as_str() {
        "rays" => Visibility::Rays,
        "raster" => Visibility::Raster,
        _ => Visibility::Auto,
    });
    let report = pool.install(|| passerby_engine::bench::simulate(&mut engine, seconds))?;
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}
