//! `passerby recover CUT.mcap [OUT.mcap]`: rewrites every complete chunk of a recording cut
//! short (SIGKILL, a power loss, a full disk) into a readable file with indexes and a summary.
//! Exit status 0 when a file was written, 1 when the input holds nothing to recover.

use crate::GlobalArgs;
use clap::Args;
use passerby_record::recover::{RecoverError, default_output, recover};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `recover`.
#[derive(Args, Debug)]
pub struct RecoverArgs {
    /// The recording cut short.
    #[arg(value_name = "IN.mcap")]
    pub input: PathBuf,
    /// The mended recording [default: IN.recovered.mcap beside it].
    #[arg(value_name = "OUT.mcap")]
    pub output: Option<PathBuf>,
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &RecoverArgs) -> anyhow::Result<ExitCode> {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.input));
    let report = match recover(&args.input, &output) {
        Ok(report) => report,
        Err(e @ (RecoverError::NotMcap(_) | RecoverError::Empty(_))) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(e.into()),
    };
    if !global.quiet {
        let state = if report.was_complete {
            "the data section was complete".to_owned()
        } else {
            format!("{} bytes at the end were cut short", report.cut_bytes)
        };
        println!(
            "recovered {} messages from {} complete chunks and {} metadata records of {} ({state}); wrote {}",
            report.messages,
            report.chunks,
            report.metadata,
            args.input.display(),
            output.display()
        );
        if report.bad_chunks > 0 {
            println!(
                "  {} chunks dropped (CRC mismatch, unreadable compression or contents)",
                report.bad_chunks
            );
        }
        if report.orphans > 0 {
            println!(
                "  {} messages dropped: their channel was never defined",
                report.orphans
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
