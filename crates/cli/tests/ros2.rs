//! `passerby serve --ros2` with a ROS 2 peer we did not write: Eclipse Cyclone DDS (`cyclonedds`
//! from PyPI, installed on first use into the test's temporary folder) running
//! `tests/live/dds_client.py`, configured, as our participant is by default, for the loopback
//! interface only. One test per binary: it also checks that no packet left through another
//! interface while the two talked.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use std::io::{BufRead, BufReader};
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Python with Cyclone DDS, in a virtual environment made on first use.
fn cyclone_python() -> PathBuf {
    common::python_venv(
        "cyclonedds-venv",
        "cyclonedds.domain",
        &["cyclonedds==11.0.1"],
    )
}

/// Cyclone DDS on `lo` only: no multicast, 127.0.0.1 as the one peer.
fn cyclone_config(dir: &Path) -> String {
    let path = dir.join("cyclonedds.xml");
    std::fs::write(
        &path,
        r#"<CycloneDDS><Domain id="any">
  <General><Interfaces><NetworkInterface name="lo"/></Interfaces><AllowMulticast>false</AllowMulticast></General>
  <Discovery><Peers><Peer address="127.0.0.1"/></Peers><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>20</MaxAutoParticipantIndex></Discovery>
</Domain></CycloneDDS>"#,
    )
    .unwrap();
    format!("file://{}", path.display())
}

/// Packets sent so far through every interface but loopback.
fn packets_sent_off_loopback() -> u64 {
    let dev = std::fs::read_to_string("/proc/net/dev").unwrap();
    dev.lines()
        .skip(2)
        .filter_map(|l| l.split_once(':'))
        .filter(|(name, _)| name.trim() != "lo")
        .map(|(_, fields)| {
            let f: Vec<&str> = fields.split_whitespace().collect();
            f.get(9).and_then(|p| p.parse::<u64>().ok()).unwrap_or(0)
        })
        .sum()
}

/// The DDS domain of this run's server and clients: its own, so that another run on the same
/// machine (or a server a failed run left behind) never answers this one's requests.
fn domain() -> String {
    (1 + std::process::id() % 200).to_string()
}

