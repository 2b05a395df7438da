//! `passerby run WORLD [--duration S] [--out FILE.mcap] [--threads N] [--realtime-factor X]
//! [--transforms F] [--commands F] [--start-time T]`: loads, simulates and records to MCAP.
//!
//! The recording is streamed; Ctrl-C, SIGTERM or SIGHUP (or an error) stops the loop and
//! finishes the file properly (summary and index written), then exits with 128 + the signal's
//! number (130, 143, 129). Without a terminal a progress
//! line is logged every few seconds; at the end a summary per topic.

use crate::GlobalArgs;
use crate::commands::open::{open_engine, thread_pool};
use clap::Args;
use passerby_engine::{ChunkCompression, Engine, inputs};
use passerby_scene::BuiltScene;
use passerby_world::{TimedCommand, TimedTransform, World};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The world file.
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
    /// Simulated seconds to run.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub duration: f64,
    /// The recording [default: the world's name with `.mcap`, in the current directory].
    #[arg(long, value_name = "FILE.mcap")]
    pub out: Option<PathBuf>,
    /// Worker threads [default: all cores]. The recording is identical for any count.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Pace the loop to this many simulated seconds per wall second (0: as fast as possible).
    #[arg(long, default_value_t = 0.0, value_name = "X")]
    pub realtime_factor: f64,
    /// A vehicle's (or any movable object's) poses from a TUM trajectory file
    /// (`timestamp tx ty tz qx qy qz qw`, times from its first row), replayed as transforms of
    /// its body (repeatable).
    #[arg(long = "trajectory", value_name = "OBJECT=FILE", value_parser = parse_trajectory)]
    pub trajectories: Vec<(String, PathBuf)>,
    /// Timed transforms to replay (CSV or JSON lines, docs/timed-inputs.md).
    #[arg(long, value_name = "FILE")]
    pub transforms: Option<PathBuf>,
    /// Timed vehicle velocity commands to replay (CSV or JSON lines).
    #[arg(long, value_name = "FILE")]
    pub commands: Option<PathBuf>,
    /// Also write the data as plain files (PCD, CSV, JSON) into this folder.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// Also write ground-truth trajectories (each vehicle and each of its sensors, a line per
    /// step) as TUM files (`t tx ty tz qx qy qz qw`, what evo reads) into this folder.
    #[arg(long, value_name = "DIR")]
    pub tum: Option<PathBuf>,
    /// The wall-clock date of simulated time 0, written in stamps: RFC 3339 UTC
    /// (`2026-01-01T00:00:00Z`) or seconds since 1970.
    #[arg(long, default_value = "1970-01-01T00:00:00Z", value_name = "TIME")]
    pub start_time: String,
    /// Chunk compression: `auto` (LZ4 for all but point clouds and depth images, which it barely
    /// shrinks), `lz4` (every chunk: the smallest files, the most work) or `none`.
    #[arg(long, value_enum, default_value = "auto")]
    pub compression: Compression,
}

/// `--compression`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Compression {
    /// LZ4 frames except for point clouds and depth images.
    Auto,
    /// LZ4 frames for every chunk.
    Lz4,
    /// Uncompressed chunks.
    None,
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &RunArgs) -> anyhow::Result<ExitCode> {
    let epoch = passerby_engine::parse_start_time(&args.start_time)
        .map_err(|e| anyhow::anyhow!("--start-time `{}`: {e}", args.start_time))?;
    if !(args.duration > 0.0 && args.duration.is_finite()) {
        anyhow::bail!("--duration must be a positive number of seconds");
    }
    let pool = thread_pool(args.threads)?;
    let Some(mut engine) = open_engine(global, &args.world, &pool)? else {
        return Ok(ExitCode::from(1));
    };
    let Some((transforms, commands)) = read_timed(args, engine.world(), engine.scene()) else {
        return Ok(ExitCode::from(1));
    };
    engine.replay_inputs(transforms, commands)?;
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.world));
    open_sinks(&mut engine, args, &out, epoch)?;
    crate::stop::arm();
    let started = Instant::now();
    let result = pool.install(|| drive(&mut engine, global, args, &out, started));
    // Whatever happened, finish the files so that they stay readable; the loop's own error (a
    // full disk, say) is the one to report.
    let simulated = engine.time();
    let finished = engine.finish();
    result?;
    let lines = finished?;
    let wall = started.elapsed().as_secs_f64();
    if !global.quiet {
        let size = std::fs::metadata(&out).map_or(0, |m| m.len());
        let mut summary = format!(
            "simulated {simulated:.2} s in {wall:.2} s ({:.2}x real time); wrote {} ({:.1} MB)\n",
            simulated / wall.max(1e-9),
            out.display(),
            size as f64 / 1e6
        );
        for line in lines {
            summary += &format!("  {line}\n");
        }
        // A recording written to standard output keeps it to itself.
        if out == Path::new("/dev/stdout") {
            eprint!("{summary}");
        } else {
            print!("{summary}");
        }
    }
    if let Some(signal) = crate::stop::requested() {
        let (name, status) = crate::stop::describe(signal);
        eprintln!("stopped by {name}: the recording holds the first {simulated:.2} s");
        return Ok(ExitCode::from(status));
    }
    Ok(ExitCode::SUCCESS)
}

