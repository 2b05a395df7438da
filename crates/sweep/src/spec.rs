//! A sweep's spec (TOML) and the scenarios it stands for: every world x seed x combination of
//! variable values, in that order (variables by name), each with a stable id.
//!
//! ```toml
//! worlds = ["../examples/sensor_rig.world.xml"]   # relative to the spec's folder
//! seeds = [0, 1]                                  # or { from = 0, count = 100 }
//! duration = 2.0                                  # simulated seconds per scenario
//! threads = 1                                     # per scenario (output is the same for any)
//! noise_scale = 1.0
//! exports = ["semantickitti"]                     # also written into each scenario's folder
//! export_sensor = "r1/vlp16"
//! [variables]
//! YARD = [8, 12]
//! ```

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most scenarios one spec may stand for (checked before any is made).
pub const MAX_SCENARIOS: u64 = 1_000_000;

/// Seeds: a list, or a range.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Seeds {
    List(Vec<u64>),
    Range { from: u64, count: u64 },
}

/// A variable's values: numbers, strings or booleans, taken as the text `--var` would give.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Value {
    Integer(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl Value {
    fn text(&self) -> String {
        match self {
            Value::Integer(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Text(t) => t.clone(),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    worlds: Vec<String>,
    seeds: Option<Seeds>,
    duration: f64,
    #[serde(default)]
    variables: BTreeMap<String, Vec<Value>>,
    threads: Option<usize>,
    noise_scale: Option<f64>,
    #[serde(default)]
    exports: Vec<Export>,
    export_sensor: Option<String>,
    rig: Option<String>,
    mvsim_data: Option<String>,
    asset_cache: Option<String>,
    offline: Option<bool>,
}

/// A dataset layout each scenario also writes.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Export {
    /// `passerby export --format semantickitti`, into `<scenario>/semantickitti`.
    Semantickitti,
}

/// What every scenario of a sweep shares.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Simulated seconds.
    pub duration: f64,
    /// Worker threads of one scenario.
    pub threads: usize,
    /// `--noise-scale`.
    pub noise_scale: f64,
    /// Layouts exported after each run.
    pub exports: Vec<Export>,
    /// The lidar exported (`vehicle/sensor`), when a world has several.
    pub export_sensor: Option<String>,
    /// A MAVS scene's rig world.
    pub rig: Option<PathBuf>,
    /// `--mvsim-data`.
    pub mvsim_data: Option<PathBuf>,
    /// `--asset-cache`.
    pub asset_cache: Option<PathBuf>,
    /// Never download models.
    pub offline: bool,
}

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Its place in the spec's order, from 0 (what shards split on).
    pub index: usize,
    /// Its folder's name: `0003_sensor_rig_s1_YARD-8`.
    pub id: String,
    /// The world file.
    pub world: PathBuf,
    /// `--seed`.
    pub seed: u64,
    /// `--var NAME=VALUE`s.
    pub variables: BTreeMap<String, String>,
}

/// A spec read: its settings and scenarios.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The spec file.
    pub path: PathBuf,
    /// Shared settings.
    pub settings: Settings,
    /// Every scenario, in order.
    pub scenarios: Vec<Scenario>,
}

