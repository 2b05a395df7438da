//! `passerby check WORLD`: loads and validates a world, prints every diagnostic with its
//! position, then a summary of what the world holds. Exit status 0 if the world is valid
//! (warnings allowed), 1 if it has errors.

use crate::GlobalArgs;
use crate::commands::open::{input_options, model_library};
use clap::Args;
use passerby_engine::{load_world, report};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The world file (MVSim `.world.xml`, or a MAVS scene `.json`).
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
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
