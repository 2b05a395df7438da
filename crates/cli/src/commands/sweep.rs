//! `passerby sweep SPEC.toml --out DIR [--jobs N] [--shard I/N | --shard N] [--list]`: every
//! scenario of a spec (worlds x seeds x variables, `passerby-sweep`) run by a pool of child
//! processes of this binary, one scenario each (`--run-one`, hidden), each failure retried once,
//! every attempt a line of the manifest; scenarios whose outputs are already there with their
//! hashes are skipped. `--shard` runs every N-th scenario, for Kubernetes Indexed Jobs
//! (`JOB_COMPLETION_INDEX`) and Slurm arrays (`SLURM_ARRAY_TASK_ID`).

use crate::GlobalArgs;
use clap::Args;
use passerby_sweep::{Record, Scenario, Spec, already_done, append, manifest_path, run_attempt};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;

/// Arguments of `sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The sweep's spec (docs/sweeps.md).
    #[arg(value_name = "SPEC.toml")]
    pub spec: PathBuf,
    /// The sweep's folder: a folder per scenario and the manifest.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Scenarios run at once [default: cores / the spec's threads].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run shard I of N (`I/N`), or shard N with I from JOB_COMPLETION_INDEX or
    /// SLURM_ARRAY_TASK_ID.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// List the scenarios (of the shard) and run nothing.
    #[arg(long)]
    pub list: bool,
    /// Where attempts run: `local` child processes, or `ray` tasks through the Python package
    /// (`pip install ./python[ray]`; the Python is PASSERBY_PYTHON, else python3).
    #[arg(long, value_enum, default_value = "local")]
    pub engine: Engine,
    /// The Ray cluster for `--engine ray` [default: RAY_ADDRESS, else a local cluster on
    /// 127.0.0.1].
    #[arg(long, value_name = "ADDRESS")]
    pub ray_address: Option<String>,
    /// Run one attempt at scenario INDEX here and print its record (the pool's children).
    #[arg(long, hide = true, value_name = "INDEX")]
    pub run_one: Option<usize>,
    /// The attempt `--run-one` makes.
    #[arg(long, hide = true, default_value_t = 1)]
    pub attempt: u32,
}

/// `--engine`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Child processes of this binary.
    Local,
    /// Ray tasks, through the Python package's `passerby.sweep`.
    Ray,
}

/// Runs the sweep through `passerby.sweep(..., engine="ray")` in Python.
const RAY_DRIVER: &str = r#"
import sys
try:
    import passerby
except ImportError as e:
    sys.exit(f"error: --engine ray runs the Python package (pip install ./python[ray]): {e}")
spec, out, index, count, address = sys.argv[1:6]
shard = (int(index), int(count)) if count != "0" else None
records = passerby.sweep(spec, out, engine="ray", shard=shard, ray_address=address or None)
failed = {r["scenario"] for r in records if r["status"] == "failed" and r["attempt"] >= 2}
done = {r["scenario"] for r in records}
print(f"{len(done)} scenarios on Ray: {len(done) - len(failed)} done, {len(failed)} failed")
sys.exit(1 if failed else 0)
"#;

