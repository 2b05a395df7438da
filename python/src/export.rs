//! `passerby export` from Python: a recording into SemanticKITTI or KITTI, with the GIL
//! released (`passerby-datasets` does the work).

use passerby_datasets::{
    ExportError, KittiOptions, SemanticKittiOptions, export_kitti, export_semantic_kitti,
};
use pyo3::exceptions::{PyIOError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn python_error(e: ExportError) -> PyErr {
    match e {
        ExportError::Io(..) => PyIOError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A recording's lidar as SemanticKITTI (see the stubs).
#[pyfunction]
#[pyo3(name = "export_semantic_kitti", signature = (recording, out, *, sensor=None, sequence="00".to_owned(), class_map=None))]
fn export_semantic_kitti_py<'py>(
    py: Python<'py>,
    recording: PathBuf,
    out: PathBuf,
    sensor: Option<String>,
    sequence: String,
    class_map: Option<BTreeMap<String, u16>>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = SemanticKittiOptions {
        sensor,
        sequence: Some(sequence),
        class_overrides: class_map.unwrap_or_default(),
    };
    let done = py
        .detach(|| export_semantic_kitti(&recording, &out, &options))
        .map_err(python_error)?;
    let d = PyDict::new(py);
    d.set_item("dir", done.dir)?;
    d.set_item("topic", done.topic)?;
    d.set_item("scans", done.scans)?;
    d.set_item("points", done.points)?;
    Ok(d)
}

/// A recording's camera as KITTI objects (see the stubs).
#[pyfunction]
#[pyo3(name = "export_kitti", signature = (recording, out, *, camera=None, lidar=None, first_index=0))]
fn export_kitti_py<'py>(
    py: Python<'py>,
    recording: PathBuf,
    out: PathBuf,
    camera: Option<String>,
    lidar: Option<String>,
    first_index: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let options = KittiOptions {
        camera,
        lidar,
        first_index,
    };
    let done = py
        .detach(|| export_kitti(&recording, &out, &options))
        .map_err(python_error)?;
    let d = PyDict::new(py);
    d.set_item("dir", done.dir)?;
    d.set_item("topic", done.topic)?;
    d.set_item("frames", done.frames)?;
    d.set_item("objects", done.objects)?;
    Ok(d)
}

/// Adds the exports to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(export_semantic_kitti_py, m)?)?;
    m.add_function(wrap_pyfunction!(export_kitti_py, m)?)?;
    Ok(())
}
