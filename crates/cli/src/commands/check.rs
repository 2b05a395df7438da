//! `passerby check WORLD`: loads and validates a world, prints every diagnostic with its
//! position, then a summary of what the world holds. Exit status 0 if the world is valid
//! (warnings allowed), 1 if it has errors.

use crate::GlobalArgs;
use clap::Args;
use passerby_assets::ModelLibrary;
use passerby_engine::{InputOptions, Loaded, YprConvention, load_world, report};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The world file (MVSim `.world.xml`, or a MAVS scene `.json`).
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
}

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
    }
}

/// The model library of the global flags (`--asset-cache`, `--offline`).
pub fn model_library(global: &GlobalArgs) -> ModelLibrary {
    passerby_engine::model_library(global.asset_cache.clone(), !global.offline)
}

/// The world of `path`, or `None` once its errors are printed (with their source lines).
pub fn load_or_report(global: &GlobalArgs, path: &std::path::Path) -> Option<Loaded> {
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

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let loaded = load_world(&args.world, &input_options(global));
    for d in &loaded.diagnostics {
        let is_error = d.severity == passerby_diag::Severity::Error;
        if is_error || !global.quiet {
            eprintln!("{}\n", d.render(&loaded.sources));
        }
    }
    let errors = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == passerby_diag::Severity::Error)
        .count();
    match loaded.value {
        Some(world) => {
            let mut library = model_library(global);
            let models = report::load_models(&world, &mut library);
            if !global.quiet {
                for (uri, reason) in &models.missing {
                    eprintln!(
                        "warning: model `{uri}` is not available ({reason}); objects using it get a placeholder\n"
                    );
                }
                for warning in report::missing_clips(&world, &models) {
                    eprintln!("warning: {warning}\n");
                }
                print!("{}", report::summary(&world, &models));
            }
            Ok(ExitCode::SUCCESS)
        }
        None => {
            eprintln!(
                "{}: {errors} error(s); the world is not valid",
                args.world.display()
            );
            Ok(ExitCode::from(1))
        }
    }
}