fn run_on_ray(args: &SweepArgs, shard: Option<(usize, usize)>) -> anyhow::Result<ExitCode> {
    let python = std::env::var_os("PASSERBY_PYTHON").unwrap_or_else(|| "python3".into());
    let (index, count) = shard.unwrap_or((0, 0));
    let status = Command::new(&python)
        .args(["-c", RAY_DRIVER])
        .arg(&args.spec)
        .arg(&args.out)
        .args([index.to_string(), count.to_string()])
        .arg(args.ray_address.clone().unwrap_or_default())
        .status()
        .map_err(|e| {
            anyhow::anyhow!("--engine ray: cannot run {}: {e}", python.to_string_lossy())
        })?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(1) => ExitCode::from(1),
        _ => ExitCode::from(2),
    })
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &SweepArgs) -> anyhow::Result<ExitCode> {
    let mut spec = Spec::read(&args.spec).map_err(|e| anyhow::anyhow!(e))?;
    if global.offline {
        spec.settings.offline = true;
    }
    if spec.settings.asset_cache.is_none() {
        spec.settings.asset_cache.clone_from(&global.asset_cache);
    }
    if let Some(index) = args.run_one {
        let scenario =
            (spec.scenarios.get(index)).ok_or_else(|| anyhow::anyhow!("no scenario {index}"))?;
        let record = run_attempt(&spec.settings, scenario, &args.out, args.attempt, "local");
        println!("{}", record.line());
        return Ok(ExitCode::SUCCESS);
    }
    let shard = parse_shard(args.shard.as_deref())?;
    let scenarios: Vec<&Scenario> = match shard {
        Some((i, n)) => spec.shard(i, n),
        None => spec.scenarios.iter().collect(),
    };
    if args.list {
        for s in &scenarios {
            let vars: Vec<String> = (s.variables.iter())
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            println!(
                "{}\t{}\tseed {}\t{}",
                s.id,
                s.world.display(),
                s.seed,
                vars.join(" ")
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.engine == Engine::Ray {
        return run_on_ray(args, shard);
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.out.display()))?;
    let manifest = manifest_path(&args.out, shard);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args
        .jobs
        .unwrap_or((cores / spec.settings.threads).max(1))
        .clamp(1, scenarios.len().max(1));
    let pool = Pool {
        global,
        args,
        spec: &spec,
        manifest: &manifest,
        queue: Mutex::new(scenarios.iter().copied().collect()),
        report: Mutex::new(Tally::default()),
        total: scenarios.len(),
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| pool.work());
        }
    });
    let tally = pool.report.into_inner().unwrap_or_default();
    if let Some(e) = tally.manifest_error {
        anyhow::bail!("cannot write the manifest: {e}");
    }
    if !global.quiet {
        println!(
            "{} scenarios: {} run, {} skipped (unchanged), {} failed; manifest {}",
            scenarios.len(),
            tally.ok,
            tally.skipped,
            tally.failed,
            manifest.display()
        );
    }
    Ok(if tally.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--shard`: `I/N`, or `N` with I from the job array's environment.
fn parse_shard(text: Option<&str>) -> anyhow::Result<Option<(usize, usize)>> {
    let Some(text) = text else { return Ok(None) };
    let number = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| anyhow::anyhow!("--shard `{text}`: expected I/N or N"))
    };
    let (index, count) = match text.split_once('/') {
        Some((i, n)) => (number(i)?, number(n)?),
        None => {
            let count = number(text)?;
            let from_env = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"]
                .iter()
                .find_map(|v| std::env::var(v).ok().map(|value| (*v, value)));
            let Some((var, value)) = from_env else {
                anyhow::bail!(
                    "--shard {count}: neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set (or give I/N)"
                );
            };
            let index = value
                .trim()
                .parse::<usize>()
                .map_err(|_| anyhow::anyhow!("{var}=`{value}` is not a shard index"))?;
            (index, count)
        }
    };
    if count == 0 || index >= count {
        anyhow::bail!("--shard {index}/{count}: the index must be below the count");
    }
    Ok(Some((index, count)))
}

#[derive(Default)]
struct Tally {
    ok: usize,
    skipped: usize,
    failed: usize,
    done: usize,
    manifest_error: Option<String>,
}

/// The local engine: worker threads, each running its scenarios' attempts as child processes.
struct Pool<'a> {
    global: &'a GlobalArgs,
    args: &'a SweepArgs,
    spec: &'a Spec,
    manifest: &'a Path,
    queue: Mutex<VecDeque<&'a Scenario>>,
    report: Mutex<Tally>,
    total: usize,
}

impl Pool<'_> {
    fn work(&self) {
        loop {
            let next = self.queue.lock().ok().and_then(|mut q| q.pop_front());
            let Some(scenario) = next else { return };
            let settings = &self.spec.settings;
            let wanted = Record::new(scenario, settings.duration, settings.noise_scale, "local");
            if let Some(record) = already_done(&self.args.out, &wanted) {
                self.log(&record);
                continue;
            }
            for attempt in 1..=2 {
                let record = self.attempt(scenario, attempt);
                let ok = record.status == "ok";
                self.log(&record);
                if ok {
                    break;
                }
            }
        }
    }

    /// One attempt in a child process; its record, or a failed one saying how the child ended.
    fn attempt(&self, scenario: &Scenario, attempt: u32) -> Record {
        let mut command =
            Command::new(std::env::current_exe().unwrap_or_else(|_| "passerby".into()));
        command.arg("--quiet");
        if self.global.offline || self.spec.settings.offline {
            command.arg("--offline");
        }
        if let Some(cache) = &self.spec.settings.asset_cache {
            command.arg("--asset-cache").arg(cache);
        }
        command
            .arg("sweep")
            .arg(&self.args.spec)
            .arg("--out")
            .arg(&self.args.out)
            .arg("--run-one")
            .arg(scenario.index.to_string())
            .arg("--attempt")
            .arg(attempt.to_string())
            .stdin(Stdio::null());
        let settings = &self.spec.settings;
        let mut failed = Record::new(scenario, settings.duration, settings.noise_scale, "local");
        failed.attempt = attempt;
        match command.output() {
            Ok(out) => {
                let stdout = String::from_utf8_lossy(&out.stdout);
                if let Some(record) =
                    (stdout.lines().rev()).find_map(|l| serde_json::from_str::<Record>(l).ok())
                {
                    return record;
                }
                let stderr = String::from_utf8_lossy(&out.stderr);
                let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                failed.error = Some(format!(
                    "the run ended with {}: {}",
                    out.status,
                    tail.join("\n")
                ));
            }
            Err(e) => failed.error = Some(format!("cannot start a run: {e}")),
        }
        failed
    }

    fn log(&self, record: &Record) {
        let Ok(mut tally) = self.report.lock() else {
            return;
        };
        if let Err(e) = append(self.manifest, record) {
            tally.manifest_error.get_or_insert(e);
        }
        match record.status.as_str() {
            "ok" => tally.ok += 1,
            "skipped" => tally.skipped += 1,
            _ if record.attempt >= 2 => tally.failed += 1,
            _ => {}
        }
        if record.status != "failed" || record.attempt >= 2 {
            tally.done += 1;
        }
        if !self.global.quiet {
            let what = match (record.status.as_str(), &record.error) {
                ("failed", Some(e)) => format!(
                    "FAILED (attempt {}): {}",
                    record.attempt,
                    e.lines().next().unwrap_or("")
                ),
                (status, _) => format!(
                    "{status} in {:.1} s ({:.2}x real time)",
                    record.wall_s, record.real_time_factor
                ),
            };
            eprintln!("[{}/{}] {} {what}", tally.done, self.total, record.scenario);
        }
    }
}
