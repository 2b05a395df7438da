//! The primitives `passerby.sweep` schedules (locally on threads, or as Ray tasks): which
//! scenarios of a spec are still to run, one attempt at one scenario (the GIL released), and
//! appending a record to the sweep's manifest. Everything they mean is `passerby-sweep`'s, so
//! every engine writes the same outputs and the same manifest as `passerby sweep`.

use passerby_sweep::{Record, Spec, already_done, append, manifest_path, run_attempt};
use pyo3::exceptions::{PyIOError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;

fn read_spec(spec: &std::path::Path) -> PyResult<Spec> {
    Spec::read(spec).map_err(PyValueError::new_err)
}

/// `(records of scenarios already done, as JSON lines with status "skipped"; indices of the
/// others)` for shard `(index, count)` (or all) of `spec` in `out` (created).
#[pyfunction]
#[pyo3(signature = (spec, out, shard=None, engine="local"))]
fn _sweep_pending(
    py: Python<'_>,
    spec: PathBuf,
    out: PathBuf,
    shard: Option<(usize, usize)>,
    engine: &str,
) -> PyResult<(Vec<String>, Vec<usize>)> {
    let spec = read_spec(&spec)?;
    if let Some((i, n)) = shard
        && (n == 0 || i >= n)
    {
        return Err(PyValueError::new_err(format!(
            "shard {i}/{n}: the index must be below the count"
        )));
    }
    std::fs::create_dir_all(&out)
        .map_err(|e| PyIOError::new_err(format!("{}: {e}", out.display())))?;
    let engine = engine.to_owned();
    Ok(py.detach(|| {
        let scenarios = match shard {
            Some((i, n)) => spec.shard(i, n),
            None => spec.scenarios.iter().collect(),
        };
        let (mut skipped, mut pending) = (Vec::new(), Vec::new());
        for scenario in scenarios {
            let settings = &spec.settings;
            let wanted = Record::new(scenario, settings.duration, settings.noise_scale, &engine);
            match already_done(&out, &wanted) {
                Some(record) => skipped.push(record.line()),
                None => pending.push(scenario.index),
            }
        }
        (skipped, pending)
    }))
}

/// Attempt `attempt` at scenario `index` of `spec` into `out`, with the GIL released: its
/// record as a JSON line (a failure is a record with its error, not an exception).
#[pyfunction]
#[pyo3(signature = (spec, out, index, attempt=1, engine="local"))]
fn _sweep_attempt(
    py: Python<'_>,
    spec: PathBuf,
    out: PathBuf,
    index: usize,
    attempt: u32,
    engine: &str,
) -> PyResult<String> {
    let spec = read_spec(&spec)?;
    let scenario = (spec.scenarios.get(index))
        .ok_or_else(|| PyValueError::new_err(format!("the spec has no scenario {index}")))?;
    Ok(py.detach(|| run_attempt(&spec.settings, scenario, &out, attempt, engine).line()))
}

/// Appends the record `line` to the manifest of `out` (the shard's, with `shard`).
#[pyfunction]
#[pyo3(signature = (out, line, shard=None))]
fn _sweep_append(out: PathBuf, line: &str, shard: Option<(usize, usize)>) -> PyResult<()> {
    let record: Record = serde_json::from_str(line)
        .map_err(|e| PyValueError::new_err(format!("not a sweep record: {e}")))?;
    append(&manifest_path(&out, shard), &record).map_err(PyIOError::new_err)
}

/// Adds the primitives to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_sweep_pending, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_attempt, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_append, m)?)?;
    Ok(())
}
