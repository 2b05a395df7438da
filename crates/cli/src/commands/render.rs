//! `passerby render WORLD --sensor VEHICLE/SENSOR --time T --out DIR`: one instant of one
//! camera as PNG files a person can look at.
//!
//! The world is simulated up to the first step at or after `T` (sensors are not run on the way),
//! then the camera is captured whatever its schedule. Written: `colour.png` (sRGB),
//! `depth.png` (16-bit grey: millimetres along the optical axis for a camera, the sensor's own
//! `depth_resolution` units for an RGB-D camera; 0 = nothing), `labels_instance.png` and
//! `labels_class.png` (one colour per id; the ids are in `labels.json`), `boxes.json` (each
//! actor's 2D box with its visible fraction).

use crate::GlobalArgs;
use crate::commands::open::{open_engine, thread_pool};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// The world file.
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
    /// The camera: `VEHICLE/SENSOR`, or `world/SENSOR` for a standalone one.
    #[arg(long, value_name = "VEHICLE/SENSOR")]
    pub sensor: String,
    /// Simulated time of the image, seconds.
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    pub time: f64,
    /// Folder for the images.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads [default: all cores]. The images are identical for any count.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &RenderArgs) -> anyhow::Result<ExitCode> {
    if !(args.time >= 0.0 && args.time.is_finite()) {
        anyhow::bail!("--time must be zero or a positive number of seconds");
    }
    let pool = thread_pool(args.threads)?;
    let Some(mut engine) = open_engine(global, &args.world, &pool)? else {
        return Ok(ExitCode::from(1));
    };
    let names = engine.rig().camera_names();
    if !names.contains(&args.sensor) {
        eprintln!(
            "error: no camera `{}` in {}; cameras: {}",
            args.sensor,
            args.world.display(),
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        );
        return Ok(ExitCode::from(1));
    }
    let labels = passerby_engine::label_tables(engine.scene());
    let observation = pool.install(|| {
        engine.skip_to(args.time);
        engine.capture(&args.sensor)
    })?;
    let Some(observation) = observation else {
        anyhow::bail!("camera `{}` did not capture", args.sensor);
    };
    let json = format!(
        "{{\"instances\":{},\"classes\":{}}}\n",
        labels["instances"], labels["classes"]
    );
    passerby_record::capture::write_capture(&args.out, &observation, &json)
        .map_err(anyhow::Error::msg)?;
    if !global.quiet {
        eprintln!(
            "rendered `{}` at {:.3} s into {}",
            args.sensor,
            engine.time(),
            args.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
