//! Model URIs of the MVSim worlds resolved against the offline mirror
//! (`../shared/assets/mvsim-models`, used as the asset cache), and every mirrored model loads.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_assets::{Resolver, UriError, load_model};
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// A resolver of the shared asset cache extracting archives into a scratch directory (removed
/// when the returned guard is dropped).
fn resolver() -> (Resolver, tempfile::TempDir) {
    let mut r = Resolver::new(shared().join("assets/mvsim-models"));
    let extracted = tempfile::tempdir().unwrap();
    r.extract_dir = extracted.path().to_path_buf();
    (r, extracted)
}

#[test]
fn remote_uris_resolve_through_the_cache_and_archives() {
    let (r, _extracted) = resolver();
    let base = Path::new("/nowhere");
    for uri in [
        "https://mrpt.github.io/mvsim-models/chair_x3.dae",
        "https://mrpt.github.io/mvsim-models/pallet.zip/pallet/pallet.dae",
        "https://mrpt.github.io/mvsim-models/shelf_big_moveai.zip/shelf_big_moveai/shelf_big_movai.dae",
        "https://mrpt.github.io/mvsim-models/greenhouse.zip/greenhouse/pole_009.stl",
        "http://mrpt.github.io/mvsim-models/turtlebot3.zip/turtlebot3/lds.dae",
    ] {
        let path = r
            .resolve(uri, base)
            .unwrap_or_else(|e| panic!("{uri}: {e}"));
        let model = load_model(&path).unwrap_or_else(|e| panic!("{uri}: {e}"));
        assert!(model.triangle_count() > 0, "{uri}");
        assert!(
            !path.starts_with(shared()) || uri.ends_with(".dae") && !uri.contains(".zip"),
            "extracted next to the mirror: {}",
            path.display()
        );
    }
}

