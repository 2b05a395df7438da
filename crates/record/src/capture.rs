//! One camera capture as files a person can look at (`passerby render`): `colour.png` (sRGB),
//! `depth.png` (16-bit grey: millimetres along the optical axis for a camera, the sensor's own
//! `depth_resolution` units for an RGB-D camera; 0 = nothing), `labels_instance.png` and
//! `labels_class.png` (one colour per id), `boxes.json` (each actor's 2D box with its visible
//! fraction) and `labels.json` (the ids).

use crate::images;
use passerby_sensors::Observation;
use passerby_sensors::camera::CameraFrame;
use std::path::Path;

/// Writes `observation` (a camera or RGB-D frame) into `dir`, with the label tables
/// `labels_json`.
pub fn write_capture(
    dir: &Path,
    observation: &Observation,
    labels_json: &str,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write(dir, "labels.json", labels_json.as_bytes().to_vec())?;
    let (colour, depth) = match observation {
        Observation::Camera(c) => {
            let mm: Vec<u16> = (c.depth.iter())
                .map(|&d| (f64::from(d) * 1000.0).round().min(65535.0) as u16)
                .collect();
            (Some(c), Some((c.intrinsics.ncols, c.intrinsics.nrows, mm)))
        }
        Observation::Rgbd(f) => (
            f.colour.as_ref(),
            (f.depth.as_ref()).map(|d| (d.intrinsics.ncols, d.intrinsics.nrows, d.data.clone())),
        ),
        _ => (None, None),
    };
    if let Some(c) = colour {
        write_colour(dir, c)?;
    }
    if let Some((w, h, data)) = depth {
        write(dir, "depth.png", png(images::gray16_png(w, h, &data))?)?;
    }
    Ok(())
}

fn png(encoded: Result<Vec<u8>, images::PngError>) -> Result<Vec<u8>, String> {
    encoded.map_err(|e| format!("cannot encode PNG: {e}"))
}

fn write(dir: &Path, name: &str, bytes: Vec<u8>) -> Result<(), String> {
    let path = dir.join(name);
    std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The colour image, its label images and its boxes.
fn write_colour(dir: &Path, c: &CameraFrame) -> Result<(), String> {
    let (w, h) = (c.intrinsics.ncols, c.intrinsics.nrows);
    write(dir, "colour.png", png(images::rgb_png(w, h, &c.rgb))?)?;
    let ids = c.instance.iter().map(|&i| i.max(0) as u32);
    write(
        dir,
        "labels_instance.png",
        png(images::labels_png(w, h, ids))?,
    )?;
    let classes = c.class.iter().map(|&i| u32::from(i));
    write(
        dir,
        "labels_class.png",
        png(images::labels_png(w, h, classes))?,
    )?;
    let boxes: Vec<serde_json::Value> = (c.boxes.iter())
        .map(|b| {
            serde_json::json!({
                "instance": b.instance,
                "name": b.name,
                "min": b.min,
                "max": b.max,
                "visible_pixels": b.visible_pixels,
                "unoccluded_pixels": b.unoccluded_pixels,
                "visible_fraction": b.visible_fraction(),
            })
        })
        .collect();
    let json = serde_json::json!({ "stamp": c.stamp, "boxes": boxes });
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    write(dir, "boxes.json", text.into_bytes())
}
