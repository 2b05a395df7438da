//! The fuzz targets of `fuzz/targets/` (MAVS scenes, MAVS auxiliary files, sensors built from
//! parameters and recorded) on the stable toolchain: over the committed corpus of each target
//! (`fuzz/corpus/TARGET/`, where inputs a fuzzer found are kept), over seeds from the real files
//! in `../shared` and `examples/`, and over seeded mutations of those seeds. libFuzzer explores
//! further (fuzz/README.md); this runs on every test run.
#![allow(clippy::unwrap_used)] // test setup failures should panic

#[path = "../../../fuzz/targets/mod.rs"]
mod targets;

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shared() -> PathBuf {
    repo().join("../shared")
}

/// The committed corpus of `target`.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = repo().join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

/// Byte-level mutations of `seed` (truncation, flips, repeats, numbers swapped for extreme ones),
/// from a generator seeded by `n`, so every run tries the same inputs.
fn mutants(seed: &[u8], n: u64, count: usize) -> Vec<Vec<u8>> {
    let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound.max(1) as u64) as usize
    };
    const EXTREMES: [&[u8]; 6] = [b"nan", b"-1", b"1e308", b"1e9", b"0", b"-inf"];
    (0..count)
        .map(|_| {
            let mut b = seed.to_vec();
            match next(4) {
                0 => b.truncate(next(b.len() + 1)),
                1 => {
                    for _ in 0..1 + next(8) {
                        let len = b.len();
                        if len > 0 {
                            b[next(len)] ^= 1 << next(8);
                        }
                    }
                }
                2 => {
                    let at = next(b.len() + 1);
                    let end = (at + next(400)).min(b.len());
                    let copy = b[at..end].to_vec();
                    let to = next(b.len() + 1);
                    b.splice(to..to, copy);
                }
                _ => {
                    let digits: Vec<usize> =
                        (0..b.len()).filter(|&i| b[i].is_ascii_digit()).collect();
                    if !digits.is_empty() {
                        let at = digits[next(digits.len())];
                        let mut end = at;
                        while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'.') {
                            end += 1;
                        }
                        b.splice(at..end, EXTREMES[next(EXTREMES.len())].iter().copied());
                    }
                }
            }
            b
        })
        .collect()
}

fn files(dir: &Path, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn mavs_scene_target_over_its_corpus_seeds_and_mutants() {
    let mavs = shared().join("scenes/mavs");
    let mut seeds = files(&mavs.join("scenes"), ".json");
    seeds.extend(files(&mavs.join("sims/sensor_sims"), ".json"));
    seeds.extend(files(&mavs.join("scenes/animations"), ".json"));
    let mut inputs = corpus("mavs_scene");
    for (i, seed) in seeds.iter().enumerate() {
        inputs.extend(mutants(seed, i as u64, 40));
    }
    inputs.extend(seeds);
    for input in &inputs {
        targets::mavs_scene::run(input);
    }
    let _ = std::fs::remove_dir_all(targets::scratch("mavs_scene"));
}

#[test]
fn mavs_aux_target_over_its_corpus_seeds_and_mutants() {
    let mavs = shared().join("scenes/mavs");
    let read = |rel: &str| std::fs::read(mavs.join(rel)).unwrap();
    let seeds: Vec<(u8, Vec<u8>)> = vec![
        (0, read("scenes/meshes/labels.json")),
        (0, read("scenes/meshes/lemon_group_labels.json")),
        (1, read("actors/actors/l200_actor_top_loop.json")),
        (1, read("actors/actors/pine_tree_actor.json")),
        (2, read("waypoints/spa_city_outer_loop.json")),
        (3, read("scenes/meshes/surface_textures/road_surfaces.json")),
        (
            3,
            read("scenes/meshes/surface_textures/meadow_surfaces.json"),
        ),
        (4, read("waypoints/vehicle2_pos_1.vprp")[..20_000].to_vec()),
        (4, read("waypoints/x_axis_points.vprp")),
        (5, b"0 0 0 1 0 0 0\n1 2 3 1 0 0 0\n".to_vec()),
        (6, b"tri.obj\ntri.obj\n".to_vec()),
    ];
    let mut inputs = corpus("mavs_aux");
    for (i, (kind, seed)) in seeds.iter().enumerate() {
        for m in mutants(seed, i as u64, 40)
            .into_iter()
            .chain([seed.clone()])
        {
            inputs.push([vec![*kind], m].concat());
        }
    }
    for input in &inputs {
        targets::mavs_aux::run(input);
    }
    let _ = std::fs::remove_dir_all(targets::scratch("mavs_aux"));
}

#[test]
fn sensors_record_target_over_its_corpus_seeds_and_mutants() {
    let mut seeds = files(&repo().join("examples"), ".world.xml");
    seeds.extend(files(&repo().join("crates/cli/tests"), ".world.xml"));
    let tutorial = shared().join("worlds/mvsim/mvsim_tutorial");
    for name in [
        "demo_1robot",
        "demo_camera",
        "demo_walls",
        "demo_many_robots",
    ] {
        seeds.push(std::fs::read(tutorial.join(format!("{name}.world.xml"))).unwrap());
    }
    let mut inputs = corpus("sensors_record");
    for (i, seed) in seeds.iter().enumerate() {
        inputs.extend(mutants(seed, i as u64, 12));
    }
    inputs.extend(seeds);
    for input in &inputs {
        targets::sensors_record::run(input);
    }
    let _ = std::fs::remove_dir_all(targets::scratch("sensors_record"));
}
