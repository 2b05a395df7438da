//! `passerby serve WORLD [--foxglove [ADDR:]PORT] [--realtime-factor X | --lockstep]
//! [--out F.mcap] [--duration S]`: runs a world live, served to Foxglove WebSocket clients
//! (and recorded, with `--out`) until stopped. See docs/live.md.

use crate::GlobalArgs;
use crate::commands::open::{open_engine, thread_pool};
use clap::Args;
use passerby_engine::ChunkCompression;
use passerby_live::{FoxgloveOptions, FoxgloveServer, ServeOptions};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The world file.
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
    /// The Foxglove WebSocket server's address: a port (on 127.0.0.1) or ADDR:PORT (port 0:
    /// any free one, printed at start).
    #[arg(long, default_value = "8765", value_name = "[ADDR:]PORT")]
    pub foxglove: String,
    /// Simulated seconds per wall second (0: as fast as possible).
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "X",
        conflicts_with = "lockstep"
    )]
    pub realtime_factor: f64,
    /// Step only when a client asks (`/passerby/step`), for deterministic closed-loop tests.
    #[arg(long)]
    pub lockstep: bool,
    /// Stop after this many simulated seconds [default: run until stopped].
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Also record to this MCAP file.
    #[arg(long, value_name = "FILE.mcap")]
    pub out: Option<PathBuf>,
    /// Worker threads [default: all cores]. The run is identical for any count.
    #[arg(long)]
    pub threads: Option<usize>,
    /// The wall-clock date of simulated time 0, written in stamps: RFC 3339 UTC or seconds
    /// since 1970.
    #[arg(long, default_value = "1970-01-01T00:00:00Z", value_name = "TIME")]
    pub start_time: String,
}

/// `PORT` or `ADDR:PORT`.
fn host_and_port(text: &str) -> anyhow::Result<(String, u16)> {
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) => (host.trim_matches(['[', ']']).to_owned(), port),
        None => ("127.0.0.1".to_owned(), text),
    };
    let port = port
        .parse()
        .map_err(|_| anyhow::anyhow!("--foxglove `{text}`: expected PORT or ADDR:PORT"))?;
    Ok((host, port))
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let epoch = passerby_engine::parse_start_time(&args.start_time)
        .map_err(|e| anyhow::anyhow!("--start-time `{}`: {e}", args.start_time))?;
    if let Some(d) = args.duration
        && !(d > 0.0 && d.is_finite())
    {
        anyhow::bail!("--duration must be a positive number of seconds");
    }
    if !(args.realtime_factor >= 0.0 && args.realtime_factor.is_finite()) {
        anyhow::bail!("--realtime-factor must be zero or a positive number");
    }
    let (host, port) = host_and_port(&args.foxglove)?;
    let pool = thread_pool(args.threads)?;
    let Some(mut engine) = open_engine(global, &args.world, &pool)? else {
        return Ok(ExitCode::from(1));
    };
    let (controls, received) = passerby_live::controls();
    let options = FoxgloveOptions {
        host,
        port,
        lossless: args.lockstep,
        ..FoxgloveOptions::default()
    };
    let server = FoxgloveServer::start(engine.world(), engine.encoder(epoch), controls, &options)
        .map_err(anyhow::Error::msg)?;
    if let Some(out) = &args.out {
        engine.record_to(out, epoch, ChunkCompression::Auto)?;
    }
    engine.add_sink(server.sink());
    let published = [server.published()];
    // Tests and scripts read this line for the port.
    eprintln!(
        "serving {} on ws://{}:{} ({})",
        args.world.display(),
        options.host,
        server.port(),
        if args.lockstep {
            "lockstep: /passerby/step steps it".to_owned()
        } else {
            format!("{}x real time", args.realtime_factor)
        }
    );
    crate::stop::arm();
    let serve_options = ServeOptions {
        realtime_factor: args.realtime_factor,
        lockstep: args.lockstep,
        duration: args.duration,
        allow_reset: args.out.is_none(),
    };
    // The receiver moves into the pool (it may be moved between threads, not shared); the
    // engine stays here, to finish its recording whatever happened.
    let serving = &mut engine;
    let result = pool.install(move || {
        passerby_live::serve(serving, &received, &published, &serve_options, &|| {
            crate::stop::requested().is_some()
        })
    });
    let finished = engine.finish();
    server.stop();
    let report = result?;
    let lines = finished?;
    if !global.quiet {
        println!(
            "served {:.2} s in {:.2} s ({:.2}x real time, {} steps); {} velocity commands, {} requests",
            report.simulated,
            report.wall,
            report.simulated / report.wall.max(1e-9),
            report.steps,
            report.commands,
            report.requests,
        );
        for why in report.refused.iter().take(5) {
            println!("  refused: {why}");
        }
        for line in lines {
            println!("  {line}");
        }
    }
    if let Some(signal) = crate::stop::requested() {
        let (name, status) = crate::stop::describe(signal);
        eprintln!("stopped by {name}");
        return Ok(ExitCode::from(status));
    }
    Ok(ExitCode::SUCCESS)
}