/// A served world, stopped (killed) if the test fails before [`stop`].
struct Served(Option<std::process::Child>);

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Serves the sensor rig with `extra` options; `rmw` as `RMW_IMPLEMENTATION` (the framing of
/// its parameter services).
fn serve(extra: &[&str], rmw: Option<&str>) -> Served {
    let mut command = Command::new(env!("CARGO_BIN_EXE_passerby"));
    match rmw {
        Some(rmw) => command.env("RMW_IMPLEMENTATION", rmw),
        None => command.env_remove("RMW_IMPLEMENTATION"),
    };
    let mut child = command
        .current_dir(repo())
        .env("PASSERBY_OFFLINE", "1")
        .env_remove("ROS_AUTOMATIC_DISCOVERY_RANGE")
        .env("ROS_DOMAIN_ID", domain())
        .args(["serve", "examples/sensor_rig.world.xml", "--ros2"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    loop {
        let line = lines.next().expect("passerby serve started").unwrap();
        if line.starts_with("serving ") {
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    Served(Some(child))
}

/// Runs `script` (in `tests/live`) with `args` and returns the JSON line it prints.
fn run_client(python: &Path, uri: &str, script: &str, args: &[&str]) -> serde_json::Value {
    let out = Command::new(python)
        .arg(repo().join("crates/cli/tests/live").join(script))
        .args(args)
        .env("CYCLONEDDS_URI", uri)
        .env("ROS_DOMAIN_ID", domain())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} {args:?}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

fn client(python: &Path, uri: &str, args: &[&str]) -> serde_json::Value {
    run_client(python, uri, "dds_client.py", args)
}

fn stop(mut served: Served) -> String {
    let mut child = served.0.take().unwrap();
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let mut stdout = String::new();
    if let Some(mut s) = child.stdout.take() {
        std::io::Read::read_to_string(&mut s, &mut stdout).unwrap();
    }
    stdout
}

#[test]
fn a_cyclone_dds_peer_reads_clouds_and_odometry_drives_and_steps_over_loopback() {
    let python = cyclone_python();
    let dir = tempfile::tempdir().unwrap();
    let uri = cyclone_config(dir.path());

    // Live at 2x: the peer decodes the VLP-16's cloud and sees its cmd_vel move the robot.
    let before = packets_sent_off_loopback();
    let served = serve(
        &["--realtime-factor", "2", "--duration", "120"],
        Some("rmw_cyclonedds_cpp"),
    );
    let seen = client(&python, &uri, &["check"]);
    // Its parameters, as `ros2 param` over rmw_cyclonedds_cpp sees them.
    let params = run_client(&python, &uri, "dds_params.py", &["cyclone", "check"]);
    let after = packets_sent_off_loopback();
    let stdout = stop(served);
    let cloud = &seen["cloud"];
    assert!(cloud["points"].as_u64().unwrap() > 10_000, "{seen}");
    assert_eq!(cloud["frame"], "r1/vlp16");
    assert_eq!(
        cloud["bytes"].as_u64(),
        Some(cloud["points"].as_u64().unwrap() * cloud["point_step"].as_u64().unwrap())
    );
    let odom = seen["odom"].as_array().unwrap();
    let moved = odom[1][1].as_f64().unwrap() - odom[0][1].as_f64().unwrap();
    assert!(moved > 0.45, "{odom:?}");
    assert!(stdout.contains("velocity commands"), "{stdout}");
    // Its transform set placed the robot.
    let placed = seen["placed"].as_array().unwrap();
    let (x, y) = (placed[0].as_f64().unwrap(), placed[1].as_f64().unwrap());
    assert!(
        (x - 10.0).abs() < 0.01 && (y + 3.0).abs() < 0.01,
        "{placed:?}"
    );
    check_parameters(&params);
    // Nothing left through another interface, unless this machine sends traffic of its own
    // (then a quiet window of the same length says so, and the check is inconclusive).
    let leaked = after - before;
    if leaked > 0 {
        let quiet = packets_sent_off_loopback();
        std::thread::sleep(Duration::from_secs(3));
        let background = packets_sent_off_loopback() - quiet;
        assert!(
            background > 0,
            "{leaked} packets left through a non-loopback interface while serving ROS 2"
        );
        eprintln!("note: this machine sends traffic of its own; the loopback check is moot");
    }

    // Lockstep: a closed-loop controller (commands carried in its step requests) gives
    // byte-identical recordings at 1 and 2 threads, 10 steps per answered request.
    let mut runs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("lockstep{threads}.mcap"));
        let served = serve(
            &[
                "--lockstep",
                "--threads",
                threads,
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        if threads == "1" {
            // Fast DDS's framing (ROS 2's default middleware): the pace is fixed in lockstep.
            let got = run_client(
                &python,
                &uri,
                "dds_params.py",
                &["fastdds", "get", "lockstep", "realtime_factor", "nope"],
            );
            assert_eq!(got["values"], serde_json::json!([true, 1.0, null]), "{got}");
        }
        let answers = client(&python, &uri, &["lockstep", "20"]);
        let stdout = stop(served);
        assert!(stdout.contains(", 201 steps)"), "{stdout}");
        runs.push((answers, std::fs::read(&out).unwrap()));
    }
    let answers = runs[0].0["answers"].as_array().unwrap();
    let steps: Vec<u64> = answers.iter().map(|a| a[0].as_u64().unwrap()).collect();
    assert_eq!(steps, (1..=20).map(|i| 1 + 10 * i).collect::<Vec<u64>>());
    let last = answers.last().unwrap();
    assert!(
        last[2].as_f64().unwrap() > 0.3 && last[3].as_f64().unwrap() > 0.05,
        "{last}"
    );
    assert_eq!(runs[0].0, runs[1].0);
    assert!(runs[0].1 == runs[1].1, "the lockstep recordings differ");
}

/// What `dds_params.py cyclone check` saw of a world served at 2x.
fn check_parameters(params: &serde_json::Value) {
    use serde_json::json;
    assert_eq!(
        params["names"],
        json!([
            "lockstep",
            "realtime_factor",
            "seed",
            "time_step",
            "use_sim_time",
            "world"
        ]),
        "{params}"
    );
    // (ROS 2 type codes: 1 bool, 2 integer, 3 double, 0 not set.)
    assert_eq!(params["values"], json!([[3, 2.0], [1, false], [0, null]]));
    assert_eq!(
        params["described"],
        json!([
            ["seed", 2, true, []],
            ["realtime_factor", 3, false, [[0.0, 1000.0]]]
        ])
    );
    assert_eq!(
        params["refused"],
        json!([
            [false, "`seed` is read-only"],
            [false, "`realtime_factor` is a double, not a string"]
        ])
    );
    assert_eq!(params["set"], json!([[true, ""]]));
    assert_eq!(params["events"], json!([["realtime_factor", 0.1]]));
    // The pace follows: simulated seconds per wall second, from odometry stamps (before: 2x,
    // or as fast as this build and machine manage, 0.5x for a debug build here and 0.17x on
    // a loaded machine: compared with the pace after, not with a fixed speed).
    let (before, after) = (
        params["pace_before"].as_f64().unwrap(),
        params["pace_after"].as_f64().unwrap(),
    );
    assert!(before > 1.5 * after, "at 2x: {params}");
    assert!((0.06..0.14).contains(&after), "at 0.1x: {params}");
}
