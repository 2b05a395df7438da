//! `passerby bench WORLD [--scans N] [--threads N] [--json]`: builds the world's ray-casting
//! scene at its initial state and casts every lidar and laser scan N times, reporting per
//! sensor: rays, hits, scene build time, seconds per scan and millions of rays per second.
//! With `--simulate SECONDS` it runs the whole loop instead (simulation, scene updates with
//! skinning, every sensor) and reports the real-time factor (`simulate.rs`).

use crate::GlobalArgs;
use crate::commands::check::{load_or_report, thread_pool};
use clap::Args;
use std::fmt::Write as _;
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
    /// How cameras find what their pixels see, with `--simulate`: `raster` (rasterised
    /// triangles, the default) or `rays` (one ray per pixel).
    #[arg(long, value_name = "HOW", default_value = "raster", value_parser = ["raster", "rays"])]
    pub camera_visibility: String,
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let loading = Instant::now();
    let Some(loaded) = load_or_report(global, &args.world) else {
        return Ok(ExitCode::from(1));
    };
    let Some(world) = loaded.value else {
        return Ok(ExitCode::from(1));
    };
    let pool = thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let mut library = crate::commands::check::model_library(global);
    let load_secs = loading.elapsed().as_secs_f64();
    let started = Instant::now();
    let built = pool.install(|| passerby_scene::build_scene(&world, &mut library));
    if let Some(seconds) = args.simulate {
        if !global.quiet {
            for w in &built.warnings {
                eprintln!("warning: {w}");
            }
        }
        return crate::commands::simulate::run(
            world,
            built,
            &pool,
            global.seed,
            seconds,
            args.json,
            if args.camera_visibility == "rays" {
                passerby_sensors::camera::Visibility::Rays
            } else {
                passerby_sensors::camera::Visibility::Raster
            },
        );
    }
    let build_secs = started.elapsed().as_secs_f64();
    if !global.quiet {
        for w in &built.warnings {
            eprintln!("warning: {w}");
        }
    }
    let report = pool.install(|| passerby_engine::bench::time_scans(&world, &built, args.scans));
    let triangles = built.scene.triangle_count();
    if args.json {
        let sensors: Vec<String> = report
            .iter()
            .map(|t| {
                let (n, c, r, h, s) = (&t.sensor, t.class, t.rays, t.hits, t.seconds_per_scan);
                format!(
                    "{{\"sensor\":\"{n}\",\"class\":\"{c}\",\"rays\":{r},\"hits\":{h},\"seconds_per_scan\":{s:.6},\"mrays_per_second\":{:.3}}}",
                    r as f64 / s / 1e6
                )
            })
            .collect();
        println!(
            "{{\"world\":{:?},\"threads\":{threads},\"triangles\":{triangles},\"instances\":{},\"load_seconds\":{load_secs:.4},\"build_seconds\":{build_secs:.4},\"bvh_build_seconds\":{:.4},\"bytes_per_triangle\":{:.1},\"scans\":{},\"sensors\":[{}]}}",
            world.source.display().to_string(),
            built.scene.instance_count(),
            built.model_bvh_seconds,
            built.scene.memory_bytes() as f64 / triangles.max(1) as f64,
            args.scans,
            sensors.join(",")
        );
    } else {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "world loaded in {load_secs:.3} s; scene: {triangles} triangles in {} instances, built in {build_secs:.3} s (BVHs {:.3} s, the rest loading files), {:.0} bytes per triangle; {threads} thread(s), {} scans per sensor",
            built.scene.instance_count(),
            built.model_bvh_seconds,
            built.scene.memory_bytes() as f64 / triangles.max(1) as f64,
            args.scans
        );
        for t in &report {
            let (n, c, r, h, s) = (&t.sensor, t.class, t.rays, t.hits, t.seconds_per_scan);
            let _ = writeln!(
                out,
                "  {n} {c}: {r} rays, {h} hits, {s:.5} s per scan, {:.2} Mrays/s",
                r as f64 / s / 1e6
            );
        }
        print!("{out}");
    }
    Ok(ExitCode::SUCCESS)
}