impl Spec {
    /// Reads the spec at `path`; errors name the file, line and column.
    pub fn read(path: &Path) -> Result<Spec, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Spec::parse(path, &text)
    }

    /// Parses `text`, read from `path` (paths in it are relative to its folder).
    pub fn parse(path: &Path, text: &str) -> Result<Spec, String> {
        let at = |offset: usize| {
            let before = &text[..offset.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{}:{line}:{column}", path.display())
        };
        let file: SpecFile = toml::from_str(text).map_err(|e| {
            let place = e
                .span()
                .map_or_else(|| path.display().to_string(), |s| at(s.start));
            format!("{place}: {}", e.message())
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let resolve = |p: &str| base.join(p);
        let fail = |what: String| Err(format!("{}: {what}", path.display()));
        if file.worlds.is_empty() {
            return fail("`worlds` lists no world".into());
        }
        if !(file.duration > 0.0 && file.duration.is_finite()) {
            return fail("`duration` must be a positive number of seconds".into());
        }
        let noise_scale = file.noise_scale.unwrap_or(1.0);
        if !(noise_scale >= 0.0 && noise_scale.is_finite()) {
            return fail("`noise_scale` must be a finite number >= 0".into());
        }
        let threads = file.threads.unwrap_or(1);
        if threads == 0 || threads > 1024 {
            return fail("`threads` must be from 1 to 1024".into());
        }
        let seeds: Vec<u64> = match file.seeds {
            None => vec![0],
            Some(Seeds::List(list)) => list,
            Some(Seeds::Range { from, count }) => {
                if count > MAX_SCENARIOS {
                    return fail(format!("`seeds` counts {count}, over {MAX_SCENARIOS}"));
                }
                (0..count).map(|k| from.wrapping_add(k)).collect()
            }
        };
        let mut total = (file.worlds.len() as u64).saturating_mul(seeds.len() as u64);
        for (name, values) in &file.variables {
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return fail(format!("variable `{name}`: letters, digits and `_` only"));
            }
            if values.is_empty() {
                return fail(format!("variable `{name}` has no values"));
            }
            total = total.saturating_mul(values.len() as u64);
        }
        if total == 0 {
            return fail("the spec stands for no scenario (`seeds` is empty)".into());
        }
        if total > MAX_SCENARIOS {
            return fail(format!("{total} scenarios, over {MAX_SCENARIOS}"));
        }
        let combinations = combinations(&file.variables);
        let mut scenarios = Vec::with_capacity(total as usize);
        for world in &file.worlds {
            for &seed in &seeds {
                for variables in &combinations {
                    let index = scenarios.len();
                    scenarios.push(Scenario {
                        index,
                        id: scenario_id(index, world, seed, variables),
                        world: resolve(world),
                        seed,
                        variables: variables.clone(),
                    });
                }
            }
        }
        let offline = file.offline.unwrap_or_else(|| {
            std::env::var("PASSERBY_OFFLINE")
                .is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
        });
        Ok(Spec {
            path: path.to_owned(),
            settings: Settings {
                duration: file.duration,
                threads,
                noise_scale,
                exports: file.exports,
                export_sensor: file.export_sensor,
                rig: file.rig.as_deref().map(resolve),
                mvsim_data: file.mvsim_data.as_deref().map(resolve),
                asset_cache: (file.asset_cache.as_deref().map(resolve))
                    .or_else(|| std::env::var_os("PASSERBY_ASSET_CACHE").map(PathBuf::from)),
                offline,
            },
            scenarios,
        })
    }

    /// The scenarios of shard `index` of `count` (every `count`-th from `index`).
    pub fn shard(&self, index: usize, count: usize) -> Vec<&Scenario> {
        (self.scenarios.iter())
            .filter(|s| count > 0 && s.index % count == index)
            .collect()
    }
}

/// Every combination of the variables' values, names in order, the last name varying fastest.
fn combinations(variables: &BTreeMap<String, Vec<Value>>) -> Vec<BTreeMap<String, String>> {
    let mut out = vec![BTreeMap::new()];
    for (name, values) in variables {
        out = (out.iter())
            .flat_map(|partial| {
                values.iter().map(move |v| {
                    let mut next = partial.clone();
                    next.insert(name.clone(), v.text());
                    next
                })
            })
            .collect();
    }
    out
}

/// `0003_sensor_rig_s1_YARD-8`: index, world stem, seed, variables; only letters, digits,
/// `-`, `_` and `.` (others become `-`).
fn scenario_id(
    index: usize,
    world: &str,
    seed: u64,
    variables: &BTreeMap<String, String>,
) -> String {
    let stem = Path::new(world)
        .file_name()
        .and_then(|n| n.to_str())
        .map_or("world", |n| n.split('.').next().unwrap_or("world"));
    let mut id = format!("{index:04}_{stem}_s{seed}");
    for (name, value) in variables {
        id += &format!("_{name}-{value}");
    }
    id.chars()
        .take(120)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_are_every_world_seed_and_combination_in_order() {
        let spec = Spec::parse(
            Path::new("specs/a.toml"),
            "worlds = ['w/one.world.xml', 'two.json']\nseeds = { from = 5, count = 2 }\n\
             duration = 1.5\n[variables]\nB = ['x y', 'z']\nA = [1, 2.5]\n",
        )
        .unwrap();
        assert_eq!(spec.scenarios.len(), 16);
        let first = &spec.scenarios[0];
        assert_eq!(first.id, "0000_one_s5_A-1_B-x-y");
        assert_eq!(first.world, Path::new("specs/w/one.world.xml"));
        assert_eq!(spec.scenarios[1].variables["B"], "z");
        assert_eq!(spec.scenarios[2].variables["A"], "2.5");
        assert_eq!(spec.scenarios[15].id, "0015_two_s6_A-2.5_B-z");
        let shards: Vec<usize> = (0..3).map(|i| spec.shard(i, 3).len()).collect();
        assert_eq!(shards, [6, 5, 5]);
    }

    #[test]
    fn mistakes_name_their_place() {
        let bad = |text: &str| Spec::parse(Path::new("s.toml"), text).unwrap_err();
        assert!(
            bad("worlds = ['a']\nduration = 1\nseeds = [1]\ndurtion = 2\n")
                .starts_with("s.toml:4:1:")
        );
        assert!(bad("worlds = ['a']\nduration = 'x'\n").starts_with("s.toml:2:"));
        assert!(bad("worlds = ['a']\nduration = -1\n").contains("positive"));
        assert!(bad("worlds = []\nduration = 1\n").contains("no world"));
        assert!(
            bad("worlds = ['a']\nduration = 1\nseeds = { from = 0, count = 2000000 }\n")
                .contains("over")
        );
        assert!(
            bad("worlds = ['a']\nduration = 1\nexports = ['kitty']\n").starts_with("s.toml:3:")
        );
        let huge = "worlds = ['a']\nduration = 1\nseeds = { from = 0, count = 1000 }\n[variables]\nA = [1,2,3,4,5,6,7,8,9,10]\nB = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101]\n";
        assert!(bad(huge).contains("over 1000000"));
    }

    #[test]
    fn mutated_specs_never_panic() {
        let valid = "worlds = ['a.world.xml', 'b.json']\nseeds = { from = 3, count = 4 }\n\
                     duration = 2.5\nthreads = 2\nnoise_scale = 0.5\nexports = ['semantickitti']\n\
                     export_sensor = 'r1/vlp16'\n[variables]\nYARD = [8, 12.5, 'x', true]\n";
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"[]{}=,'\"\n 0123456789.-eE_abcdefgnorstuvwxyz#\\";
        let mut parsed = 0;
        for _ in 0..3000 {
            let mut bytes = valid.as_bytes().to_vec();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % (bytes.len() + 1);
                let byte = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 if at < bytes.len() => bytes[at] = byte,
                    1 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, byte),
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            if Spec::parse(Path::new("m.toml"), &text).is_ok() {
                parsed += 1;
            }
        }
        assert!(parsed > 100, "some mutants stay valid: {parsed}");
    }
}
