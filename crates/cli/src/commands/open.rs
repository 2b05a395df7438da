//! What every command that runs a world does first: the input options of the global flags,
//! loading with diagnostics printed at their places, the worker threads, the model library and
//! an engine over the built scene with its warnings printed.

use crate::GlobalArgs;
use passerby_assets::ModelLibrary;
use passerby_engine::{Engine, InputOptions, Loaded, YprConvention, load_world};
use std::path::Path;

/// Input options from the global flags.
pub fn input_options(global: &GlobalArgs) -> InputOptions {
    InputOptions {
        seed: global.seed,
        allow_shell: global.allow_shell,
        limits_scale: global.limits_scale,
        mvsim_data: global.mvsim_data.clone(),
        rig: global.rig.clone(),
        mavs_data: global.mavs_data.clone(),
        mavs_ypr: match global.mavs_ypr {
            crate::MavsYpr::Current => YprConvention::Current,
            crate::MavsYpr::Legacy => YprConvention::Legacy,
        },
        mavs_actors: global.mavs_actors.clone(),
        variables: global.vars.iter().cloned().collect(),
        noise_scale: if global.noiseless {
            0.0
        } else {
            global.noise_scale
        },
    }
}

/// The model library of the global flags (`--asset-cache`, `--offline`).
pub fn model_library(global: &GlobalArgs) -> ModelLibrary {
    passerby_engine::model_library(global.asset_cache.clone(), !global.offline)
}

/// The world of `path`, or `None` once its errors are printed (with their source lines).
pub fn load_or_report(global: &GlobalArgs, path: &Path) -> Option<Loaded> {
    let loaded = load_world(path, &input_options(global));
    if loaded.value.is_some() {
        return Some(loaded);
    }
    for d in loaded.errors() {
        eprintln!("{}\n", d.render(&loaded.sources));
    }
    None
}

/// The worker threads of `--threads` (all cores by default).
pub fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?)
}

/// The world of `path` running in an engine (its scene built on `pool`), with the loader's
/// warnings and the scene's and engine's warnings and notes printed unless `--quiet`; `None`
/// once the world's errors are printed.
pub fn open_engine(
    global: &GlobalArgs,
    path: &Path,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<Option<Engine>> {
    let Some(loaded) = load_or_report(global, path) else {
        return Ok(None);
    };
    let Some(mut world) = loaded.value else {
        return Ok(None);
    };
    if !global.quiet {
        for d in &loaded.diagnostics {
            eprintln!("{}", d.headline(&loaded.sources));
        }
    }
    let mut library = model_library(global);
    let built =
        pool.install(|| passerby_scene::build_scene_taking_meshes(&mut world, &mut library));
    let engine = Engine::new(world, built, global.seed)?;
    if !global.quiet {
        for w in engine.scene().warnings.iter().chain(engine.warnings()) {
            eprintln!("warning: {w}");
        }
        for n in engine.notices() {
            eprintln!("note: {n}");
        }
    }
    Ok(Some(engine))
}
