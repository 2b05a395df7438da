//! No input may panic: the real worlds, mutated at random (seeded), always load or fail with
//! diagnostics. The fuzz target in `fuzz/` explores further; this runs on every test run.

use crate::util::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SNIPPETS: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "\"",
    "'",
    "&",
    "&#x;",
    "${",
    "}",
    "$f{",
    "$f{1/0}",
    "$env{",
    "$(",
    "|",
    "<!--",
    "]]>",
    "<![CDATA[",
    "<for var=\"i\" from=\"0\" to=\"3\">",
    "</for>",
    "<if condition=\"1\">",
    "<include file=\"x\"/>",
    "<sensor class=\"lidar3d\">",
    "<vert_nrays>",
    "-1",
    "1e309",
    "nan",
    "\u{e9}",
    "\u{0}",
    "<block>",
    "<actor:class>",
];

fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..rng.random_range(1..6) {
        let len = bytes.len().max(1);
        let at = rng.random_range(0..len).min(bytes.len());
        match rng.random_range(0..4) {
            0 => {
                let end = (at + rng.random_range(1..40)).min(bytes.len());
                bytes.drain(at..end);
            }
            1 => {
                let end = (at + rng.random_range(1..200)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                let to = rng.random_range(0..len).min(bytes.len());
                bytes.splice(to..to, copy);
            }
            2 => {
                let s = SNIPPETS[rng.random_range(0..SNIPPETS.len())];
                bytes.splice(at..at, s.bytes());
            }
            _ => {
                if at < bytes.len() {
                    bytes[at] = rng.random();
                }
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn mutated_real_worlds_never_panic() {
    let dir = shared().join("worlds/mvsim/mvsim_tutorial");
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "xml"));
    files.sort();
    files.push(shared().join("worlds/mvsim/definitions/jackal.vehicle.xml"));
    let mut loaded_ok = 0;
    let mut failed = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for _ in 0..120 {
            let mutated = mutate(&text, &mut rng);
            // Load beside the original so relative includes resolve as in the real world.
            let loaded = passerby_mvsim::load_world_str(
                &path.with_file_name("mutated.world.xml"),
                mutated,
                &options(&[]),
            );
            for d in &loaded.diagnostics {
                let _ = d.render(&loaded.sources);
            }
            if loaded.value.is_some() {
                loaded_ok += 1
            } else {
                failed += 1
            }
        }
    }
    // Both outcomes must occur, or the mutations are not exercising anything.
    assert!(
        loaded_ok > 0 && failed > 0,
        "ok {loaded_ok}, failed {failed}"
    );
}
