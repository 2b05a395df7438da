//! Collada line primitives (`<lines>`): MVSim reads `<walls>` from them. Read in the file's
//! frame, placed by their node and turned as assimp presents the file.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::Vec3;
use passerby_assets::{load_model_bytes, rest_lines};
use std::path::Path;

/// A floor plan: three `<lines>` segments (two of them meeting), under a node moved 10 m
/// along x, in a file of the given up axis, in centimetres.
fn plan(up_axis: &str) -> String {
    format!(
        r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><created>2026-01-01T00:00:00Z</created><modified>2026-01-01T00:00:00Z</modified><unit meter="0.01" name="centimeter"/><up_axis>{up_axis}</up_axis></asset>
  <library_geometries>
    <geometry id="plan">
      <mesh>
        <source id="plan-positions">
          <float_array id="plan-array" count="15">0 0 0  400 0 0  0 200 0  0 300 0  100 300 0</float_array>
          <technique_common>
            <accessor source="#plan-array" count="5" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="plan-vertices"><input semantic="POSITION" source="#plan-positions"/></vertices>
        <lines count="1"><input semantic="VERTEX" source="#plan-vertices" offset="0"/><p>0 1</p></lines>
        <lines count="2"><input semantic="VERTEX" source="#plan-vertices" offset="0"/><p>2 3 3 4</p></lines>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="walls" name="walls">
        <matrix>1 0 0 1000  0 1 0 0  0 0 1 0  0 0 0 1</matrix>
        <instance_geometry url="#plan"/>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>"##
    )
}

fn close(a: [Vec3; 2], b: [[f32; 3]; 2]) -> bool {
    (a[0] - Vec3::from(b[0])).length() < 1e-5 && (a[1] - Vec3::from(b[1])).length() < 1e-5
}

#[test]
fn line_primitives_are_read_placed_by_their_node_and_scaled() {
    let model = load_model_bytes(Path::new("plan.dae"), plan("Y_UP").as_bytes()).unwrap();
    let lines = rest_lines(&model);
    assert_eq!(lines.len(), 3, "{lines:?}");
    // Y_UP stays as it is; centimetres become metres; the node adds 10 m along x.
    assert!(
        close(lines[0], [[10.0, 0.0, 0.0], [14.0, 0.0, 0.0]]),
        "{lines:?}"
    );
    assert!(
        close(lines[1], [[10.0, 2.0, 0.0], [10.0, 3.0, 0.0]]),
        "{lines:?}"
    );
    assert!(
        close(lines[2], [[10.0, 3.0, 0.0], [11.0, 3.0, 0.0]]),
        "{lines:?}"
    );
    // Lines are not triangles.
    assert_eq!(model.triangle_count(), 0);
}

#[test]
fn a_z_up_plan_turns_as_assimp_turns_it() {
    let model = load_model_bytes(Path::new("plan.dae"), plan("Z_UP").as_bytes()).unwrap();
    let lines = rest_lines(&model);
    // assimp: (x, y, z) -> (x, z, -y).
    assert!(
        close(lines[1], [[10.0, 0.0, -2.0], [10.0, 0.0, -3.0]]),
        "{lines:?}"
    );
}

#[test]
fn a_line_index_past_the_positions_is_an_error() {
    let bad = plan("Y_UP").replace("<p>0 1</p>", "<p>0 9</p>");
    let err = load_model_bytes(Path::new("plan.dae"), bad.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("vertex index 9"), "{err}");
}
