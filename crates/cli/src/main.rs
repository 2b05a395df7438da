//! The `passerby` command line: parses arguments, runs one subcommand, maps the outcome to an
//! exit status (0 success, 1 invalid input, 2 usage or internal failure).

mod commands;
mod stop;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Fast, headless robot-sensor simulation with skeletal-animated people.
#[derive(Parser, Debug)]
#[command(name = "passerby", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Flags every subcommand understands (listed under their own heading, after each
/// subcommand's own options).
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Seed of every random draw (`rand()` in world files, sensor noise, …).
    #[arg(long, global = true, default_value_t = 0)]
    pub seed: u64,
    /// MVSim data prefix: what `$(ros2 pkg prefix mvsim)` resolves to [default: the bundled
    /// definitions and models]
    #[arg(long, global = true, value_name = "DIR", env = "PASSERBY_MVSIM_DATA")]
    pub mvsim_data: Option<PathBuf>,
    /// MAVS data folder (its `data/`: meshes under `scenes/meshes/`, waypoints under
    /// `waypoints/`) for MAVS scene files [default: the folder above the scene's `scenes/`]
    #[arg(long, global = true, value_name = "DIR", env = "PASSERBY_MAVS_DATA")]
    pub mavs_data: Option<PathBuf>,
    /// Vehicles, sensors and actors to place in a MAVS scene (which carries none): an MVSim
    /// world file whose contents join the scene
    #[arg(long, global = true, value_name = "RIG.xml")]
    pub rig: Option<PathBuf>,
    /// A MAVS actor file (rigid meshes on waypoint paths) to add to a MAVS scene
    #[arg(long, global = true, value_name = "FILE.json")]
    pub mavs_actors: Option<PathBuf>,
    /// `YawPitchRoll` convention of MAVS scenes: `current` (yaw at index 0) or `legacy` (scenes
    /// written before June 2026, yaw at index 1)
    #[arg(long, global = true, value_enum, default_value = "current")]
    pub mavs_ypr: MavsYpr,
    /// Cache of remote models (http(s) model URIs) [default: ~/.cache/passerby]
    #[arg(long, global = true, value_name = "DIR", env = "PASSERBY_ASSET_CACHE")]
    pub asset_cache: Option<PathBuf>,
    /// Never download: remote models missing from the asset cache get placeholders (by
    /// default they are fetched into it on first use, as MVSim does).
    #[arg(
        long,
        global = true,
        env = "PASSERBY_OFFLINE",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::FalseyValueParser::new()
    )]
    pub offline: bool,
    /// Let `$(cmd)` in world files run shell commands (off: a world must not run programs).
    #[arg(long, global = true)]
    pub allow_shell: bool,
    /// Set a world variable: what `${NAME}` and `${NAME|default}` stand for, over the world's
    /// own `<variable name="NAME">` (repeatable), so one world file is a family of scenarios.
    #[arg(long = "var", global = true, value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Multiply every noise by this factor: sensors' sigmas and random walks, wheel-odometry
    /// errors (0: exact measurements). The same draws are made, so only the noise changes.
    #[arg(long, global = true, default_value_t = 1.0, value_name = "K", value_parser = parse_noise_scale)]
    pub noise_scale: f64,
    /// No noise at all (`--noise-scale 0`): ground-truth measurements.
    #[arg(long, global = true, conflicts_with = "noise_scale")]
    pub noiseless: bool,
    /// Multiply every input limit (sensor sizes and rates, recorded bytes per second, includes;
    /// docs/limits.md) by this factor, for worlds that really mean it.
    #[arg(long, global = true, default_value_t = 1.0, value_name = "FACTOR")]
    pub limits_scale: f64,
    /// More log output (-v: debug, -vv: trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,
    /// Less output: errors only.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// `NAME=VALUE` of `--var`: a name of letters, digits and `_` (MVSim's), any value.
fn parse_var(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!(
            "`{name}`: a variable name is letters, digits and `_`"
        ));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// `K` of `--noise-scale`: finite and not negative.
fn parse_noise_scale(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(k) if k.is_finite() && k >= 0.0 => Ok(k),
        _ => Err(format!("`{text}`: expected a finite number >= 0")),
    }
}

/// `--mavs-ypr`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum MavsYpr {
    /// Yaw (about Z) at index 0 (MAVS since commit 0d2ac93).
    Current,
    /// Yaw at index 1.
    Legacy,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Load and validate a world, and print a summary of what it holds.
    Check(commands::check::CheckArgs),
    /// Inspect a 3D model file, or pose it at an instant of a clip.
    #[command(subcommand)]
    Model(commands::model::ModelCommand),
    /// Simulate a world and record everything to MCAP (ROS 2 messages).
    Run(commands::run::RunArgs),
    /// Run a world live: served to Foxglove WebSocket clients, driven by their velocity
    /// commands, stepped on request in lockstep.
    Serve(commands::serve::ServeArgs),
    /// Render one instant of one camera to PNG files (colour, depth, labels) and 2D boxes.
    Render(commands::render::RenderArgs),
    /// Measure ray casting on a world's lidars and lasers (scene build, seconds per scan, Mrays/s).
    Bench(commands::bench::BenchArgs),
    /// Run a sweep: every world x seed x variable values of a spec, recorded and exported,
    /// with a manifest; resumable, shardable (Kubernetes, Slurm).
    Sweep(commands::sweep::SweepArgs),
    /// Export a recording into a dataset layout (SemanticKITTI).
    Export(commands::export::ExportArgs),
    /// Rewrite a recording cut short (killed, power loss, full disk) into a readable file.
    Recover(commands::recover::RecoverArgs),
}

/// Keeps freed memory in the process for reuse. glibc hands freed blocks above its mmap
/// threshold back to the kernel and trims its heaps when their free top grows past twice that,
/// so every frame's image, depth and cloud buffers (megabytes each, allocated anew each frame
/// and freed by whoever consumes them) came back as fresh pages to fault in and zero: on the
/// camera benchmark that was 8-10 % of the system and user time on one thread.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn keep_freed_memory() {
    // Blocks up to glibc's largest threshold (32 MB on 64-bit) come from the heaps, whose free
    // space is then never trimmed.
    // SAFETY: `mallopt` only sets allocator parameters (it takes the arena locks itself), and
    // this runs at the start of `main`, before any other thread of ours exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() -> ExitCode {
    keep_freed_memory();
    let cli = Cli::parse();
    let level = match (cli.global.quiet, cli.global.verbose) {
        (true, _) => "error",
        // Downloads say what they fetch (once per file, into the cache).
        // RustDDS logs every discovery step it cannot take yet (a peer not confirmed
        // reachable, no multicast on loopback) and its shutdown as warnings and errors: noise
        // for a user, kept for -v (a failure to start reaches us as an error anyway).
        (false, 0) => "warn,passerby_assets::uri=info,rustdds=off,ros2_client=off",
        (false, 1) => "debug",
        (false, _) => "trace",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| level.into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .init();
    let result = match &cli.command {
        Command::Check(args) => commands::check::run(&cli.global, args),
        Command::Model(command) => commands::model::run(&cli.global, command),
        Command::Run(args) => commands::run::run(&cli.global, args),
        Command::Serve(args) => commands::serve::run(&cli.global, args),
        Command::Render(args) => commands::render::run(&cli.global, args),
        Command::Bench(args) => commands::bench::run(&cli.global, args),
        Command::Recover(args) => commands::recover::run(&cli.global, args),
        Command::Export(args) => commands::export::run(&cli.global, args),
        Command::Sweep(args) => commands::sweep::run(&cli.global, args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
