//! Any supported input into the world description: an MVSim world, or a MAVS scene (`.json`)
//! joined by a rig world's vehicles, sensors, actors and settings; and the model library the
//! scene is built from.

use passerby_assets::{ModelLibrary, Resolver};
use passerby_diag::SourceMap;
use passerby_mavs::YprConvention;
use passerby_world::World;
use passerby_world::budget::Limits;
use std::path::{Path, PathBuf};

/// A loaded input: the world when it is valid, every diagnostic, and the text of every file
/// read (to render the diagnostics with their source lines).
pub type Loaded = passerby_mvsim::Loaded;

/// How inputs are read.
#[derive(Clone, Debug)]
pub struct InputOptions {
    /// Seeds `rand()` and friends in MVSim expressions and MAVS's random placement.
    pub seed: u64,
    /// Lets MVSim's `$(cmd)` run commands.
    pub allow_shell: bool,
    /// Every input limit (docs/limits.md) times this factor (at least 1).
    pub limits_scale: f64,
    /// What `$(ros2 pkg prefix mvsim)` means (default: the bundled `data/mvsim`).
    pub mvsim_data: Option<PathBuf>,
    /// The MVSim world whose vehicles, sensors and actors join a MAVS scene.
    pub rig: Option<PathBuf>,
    /// MAVS's data directory.
    pub mavs_data: Option<PathBuf>,
    /// Which of MAVS's `YawPitchRoll` conventions scenes use.
    pub mavs_ypr: YprConvention,
    /// A MAVS actor file to add to a scene.
    pub mavs_actors: Option<PathBuf>,
    /// MVSim world variables set from outside (`--var NAME=VALUE`), over the world's own.
    pub variables: std::collections::BTreeMap<String, String>,
    /// Every noise of the world times this (`--noise-scale`; 0: noiseless), see
    /// [`World::scale_noise`].
    pub noise_scale: f64,
}

impl Default for InputOptions {
    fn default() -> Self {
        InputOptions {
            seed: 0,
            allow_shell: false,
            limits_scale: 1.0,
            mvsim_data: None,
            rig: None,
            mavs_data: None,
            mavs_ypr: YprConvention::Current,
            mavs_actors: None,
            variables: std::collections::BTreeMap::new(),
            noise_scale: 1.0,
        }
    }
}

impl InputOptions {
    fn mvsim(&self) -> passerby_mvsim::LoadOptions {
        let mut opts = passerby_mvsim::LoadOptions {
            seed: self.seed,
            allow_shell: self.allow_shell,
            limits: Limits::scaled(self.limits_scale),
            variables: self.variables.clone(),
            ..passerby_mvsim::LoadOptions::default()
        };
        if let Some(dir) = &self.mvsim_data {
            opts.mvsim_data = dir.clone();
        }
        opts
    }
}

/// Loads a world file: an MVSim world, or a MAVS scene (`.json`) joined by the rig world's
/// vehicles, sensors, actors and settings (an empty world without a rig).
pub fn load_world(path: &Path, options: &InputOptions) -> Loaded {
    let mut loaded = load_input(path, options);
    if let Some(world) = &mut loaded.value {
        world.scale_noise(options.noise_scale);
    }
    loaded
}

fn load_input(path: &Path, options: &InputOptions) -> Loaded {
    if !passerby_mavs::is_scene_file(path) {
        return passerby_mvsim::load_world_file(path, &options.mvsim());
    }
    let rig =
        (options.rig.as_ref()).map(|rig| passerby_mvsim::load_world_file(rig, &options.mvsim()));
    let (rig_world, sources, mut diagnostics) = match rig {
        Some(r) => (r.value, r.sources, r.diagnostics),
        None => (Some(World::default()), SourceMap::new(), Vec::new()),
    };
    if options.rig.is_none() && !options.variables.is_empty() {
        diagnostics.push(passerby_diag::Diagnostic::warning_without_span(
            "--var sets MVSim world variables: a MAVS scene has none (its --rig world would)",
        ));
    }
    let Some(rig) = rig_world else {
        return Loaded {
            value: None,
            sources,
            diagnostics,
        };
    };
    let mavs = passerby_mavs::Options {
        data_dir: options.mavs_data.clone(),
        ypr: options.mavs_ypr,
        seed: options.seed,
        actors: options.mavs_actors.clone(),
        limits: Limits::scaled(options.limits_scale),
    };
    let scene = passerby_mavs::load_scene(path, &mavs, sources, rig);
    diagnostics.extend(scene.diagnostics);
    Loaded {
        value: scene.value,
        sources: scene.sources,
        diagnostics,
    }
}

/// The model library over the asset cache `cache` (default: `~/.cache/passerby`); with
/// `download`, remote models missing from it are fetched on first use (when built with the
/// `download` feature).
pub fn model_library(cache: Option<PathBuf>, download: bool) -> ModelLibrary {
    let mut resolver = Resolver::new(cache.unwrap_or_else(Resolver::default_cache_dir));
    resolver.download = download && cfg!(feature = "download");
    ModelLibrary::new(resolver)
}
