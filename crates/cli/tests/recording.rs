//! `passerby run` recordings, read back by readers we did not write: the `mcap` crate here, and
//! Python's `mcap` + `mcap-ros2-support` and `rosbags` (installed from PyPI into a virtual
//! environment under the target directory on first use; `.ci/run` prepares it).
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::{passerby, python_script, readers_python, repo};

use std::path::Path;
use std::process::Command;

fn record(out: &Path, seconds: &str, threads: &str, dump: Option<&Path>) {
    record_with(out, seconds, threads, dump, &[]);
}

fn record_with(out: &Path, seconds: &str, threads: &str, dump: Option<&Path>, extra: &[&str]) {
    let mut c = passerby();
    c.args([
        "run",
        "examples/sensor_rig.world.xml",
        "--duration",
        seconds,
        "--threads",
        threads,
    ])
    .arg("--out")
    .arg(out);
    if let Some(d) = dump {
        c.arg("--dump").arg(d);
    }
    c.args(extra);
    assert!(c.status().unwrap().success());
}

/// Message count per channel, through the `mcap` crate's reader (summary and index checked).
fn channel_counts(path: &Path) -> Vec<(String, u64)> {
    let bytes = std::fs::read(path).unwrap();
    let summary = mcap::Summary::read(&bytes)
        .unwrap()
        .expect("a summary section");
    let stats = summary.stats.expect("statistics");
    let mut counts: Vec<(String, u64)> = summary
        .channels
        .values()
        // A channel with no message may be left out of the counts (a run killed before its
        // first message of that channel reached a complete chunk).
        .map(|c| {
            let n = stats.channel_message_counts.get(&c.id).copied();
            (c.topic.clone(), n.unwrap_or(0))
        })
        .collect();
    counts.sort();
    // Every message decodes as a record.
    let mut n = 0;
    for message in mcap::MessageStream::new(&bytes).unwrap() {
        message.unwrap();
        n += 1;
    }
    assert_eq!(n as u64, stats.message_count);
    counts
}

#[test]
fn a_recording_is_read_by_independent_readers_and_identical_for_any_thread_count() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("recording");
    std::fs::create_dir_all(&dir).unwrap();
    let (one, two) = (dir.join("one.mcap"), dir.join("two.mcap"));
    let dump = dir.join("dump");
    record(&one, "2", "1", Some(&dump));
    record(&two, "2", "2", None);
    assert!(
        std::fs::read(&one).unwrap() == std::fs::read(&two).unwrap(),
        "byte-identical for 1 and 2 threads"
    );
    // Recordings are large: kept only while needed (and when a check fails), to spare the disk.
    std::fs::remove_file(&two).unwrap();
    let counts = channel_counts(&one);
    assert!(
        counts
            .iter()
            .any(|(t, n)| t == "/r1/vlp16_points" && *n == 20),
        "{counts:?}"
    );
    python_script(
        "readers.py",
        &[one.as_os_str(), "2".as_ref(), dump.as_os_str()],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every message of `path` as read by Python's `mcap`, `mcap-ros2-support` and `rosbags`, which
/// must agree with each other and with the summary (`read_all.py`).
fn python_message_count(path: &Path) -> u64 {
    read_all(&[path.as_os_str()])
}

/// `read_all.py` with `args`: the count it prints, once it succeeded.
fn read_all(args: &[&std::ffi::OsStr]) -> u64 {
    python_script("read_all.py", args).trim().parse().unwrap()
}

/// Starts a long run paced at real time into `out`, sends `signal` after 2 s and returns the
/// exit status.
fn run_then_signal(out: &Path, signal: &str) -> std::process::ExitStatus {
    let mut child = passerby()
        .args([
            "run",
            "examples/sensor_rig.world.xml",
            "--duration",
            "600",
            "--realtime-factor",
            "1",
        ])
        .arg("--out")
        .arg(out)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    child.wait().unwrap()
}

#[test]
fn a_run_stopped_by_sigint_sigterm_or_sighup_leaves_a_readable_recording() {
    let dir = tempfile::tempdir().unwrap();
    // SIGTERM (timeout, docker stop, Kubernetes) and SIGHUP lost the recording before.
    for (signal, status) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let out = dir.path().join(format!("{signal}.mcap"));
        let code = run_then_signal(&out, signal).code();
        assert_eq!(code, Some(status), "SIG{signal}: 128 + its number");
        let counts = channel_counts(&out);
        let clock = counts.iter().find(|(t, _)| t == "/clock").unwrap().1;
        // Paced at real time at most (slower in a debug build): at most about 2 s recorded.
        assert!((1..=600).contains(&clock), "{clock} clock messages");
        let total: u64 = counts.iter().map(|(_, n)| n).sum();
        assert_eq!(python_message_count(&out), total, "SIG{signal}");
        std::fs::remove_file(&out).unwrap();
    }
}

