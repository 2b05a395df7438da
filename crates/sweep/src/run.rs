//! One attempt at one scenario, in this process: load the world with the scenario's seed and
//! variables, record `run.mcap` exactly as `passerby run --seed S --var ... --duration D` does
//! (same options, same engine, so the same bytes), export what the spec asks, and hash it all.
//! A panic is caught and reported as the attempt's error.

use crate::manifest::{Record, hash_output};
use crate::spec::{Export, Scenario, Settings};
use passerby_engine::{ChunkCompression, Engine, InputOptions, load_world, model_library};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs attempt `attempt` of `scenario` into `out/<id>/` (emptied first) and returns its record.
pub fn run_attempt(
    settings: &Settings,
    scenario: &Scenario,
    out: &Path,
    attempt: u32,
    engine: &str,
) -> Record {
    let mut record = Record::new(scenario, settings.duration, settings.noise_scale, engine);
    record.attempt = attempt;
    let started = Instant::now();
    let dir = out.join(&scenario.id);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        simulate_and_export(settings, scenario, &dir)
    }))
    .unwrap_or_else(|panic| {
        let what = (panic.downcast_ref::<String>().cloned())
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        Err(format!("panicked: {what}"))
    });
    record.wall_s = started.elapsed().as_secs_f64();
    record.real_time_factor = settings.duration / record.wall_s.max(1e-9);
    let outputs = result.and_then(|written| {
        (written.iter())
            .map(|p| hash_output(out, &Path::new(&scenario.id).join(p)))
            .collect::<Result<Vec<_>, String>>()
    });
    match outputs {
        Ok(outputs) => {
            record.outputs = outputs;
            record.status = "ok".into();
        }
        Err(e) => record.error = Some(e),
    }
    record
}

/// The run and its exports into `dir`; the outputs' names in it.
fn simulate_and_export(
    settings: &Settings,
    scenario: &Scenario,
    dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let options = InputOptions {
        seed: scenario.seed,
        variables: scenario.variables.clone(),
        noise_scale: settings.noise_scale,
        rig: settings.rig.clone(),
        mvsim_data: settings.mvsim_data.clone(),
        ..InputOptions::default()
    };
    let loaded = load_world(&scenario.world, &options);
    let Some(world) = loaded.value else {
        let errors: Vec<String> = (loaded.errors())
            .map(|d| d.render(&loaded.sources))
            .collect();
        return Err(errors.join("\n"));
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        .build()
        .map_err(|e| e.to_string())?;
    let recording = dir.join("run.mcap");
    pool.install(|| {
        let mut library = model_library(settings.asset_cache.clone(), !settings.offline);
        let mut engine =
            Engine::build(world, &mut library, scenario.seed).map_err(|e| e.to_string())?;
        engine
            .record_to(&recording, 0, ChunkCompression::Auto)
            .map_err(|e| e.to_string())?;
        let mut result = Ok(());
        while engine.time() < settings.duration - 1e-9 {
            if let Err(e) = engine.step() {
                result = Err(e.to_string());
                break;
            }
        }
        let finished = engine.finish().map(|_| ()).map_err(|e| e.to_string());
        result.and(finished)
    })?;
    let mut outputs = vec![PathBuf::from("run.mcap")];
    for export in &settings.exports {
        match export {
            Export::Semantickitti => {
                let options = passerby_datasets::SemanticKittiOptions {
                    sensor: settings.export_sensor.clone(),
                    ..Default::default()
                };
                let target = dir.join("semantickitti");
                passerby_datasets::export_semantic_kitti(&recording, &target, &options)
                    .map_err(|e| e.to_string())?;
                outputs.push("semantickitti".into());
            }
        }
    }
    Ok(outputs)
}
