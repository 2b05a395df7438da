//! A Foxglove client that subscribes to everything and stops reading does not slow a paced run
//! (its own test binary: it times the run, so no other test may share the machine meanwhile).
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::live::{client, serve};

/// The real-time factor a `served ... (F x real time, ...)` line reports.
fn factor(stdout: &str) -> f64 {
    stdout
        .split(" s (")
        .nth(1)
        .and_then(|s| s.split('x').next())
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_client_that_stops_reading_does_not_slow_the_simulation() {
    // How fast this build runs the world unpaced, with nobody connected (a debug build is far
    // from real time), then paced at a third of that with a client that stops reading.
    let alone = serve(
        "examples/sensor_rig.world.xml",
        &[
            "--duration",
            "1",
            "--realtime-factor",
            "0",
            "--threads",
            "2",
        ],
    );
    let (status, stdout) = alone.stop_when_done();
    assert!(status.success(), "{stdout}");
    let pace = factor(&stdout) / 3.0;
    let seconds = (3.0 * pace).clamp(0.5, 3.0);
    let served = serve(
        "examples/sensor_rig.world.xml",
        &[
            "--duration",
            &format!("{seconds:.2}"),
            "--realtime-factor",
            &format!("{pace:.3}"),
            "--threads",
            "2",
        ],
    );
    let port = served.port;
    let stalled =
        std::thread::spawn(move || client("stall", port, &format!("{:.0}", seconds / pace + 3.0)));
    let (status, stdout) = served.stop_when_done();
    assert!(status.success(), "{stdout}");
    // Every ROS 2 topic of the recording, and the label images as rgb8.
    assert_eq!(stalled.join().unwrap()["subscribed"], 31);
    assert!(
        factor(&stdout) > 0.9 * pace,
        "paced at {pace:.3}x: {stdout}"
    );
}
