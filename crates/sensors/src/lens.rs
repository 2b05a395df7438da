//! A camera's lens: its projection (intrinsics, Brown-Conrady distortion), the ray direction
//! through each pixel and the order pixels are cast in (tiles of one ray packet), and what one
//! pass over an image sees. Shared by the camera, the rasteriser and the actors' 2D boxes,
//! which depend on it and not on each other.

use glam::{Affine3A, Vec3A};
use passerby_world::Intrinsics;

/// `body_from_optical`: the optical frame (+Z forward, +X right, +Y down) in the body frame
/// of REP 103 (+X forward, +Y left, +Z up); MVSim's `yaw -90°, roll -90°`.
pub fn body_from_optical() -> Affine3A {
    Affine3A::from_quat(
        glam::Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2)
            * glam::Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
    )
}

/// Intrinsics that cannot make an image.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("camera intrinsics: {0}")]
pub struct LensError(String);

/// A camera's projection: intrinsics, distortion, and its pixels' ray directions.
#[derive(Clone, Debug)]
pub struct Lens {
    intrinsics: Intrinsics,
    /// Pixel indices in casting order (tiles of [`TILE_COLUMNS`] x [`TILE_ROWS`] pixels: a packet
    /// of the ray caster).
    pub(crate) order: Vec<usize>,
    /// The optical-frame direction (unit depth) through each pixel centre, in `order`.
    pub(crate) centres: Vec<Vec3A>,
    /// Row-major pixel indices (the rasteriser's order), for the camera's passes to share code
    /// with the casting order.
    pub(crate) row_major: Vec<usize>,
    /// Without distortion, the direction through pixel `(col, row)` is
    /// `(column_x[col], row_y[row], 1)`: computed, not read from an image-sized table.
    pub(crate) column_x: Vec<f32>,
    pub(crate) row_y: Vec<f32>,
}

impl Lens {
    /// The lens of `intrinsics`, or why they make no image.
    pub fn new(intrinsics: &Intrinsics) -> Result<Lens, LensError> {
        let i = intrinsics;
        if i.ncols == 0 || i.nrows == 0 {
            return Err(LensError(format!("image size {}x{}", i.ncols, i.nrows)));
        }
        if !(i.fx > 0.0 && i.fy > 0.0 && i.fx.is_finite() && i.fy.is_finite()) {
            return Err(LensError(format!(
                "focal lengths fx {} fy {} (must be positive)",
                i.fx, i.fy
            )));
        }
        if !(i.cx.is_finite() && i.cy.is_finite() && i.distortion.iter().all(|d| d.is_finite())) {
            return Err(LensError(
                "principal point or distortion is not finite".into(),
            ));
        }
        if !(i.clip_min >= 0.0 && i.clip_min < i.clip_max) {
            return Err(LensError(format!(
                "clip range {}..{} (must be 0 <= min < max)",
                i.clip_min, i.clip_max
            )));
        }
        let (w, h) = (i.ncols as usize, i.nrows as usize);
        let mut lens = Lens {
            intrinsics: i.clone(),
            order: tile_order(w, h),
            centres: Vec::new(),
            row_major: (0..w * h).collect(),
            column_x: Vec::new(),
            row_y: Vec::new(),
        };
        if !lens.has_distortion() {
            // As `direction` computes them.
            lens.column_x = (0..w).map(|u| lens.direction(u as f64, 0.0).x).collect();
            lens.row_y = (0..h).map(|v| lens.direction(0.0, v as f64).y).collect();
        }
        lens.centres = lens
            .order
            .iter()
            .map(|&p| lens.direction((p % w) as f64, (p / w) as f64))
            .collect();
        Ok(lens)
    }

    /// The intrinsics.
    pub fn intrinsics(&self) -> &Intrinsics {
        &self.intrinsics
    }

    /// Width and height, pixels.
    pub fn size(&self) -> (usize, usize) {
        (
            self.intrinsics.ncols as usize,
            self.intrinsics.nrows as usize,
        )
    }

