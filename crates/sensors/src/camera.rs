//! `camera`: a pinhole camera rendered by casting one ray per pixel centre through the scene of
//! the step it is due in, with per-pixel depth and labels.
//!
//! Frame: `pose_3d` is the optical frame, +Z forward, +X right, +Y down (MVSim's reading; the
//! shipped `camera.sensor.xml` turns it to look along the robot's +X). Pixel `(u, v)` looks along
//! `((u + 0.5 - cx) / fx, (v + 0.5 - cy) / fy, 1)`; with that (unnormalised) direction the ray
//! parameter of a hit is its depth along the optical axis, which `clip_min` and `clip_max` gate.
//!
//! Colour, for now: each object class has a fixed colour, shaded by Lambert's law from the sun of
//! `<lights>` (azimuth, elevation) plus ambient light; misses show a sky gradient. Materials and
//! textures of models, shadows and anti-aliasing are not rendered yet (issue 7 continues).
//! Labels: the instance id (signed 32-bit, 0 = nothing) and class id of what each pixel sees.

use crate::SceneView;
use glam::{Affine3A, Vec3A};
use passerby_sim::schedule::SensorRef;
use passerby_world::Intrinsics;

/// One rendered frame.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraFrame {
    /// The sensor.
    pub sensor: SensorRef,
    /// Simulated seconds.
    pub stamp: f64,
    /// The intrinsics it was rendered with.
    pub intrinsics: Intrinsics,
    /// Row-major RGB, 3 bytes a pixel.
    pub rgb: Vec<u8>,
    /// Depth along the optical axis, metres; 0 where nothing is within the clip range.
    pub depth: Vec<f32>,
    /// Instance id per pixel (0: nothing).
    pub instance: Vec<i32>,
    /// Class id per pixel (0: nothing).
    pub class: Vec<u16>,
}

/// The order in which to cast an image's pixels: tiles of 4 x 2 pixels (the ray caster traces
/// eight rays at a time).
fn tile_order(width: usize, height: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(width * height);
    for v0 in (0..height).step_by(2) {
        for u0 in (0..width).step_by(4) {
            for v in v0..(v0 + 2).min(height) {
                for u in u0..(u0 + 4).min(width) {
                    order.push(v * width + u);
                }
            }
        }
    }
    order
}

/// Per-class colours (class id modulo the table), linear 0..1.
const PALETTE: [[f32; 3]; 8] = [
    [0.55, 0.55, 0.55],
    [0.45, 0.42, 0.38],
    [0.75, 0.72, 0.68],
    [0.60, 0.45, 0.30],
    [0.85, 0.20, 0.15],
    [0.90, 0.70, 0.55],
    [0.30, 0.55, 0.35],
    [0.35, 0.45, 0.75],
];

/// Renders a frame from `world_from_optical`.
pub fn render(
    view: &SceneView<'_>,
    sensor: &SensorRef,
    intrinsics: &Intrinsics,
    world_from_optical: &Affine3A,
    sun: Vec3A,
    stamp: f64,
) -> CameraFrame {
    let (w, h) = (intrinsics.ncols as usize, intrinsics.nrows as usize);
    let order = tile_order(w, h);
    let dirs: Vec<Vec3A> = order
        .iter()
        .map(|&i| {
            let (u, v) = ((i % w) as f64, (i / w) as f64);
            let d = Vec3A::new(
                ((u + 0.5 - intrinsics.cx) / intrinsics.fx) as f32,
                ((v + 0.5 - intrinsics.cy) / intrinsics.fy) as f32,
                1.0,
            );
            world_from_optical.transform_vector3a(d)
        })
        .collect();
    // Directions of unit depth: hit distances are depths.
    let hits = view.cast(
        world_from_optical.translation,
        &dirs,
        intrinsics.clip_max as f32,
        None,
    );
    let n = w * h;
    let mut frame = CameraFrame {
        sensor: sensor.clone(),
        stamp,
        intrinsics: intrinsics.clone(),
        rgb: vec![0; 3 * n],
        depth: vec![0.0; n],
        instance: vec![0; n],
        class: vec![0; n],
    };
    let sun = sun.normalize_or_zero();
    for ((&i, hit), dir) in order.iter().zip(hits).zip(&dirs) {
        let colour = match hit.filter(|t| f64::from(t.t) >= intrinsics.clip_min) {
            Some(t) => {
                frame.depth[i] = t.t;
                frame.instance[i] = t.instance as i32;
                frame.class[i] = t.label;
                // Lambert from the side the camera sees, plus ambient.
                let facing = if t.normal.dot(*dir) > 0.0 {
                    -t.normal
                } else {
                    t.normal
                };
                let light = 0.35 + 0.65 * facing.dot(sun).max(0.0);
                PALETTE[t.label as usize % PALETTE.len()].map(|c| c * light)
            }
            None => {
                // Sky: lighter towards the horizon.
                let up = (dir.normalize_or_zero().z).clamp(0.0, 1.0);
                [0.75 - 0.35 * up, 0.85 - 0.30 * up, 0.95 - 0.10 * up]
            }
        };
        for (k, c) in colour.iter().enumerate() {
            frame.rgb[3 * i + k] = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    }
    frame
}
