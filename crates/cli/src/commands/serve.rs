//! `passerby serve WORLD [--ros2] [--foxglove [ADDR:]PORT] [--realtime-factor X | --lockstep]
//! [--out F.mcap] [--duration S]`: runs a world live, served to ROS 2 nodes over DDS and to
//! Foxglove WebSocket clients (and recorded, with `--out`) until stopped. See docs/live.md.

use crate::GlobalArgs;
use crate::commands::open::{open_engine, thread_pool};
use clap::Args;
use passerby_engine::ChunkCompression;
use passerby_live::{
    DiscoveryRange, FoxgloveOptions, FoxgloveServer, Parameters, Ros2Options, Ros2Server,
    ServeOptions, Served, WebServer,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The world file.
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
    /// Serve Foxglove WebSocket clients on a port (of 127.0.0.1) or ADDR:PORT (port 0: any
    /// free one, printed at start) [default: 8765, unless only --ros2 is asked]
    #[arg(long, value_name = "[ADDR:]PORT")]
    pub foxglove: Option<String>,
    /// Serve the bundled viewer (a web page over the Foxglove server) on a port (of 127.0.0.1)
    /// or ADDR:PORT; `off` for none.
    #[arg(long, default_value = "8766", value_name = "[ADDR:]PORT")]
    pub web: String,
    /// Publish over ROS 2 (DDS; no ROS installation needed) as the node `/passerby`, on
    /// `ROS_DOMAIN_ID`, discoverable from this machine only unless `--ros2-subnet` or
    /// `ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET`.
    #[arg(long)]
    pub ros2: bool,
    /// Let ROS 2 discovery reach the local network.
    #[arg(long, requires = "ros2")]
    pub ros2_subnet: bool,
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
    // Both --foxglove and --web take this form.
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) => (host.trim_matches(['[', ']']).to_owned(), port),
        None => ("127.0.0.1".to_owned(), text),
    };
    let port = port
        .parse()
        .map_err(|_| anyhow::anyhow!("`{text}`: expected PORT or ADDR:PORT"))?;
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
    let foxglove = match (&args.foxglove, args.ros2) {
        (Some(address), _) => Some(host_and_port(address)?),
        (None, false) => Some(("127.0.0.1".to_owned(), 8765)),
        (None, true) => None,
    };
    let web = match args.web.as_str() {
        "off" => None,
        address => Some(host_and_port(address)?),
    };
    let ros2 = if args.ros2 {
        let mut options = Ros2Options::from_env().map_err(anyhow::Error::msg)?;
        if args.ros2_subnet {
            options.range = DiscoveryRange::Subnet;
        }
        options.lossless = args.lockstep;
        Some(options)
    } else {
        None
    };
    let pool = thread_pool(args.threads)?;
    let Some(mut engine) = open_engine(global, &args.world, &pool)? else {
        return Ok(ExitCode::from(1));
    };
    let (controls, received) = passerby_live::controls();
    let params = std::sync::Arc::new(Parameters::new(
        &Served {
            world: args.world.display().to_string(),
            seed: global.seed,
            time_step: engine.sim().timestep(),
            lockstep: args.lockstep,
            realtime_factor: args.realtime_factor,
        },
        controls.clone(),
    ));
    if let Some(out) = &args.out {
        engine.record_to(out, epoch, ChunkCompression::Auto)?;
    }
    let mut published = Vec::new();
    let mut fox = None;
    let mut viewer = None;
    if let Some((host, port)) = foxglove {
        let options = FoxgloveOptions {
            host: host.clone(),
            port,
            lossless: args.lockstep,
            ..FoxgloveOptions::default()
        };
        let encoder = engine.encoder(epoch);
        let server = FoxgloveServer::start(
            engine.world(),
            encoder,
            controls.clone(),
            params.clone(),
            &options,
        )
        .map_err(anyhow::Error::msg)?;
        engine.add_sink(server.sink());
        published.push(server.published());
        // Tests and scripts read these lines for the ports.
        eprintln!("foxglove: ws://{host}:{}", server.port());
        if let Some((web_host, web_port)) = &web {
            let web =
                WebServer::start(web_host, *web_port, server.port()).map_err(anyhow::Error::msg)?;
            eprintln!("web: http://{web_host}:{}/", web.port());
            viewer = Some(web);
        }
        fox = Some(server);
    }
    let mut ros = None;
    if let Some(options) = &ros2 {
        let encoder = engine.encoder(epoch);
        let server = Ros2Server::start(engine.world(), encoder, controls, params.clone(), options)
            .map_err(anyhow::Error::msg)?;
        engine.add_sink(server.sink());
        published.push(server.published());
        eprintln!(
            "ros2: node /passerby on domain {}, discoverable from {}",
            options.domain_id,
            match options.range {
                DiscoveryRange::Localhost => "this machine only",
                DiscoveryRange::Subnet => "the local network",
            }
        );
        ros = Some(server);
    }
    // Only the servers hold the parameters (and their control sender) from here on.
    drop(params);
    eprintln!(
        "serving {} ({})",
        args.world.display(),
        if args.lockstep {
            "lockstep: a step request steps it".to_owned()
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
    drop(viewer);
    if let Some(server) = fox {
        server.stop();
    }
    if let Some(server) = ros {
        server.stop();
    }
    let report = result?;
    let lines = finished?;
    if !global.quiet {
        println!(
            "served {:.2} s in {:.2} s ({:.2}x real time, {} steps); {} velocity commands, {} transform sets, {} requests",
            report.simulated,
            report.wall,
            report.simulated / report.wall.max(1e-9),
            report.steps,
            report.commands,
            report.transforms,
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
