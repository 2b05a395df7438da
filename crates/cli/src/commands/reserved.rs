//! Subcommands whose names are reserved for work not done yet. They say so and fail, rather
//! than pretend.

use clap::Args;
use std::process::ExitCode;

/// Arguments are accepted and ignored until the command exists.
#[derive(Args, Debug)]
pub struct ReservedArgs {
    /// Arguments of the future command.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

/// Reports that the command is not available yet.
pub fn run(name: &str, waits_for: &str) -> anyhow::Result<ExitCode> {
    eprintln!(
        "error: `passerby {name}` is not available yet: it needs {waits_for}. Use `passerby check WORLD` to validate a world."
    );
    Ok(ExitCode::from(2))
}
