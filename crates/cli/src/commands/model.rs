//! `passerby model inspect FILE` and `passerby model pose FILE --clip NAME --time T [--out F]`:
//! what a model file holds, and its skinned mesh at one instant, in the file's own frame.

use clap::{Args, Subcommand};
use passerby_assets::{Model, Pose, Poser, Wrap, load_model};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `passerby model …`.
#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// Meshes, vertex and triangle counts, bounds, skins, joints, clips, materials, textures.
    Inspect(InspectArgs),
    /// Write the skinned mesh at one instant of a clip (PLY or OBJ), in the file's frame.
    Pose(PoseArgs),
}

/// Arguments of `model inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The model: a file (.glb .gltf .fbx .dae .obj .stl), `ARCHIVE.zip/INNER`, or a model URL
    /// found in the asset cache.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Arguments of `model pose`.
#[derive(Args, Debug)]
pub struct PoseArgs {
    /// The model: a file (.glb .gltf .fbx .dae .obj .stl), `ARCHIVE.zip/INNER`, or a model URL
    /// found in the asset cache.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Clip name (see `model inspect`); without it, the rest pose.
    #[arg(long)]
    pub clip: Option<String>,
    /// Seconds into the clip (wrapped into the clip's duration).
    #[arg(long, default_value_t = 0.0)]
    pub time: f32,
    /// Output file, `.ply` or `.obj` [default: print a summary only]
    #[arg(long, value_name = "posed.ply|posed.obj")]
    pub out: Option<PathBuf>,
}

/// Runs a `model` subcommand.
pub fn run(global: &crate::GlobalArgs, command: &ModelCommand) -> anyhow::Result<ExitCode> {
    let cache = global
        .asset_cache
        .clone()
        .unwrap_or_else(passerby_assets::Resolver::default_cache_dir);
    let mut resolver = passerby_assets::Resolver::new(cache);
    resolver.download = !global.offline && cfg!(feature = "download");
    match command {
        ModelCommand::Inspect(args) => {
            let model = match open(&resolver, &args.file) {
                Ok(m) => m,
                Err(e) => return fail(e),
            };
            print!("{}", passerby_assets::describe(&model));
            Ok(ExitCode::SUCCESS)
        }
        ModelCommand::Pose(args) => {
            let model = match open(&resolver, &args.file) {
                Ok(m) => m,
                Err(e) => return fail(e),
            };
            let mut pose = Pose::rest(&model);
            if let Some(name) = &args.clip {
                let clip = match model.clip(name) {
                    Ok(c) => c,
                    Err(e) => return fail(e),
                };
                pose.sample(&model, clip, args.time, Wrap::Loop);
            }
            let vertices = Poser::new().posed_vertices(&model, &pose);
            let (lo, hi) = passerby_assets::bounds(&vertices);
            println!(
                "{} vertices posed in the file's frame ({}); bounds {:?} .. {:?}",
                vertices.len(),
                model.frame.description,
                lo.to_array(),
                hi.to_array()
            );
            if let Some(out) = &args.out {
                passerby_assets::write_posed_mesh(out, &model, &vertices)
                    .map_err(anyhow::Error::msg)?;
                println!("wrote {}", out.display());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A model file, or a model named as in worlds (`…/archive.zip/inner`, `https://…`).
fn open(resolver: &passerby_assets::Resolver, file: &Path) -> Result<Model, String> {
    let text = file.to_string_lossy();
    let path = if file.is_file() {
        file.to_path_buf()
    } else {
        resolver
            .resolve(&text, Path::new("."))
            .map_err(|e| e.to_string())?
    };
    load_model(&path).map_err(|e| e.to_string())
}

fn fail(e: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {e}");
    Ok(ExitCode::from(1))
}