#[test]
fn missing_remote_files_and_members_are_clear_errors() {
    let (r, _extracted) = resolver();
    let err = r
        .resolve(
            "https://mrpt.github.io/mvsim-models/AnimatedMenCharacters.zip/FBX/Male_Shirt.fbx",
            Path::new("/"),
        )
        .unwrap_err();
    assert!(matches!(err, UriError::NotCached { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains("is not in the asset cache") && msg.contains("AnimatedMenCharacters.zip"),
        "{msg}"
    );
    let err = r
        .resolve(
            "https://mrpt.github.io/mvsim-models/pallet.zip/pallet/nothing.dae",
            Path::new("/"),
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("has no member `pallet/nothing.dae`"),
        "{err}"
    );
    let err = r.resolve("models/none.dae", Path::new("/tmp")).unwrap_err();
    assert!(matches!(err, UriError::Missing(_)), "{err}");
}

#[test]
fn local_paths_and_file_uris() {
    let (r, _extracted) = resolver();
    let models = shared().join("worlds/mvsim/models");
    let a = r.resolve("velodyne-vlp16.dae", &models).unwrap();
    let b = r
        .resolve(
            &format!("file://{}", models.join("velodyne-vlp16.dae").display()),
            Path::new("/"),
        )
        .unwrap();
    assert_eq!(a.canonicalize().unwrap(), b.canonicalize().unwrap());
    let zipped = r
        .resolve(
            "../../../assets/mvsim-models/rock01.zip/rock01/FallingRock01.dae",
            &models,
        )
        .unwrap();
    assert!(load_model(&zipped).unwrap().triangle_count() > 0);
}

/// Every model file in the mirror (and inside its archives) and the benchmark scene load.
#[test]
fn every_mirrored_model_loads() {
    let (r, _extracted) = resolver();
    let mirror = shared().join("assets/mvsim-models");
    let mut loaded = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&mirror)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in names {
        if name.ends_with(".zip") {
            let file = std::fs::File::open(mirror.join(&name)).unwrap();
            let mut zip = zip::ZipArchive::new(file).unwrap();
            let members: Vec<String> = (0..zip.len())
                .map(|i| zip.by_index(i).unwrap().name().unwrap().into_owned())
                .collect();
            for member in members.iter().filter(|m| {
                [".dae", ".stl", ".obj", ".fbx", ".glb"]
                    .iter()
                    .any(|e| m.to_ascii_lowercase().ends_with(e))
            }) {
                let uri = format!("https://mrpt.github.io/mvsim-models/{name}/{member}");
                let path = r.resolve(&uri, Path::new("/")).unwrap();
                let m = load_model(&path).unwrap_or_else(|e| panic!("{uri}: {e}"));
                loaded.push((
                    format!("{name}/{member}"),
                    m.vertex_count(),
                    m.triangle_count(),
                ));
            }
        } else if name.ends_with(".dae") {
            let m = load_model(&mirror.join(&name)).unwrap();
            loaded.push((name, m.vertex_count(), m.triangle_count()));
        }
    }
    let bench = load_model(&shared().join("perf/refscene.obj")).unwrap();
    assert_eq!(
        (bench.vertex_count(), bench.triangle_count()),
        (99_801, 197_160),
        "as perf/README.md states"
    );
    let listing: Vec<String> = loaded
        .iter()
        .map(|(n, v, t)| format!("{n}: {v} vertices, {t} triangles"))
        .collect();
    eprintln!("{}", listing.join("\n"));
    assert_eq!(
        listing, EXPECTED,
        "counts as this loader reports them (Collada: control points, split by texture coordinate)"
    );
}

const EXPECTED: &[&str] = &[
    "TropicPalmTree.zip/TropicPalmTree/free_palm.dae: 1477 vertices, 1836 triangles",
    "chair_x3.dae: 2221 vertices, 2748 triangles",
    // 113 vertices on seams between its materials count once per material.
    "greenhouse.zip/greenhouse/tomato_plant_240cm.dae: 1952 vertices, 3243 triangles",
    "greenhouse.zip/greenhouse/pole_009.stl: 26 vertices, 48 triangles",
    "greenhouse.zip/greenhouse/pole_004.stl: 26 vertices, 48 triangles",
    "greenhouse.zip/greenhouse/pole_tilted_he120e.stl: 56 vertices, 108 triangles",
    "metal-stairs.dae: 8601 vertices, 9888 triangles",
    "pallet.zip/pallet/pallet.dae: 7060 vertices, 4572 triangles",
    "pallet_jack.zip/pallet_jack/aws_robomaker_warehouse_PalletJackB_01_collision.DAE: 605 vertices, 680 triangles",
    "pallet_jack.zip/pallet_jack/pallet_jack.dae: 1641 vertices, 1883 triangles",
    "rock01.zip/rock01/FallingRock01.dae: 302 vertices, 522 triangles",
    "rock01.zip/rock01/FallingRock01_Collider.dae: 174 vertices, 276 triangles",
    "rock02.zip/rock02/FallingRock02.dae: 113 vertices, 178 triangles",
    "rock02.zip/rock02/FallingRock02_Collider.dae: 64 vertices, 90 triangles",
    "shelf_big_moveai.zip/shelf_big_moveai/shelf_big_movai.dae: 2940 vertices, 2520 triangles",
    "tote.dae: 2484 vertices, 4972 triangles",
    "turtlebot3.zip/turtlebot3/waffle_pi_base.dae: 44 vertices, 40 triangles",
    "turtlebot3.zip/turtlebot3/r200.dae: 1597 vertices, 1572 triangles",
    "turtlebot3.zip/turtlebot3/lds.dae: 198 vertices, 248 triangles",
    "turtlebot3.zip/turtlebot3/burger_base.dae: 44 vertices, 40 triangles",
    "turtlebot3.zip/turtlebot3/waffle_base.dae: 44 vertices, 40 triangles",
    "turtlebot3.zip/turtlebot3/tire.dae: 130 vertices, 124 triangles",
];
