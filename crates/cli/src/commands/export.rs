//! `passerby export REC.mcap DIR --format semantickitti|kitti [--sensor VEH/NAME]
//! [--sequence NN] [--class-map MAP.json] [--lidar VEH/NAME] [--first-index N]`: a recording
//! into a dataset layout (`passerby-datasets`).

use crate::GlobalArgs;
use clap::Args;
use passerby_datasets::{KittiOptions, SemanticKittiOptions, export_kitti, export_semantic_kitti};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The recording (`passerby run`'s MCAP file).
    #[arg(value_name = "REC.mcap")]
    pub recording: PathBuf,
    /// Where the layout is written (created if missing).
    #[arg(value_name = "DIR")]
    pub out: PathBuf,
    /// The layout.
    #[arg(long, value_enum)]
    pub format: Format,
    /// The sensor to export, `VEHICLE/SENSOR` (needed when the recording has several): the
    /// lidar (semantickitti) or the camera (kitti; an RGB-D camera's colour half is
    /// `VEHICLE/NAME_rgb`).
    #[arg(long, value_name = "VEHICLE/SENSOR")]
    pub sensor: Option<String>,
    /// kitti: also write this lidar's sweeps (`velodyne/`, the sweep nearest each frame).
    #[arg(long, value_name = "VEHICLE/SENSOR")]
    pub lidar: Option<String>,
    /// kitti: the first frame's number in the file names (to append to a dataset).
    #[arg(long, default_value_t = 0)]
    pub first_index: usize,
    /// The sequence's name (SemanticKITTI's `sequences/NN`).
    #[arg(long, default_value = "00")]
    pub sequence: String,
    /// A JSON object giving our class names SemanticKITTI ids (`{"crate": 99}`), over the
    /// mapping by their words (docs/datasets.md).
    #[arg(long, value_name = "MAP.json")]
    pub class_map: Option<PathBuf>,
}

/// `--format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Format {
    /// SemanticKITTI: velodyne/*.bin, labels/*.label, poses.txt, calib.txt, times.txt.
    Semantickitti,
    /// KITTI objects: training/{image_2, label_2, calib, velodyne}, ImageSets/train.txt.
    Kitti,
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let class_overrides = match &args.class_map {
        Some(path) => read_class_map(path)?,
        None => BTreeMap::new(),
    };
    match args.format {
        Format::Semantickitti => {
            let options = SemanticKittiOptions {
                sensor: args.sensor.clone(),
                sequence: Some(args.sequence.clone()),
                class_overrides,
            };
            let done = export_semantic_kitti(&args.recording, &args.out, &options)?;
            if !global.quiet {
                println!(
                    "wrote {} scans ({} points) of {} into {}",
                    done.scans,
                    done.points,
                    done.topic,
                    done.dir.display()
                );
            }
        }
        Format::Kitti => {
            let options = KittiOptions {
                camera: args.sensor.clone(),
                lidar: args.lidar.clone(),
                first_index: args.first_index,
            };
            let done = export_kitti(&args.recording, &args.out, &options)?;
            if !global.quiet {
                println!(
                    "wrote {} frames ({} labelled objects) of {} into {}",
                    done.frames,
                    done.objects,
                    done.topic,
                    done.dir.display()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--class-map`: a JSON object of class names to SemanticKITTI ids (0..=65535).
fn read_class_map(path: &Path) -> anyhow::Result<BTreeMap<String, u16>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("--class-map {}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
    let object = value
        .as_object()
        .ok_or_else(|| anyhow::anyhow!("{}: expected a JSON object", path.display()))?;
    let mut map = BTreeMap::new();
    for (name, id) in object {
        let id = (id.as_u64())
            .and_then(|id| u16::try_from(id).ok())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: `{name}`: expected a class id from 0 to 65535",
                    path.display()
                )
            })?;
        map.insert(name.clone(), id);
    }
    Ok(map)
}
