//! Loads MAVS (Mississippi State University's simulator) scene JSON into Passerby's world
//! description, reading every key as MAVS's `EmbreeTracer::Load` does, with the deviations
//! `shared/reference/peers.md` §1 documents: both `YawPitchRoll` conventions, seeded random
//! placement, no crash on bad input.
//!
//! Owns: the scene file format and MAVS's path rules (data folder, `PathToMeshes`,
//! `UseFullPaths`), label files, the placement of `Objects` (instances and random scatters on the
//! surface). Must not touch: simulation, ray casting of sensors, or output; it produces a
//! [`World`] and diagnostics, like the MVSim loader.
//!
//! Paths: `--mavs-data DIR` names MAVS's `data/` folder; without it, the folder above the
//! scene's `scenes/` folder (or the scene's own folder). `PathToMeshes` defaults to
//! `<data>/scenes/meshes/`; a relative one is taken from the data folder.
//!
//! Modules: a JSON reader that keeps spans (`json.rs`), typed reads whose errors name the JSON
//! path and position (`read.rs`), the scene keys in MAVS's order (`scene.rs`), `Rotate …` swaps
//! and both `YawPitchRoll` conventions (`transform.rs`), seeded scatter in any polygon as
//! MAVS's sampler places it (`placement.rs`), height queries on surface meshes (`surface.rs`),
//! heightmap images (`heightmap.rs`), label files (`labels.rs`), keyframe animations and
//! waypoint files (`animations.rs`), actor files (`actors.rs`), vegetation (`vegetation.rs`),
//! simulation input files (`sim_input.rs`) with pose files (`poses.rs`) and their sensors
//! (`sim_sensors.rs`, `lidars.rs`, `cameras.rs`).

mod actors;
mod animations;
mod cameras;
mod heightmap;
mod json;
mod labels;
pub mod lidars;
mod placement;
pub mod poses;
mod read;
mod scene;
mod sim_input;
mod sim_sensors;
mod surface;
pub mod transform;
mod vegetation;

pub use passerby_diag::SourceMap;
pub use placement::{Polygon, PolygonError};
pub use scene::origin_of;
pub use transform::YprConvention;

use passerby_diag::{Diagnostic, Span};
use passerby_world::World;
use std::path::{Path, PathBuf};

/// How to read a scene.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// MAVS's data folder (`None`: found from the scene's place).
    pub data_dir: Option<PathBuf>,
    /// Which `YawPitchRoll` convention the scene was written in.
    pub ypr: YprConvention,
    /// Seed of random placement.
    pub seed: u64,
    /// A MAVS actor file (rigid meshes on waypoint paths) to add; scenes do not name them.
    pub actors: Option<PathBuf>,
    /// What sensors may ask for (docs/limits.md).
    pub limits: passerby_world::budget::Limits,
}

/// A loaded world: the world when valid, every diagnostic, every file read.
pub type Loaded = passerby_diag::Loaded<World>;

/// Whether a file looks like a MAVS scene (by extension: `.json`).
pub fn is_scene_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// The data folder of a scene: given, or the parent of the nearest `scenes` or `sims` folder
/// holding it (MAVS's `data/scenes/…`, `data/sims/…`), or the file's own folder.
pub fn data_dir_of(scene: &Path, given: Option<&Path>) -> PathBuf {
    if let Some(dir) = given {
        return passerby_diag::normalize_path(dir);
    }
    let scene = passerby_diag::normalize_path(scene);
    let folder = scene.parent().map(Path::to_path_buf).unwrap_or_default();
    folder
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "scenes" || n == "sims"))
        .and_then(Path::parent)
        .map_or(folder.clone(), Path::to_path_buf)
}

/// Loads a MAVS scene file.
pub fn load_scene_file(path: &Path, opts: &Options) -> Loaded {
    load_scene(path, opts, SourceMap::new(), World::default())
}

/// Loads a MAVS scene file into `rig`, a world holding what scenes lack (vehicles, sensors,
/// actors, simulation settings), adding the files it reads to `sources` (which may already hold
/// the rig's).
pub fn load_scene(path: &Path, opts: &Options, mut sources: SourceMap, rig: World) -> Loaded {
    let path = passerby_diag::normalize_path(path);
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            return Loaded {
                value: None,
                sources,
                diagnostics: vec![Diagnostic::error_without_span(format!(
                    "cannot read `{}`: {e}",
                    path.display()
                ))],
            };
        }
    };
    let file = sources.add(&path, text.clone());
    let root = match json::parse(&text, file) {
        Ok(v) => v,
        Err(e) => {
            return Loaded {
                value: None,
                sources,
                diagnostics: vec![Diagnostic::error(
                    Span::new(file, e.offset, e.offset),
                    e.message,
                )],
            };
        }
    };
    let mut report = read::Report::default();
    let data_dir = data_dir_of(&path, opts.data_dir.as_deref());
    let mut reader = scene::SceneReader::new(
        &mut report,
        &mut sources,
        data_dir,
        opts.ypr,
        opts.seed,
        rig,
    );
    reader.limits = opts.limits.clone();
    if sim_input::is_sim_input(&root) {
        reader.sim_input(&root);
    } else {
        reader.read(&root);
    }
    if let Some(actors) = &opts.actors {
        reader.actor_file(&passerby_diag::normalize_path(actors));
    }
    let mut world = std::mem::take(&mut reader.world);
    world.source = path;
    let ok = !report.has_errors();
    Loaded {
        value: ok.then_some(world),
        sources,
        diagnostics: report.diagnostics,
    }
}
