//! The MVSim world loader: `*.world.xml` → [`passerby_world::World`].
//!
//! Owns: reading MVSim XML as MVSim 1.2 does (`shared/reference/mvsim.md` §1): the lenient
//! XML of rapidxml ([`xml`]), include-time and value-time substitution ([`subst`]), `$f{}`
//! expressions ([`expr`]), `<include>`, `<variable>`, `<for>`, `<if>`, classes and instances,
//! every tag's defaults, degrees → radians, and positioned diagnostics for every mistake
//! (several per file where possible). Deliberate differences from MVSim are listed in
//! `docs/mvsim-compatibility.md`.
//!
//! Must not touch: simulation, geometry or model files (a `<model_uri>` is resolved to a path,
//! never opened here). Loading is deterministic: random functions in `$f{}` draw from a
//! generator seeded by [`LoadOptions::seed`].
//!
//! ```no_run
//! let opts = passerby_mvsim::LoadOptions::default();
//! let loaded = passerby_mvsim::load_world_file("world.xml".as_ref(), &opts);
//! for d in &loaded.diagnostics {
//!     eprintln!("{}", d.render(&loaded.sources));
//! }
//! let world = loaded.value.expect("the world has errors");
//! println!("{} vehicles", world.vehicles.len());
//! ```

pub mod expr;
pub mod subst;
pub mod values;
pub mod xml;

mod actors;
mod elements;
mod globals;
mod gridmap;
mod loader;
mod objects;
mod params;
mod raster;
mod sensors;
mod vehicles;

use passerby_diag::{Diagnostic, SourceMap};
use passerby_world::World;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where `$env{}` and include-time lookups read environment variables.
#[derive(Clone, Debug, Default)]
pub enum Environment {
    /// The process environment.
    #[default]
    Process,
    /// A fixed map (tests, reproducible runs).
    Fixed(BTreeMap<String, String>),
}

/// How to load a world.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Seed of `rand()`, `randn()`, `unifrnd()` in `$f{}`.
    pub seed: u64,
    /// What `$(ros2 pkg prefix mvsim)` stands for: a folder holding `share/mvsim/definitions`
    /// and `share/mvsim/models`.
    pub mvsim_data: PathBuf,
    /// Let `$(cmd)` run shell commands (off by default: a world file must not run programs).
    pub allow_shell: bool,
    /// Environment lookups.
    pub environment: Environment,
    /// Sensor sizes and rates, includes: what a world may ask for (docs/limits.md).
    pub limits: passerby_world::budget::Limits,
    /// World variables set from outside (`--var NAME=VALUE`): they stand from the start and
    /// win over the world's own `<variable>`s of the same name.
    pub variables: std::collections::BTreeMap<String, String>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            seed: 0,
            mvsim_data: bundled_mvsim_data(),
            allow_shell: false,
            environment: Environment::Process,
            variables: std::collections::BTreeMap::new(),
            limits: passerby_world::budget::Limits::default(),
        }
    }
}

/// The MVSim definitions and models shipped with Passerby (`data/mvsim`), laid out as a ROS
/// install prefix.
pub fn bundled_mvsim_data() -> PathBuf {
    loader::normalize(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/mvsim"))
}

/// A loaded world: the world when valid, every diagnostic, every file read.
pub type Loaded = passerby_diag::Loaded<World>;

/// Loads a world file.
pub fn load_world_file(path: &Path, opts: &LoadOptions) -> Loaded {
    let path = loader::normalize(path);
    match std::fs::read(&path) {
        Ok(bytes) => load_world_str(&path, String::from_utf8_lossy(&bytes).into_owned(), opts),
        Err(e) => Loaded {
            value: None,
            sources: SourceMap::new(),
            diagnostics: vec![Diagnostic::error_without_span(format!(
                "cannot read world file `{}`: {e}",
                path.display()
            ))],
        },
    }
}

/// Loads a world from text; `path` names it in messages and anchors relative includes.
pub fn load_world_str(path: &Path, text: String, opts: &LoadOptions) -> Loaded {
    let started = std::time::Instant::now();
    let mut loader = loader::Loader::new(opts);
    loader.load_root(&loader::normalize(path), text);
    let ok = !loader.diags.has_errors();
    tracing::debug!(
        world = %path.display(),
        seconds = started.elapsed().as_secs_f64(),
        errors = loader.diags.error_count(),
        "world loaded"
    );
    Loaded {
        value: ok.then_some(loader.world),
        sources: loader.sources,
        diagnostics: loader.diags.into_vec(),
    }
}
