//! `passerby model inspect FILE` and `passerby model pose FILE --clip NAME --time T [--out F]`:
//! what a model file holds, and its skinned mesh at one instant, in the file's own frame.

use clap::{Args, Subcommand};
use passerby_assets::{Model, Pose, Poser, Wrap, load_model};
use std::fmt::Write as _;
use std::io::Write as _;
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
            print!("{}", inspect(&model));
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
            let (lo, hi) = bounds(&vertices);
            println!(
                "{} vertices posed in the file's frame ({}); bounds {:?} .. {:?}",
                vertices.len(),
                model.frame.description,
                lo.to_array(),
                hi.to_array()
            );
            if let Some(out) = &args.out {
                write_mesh(out, &model, &vertices)?;
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

fn bounds(points: &[glam::Vec3]) -> (glam::Vec3, glam::Vec3) {
    points.iter().fold(
        (
            glam::Vec3::splat(f32::INFINITY),
            glam::Vec3::splat(f32::NEG_INFINITY),
        ),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
}

/// The `inspect` report.
pub fn inspect(model: &Model) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "model: {}", model.source.display());
    let _ = writeln!(out, "frame: {}", model.frame.description);
    let rest = Poser::new().posed_vertices(model, &Pose::rest(model));
    let (lo, hi) = bounds(&rest);
    let _ = writeln!(
        out,
        "meshes: {} ({} vertices, {} triangles), rest-pose bounds {:?} .. {:?}",
        model.meshes.len(),
        model.vertex_count(),
        model.triangle_count(),
        lo.to_array(),
        hi.to_array()
    );
    for m in &model.meshes {
        let skin = m
            .skin
            .as_ref()
            .map_or(String::new(), |s| format!(", skinned by skin {}", s.skin));
        let _ = writeln!(
            out,
            "  {}: {} vertices, {} triangles{skin}",
            m.name,
            m.positions.len(),
            m.triangles.len()
        );
    }
    let _ = writeln!(out, "nodes: {}", model.nodes.len());
    let _ = writeln!(out, "skins: {}", model.skins.len());
    for s in &model.skins {
        let names: Vec<&str> = s
            .joints
            .iter()
            .map(|&j| model.nodes[j].name.as_str())
            .collect();
        let _ = writeln!(
            out,
            "  {}: {} joints: {}",
            s.name,
            s.joints.len(),
            names.join(", ")
        );
    }
    let _ = writeln!(out, "clips: {}", model.clips.len());
    for c in &model.clips {
        let _ = writeln!(
            out,
            "  '{}': {:.3} s, {} channels",
            c.name,
            c.duration,
            c.channels.len()
        );
    }
    let _ = writeln!(out, "materials: {}", model.materials.len());
    for m in &model.materials {
        let texture = match &m.texture {
            Some(t) if t.image.is_some() => {
                let image = t.image.as_ref().map_or((0, 0), |i| (i.width, i.height));
                format!(", texture {} ({}x{} px)", t.source, image.0, image.1)
            }
            Some(t) if t.found => format!(", texture {} (found, not decodable)", t.source),
            Some(t) => format!(", texture {} (MISSING)", t.source),
            None => String::new(),
        };
        let _ = writeln!(out, "  {}: base colour {:?}{texture}", m.name, m.base_color);
    }
    for w in &model.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// Writes posed vertices with the model's triangles as ASCII PLY or OBJ.
fn write_mesh(path: &Path, model: &Model, vertices: &[glam::Vec3]) -> anyhow::Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut triangles = Vec::new();
    let mut base = 0u32;
    for m in &model.meshes {
        triangles.extend(
            m.triangles
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
        base += m.positions.len() as u32;
    }
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot create `{}`: {e}", path.display()))?,
    );
    match ext.as_str() {
        "ply" => {
            writeln!(
                w,
                "ply\nformat ascii 1.0\ncomment posed by passerby, frame: {}",
                model.frame.description
            )?;
            writeln!(
                w,
                "element vertex {}\nproperty float x\nproperty float y\nproperty float z",
                vertices.len()
            )?;
            writeln!(
                w,
                "element face {}\nproperty list uchar uint vertex_indices\nend_header",
                triangles.len()
            )?;
            for v in vertices {
                writeln!(w, "{} {} {}", v.x, v.y, v.z)?;
            }
            for t in &triangles {
                writeln!(w, "3 {} {} {}", t[0], t[1], t[2])?;
            }
        }
        "obj" => {
            writeln!(w, "# posed by passerby, frame: {}", model.frame.description)?;
            for v in vertices {
                writeln!(w, "v {} {} {}", v.x, v.y, v.z)?;
            }
            for t in &triangles {
                writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1)?;
            }
        }
        _ => anyhow::bail!("`{}`: expected a .ply or .obj output file", path.display()),
    }
    w.flush()?;
    Ok(())
}
