//! MVSim's vehicle CSV logs: a vehicle with `<auto_start_recording>true` writes, in its
//! `<log_path>`, a pose log and one log per wheel, a row per step, columns as MVSim names and
//! orders them.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_engine::{Engine, InputOptions, load_world, model_library};
use std::path::Path;

fn engine(dir: &Path, record: bool) -> Engine {
    let logs = dir.join("logs");
    let world = format!(
        r#"<mvsim_world version="1.0">
  <vehicle name="r1">
    <dynamics class="differential">
      <l_wheel pos="0 0.5" mass="4" width="0.1" diameter="0.4"/>
      <r_wheel pos="0 -0.5" mass="4" width="0.1" diameter="0.4"/>
      <controller class="twist_pid"><KP>20</KP><KI>10</KI><max_torque>100</max_torque></controller>
    </dynamics>
    <init_pose>0 0 0</init_pose>
    <log_path>{}</log_path>
    <auto_start_recording>{record}</auto_start_recording>
  </vehicle>
</mvsim_world>"#,
        logs.display()
    );
    let path = dir.join("logs.world.xml");
    std::fs::write(&path, world).unwrap();
    let loaded = load_world(&path, &InputOptions::default());
    let world = loaded
        .value
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
    Engine::build(world, &mut model_library(None, true), 1).unwrap()
}

/// A CSV file's header and rows.
fn read(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines
        .next()
        .unwrap()
        .split(", ")
        .map(str::to_owned)
        .collect();
    let rows = lines
        .map(|l| l.split(", ").map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

#[test]
fn a_recording_vehicle_writes_its_pose_and_wheel_logs_as_mvsim_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine(dir.path(), true);
    engine.set_command("r1", [1.0, 0.0, 0.5]).unwrap();
    while engine.time() < 1.0 - 1e-9 {
        engine.step().unwrap();
    }
    let steps = engine.sim().steps() as usize;
    let v = engine.sim().vehicles()[0].clone();
    let summary = engine.finish().unwrap();
    assert!(
        summary.iter().any(|l| l.contains("3 CSV files")),
        "{summary:?}"
    );

    let (header, rows) = read(&dir.path().join("logs/mvsim_r1_pose.csv"));
    // MVSim's column names, in its std::map's order.
    let mvsim = "Timestamp dqw dqx dqy odo_x odo_y odo_yaw q0x q1y q2z q3yaw q4pitch q5roll";
    assert_eq!(header.join(" "), mvsim);
    assert_eq!(rows.len(), steps);
    let last = rows.last().unwrap();
    assert_eq!(last[0], engine.time());
    assert_eq!(
        [last[7], last[8], last[10]],
        [v.pose.x, v.pose.y, v.pose.yaw]
    );
    assert_eq!([last[2], last[3], last[1]], v.velocity);
    assert!(v.pose.x > 0.3, "{:?}", v.pose);

    for wheel in 1..=2 {
        let (header, rows) = read(&dir.path().join(format!("logs/mvsim_r1_wheel_{wheel}.csv")));
        let mut sorted = header.clone();
        sorted.sort();
        assert_eq!(header, sorted);
        for name in [
            "Timestamp",
            "wheel_pos_x",
            "wheel_pos_y",
            "torque",
            "force_z",
            "velocity_x",
            "velocity_y",
            "friction_x",
            "friction_y",
            "desired_wheel_alpha",
            "actual_wheel_alpha",
            "motor_torque",
            "wheel_long_friction",
            "wheel_lateral_friction",
        ] {
            assert!(header.iter().any(|h| h == name), "{name} in {header:?}");
        }
        assert_eq!(rows.len(), steps);
        let column = |name: &str| header.iter().position(|h| h == name).unwrap();
        // The motors pushed: some torque and forward friction on every wheel.
        assert!(rows.iter().any(|r| r[column("torque")].abs() > 1.0));
        assert!(rows.iter().any(|r| r[column("friction_x")] > 1.0));
        let side = rows[0][column("wheel_pos_y")];
        assert_eq!(side, if wheel == 1 { 0.5 } else { -0.5 });
    }
}

#[test]
fn without_auto_start_recording_no_log_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine(dir.path(), false);
    engine.step().unwrap();
    engine.finish().unwrap();
    assert!(!dir.path().join("logs").exists());
}
