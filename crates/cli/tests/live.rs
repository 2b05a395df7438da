//! `passerby serve` with clients we did not write: Foxglove's WebSocket protocol client and its
//! ROS 2 CDR reader and writer (npm packages, installed on first use into the test's
//! temporary folder from `tests/live/package-lock.json`), driving `tests/live/client.mjs`.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The client script beside its installed packages; installed once per test binary.
fn client_script() -> PathBuf {
    static CLIENT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CLIENT.get_or_init(install_clients).clone()
}

fn install_clients() -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/live");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live-clients");
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["package.json", "package-lock.json", "client.mjs"] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    if !dir.join("node_modules/@foxglove/ws-protocol").exists() {
        let installed = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .expect("npm (Node.js) is needed to test the live server with independent clients");
        assert!(installed.success(), "npm ci of the live clients failed");
    }
    dir.join("client.mjs")
}

/// A `passerby serve` running, its port, and its standard error as it comes.
struct Served {
    child: Child,
    port: u16,
    stderr: mpsc::Receiver<String>,
}

fn serve(world: &str, extra: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_passerby"))
        .current_dir(repo())
        .env("PASSERBY_OFFLINE", "1")
        .args(["serve", world, "--foxglove", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, stderr) = mpsc::channel();
    let reader = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let port = loop {
        let line = stderr
            .recv_timeout(Duration::from_secs(60))
            .expect("passerby serve printed its address");
        if let Some(rest) = line.split("foxglove: ws://127.0.0.1:").nth(1) {
            break rest.split(' ').next().unwrap().parse().unwrap();
        }
    };
    Served {
        child,
        port,
        stderr,
    }
}

impl Served {
    /// Asks it to stop (SIGTERM) unless it ended already; its exit status and standard output.
    fn stop(mut self) -> (std::process::ExitStatus, String) {
        if self.child.try_wait().unwrap().is_none() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
        }
        let out = self.child.wait_with_output().unwrap();
        let rest: Vec<String> = self.stderr.try_iter().collect();
        eprintln!("{}", rest.join("\n"));
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

/// Runs the client in `mode`; its JSON line.
fn client(mode: &str, port: u16, arg: &str) -> serde_json::Value {
    let out = Command::new("node")
        .arg(client_script())
        .args([mode, &port.to_string(), arg])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client {mode}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

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
            stdout.contains("30 velocity commands, 31 requests"),
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

#[test]
fn a_client_that_stops_reading_does_not_slow_the_simulation() {
    let served = serve(
        "examples/sensor_rig.world.xml",
        &[
            "--duration",
            "3",
            "--realtime-factor",
            "1",
            "--threads",
            "2",
        ],
    );
    let port = served.port;
    let stalled = std::thread::spawn(move || client("stall", port, "6"));
    let (status, stdout) = served.stop_when_done();
    assert!(status.success(), "{stdout}");
    assert_eq!(stalled.join().unwrap()["subscribed"], 26);
    // "served 3.00 s in W s (F x real time, ...)".
    let factor: f64 = stdout
        .split(" s (")
        .nth(1)
        .and_then(|s| s.split('x').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(factor > 0.9, "{stdout}");
}

impl Served {
    /// Waits for it to end by itself (`--duration`).
    fn stop_when_done(mut self) -> (std::process::ExitStatus, String) {
        let status = self.child.wait().unwrap();
        let mut stdout = String::new();
        if let Some(mut s) = self.child.stdout.take() {
            std::io::Read::read_to_string(&mut s, &mut stdout).unwrap();
        }
        (status, stdout)
    }
}
