//! The manifest: a JSON line per attempt at a scenario (what ran, what it wrote with sizes and
//! SHA-256, how long it took, what failed), appended as attempts end; and resuming from it: a
//! scenario whose last successful attempt's outputs are all still there with the same hashes
//! is not run again.

use crate::spec::Scenario;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// One output of a scenario: a file, or a folder (an export) hashed as a tree.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Relative to the sweep's folder.
    pub path: String,
    /// Bytes (a folder: of all its files).
    pub bytes: u64,
    /// Files (1 for a file).
    pub files: u64,
    /// SHA-256 of the file; of a folder, of its lines `relative/path<TAB>sha256` in order.
    pub sha256: String,
}

/// One line of the manifest.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Record {
    /// The scenario's id (its folder).
    pub scenario: String,
    /// Its index in the spec's order.
    pub index: usize,
    /// The world file.
    pub world: String,
    /// `--seed`.
    pub seed: u64,
    /// `--var`s.
    pub variables: BTreeMap<String, String>,
    /// Simulated seconds.
    pub duration: f64,
    /// `--noise-scale`.
    pub noise_scale: f64,
    /// 1 for the first try, 2 for the retry.
    pub attempt: u32,
    /// `ok`, `failed` or `skipped` (outputs already there, unchanged).
    pub status: String,
    /// What the attempt wrote.
    pub outputs: Vec<Output>,
    /// Wall-clock seconds of the attempt.
    pub wall_s: f64,
    /// Simulated seconds per wall second.
    pub real_time_factor: f64,
    /// Which engine ran it (`local`, `ray`).
    pub engine: String,
    /// Why it failed.
    pub error: Option<String>,
}

impl Record {
    /// A record of `scenario` before it ran.
    pub fn new(scenario: &Scenario, duration: f64, noise_scale: f64, engine: &str) -> Record {
        Record {
            scenario: scenario.id.clone(),
            index: scenario.index,
            world: scenario.world.display().to_string(),
            seed: scenario.seed,
            variables: scenario.variables.clone(),
            duration,
            noise_scale,
            attempt: 1,
            status: "failed".into(),
            outputs: Vec::new(),
            wall_s: 0.0,
            real_time_factor: 0.0,
            engine: engine.into(),
            error: None,
        }
    }

    /// Whether it is the same scenario as `other` was (id, world, seed, variables, settings).
    fn same_run(&self, other: &Record) -> bool {
        self.scenario == other.scenario
            && self.world == other.world
            && self.seed == other.seed
            && self.variables == other.variables
            && self.duration == other.duration
            && self.noise_scale == other.noise_scale
    }

    /// The line (JSON, no newline).
    pub fn line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The manifest file of a sweep's folder: `manifest.jsonl`, or one per shard.
pub fn manifest_path(out: &Path, shard: Option<(usize, usize)>) -> PathBuf {
    match shard {
        Some((i, n)) => out.join(format!("manifest-shard-{i}-of-{n}.jsonl")),
        None => out.join("manifest.jsonl"),
    }
}

/// Appends `record` to `manifest` (one write of a whole line, so lines of concurrent writers
/// do not interleave).
pub fn append(manifest: &Path, record: &Record) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(manifest)
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    file.write_all((record.line() + "\n").as_bytes())
        .map_err(|e| format!("{}: {e}", manifest.display()))
}

/// The last successful record of `wanted`'s scenario in any manifest of `out` whose outputs
/// are all still there with their sizes and hashes, as a `skipped` record.
pub fn already_done(out: &Path, wanted: &Record) -> Option<Record> {
    let mut last = None;
    let entries = std::fs::read_dir(out).ok()?;
    let mut manifests: Vec<PathBuf> = (entries.flatten())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("manifest") && name.ends_with(".jsonl")
        })
        .collect();
    manifests.sort();
    for manifest in manifests {
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        // A line cut by a crash is not JSON and is passed over.
        for record in text
            .lines()
            .filter_map(|l| serde_json::from_str::<Record>(l).ok())
        {
            if record.status != "failed" && record.same_run(wanted) && !record.outputs.is_empty() {
                last = Some(record);
            }
        }
    }
    let mut record = last?;
    for output in &record.outputs {
        let now = hash_output(out, Path::new(&output.path)).ok()?;
        if now != *output {
            return None;
        }
    }
    record.status = "skipped".into();
    record.engine = wanted.engine.clone();
    Some(record)
}

/// The [`Output`] of `relative` (a file or folder under `out`).
pub fn hash_output(out: &Path, relative: &Path) -> Result<Output, String> {
    let path = out.join(relative);
    let meta = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = relative.to_string_lossy().replace('\\', "/");
    if meta.is_file() {
        let (sha256, bytes) = hash_file(&path)?;
        return Ok(Output {
            path: text,
            bytes,
            files: 1,
            sha256,
        });
    }
    let mut files = Vec::new();
    collect_files(&path, Path::new(""), &mut files)?;
    files.sort();
    let mut tree = Sha256::new();
    let mut bytes = 0;
    for file in &files {
        let (sha, size) = hash_file(&path.join(file))?;
        bytes += size;
        tree.update(format!("{}\t{sha}\n", file.to_string_lossy()).as_bytes());
    }
    Ok(Output {
        path: text,
        bytes,
        files: files.len() as u64,
        sha256: hex(&tree.finalize()),
    })
}

fn collect_files(root: &Path, relative: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let dir = root.join(relative);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = relative.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            collect_files(root, &name, files)?;
        } else {
            files.push(name);
        }
    }
    Ok(())
}

fn hash_file(path: &Path) -> Result<(String, u64), String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0;
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        bytes += n as u64;
    }
    Ok((hex(&hasher.finalize()), bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
