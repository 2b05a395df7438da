//! Any bytes as one of MAVS's auxiliary files, read as a scene reads it; the first byte picks
//! which: 0 a label file, 1 an actor file, 2 a waypoint file (of an actor), 3 a layers file
//! (of a layered surface), 4 an ANVEL pose file, 5 a text pose file, 6 a keyframe list (of an
//! animation).

use super::{TRIANGLE_OBJ, put, render_all, scratch};

const SCENE_WITH_LABELS: &[u8] = br#"{"Object Labels": "labels.json",
  "Objects": [{"Mesh": "tri.obj", "Instances": [{"Position": [0, 0, 0]}]}]}"#;

const ACTOR_FILE: &[u8] = br#"{"Actors": [{"Mesh": "tri.obj", "Instances": [
  {"Initial Position": [0, 0, 0], "Speed": 1.0, "Waypoints File": "waypoints/w.json"}]}]}"#;

const LAYERED_SCENE: &[u8] = br#"{"Layered Surface": {"Mesh": "tri.obj",
  "Trail": {"Trail Width": 2.0, "Track Width": 0.6, "Wheelbase": 1.25,
            "Path": "waypoints/trail.vprp"},
  "Layers": "surface_textures/layers.json"}}"#;

const ANIMATED_SCENE: &[u8] = br#"{"Animations": [{"Animation Folder": "walk",
  "Frame List": "walk/frames.txt", "Behavior": "wander", "Initial Position": [0, 0, 0],
  "Frame Rate": 30.0, "Speed": 1.0}]}"#;

/// One input.
pub fn run(data: &[u8]) {
    let Some((&kind, bytes)) = data.split_first() else {
        return;
    };
    let dir = scratch("mavs_aux");
    let _ = std::fs::remove_dir_all(&dir);
    put(&dir, "scenes/meshes/tri.obj", TRIANGLE_OBJ);
    put(&dir, "scenes/meshes/walk/tri.obj", TRIANGLE_OBJ);
    put(&dir, "waypoints/trail.vprp", b"");
    let mut opts = passerby_mavs::Options {
        data_dir: Some(dir.clone()),
        ..passerby_mavs::Options::default()
    };
    let scene = match kind % 7 {
        0 => {
            put(&dir, "scenes/meshes/labels.json", bytes);
            put(&dir, "scenes/s.json", SCENE_WITH_LABELS)
        }
        1 => {
            opts.actors = Some(put(&dir, "actors/a.json", bytes));
            put(&dir, "scenes/s.json", b"{}")
        }
        2 => {
            put(&dir, "waypoints/w.json", bytes);
            opts.actors = Some(put(&dir, "actors/a.json", ACTOR_FILE));
            put(&dir, "scenes/s.json", b"{}")
        }
        3 => {
            put(&dir, "scenes/meshes/surface_textures/layers.json", bytes);
            put(&dir, "scenes/s.json", LAYERED_SCENE)
        }
        4 => {
            let _ = passerby_mavs::poses::read_vprp(&String::from_utf8_lossy(bytes));
            return;
        }
        5 => {
            let _ = passerby_mavs::poses::read_text_poses(&String::from_utf8_lossy(bytes), 0.1);
            return;
        }
        _ => {
            put(&dir, "scenes/meshes/walk/frames.txt", bytes);
            put(&dir, "scenes/s.json", ANIMATED_SCENE)
        }
    };
    let loaded = passerby_mavs::load_scene_file(&scene, &opts);
    render_all(&loaded.diagnostics, &loaded.sources);
}
