//! `<walls>` from a model file (MVSim's `<model_uri>`, its Collada `<lines>`): the engine reads
//! the segments once, and they stand everywhere walls stand: in the scene (3D rays), on the
//! floor plan of the 2D lasers and in the vehicles' contacts.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_engine::{Engine, InputOptions, Observation, load_world, model_library};
use std::path::Path;

/// A Y_UP plan in metres: one wall across x = 3 from y = -5 to y = 5, under a node that moves
/// it 1 m along x (the world's transformation takes it 1 m back).
const PLAN: &str = r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><created>2026-01-01T00:00:00Z</created><modified>2026-01-01T00:00:00Z</modified>
    <unit meter="1" name="meter"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="plan">
      <mesh>
        <source id="p">
          <float_array id="pa" count="6">3 -5 0  3 5 0</float_array>
          <technique_common>
            <accessor source="#pa" count="2" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
        <lines count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1</p></lines>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="walls" name="walls">
        <matrix>1 0 0 1  0 1 0 0  0 0 1 0  0 0 0 1</matrix>
        <instance_geometry url="#plan"/>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>"##;

fn laser(name: &str, raytrace_3d: bool) -> String {
    format!(
        r#"<sensor class="laser" name="{name}">
             <pose_3d>0.7 0 0.3 0 0 0</pose_3d>
             <fov_degrees>10</fov_degrees> <nrays>3</nrays> <sensor_period>0.1</sensor_period>
             <range_std_noise>0</range_std_noise> <angle_std_noise_deg>0</angle_std_noise_deg>
             <raytrace_3d>{raytrace_3d}</raytrace_3d> <max_range>20</max_range>
           </sensor>"#
    )
}

fn engine(dir: &Path) -> Engine {
    std::fs::write(dir.join("plan.dae"), PLAN).unwrap();
    let world = format!(
        r#"<mvsim_world version="1.0">
  <walls>
    <model_uri>plan.dae</model_uri>
    <transformation>[1 0 0 -1; 0 1 0 0; 0 0 1 0; 0 0 0 1]</transformation>
    <wallThickness>0.1</wallThickness> <wallHeight>1.5</wallHeight>
  </walls>
  <vehicle name="r1">
    <dynamics class="differential">
      <chassis mass="15" zmin="0.05" zmax="0.6"/>
      <l_wheel pos="0 0.5" mass="4" width="0.1" diameter="0.4"/>
      <r_wheel pos="0 -0.5" mass="4" width="0.1" diameter="0.4"/>
      <controller class="twist_pid"><KP>20</KP><KI>10</KI><max_torque>100</max_torque></controller>
    </dynamics>
    <init_pose>0 0 0</init_pose>
    {}{}
  </vehicle>
</mvsim_world>"#,
        laser("flat", false),
        laser("rays", true)
    );
    let path = dir.join("walls.world.xml");
    std::fs::write(&path, world).unwrap();
    let world = load_world(&path, &InputOptions::default()).value.unwrap();
    Engine::build(world, &mut model_library(None, true), 1).unwrap()
}

/// The middle beam of each laser, by name, in the engine's first scans.
fn middle_ranges(engine: &mut Engine) -> Vec<(String, f32)> {
    let mut out = Vec::new();
    while out.len() < 2 {
        for o in engine.step().unwrap().iter() {
            if let Observation::LaserScan(s) = o {
                out.push((s.sensor.name.clone(), s.ranges[1]));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn walls_from_a_model_are_seen_by_both_kinds_of_laser_and_stop_a_robot() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine(dir.path());
    assert!(
        !engine
            .notices()
            .iter()
            .any(|n| n.contains("walls from model")),
        "{:?}",
        engine.notices()
    );
    // The wall's face is at x = 2.95; the lasers stand at x = 0.7, ahead of the chassis.
    for (name, range) in middle_ranges(&mut engine) {
        assert!((range - 2.25).abs() < 0.01, "{name}: {range}");
    }
    engine.set_command("r1", [1.0, 0.0, 0.0]).unwrap();
    while engine.time() < 6.0 {
        engine.step().unwrap();
    }
    // The differential class's outline reaches 0.6 m ahead: it stops at the wall's face.
    let x = engine.sim().vehicles()[0].pose.x;
    assert!((x + 0.6 - 2.95).abs() < 0.03, "x = {x}");
    assert!(engine.sim().vehicles()[0].in_collision);
}
