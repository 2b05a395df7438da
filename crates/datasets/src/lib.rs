//! Recordings exported to the dataset layouts perception tools train on: SemanticKITTI
//! (`semantic_kitti.rs`: scans, point labels, poses, calibration, times) from a recording's
//! lidar clouds and transform tree; KITTI objects (`kitti.rs`: images, actors' labels with 3D
//! and 2D boxes, calibration, lidar sweeps) from a camera's frames and the ground truth.
//!
//! Owns: reading a finished recording back (`read.rs`, streamed; `cdr.rs`, `cloud.rs`, `tf.rs`,
//! `messages.rs` for the few message types the layouts need), mapping our classes onto a layout's
//! (`classes.rs`) and writing the layout. Must not touch: the simulation or the engine: an
//! export sees only what the recording holds, so it can be made again from any recording,
//! by anyone, later.

mod cdr;
pub mod classes;
mod cloud;
pub mod kitti;
mod messages;
mod read;
pub mod semantic_kitti;
mod tf;

pub use kitti::{KittiExported, KittiOptions, export_kitti};
pub use semantic_kitti::{Exported, SemanticKittiOptions, export_semantic_kitti};
pub use tf::Rigid;

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file could not be read or written.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// The recording is not a readable MCAP file.
    #[error("{0}: {1}")]
    Recording(PathBuf, String),
    /// One message could not be used.
    #[error("{path}: message {index} of {topic}: {reason}")]
    Message {
        /// The recording.
        path: PathBuf,
        /// Its topic.
        topic: String,
        /// Its index on the topic, from 0.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// The recording lacks what the export needs, or the options do not fit it.
    #[error("{0}")]
    Unusable(String),
}

/// The recording's class table (`passerby.labels` metadata, key `classes`): id to name.
pub(crate) fn recorded_classes(
    path: &std::path::Path,
    metadata: &BTreeMap<String, BTreeMap<String, String>>,
) -> Result<BTreeMap<u16, String>, ExportError> {
    let unusable = |what: &str| {
        ExportError::Unusable(format!(
            "{}: {what} (recordings of `passerby run` carry it)",
            path.display()
        ))
    };
    let table = (metadata.get("passerby.labels"))
        .and_then(|m| m.get("classes"))
        .ok_or_else(|| unusable("no `passerby.labels` metadata with a class table"))?;
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(table).map_err(|_| unusable("the class table is not JSON"))?;
    let mut classes = BTreeMap::new();
    for row in rows {
        let id = (row.get("id").and_then(serde_json::Value::as_u64))
            .and_then(|id| u16::try_from(id).ok());
        let name = row.get("name").and_then(serde_json::Value::as_str);
        match (id, name) {
            (Some(id), Some(name)) => {
                classes.insert(id, name.to_owned());
            }
            _ => return Err(unusable("a class without id or name")),
        }
    }
    Ok(classes)
}

/// The topic of the sensor `named` (`vehicle/sensor`) among `sensors` (name, topic), or the
/// only one; errors list them (`flag` is the option that names one).
pub(crate) fn choose_sensor(
    recording: &std::path::Path,
    what: &str,
    flag: &str,
    sensors: &[(String, String)],
    named: Option<&str>,
) -> Result<String, ExportError> {
    let listed = || {
        let names: Vec<&str> = sensors.iter().map(|(n, _)| n.as_str()).collect();
        if names.is_empty() {
            "it has none".to_owned()
        } else {
            format!("it has {}", names.join(", "))
        }
    };
    let found = match named {
        Some(name) => {
            let name = name.trim_start_matches('/');
            let topic = sensors
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone());
            topic.ok_or_else(|| format!("no {what} `{name}` ({})", listed()))
        }
        None if sensors.len() == 1 => Ok(sensors[0].1.clone()),
        None => Err(format!("name the {what} with {flag} ({})", listed())),
    };
    found.map_err(|e| ExportError::Unusable(format!("{}: {e}", recording.display())))
}
