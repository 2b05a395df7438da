//! Broken model files give errors that name the file and the problem; nothing panics.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_assets::{AssetError, load_model};
use std::path::PathBuf;

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets/samples")
}

/// `name` in `scratch`, a directory removed when dropped (also when the test fails).
fn temp(scratch: &tempfile::TempDir, name: &str) -> PathBuf {
    scratch.path().join(name)
}

#[test]
fn truncated_and_corrupt_files() {
    let scratch = tempfile::tempdir().unwrap();
    let glb = std::fs::read(samples().join("CesiumMan.glb")).unwrap();
    let fbx = std::fs::read(samples().join("fbx/animation_with_skeleton.fbx")).unwrap();
    let dae = std::fs::read(samples().join("collada/box_nested_animation.dae")).unwrap();
    for (name, bytes) in [
        ("half.glb", glb[..glb.len() / 2].to_vec()),
        ("header.glb", glb[..20].to_vec()),
        (
            "noise.glb",
            (0..5000u32)
                .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect(),
        ),
        ("empty.gltf", Vec::new()),
        // Regression (fuzzing): a GLB header declaring fewer than 12 bytes made gltf 1.4 overflow.
        ("short-header.glb", [b"glTF".as_slice(), &2u32.to_le_bytes(), &11u32.to_le_bytes(), &[0u8; 40]].concat()),
        ("half.fbx", fbx[..fbx.len() / 2].to_vec()),
        ("half.dae", dae[..dae.len() / 2].to_vec()),
        ("noise.dae", b"<COLLADA version=\"1.4.1\"><asset/><library_geometries><geometry id=\"g\"><mesh><vertices id=\"v\"><input semantic=\"POSITION\" source=\"#nowhere\"/></vertices></mesh></geometry></library_geometries></COLLADA>".to_vec()),
        ("header.fbx", fbx[..30].to_vec()),
        (
            "noise.fbx",
            (0..5000u32)
                .map(|i| (i.wrapping_mul(2246822519) >> 11) as u8)
                .collect(),
        ),
    ] {
        let path = temp(&scratch, name);
        std::fs::write(&path, bytes).unwrap();
        let err = load_model(&path).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("model `{}`: ", path.display())),
            "{err}"
        );
    }
    // Every prefix of a small file: an error or a model, never a panic.
    let gltf = std::fs::read(samples().join("RiggedSimple/RiggedSimple.gltf")).unwrap();
    for cut in (0..gltf.len()).step_by(97) {
        let path = temp(&scratch, "prefix.gltf");
        std::fs::write(&path, &gltf[..cut]).unwrap();
        let _ = load_model(&path);
    }
}

#[test]
fn missing_external_buffer_is_named() {
    let scratch = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(samples().join("RiggedSimple/RiggedSimple.gltf")).unwrap();
    let path = temp(&scratch, "lonely.gltf");
    std::fs::write(&path, text).unwrap();
    let err = load_model(&path).unwrap_err().to_string();
    assert!(
        err.contains("buffer 0: cannot read") && err.contains("RiggedSimple0.bin"),
        "{err}"
    );
}

#[test]
fn unsupported_format_and_missing_file() {
    assert!(matches!(
        load_model("x.3ds".as_ref()),
        Err(AssetError::UnsupportedFormat { .. })
    ));
    let err = load_model("/nonexistent/m.glb".as_ref())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("cannot read model `/nonexistent/m.glb`"),
        "{err}"
    );
}

#[test]
fn missing_and_corrupt_textures_are_warnings() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = temp(&scratch, "textures");
    let _ = std::fs::create_dir_all(&dir);
    std::fs::write(
        dir.join("m.mtl"),
        "newmtl a\nKd 1 0 0\nmap_Kd missing.png\nnewmtl b\nKd 0 1 0\nmap_Kd broken.png\n",
    )
    .unwrap();
    std::fs::write(dir.join("broken.png"), b"not a png").unwrap();
    std::fs::write(
        dir.join("m.obj"),
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\nusemtl b\nf 1 3 2\n",
    )
    .unwrap();
    let model = load_model(&dir.join("m.obj")).unwrap();
    assert_eq!(model.materials.len(), 2);
    let textures: Vec<_> = model
        .materials
        .iter()
        .map(|m| m.texture.as_ref().unwrap())
        .collect();
    assert!(!textures[0].found && textures[0].image.is_none());
    assert!(textures[1].found && textures[1].image.is_none());
    assert_eq!(model.warnings.len(), 2, "{:?}", model.warnings);
    assert!(
        model.warnings[0].contains("missing.png is missing"),
        "{:?}",
        model.warnings
    );
    assert!(
        model.warnings[1].contains("could not be decoded"),
        "{:?}",
        model.warnings
    );
}

/// Regression (fuzzing): accessors of the wrong type for their role made the gltf crate assert.
#[test]
fn gltf_accessors_of_the_wrong_type_are_errors() {
    let scratch = tempfile::tempdir().unwrap();
    let path = temp(&scratch, "wrong-type.gltf");
    std::fs::write(&path, r#"{"asset": {"version": "2.0"}, "nodes": [{"name": "n"}], "scenes": [{"nodes": [0]}], "buffers": [{"byteLength": 20, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAA="}], "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 16}], "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR", "min": [0], "max": [0]}, {"bufferView": 1, "componentType": 5126, "count": 1, "type": "VEC4"}], "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}], "samplers": [{"input": 0, "output": 1}]}]}"#).unwrap();
    let err = load_model(&path).unwrap_err().to_string();
    assert!(
        err.contains("animation output accessor 1 is Vec4 F32; expected Vec3"),
        "{err}"
    );
    // Regression (fuzzing): an unknown target path passed the crate's validation, then panicked.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"translation\"", "\"tranzlation\"");
    std::fs::write(&path, text).unwrap();
    let err = load_model(&path).unwrap_err().to_string();
    assert!(err.contains("unknown animation target path"), "{err}");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"tranzlation\"", "\"translation\"")
        .replace("\"node\": 0", "\"node\": 7");
    std::fs::write(&path, text).unwrap();
    let err = load_model(&path).unwrap_err().to_string();
    assert!(err.contains("unknown animation target node"), "{err}");
}

/// Regression (fuzzing): gltf-json's own validation indexes the POSITION accessor before
/// checking it exists; the loader turns that panic into an error.
#[test]
fn gltf_position_accessor_out_of_range_is_an_error() {
    let scratch = tempfile::tempdir().unwrap();
    let path = temp(&scratch, "no-accessors.gltf");
    std::fs::write(
        &path,
        r#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":3}}]}]}"#,
    )
    .unwrap();
    let err = load_model(&path).unwrap_err().to_string();
    assert!(err.contains("not a valid glTF file"), "{err}");
}

/// Regression (fuzzing): a Collada array declaring billions of elements made dae-parser reserve
/// the memory up front and abort the process.
#[test]
fn collada_impossible_counts_are_errors() {
    let scratch = tempfile::tempdir().unwrap();
    let dae = std::fs::read_to_string(samples().join("collada/box_nested_animation.dae")).unwrap();
    let i = dae.find("<float_array").unwrap();
    let j = i + dae[i..].find("count=\"").unwrap() + 7;
    let k = j + dae[j..].find('"').unwrap();
    let broken = format!("{}94221230472{}", &dae[..j], &dae[k..]);
    let path = temp(&scratch, "huge-count.dae");
    std::fs::write(&path, broken).unwrap();
    let err = load_model(&path).unwrap_err().to_string();
    assert!(err.contains("declares 94221230472 elements"), "{err}");
}
