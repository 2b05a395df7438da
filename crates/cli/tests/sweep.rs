//! `passerby sweep`: scenarios run by the local process pool, byte-identical to `passerby run`
//! with the same options; shards covering every scenario once; resuming; failures retried and
//! reported with their positions.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::{passerby, repo, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A spec of 4 scenarios of sensor_rig (2 seeds x 2 yard sizes), 0.5 s each, with a
/// SemanticKITTI export.
fn spec(dir: &Path, worlds: &[&Path]) -> PathBuf {
    let worlds: Vec<String> = (worlds.iter())
        .map(|w| format!("{:?}", w.display().to_string()))
        .collect();
    let path = dir.join("spec.toml");
    std::fs::write(
        &path,
        format!(
            "worlds = [{}]\nseeds = [1, 2]\nduration = 0.5\nexports = [\"semantickitti\"]\n\
             [variables]\nYARD = [8, 12]\n",
            worlds.join(", ")
        ),
    )
    .unwrap();
    path
}

fn sweep(spec: &Path, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = passerby();
    c.arg("sweep").arg(spec).arg("--out").arg(out).args(extra);
    c.env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// The manifest lines of every manifest in `out`, as JSON.
fn records(out: &Path) -> Vec<serde_json::Value> {
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(out).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("manifest") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            lines.extend(text.lines().map(|l| serde_json::from_str(l).unwrap()));
        }
    }
    lines
}

/// Scenario id to its outputs' hashes, of the successful records.
fn hashes(records: &[serde_json::Value]) -> BTreeMap<String, Vec<String>> {
    (records.iter())
        .filter(|r| r["status"] != "failed")
        .map(|r| {
            let hashes = (r["outputs"].as_array().unwrap().iter())
                .map(|o| o["sha256"].as_str().unwrap().to_owned())
                .collect();
            (r["scenario"].as_str().unwrap().to_owned(), hashes)
        })
        .collect()
}

#[test]
fn a_local_sweep_matches_run_covers_shards_resumes_and_retries_failures() {
    let dir = scratch("sweep");
    let world = repo().join("examples/sensor_rig.world.xml");
    let spec = spec(&dir, &[&world]);
    let out = dir.join("local");
    let done = sweep(&spec, &out, &["--jobs", "2"], &[]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let local = records(&out);
    assert_eq!(local.len(), 4);
    assert!(
        local
            .iter()
            .all(|r| r["status"] == "ok" && r["attempt"] == 1)
    );
    assert!(
        local
            .iter()
            .all(|r| r["real_time_factor"].as_f64().unwrap() > 0.0)
    );
    let local_hashes = hashes(&local);

    // The same bytes as `passerby run` with the scenario's options.
    let direct = dir.join("direct.mcap");
    let ran = passerby()
        .args(["--seed", "2", "--var", "YARD=12", "run"])
        .arg(&world)
        .args(["--duration", "0.5", "--out"])
        .arg(&direct)
        .status()
        .unwrap();
    assert!(ran.success());
    assert!(
        std::fs::read(&direct).unwrap()
            == std::fs::read(out.join("0003_sensor_rig_s2_YARD-12/run.mcap")).unwrap()
    );

    // Shards, by I/N and from each job array's variable, cover every scenario once with the
    // same outputs.
    let sharded = dir.join("sharded");
    for (i, how) in ["0/3", "3", "3"].iter().enumerate() {
        let env: &[(&str, &str)] = match i {
            1 => &[("JOB_COMPLETION_INDEX", "1")],
            2 => &[("SLURM_ARRAY_TASK_ID", "2")],
            _ => &[],
        };
        let done = sweep(&spec, &sharded, &["--shard", how], env);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert!(
            sharded
                .join(format!("manifest-shard-{i}-of-3.jsonl"))
                .exists()
        );
    }
    let shard_records = records(&sharded);
    assert_eq!(shard_records.len(), 4, "each scenario once");
    assert_eq!(hashes(&shard_records), local_hashes);
    let refused = sweep(&spec, &sharded, &["--shard", "3"], &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("JOB_COMPLETION_INDEX"));

    // A re-run skips what is there; a deleted output is made again.
    std::fs::remove_file(
        out.join("0001_sensor_rig_s1_YARD-12/semantickitti/sequences/00/poses.txt"),
    )
    .unwrap();
    let again = sweep(&spec, &out, &[], &[]);
    assert!(again.status.success());
    let latest: Vec<serde_json::Value> = records(&out).split_off(4);
    let statuses: BTreeMap<String, String> = (latest.iter())
        .map(|r| {
            (
                r["scenario"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses.values().filter(|s| *s == "skipped").count(),
        3,
        "{statuses:?}"
    );
    assert_eq!(statuses["0001_sensor_rig_s1_YARD-12"], "ok");
    assert_eq!(hashes(&latest), local_hashes);

    // A world with an error fails twice, with its position in the manifest.
    let bad = dir.join("bad.world.xml");
    std::fs::write(
        &bad,
        "<mvsim_world version=\"1.0\">\n  <vehicle name=\"r1\" class=\"nope\"/>\n</mvsim_world>\n",
    )
    .unwrap();
    let bad_spec = dir.join("bad.toml");
    std::fs::write(
        &bad_spec,
        format!(
            "worlds = [{:?}]\nduration = 0.1\n",
            bad.display().to_string()
        ),
    )
    .unwrap();
    let failed = sweep(&bad_spec, &dir.join("bad"), &[], &[]);
    assert_eq!(failed.status.code(), Some(1));
    let bad_records = records(&dir.join("bad"));
    assert_eq!(bad_records.len(), 2);
    assert_eq!(bad_records[1]["attempt"], 2);
    let error = bad_records[1]["error"].as_str().unwrap();
    assert!(error.contains("bad.world.xml:2:"), "{error}");

    // A typo in the spec names its line.
    std::fs::write(&bad_spec, "worlds = [\"a\"]\nduration = 1\ndurration = 2\n").unwrap();
    let refused = sweep(&bad_spec, &dir.join("typo"), &[], &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("bad.toml:3:1"));
    std::fs::remove_dir_all(&dir).unwrap();
}