    /// Whether the lens distorts (then cameras cast rays).
    pub fn has_distortion(&self) -> bool {
        self.intrinsics.distortion.iter().any(|&d| d != 0.0)
    }

    /// Distorted normalised coordinates of the undistorted `(x, y)` (OpenCV's model).
    fn distort(&self, x: f64, y: f64) -> (f64, f64) {
        let [k1, k2, p1, p2, k3] = self.intrinsics.distortion;
        let r2 = x * x + y * y;
        let radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
        (
            x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x),
            y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y,
        )
    }

    /// The optical-frame direction, of unit depth, that images at pixel coordinates `(u, v)`;
    /// NaN where the distortion model maps no direction there (beyond the radius where a
    /// strong barrel distortion folds back).
    pub fn direction(&self, u: f64, v: f64) -> Vec3A {
        let i = &self.intrinsics;
        let (xd, yd) = ((u - i.cx) / i.fx, (v - i.cy) / i.fy);
        let (mut x, mut y) = (xd, yd);
        if self.has_distortion() {
            // Fixed-point inversion of `distort` (as OpenCV's undistortPoints), to a millionth
            // of a pixel.
            let mut converged = false;
            for _ in 0..100 {
                let (dx, dy) = self.distort(x, y);
                let (ex, ey) = (dx - xd, dy - yd);
                if !(ex.is_finite() && ey.is_finite()) {
                    break;
                }
                if ex.abs().max(ey.abs()) * i.fx.max(i.fy) < 1e-6 {
                    converged = true;
                    break;
                }
                x -= ex;
                y -= ey;
            }
            if !converged {
                return Vec3A::NAN;
            }
        }
        Vec3A::new(x as f32, y as f32, 1.0)
    }

    /// Pixel coordinates of an optical-frame point, `None` behind the camera (it may fall
    /// outside the image).
    pub fn project(&self, p: Vec3A) -> Option<[f64; 2]> {
        if p.z <= 0.0 {
            return None;
        }
        let (x, y) = (f64::from(p.x / p.z), f64::from(p.y / p.z));
        let (xd, yd) = if self.has_distortion() {
            self.distort(x, y)
        } else {
            (x, y)
        };
        let i = &self.intrinsics;
        Some([i.fx * xd + i.cx, i.fy * yd + i.cy])
    }

    /// The pixel index whose area holds pixel coordinates `uv`, if inside the image.
    pub fn pixel_at(&self, [u, v]: [f64; 2]) -> Option<usize> {
        let (w, h) = self.size();
        let (col, row) = ((u + 0.5).floor(), (v + 0.5).floor());
        (col >= 0.0 && row >= 0.0 && col < w as f64 && row < h as f64)
            .then(|| row as usize * w + col as usize)
    }
}

/// Columns of a tile of the casting order.
const TILE_COLUMNS: usize = 8;

/// Rows of a tile of the casting order: a tile is one packet of the ray caster.
pub(crate) const TILE_ROWS: usize = passerby_raycast::PACKET / TILE_COLUMNS;

/// The order in which to cast an image's pixels: tiles of [`TILE_COLUMNS`] x [`TILE_ROWS`]
/// pixels, a row of tiles after another.
fn tile_order(width: usize, height: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(width * height);
    for v0 in (0..height).step_by(TILE_ROWS) {
        for u0 in (0..width).step_by(TILE_COLUMNS) {
            for v in v0..(v0 + TILE_ROWS).min(height) {
                for u in u0..(u0 + TILE_COLUMNS).min(width) {
                    order.push(v * width + u);
                }
            }
        }
    }
    order
}

/// What one pass over an image saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pixels {
    /// Depth along the optical axis, metres; 0 where nothing is within the clip range.
    pub depth: Vec<f32>,
    /// Instance id per pixel (0: nothing).
    pub instance: Vec<i32>,
    /// Class id per pixel (0: nothing).
    pub class: Vec<u16>,
    /// Row-major sRGB, 3 bytes a pixel (empty when not shaded).
    pub rgb: Vec<u8>,
}
