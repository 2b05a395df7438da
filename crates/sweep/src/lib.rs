//! Scenario sweeps: a spec (TOML) of worlds x seeds x variable values (`spec.rs`), each
//! scenario run in-process into its own folder with its exports (`run.rs`), and a manifest of
//! JSON lines that says what each attempt wrote and lets a re-run skip what is done
//! (`manifest.rs`).
//!
//! Owns: the spec's meaning, scenario ids and order, sharding, one attempt's outputs and
//! their hashes, the manifest's format. Must not touch: scheduling (the front ends': the CLI's
//! process pool and shards, the Python package's Ray tasks), nor anything of a run beyond the
//! options `passerby run` has.

pub mod manifest;
mod run;
pub mod spec;

pub use manifest::{Output, Record, already_done, append, manifest_path};
pub use run::run_attempt;
pub use spec::{Export, Scenario, Settings, Spec};
