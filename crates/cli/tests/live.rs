//! `passerby serve` with clients we did not write: Foxglove's WebSocket protocol client and its
//! ROS 2 CDR reader and writer (npm packages, installed on first use into the test's
//! temporary folder from `tests/live/package-lock.json`), driving `tests/live/client.mjs`.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::live::{client, serve};

#[test]
fn a_foxglove_client_decodes_clouds_and_images_and_drives_the_robot() {
    let served = serve(
        "examples/sensor_rig.world.xml",
        &["--duration", "60", "--realtime-factor", "2"],
    );
    let seen = client("check", served.port, "");
    let (status, stdout) = served.stop();
    assert_eq!(status.code(), Some(143), "{stdout}");
    // Every topic of the recording is advertised, with its schema, before the first step.
    let channels: Vec<&str> = (seen["channels"].as_array().unwrap().iter())
        .map(|c| c.as_str().unwrap())
        .collect();
    for topic in [
        "/clock",
        "/tf",
        "/r1/odom",
        "/r1/scan",
        "/r1/rgbd_points",
        "/r1/gps",
    ] {
        assert!(channels.contains(&topic), "{topic} in {channels:?}");
    }
    // The VLP-16's cloud and the camera's image decode with their ros2msg schemas.
    let cloud = &seen["cloud"];
    assert!(cloud["points"].as_u64().unwrap() > 10_000, "{cloud}");
    assert_eq!(cloud["frame"], "r1/vlp16");
    assert_eq!(
        cloud["bytes"].as_u64(),
        Some(cloud["points"].as_u64().unwrap() * cloud["point_step"].as_u64().unwrap())
    );
    assert_eq!(cloud["fields"][0], "x");
    assert_eq!(seen["image"]["encoding"], "rgb8");
    assert_eq!(seen["image"]["bytes"], 640 * 480 * 3);
    // /tf_static reached a client that subscribed after it was first sent.
    assert!(seen["tf_static"].as_u64().unwrap() >= 5);
    // The client's cmd_vel (CDR Twist, 1 m/s forward) moved the robot.
    let odom = seen["odom"].as_array().unwrap();
    let (first, last) = (&odom[0], &odom[1]);
    let moved = last[1].as_f64().unwrap() - first[1].as_f64().unwrap();
    let took = last[0].as_f64().unwrap() - first[0].as_f64().unwrap();
    assert!(moved > 0.5 && moved <= took + 0.05, "{odom:?}");
    assert!(stdout.contains("velocity commands"), "{stdout}");
    // Label images are also offered as rgb8: as many coloured pixels as labelled ones.
    let labels = &seen["labels"];
    assert!(labels["labelled"].as_u64().unwrap() > 1000, "{labels}");
    assert_eq!(labels["labelled"], labels["coloured"]);
    // The client's transform set (CDR TransformSet) placed the robot.
    let placed = seen["placed"].as_array().unwrap();
    let (x, y) = (placed[1].as_f64().unwrap(), placed[2].as_f64().unwrap());
    assert!(
        (x - 10.0).abs() < 0.01 && (y + 3.0).abs() < 0.01,
        "{placed:?}"
    );
    // The served world's parameters: all listed, the pace changed, a read-only one refused.
    let params = &seen["parameters"];
    let all = params["all"].as_array().unwrap();
    let names: Vec<&str> = all.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "lockstep",
            "realtime_factor",
            "seed",
            "time_step",
            "use_sim_time",
            "world"
        ]
    );
    assert_eq!(all[1]["value"], 2.0);
    assert_eq!(all[1]["type"], "float64");
    assert_eq!(all[5]["value"], "examples/sensor_rig.world.xml");
    assert_eq!(params["set"][0]["value"], 3.0, "{params}");
    assert_eq!(params["refused"][0]["value"], 0, "{params}");
    assert_eq!(
        params["updates"],
        serde_json::json!([{"name": "realtime_factor", "type": "float64", "value": 3}])
    );
    assert_eq!(
        params["warnings"],
        serde_json::json!(["parameter `seed` not set: `seed` is read-only"])
    );
}

#[test]
fn closed_loop_runs_in_lockstep_are_byte_identical_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut recordings = Vec::new();
    let mut ends = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("lockstep{threads}.mcap"));
        let served = serve(
            "examples/sensor_rig.world.xml",
            &[
                "--lockstep",
                "--threads",
                threads,
                "--out",
                out.to_str().unwrap(),
            ],
        );
        let end = client("lockstep", served.port, "30");
        let (status, stdout) = served.stop();
        assert_eq!(status.code(), Some(143), "{stdout}");
        assert!(
            stdout.contains("30 velocity commands, 0 transform sets, 31 requests"),
            "{stdout}"
        );
        recordings.push(std::fs::read(&out).unwrap());
        ends.push(end);
    }
    // 1 + 30 x 10 steps, and the controller drove towards its goal (2, 1).
    assert_eq!(ends[0]["steps"], 301);
    let last = ends[0]["last"].as_array().unwrap();
    let (x, y) = (last[1].as_f64().unwrap(), last[2].as_f64().unwrap());
    assert!(x > 0.5 && y > 0.1, "{last:?}");
    assert_eq!(ends[0], ends[1]);
    assert!(recordings[0] == recordings[1], "the recordings differ");
    let summary = mcap::Summary::read(&recordings[0]).unwrap().unwrap();
    let stats = summary.stats.unwrap();
    assert!(stats.message_count > 1000, "{stats:?}");
}