#[test]
fn a_killed_run_is_recovered_with_every_message_of_its_complete_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("killed.mcap");
    let status = run_then_signal(&cut, "KILL");
    assert_eq!(status.code(), None, "killed");
    // What Python's mcap streams before the cut: the messages of the complete chunks.
    let before_cut = read_all(&["--cut".as_ref(), cut.as_os_str()]);
    assert!(before_cut > 0, "2 s of a run reach the disk");
    let out = passerby().arg("recover").arg(&cut).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = dir.path().join("killed.recovered.mcap");
    let counts = channel_counts(&fixed);
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    assert_eq!(total, before_cut);
    assert_eq!(python_message_count(&fixed), before_cut);
    // Not a recording: refused with status 1.
    let out = passerby().args(["recover", "README.md"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an MCAP file"));
}

/// A disk that fills up after 20 MB: the file size limit of `ulimit -f`, with SIGXFSZ ignored
/// so that writes past it fail (EFBIG) as they do on a full disk (ENOSPC), on any machine.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_closes_the_recording_at_its_last_complete_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("full.mcap");
    let run = Command::new("bash")
        .env("PASSERBY_OFFLINE", "1")
        .arg("-c")
        .arg(r#"trap '' XFSZ; ulimit -f 20000; exec "$@""#)
        .arg("passerby")
        .arg(env!("CARGO_BIN_EXE_passerby"))
        .args([
            "--quiet",
            "run",
            "examples/sensor_rig.world.xml",
            "--duration",
            "5",
        ])
        .arg("--out")
        .arg(&out)
        .current_dir(repo())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("File too large")
            && stderr
                .contains("the recording was closed at its last complete chunk and is readable"),
        "{stderr}"
    );
    let size = std::fs::metadata(&out).unwrap().len();
    assert!(size <= 20000 * 1024, "{size} bytes");
    // Left unreadable before (no summary, a record cut in the middle).
    let counts = channel_counts(&out);
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    assert!(total > 100, "{counts:?}");
    assert_eq!(python_message_count(&out), total);
}

#[test]
fn a_skinned_actor_is_recorded_with_its_skeleton_markers_and_labelled_points() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("walker");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("walker.mcap");
    let status = passerby()
        .args([
            "run",
            "crates/engine/tests/worlds/walker.world.xml",
            "--duration",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let check = r#"
import sys, json
from pathlib import Path
from rosbags.highlevel import AnyReader
bones = points = 0
with AnyReader([Path(sys.argv[1])]) as bag:
    for c, t, raw in bag.messages():
        m = bag.deserialize(raw, c.msgtype)
        if c.topic == "/ground_truth/actor_markers":
            lines = [k for k in m.markers if k.type == 5 and k.ns == "skeletons"]
            assert len(lines) == 1 and len(lines[0].points) == 20, [len(k.points) for k in lines]
            bones += 1
        if c.topic == "/world/lidar_points":
            points += 1
assert bones == 200 and points == 10, (bones, points)
print("ok")
"#;
    let out = Command::new(readers_python())
        .args(["-c", check])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every message's channel topic, log time and bytes, in file order.
fn messages(bytes: &[u8]) -> Vec<(String, u64, Vec<u8>)> {
    mcap::MessageStream::new(bytes)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            (m.channel.topic.clone(), m.log_time, m.data.into_owned())
        })
        .collect()
}

/// Per chunk: its compression and the topics it holds.
fn chunk_contents(bytes: &[u8]) -> Vec<(String, Vec<String>)> {
    let summary = mcap::Summary::read(bytes).unwrap().unwrap();
    summary
        .chunk_indexes
        .iter()
        .map(|chunk| {
            let index = summary.read_message_indexes(bytes, chunk).unwrap();
            let topics = index.keys().map(|c| c.topic.clone()).collect();
            (chunk.compression.clone(), topics)
        })
        .collect()
}

#[test]
fn compression_modes_hold_the_same_messages() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compression");
    std::fs::create_dir_all(&dir).unwrap();
    let paths = ["auto", "lz4", "none"].map(|m| dir.join(format!("{m}.mcap")));
    for (path, mode) in paths.iter().zip(["auto", "lz4", "none"]) {
        record_with(path, "0.5", "2", None, &["--compression", mode]);
    }
    let [auto, lz4, none] = paths.map(|p| std::fs::read(p).unwrap());
    let compressions =
        |bytes: &[u8]| -> Vec<String> { chunk_contents(bytes).into_iter().map(|c| c.0).collect() };
    let stored = compressions(&none);
    assert!(
        !stored.is_empty() && stored.iter().all(String::is_empty),
        "{stored:?}"
    );
    assert!(compressions(&lz4).iter().all(|c| c == "lz4"));
    // Auto: chunks of point clouds and depth images only are stored, others compressed.
    let mut kinds = (0, 0);
    for (compression, topics) in chunk_contents(&auto) {
        let incompressible = topics
            .iter()
            .all(|t| t.ends_with("_points") || t.ends_with("_depth/image_raw"));
        assert_eq!(
            compression.is_empty(),
            incompressible,
            "{compression:?} {topics:?}"
        );
        if incompressible {
            kinds.0 += 1;
        } else {
            kinds.1 += 1;
        }
    }
    assert!(kinds.0 > 0 && kinds.1 > 0, "{kinds:?}");
    assert!(none.len() > auto.len() && auto.len() > lz4.len());
    let expected = messages(&lz4);
    assert!(expected.len() > 100);
    assert!(
        messages(&none) == expected && messages(&auto) == expected,
        "the same messages in the same order"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_recording_can_be_written_into_a_pipe() {
    // `--out /dev/stdout` with stdout a pipe: no seeking, nor direct writes, are possible.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pipe");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("file.mcap");
    record(&file, "0.3", "2", None);
    // Not quiet: the summary must keep out of the recording.
    let piped = Command::new(env!("CARGO_BIN_EXE_passerby"))
        .env("PASSERBY_OFFLINE", "1")
        .current_dir(repo())
        .args(["run", "examples/sensor_rig.world.xml", "--duration", "0.3"])
        .args(["--threads", "2", "--out", "/dev/stdout"])
        .output()
        .unwrap();
    assert!(piped.status.success());
    let told = String::from_utf8_lossy(&piped.stderr);
    assert!(told.contains("wrote /dev/stdout"), "{told}");
    assert!(
        piped.stdout == std::fs::read(&file).unwrap(),
        "the piped recording is the file's bytes"
    );
}
