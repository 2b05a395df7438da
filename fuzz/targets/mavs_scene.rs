//! Any bytes as a MAVS scene or simulation file, in a data folder holding a small mesh and a
//! label file: it loads or fails with diagnostics that render.

use super::{TRIANGLE_OBJ, put, render_all, scratch};

/// One input.
pub fn run(data: &[u8]) {
    let dir = scratch("mavs_scene");
    put(&dir, "scenes/meshes/tri.obj", TRIANGLE_OBJ);
    put(
        &dir,
        "scenes/meshes/labels.json",
        br#"{"Label Colors": [{"Label": "obstacle", "Color": [1, 0, 0], "Label Number": 5}],
            "Object Labels": [{"Object": "tri", "Label": "obstacle"}]}"#,
    );
    let scene = put(&dir, "scenes/fuzz.json", data);
    let opts = passerby_mavs::Options {
        data_dir: Some(dir),
        ..passerby_mavs::Options::default()
    };
    let loaded = passerby_mavs::load_scene_file(&scene, &opts);
    render_all(&loaded.diagnostics, &loaded.sources);
}