/// The recording (and the dump, with `--dump`) as the engine's sinks.
fn open_sinks(engine: &mut Engine, args: &RunArgs, out: &Path, epoch: u64) -> anyhow::Result<()> {
    let compression = match args.compression {
        Compression::Auto => ChunkCompression::Auto,
        Compression::Lz4 => ChunkCompression::Lz4,
        Compression::None => ChunkCompression::None,
    };
    engine.record_to(out, epoch, compression)?;
    if let Some(dir) = &args.dump {
        engine.dump_to(dir)?;
    }
    if let Some(dir) = &args.tum {
        engine.tum_to(dir)?;
    }
    Ok(())
}

/// Steps the engine until `--duration` or a stop signal, paced by `--realtime-factor`, showing
/// progress (a bar on a terminal, otherwise a line every few seconds).
fn drive(
    engine: &mut Engine,
    global: &GlobalArgs,
    args: &RunArgs,
    out: &Path,
    started: Instant,
) -> anyhow::Result<()> {
    let mut last_log = Instant::now();
    let bar = (!global.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
        let bar = indicatif::ProgressBar::new((args.duration * 1000.0) as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {msg} [{elapsed_precise}, eta {eta}]",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    while engine.time() < args.duration - 1e-9 {
        if crate::stop::requested().is_some() {
            break;
        }
        if let Err(e) = engine.step() {
            if let Some(bar) = &bar {
                bar.finish_and_clear();
            }
            return Err(e.into());
        }
        let t = engine.time();
        if args.realtime_factor > 0.0 {
            let due = Duration::from_secs_f64(t / args.realtime_factor);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        if let Some(bar) = &bar {
            if engine.sim().steps().is_multiple_of(20) {
                bar.set_position((t * 1000.0) as u64);
                bar.set_message(format!(
                    "{t:.2}/{:.1} s simulated, {:.2}x real time, {:.1} MB",
                    args.duration,
                    t / started.elapsed().as_secs_f64(),
                    std::fs::metadata(out).map_or(0, |m| m.len()) as f64 / 1e6
                ));
            }
        } else if !global.quiet && last_log.elapsed() > Duration::from_secs(3) {
            last_log = Instant::now();
            eprintln!(
                "simulated {t:.1} of {:.1} s, {:.2}x real time",
                args.duration,
                t / started.elapsed().as_secs_f64()
            );
        }
    }
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    Ok(())
}

/// The timed inputs `--transforms` and `--commands` name, checked against the world and its
/// scene (objects, vehicles and parts, each error at its place in the file), with parts given
/// as `#K` replaced by their names; `None` after errors.
#[allow(clippy::type_complexity)]
fn read_timed(
    args: &RunArgs,
    world: &World,
    built: &BuiltScene,
) -> Option<(Option<Vec<TimedTransform>>, Option<Vec<TimedCommand>>)> {
    let commands = match &args.commands {
        Some(path) => Some(rows_or_report(inputs::read_commands(path, world))?),
        None => None,
    };
    let mut transforms = match &args.transforms {
        Some(path) => Some(rows_or_report(inputs::read_transforms(path, world, built))?),
        None => None,
    };
    for (object, path) in &args.trajectories {
        let rows = rows_or_report(inputs::read_trajectory(path, object, world, built))?;
        transforms.get_or_insert_with(Vec::new).extend(rows);
    }
    Some((transforms, commands))
}

/// `OBJECT=FILE` of `--trajectory`.
fn parse_trajectory(text: &str) -> Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((object, file)) if !object.is_empty() && !file.is_empty() => {
            Ok((object.to_owned(), PathBuf::from(file)))
        }
        _ => Err(format!("`{text}`: expected OBJECT=FILE")),
    }
}

/// A timed file's rows, or `None` once its diagnostics are printed (warnings too).
fn rows_or_report<T>(parsed: passerby_timed::Parsed<T>) -> Option<Vec<T>> {
    for d in &parsed.diagnostics {
        eprintln!("{}\n", d.render(&parsed.sources));
    }
    let has_errors = parsed.errors().next().is_some();
    parsed.value.filter(|_| !has_errors).map(|v| v.rows)
}

fn default_out(world: &Path) -> PathBuf {
    let stem = world
        .file_name()
        .and_then(|n| n.to_str())
        .map_or("run", |n| n.split('.').next().unwrap_or("run"));
    PathBuf::from(format!("{stem}.mcap"))
}
