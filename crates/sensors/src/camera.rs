//! `camera`: a pinhole camera (optionally with Brown-Conrady lens distortion), with per-pixel
//! depth, labels and 2D boxes of actors. What each pixel centre sees first is found by
//! rasterising the scene ([`crate::raster`], the default) or, for a distorted lens, by casting
//! a ray through it ([`Visibility`]); colour samples, shadows and anti-aliasing are rays.
//!
//! Frames: `pose_3d` is the optical frame, +Z forward, +X right, +Y down (MVSim's reading; the
//! shipped `camera.sensor.xml` turns it to look along the robot's +X). Pixel `(u, v)` is centred
//! on integer coordinates (OpenCV's and ROS `CameraInfo`'s convention): with no distortion it
//! looks along `((u - cx) / fx, (v - cy) / fy, 1)`. Directions have unit depth, so a hit's ray
//! parameter is its depth along the optical axis, and the clip range is exact near and far
//! planes: what lies nearer than `clip_min` is not seen (what is behind it is), as in OpenGL.
//!
//! Colour: each surface's material (base colour times its bilinearly filtered texture, see
//! `passerby_scene::appearance`), lit by Lambert's law from the sun of `<lights>` (azimuth,
//! elevation, colour; on smooth surfaces, MAVS's `Smooth Normals`, with the vertex normals
//! interpolated) plus `light_ambient`, with the sun's shadows cast by any-hit rays when
//! `enable_shadows` is on; misses show a sky gradient. Shading is in linear light, written as
//! sRGB. `antialias` N averages the colours of N x N rays spread evenly over each pixel; depth
//! and labels always come from the pixel's centre ray (a label is never a blend).

use crate::SceneView;
use crate::raster::{BandHits, RasterHit};
pub use crate::shading::Lighting;
use crate::shading::{Lit, SeenTriangle, Shader, shade};
use glam::{Affine3A, Vec3A};
use passerby_scene::appearance::linear_to_srgb_bytes;
use passerby_world::Intrinsics;
use passerby_world::SensorRef;
use rayon::prelude::*;

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
    order: Vec<usize>,
    /// The optical-frame direction (unit depth) through each pixel centre, in `order`.
    centres: Vec<Vec3A>,
    /// Row-major pixel indices (the rasteriser's order), for [`Pass::block`] to share code
    /// with the casting order.
    row_major: Vec<usize>,
    /// Without distortion, the direction through pixel `(col, row)` is
    /// `(column_x[col], row_y[row], 1)`: computed, not read from an image-sized table.
    column_x: Vec<f32>,
    row_y: Vec<f32>,
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

/// How a camera finds what each pixel centre sees first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Visibility {
    /// Rasterise triangles ([`crate::raster`]) when the lens has no distortion, else cast rays.
    #[default]
    Raster,
    /// Cast a ray through every pixel centre.
    Rays,
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

/// Casts a lens's pixels from `world_from_optical`: depth and labels from each pixel centre,
/// and, with `lighting`, the colour (`antialias` x `antialias` rays per pixel). The result does
/// not depend on the thread count.
pub fn trace(
    view: &SceneView<'_>,
    lens: &Lens,
    world_from_optical: &Affine3A,
    lighting: Option<&Lighting>,
    antialias: u32,
    visibility: Visibility,
) -> Pixels {
    let (w, h) = lens.size();
    let n = w * h;
    let pass = Pass {
        view,
        lens,
        world_from_optical,
        lighting,
        antialias: antialias.max(1) as usize,
    };
    let mut out = Pixels {
        depth: vec![0.0; n],
        instance: vec![0; n],
        class: vec![0; n],
        rgb: if lighting.is_some() {
            vec![0; 3 * n]
        } else {
            Vec::new()
        },
    };
    // Blocks of the rasteriser's bands of rows, each finished by one task from its own small
    // buffers: the lens casts a row of tiles before the next, and a band holds whole rows of
    // tiles, so a block is a run of its casting order.
    let block = crate::raster::BAND * w;
    let mut rgb = out.rgb.chunks_mut(3 * block);
    let blocks: Vec<_> = (out.depth.chunks_mut(block))
        .zip(out.instance.chunks_mut(block))
        .zip(out.class.chunks_mut(block))
        .map(|((depth, instance), class)| BlockOut {
            depth,
            instance,
            class,
            rgb: rgb.next(),
        })
        .collect();
    if visibility == Visibility::Raster && !lens.has_distortion() {
        let scene = &view.built.scene;
        crate::raster::visible_in_bands(
            scene,
            lens,
            world_from_optical,
            blocks,
            |first_row, hits, out| pass.block(first_row * w, Some(hits), out),
        );
    } else {
        blocks
            .into_par_iter()
            .enumerate()
            .for_each(|(k, out)| pass.block(k * block, None, out));
    }
    out
}

/// One camera pass: what every block of rows needs.
struct Pass<'a> {
    view: &'a SceneView<'a>,
    lens: &'a Lens,
    world_from_optical: &'a Affine3A,
    lighting: Option<&'a Lighting>,
    antialias: usize,
}

/// A block's share of the output images.
struct BlockOut<'a> {
    depth: &'a mut [f32],
    instance: &'a mut [i32],
    class: &'a mut [u16],
    rgb: Option<&'a mut [u8]>,
}

impl Pass<'_> {
    /// How wide a sample's footprint is at depth 1 across the optical axis, with `aa` x `aa`
    /// samples per pixel (the lens's directions have depth 1).
    fn pixel_width(&self, aa: usize) -> f32 {
        let i = self.lens.intrinsics();
        (1.0 / ((i.fx * i.fy).sqrt() * aa as f64)) as f32
    }

    /// [`Pass::block`] from rasterised hits, one sample per pixel, without a distortion: each
    /// pixel is finished in one go (labels, colour), in row-major order.
    fn finish_raster_block(&self, first: usize, raster: BandHits<'_>, out: BlockOut<'_>) {
        let view = self.view;
        let origin = self.world_from_optical.translation;
        let labels = (out.depth, out.instance, out.class);
        let (Some(light), Some(rgb)) = (self.lighting, out.rgb) else {
            return self.raster_pixels(first, raster, labels, false, |_, _, _| {});
        };
        let mut shader = Shader::new(view, origin, light, self.pixel_width(1));
        // One loop per case, so that no pixel asks which case it is in.
        if !light.shadows {
            let mut encoder = RunEncoder::default();
            return self.raster_pixels(first, raster, labels, true, |q, dir, seen| {
                let lit = match seen {
                    Some((seen, hit)) => shader.shade(q, dir, seen, hit.depth, hit.uv),
                    None => shader.sky(dir),
                };
                rgb[3 * q..3 * q + 3].copy_from_slice(&encoder.encode(light, lit));
            });
        }
        // With shadows, colours wait for the block's shadow rays.
        let mut waiting: Vec<Lit> = Vec::with_capacity(raster.len());
        self.raster_pixels(first, raster, labels, true, |q, dir, seen| {
            waiting.push(match seen {
                Some((seen, hit)) => shader.shade(q, dir, seen, hit.depth, hit.uv),
                None => shader.sky(dir),
            });
        });
        shader.darken_shadowed(&mut waiting);
        let mut encoder = RunEncoder::default();
        for (q, &lit) in waiting.iter().enumerate() {
            rgb[3 * q..3 * q + 3].copy_from_slice(&encoder.encode(light, lit));
        }
    }

    /// Walks rasterised hits in row-major order from pixel `first`: writes each pixel's depth
    /// and labels, and hands `sample(q, direction, what it sees)` every pixel `q` of the block.
    /// What a triangle is (and, if `shaded`, how it looks) is found once for the run of
    /// neighbouring pixels on it.
    fn raster_pixels<'v>(
        &'v self,
        first: usize,
        raster: BandHits<'_>,
        (depth, instance, class): (&mut [f32], &mut [i32], &mut [u16]),
        shaded: bool,
        mut sample: impl FnMut(usize, Vec3A, Option<(&SeenTriangle<'v>, &RasterHit)>),
    ) {
        let (view, lens) = (self.view, self.lens);
        let w = lens.size().0;
        let len = depth.len();
        let mut last: Option<((u32, u32), Option<SeenTriangle<'v>>)> = None;
        let rows = &lens.row_y[first / w..(first + len) / w];
        // A pixel's world direction is `M (x, y, 1)`, which glam sums as `(X x + Y y) + Z`:
        // the same sums with `Y y` found once per row.
        let m = &self.world_from_optical.matrix3;
        let (mut col, mut row) = (0, 0);
        let mut row_term = m.y_axis * rows.first().copied().unwrap_or(0.0);
        raster.for_each(|q, hit| {
            if col == w {
                (col, row) = (0, row + 1);
                row_term = m.y_axis * rows.get(row).copied().unwrap_or(0.0);
            }
            let dir = m.x_axis * lens.column_x[col] + row_term + m.z_axis;
            col += 1;
            let seen = match hit {
                // Directions the lens has none for see nothing.
                Some(hit) if dir.is_finite() => {
                    let key = (hit.instance, hit.triangle);
                    if !matches!(last, Some((k, _)) if k == key) {
                        let seen = view
                            .target_of(hit)
                            .map(|target| SeenTriangle::new(view, target, shaded));
                        last = Some((key, seen));
                    }
                    (last.as_ref())
                        .and_then(|(_, seen)| seen.as_ref())
                        .map(|seen| (seen, hit))
                }
                _ => None,
            };
            if let Some((seen, hit)) = seen {
                depth[q] = hit.depth;
                instance[q] = seen.target.instance as i32;
                class[q] = seen.target.label;
            }
            sample(q, dir, seen);
        });
    }

    /// Fills the block of pixels `first..first + out.depth.len()` (row-major indices, whole
    /// rows from an even one), from the rasterised `raster` hits of these pixels (row-major) or
    /// else by casting rays.
    fn block(&self, first: usize, raster: Option<BandHits<'_>>, out: BlockOut<'_>) {
        let (view, lens) = (self.view, self.lens);
        let raster = match raster {
            Some(raster) if self.antialias == 1 && !lens.column_x.is_empty() => {
                return self.finish_raster_block(first, raster, out);
            }
            // (The other ways read them more than once.)
            raster => raster.map(|hits| {
                let mut all = Vec::with_capacity(hits.len());
                hits.for_each(|_, hit| all.push(hit.copied()));
                all
            }),
        };
        let i = lens.intrinsics();
        let (near, far) = (i.clip_min as f32, i.clip_max as f32);
        let origin = self.world_from_optical.translation;
        let len = out.depth.len();
        // Rasterised blocks go row by row (their hits' order; neighbours share triangles as
        // well), cast ones in the lens's casting order.
        let w = lens.size().0;
        let (order, dirs): (&[usize], Vec<Vec3A>) = match &raster {
            Some(_) if !lens.column_x.is_empty() => {
                let to_world = |d: Vec3A| self.world_from_optical.transform_vector3a(d);
                let dirs = (lens.row_y[first / w..(first + len) / w].iter())
                    .flat_map(|&y| (lens.column_x.iter()).map(move |&x| Vec3A::new(x, y, 1.0)))
                    .map(to_world)
                    .collect();
                (&lens.row_major[first..first + len], dirs)
            }
            _ => {
                let dirs = lens.centres[first..first + len]
                    .iter()
                    .map(|d| self.world_from_optical.transform_vector3a(*d))
                    .collect();
                (&lens.order[first..first + len], dirs)
            }
        };
        let mut hits: Vec<Option<crate::Target>> = match &raster {
            Some(raster) => view.targets_of(order.iter().map(|&p| raster[p - first].as_ref())),
            None => {
                let mut hits = vec![None; len];
                view.cast_run(origin, &dirs, (near, far), None, &mut hits);
                hits
            }
        };
        // Directions the lens has none for see nothing.
        for (hit, d) in hits.iter_mut().zip(&dirs) {
            if !d.is_finite() {
                *hit = None;
            }
        }
        for (&p, hit) in order.iter().zip(&hits) {
            if let Some(t) = hit {
                let q = p - first;
                out.depth[q] = t.t;
                out.instance[q] = t.instance as i32;
                out.class[q] = t.label;
            }
        }
        let (Some(light), Some(rgb)) = (self.lighting, out.rgb) else {
            return;
        };
        let aa = self.antialias;
        let colours: Vec<[f32; 3]> = if aa == 1 {
            shade(view, origin, &dirs, &hits, light, self.pixel_width(1))
        } else {
            // N x N samples per pixel, consecutive (neighbours for the ray caster's packets).
            let offsets: Vec<f64> = (0..aa)
                .map(|k| (k as f64 + 0.5) / aa as f64 - 0.5)
                .collect();
            let w = lens.size().0;
            let mut sample_dirs = Vec::with_capacity(len * aa * aa);
            for &p in order {
                let (u, v) = ((p % w) as f64, (p / w) as f64);
                for dv in &offsets {
                    for du in &offsets {
                        let d = lens.direction(u + du, v + dv);
                        sample_dirs.push(self.world_from_optical.transform_vector3a(d));
                    }
                }
            }
            let mut sample_hits = vec![None; sample_dirs.len()];
            view.cast_run(origin, &sample_dirs, (near, far), None, &mut sample_hits);
            for (hit, d) in sample_hits.iter_mut().zip(&sample_dirs) {
                if !d.is_finite() {
                    *hit = None;
                }
            }
            let samples = shade(
                view,
                origin,
                &sample_dirs,
                &sample_hits,
                light,
                self.pixel_width(aa),
            );
            let weight = 1.0 / (aa * aa) as f32;
            samples
                .chunks_exact(aa * aa)
                .map(|s| {
                    let mut sum = [0.0f32; 3];
                    for c in s {
                        for k in 0..3 {
                            sum[k] += c[k] * weight;
                        }
                    }
                    sum
                })
                .collect()
        };
        for (&p, c) in order.iter().zip(&colours) {
            let q = 3 * (p - first);
            rgb[q..q + 3].copy_from_slice(&linear_to_srgb_bytes(*c));
        }
    }
}

/// Lighting and sRGB encoding of a row-major run of pixels: plain surfaces under one light
/// give runs of one albedo and incidence, lit and encoded once per run.
#[derive(Default)]
struct RunEncoder {
    last: Option<(Lit, [u8; 3])>,
}

impl RunEncoder {
    #[inline]
    fn encode(&mut self, light: &Lighting, lit: Lit) -> [u8; 3] {
        match self.last {
            Some((seen, bytes)) if seen == lit => bytes,
            _ => {
                let bytes = linear_to_srgb_bytes(light.colour_of(lit));
                self.last = Some((lit, bytes));
                bytes
            }
        }
    }
}

/// One rendered frame of a `camera` (or the colour half of an `rgbd_camera`).
#[derive(Clone, Debug, PartialEq)]
pub struct CameraFrame {
    /// The sensor.
    pub sensor: SensorRef,
    /// Simulated seconds.
    pub stamp: f64,
    /// The intrinsics it was rendered with.
    pub intrinsics: Intrinsics,
    /// Row-major sRGB, 3 bytes a pixel.
    pub rgb: Vec<u8>,
    /// Depth along the optical axis, metres; 0 where nothing is within the clip range.
    pub depth: Vec<f32>,
    /// Instance id per pixel (0: nothing).
    pub instance: Vec<i32>,
    /// Class id per pixel (0: nothing).
    pub class: Vec<u16>,
    /// The 2D box of each actor in view.
    pub boxes: Vec<crate::boxes::ActorBox>,
}

/// A `camera` ready to render.
#[derive(Clone, Debug)]
pub struct Camera {
    /// The sensor.
    pub sensor: SensorRef,
    /// Its projection.
    pub lens: Lens,
    /// Colour samples per pixel side.
    pub antialias: u32,
    /// How primary visibility is found.
    pub visibility: Visibility,
}

impl Camera {
    /// Renders a frame from `world_from_optical` at `stamp`.
    pub fn render(
        &self,
        view: &SceneView<'_>,
        world_from_optical: &Affine3A,
        lighting: &Lighting,
        stamp: f64,
    ) -> CameraFrame {
        let pixels = trace(
            view,
            &self.lens,
            world_from_optical,
            Some(lighting),
            self.antialias,
            self.visibility,
        );
        let boxes = crate::boxes::actor_boxes(view, &self.lens, world_from_optical, &pixels);
        CameraFrame {
            sensor: self.sensor.clone(),
            stamp,
            intrinsics: self.lens.intrinsics().clone(),
            rgb: pixels.rgb,
            depth: pixels.depth,
            instance: pixels.instance,
            class: pixels.class,
            boxes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intrinsics(distortion: [f64; 5]) -> Intrinsics {
        Intrinsics {
            ncols: 64,
            nrows: 48,
            cx: 31.5,
            cy: 23.5,
            fx: 40.0,
            fy: 42.0,
            distortion,
            ..Intrinsics::default()
        }
    }

    #[test]
    fn directions_and_projection_are_inverse() {
        for d in [[0.0; 5], [-0.28, 0.07, 0.001, -0.0005, 0.0]] {
            let lens = Lens::new(&intrinsics(d)).unwrap();
            for (u, v) in [(0.0, 0.0), (63.0, 47.0), (31.5, 23.5), (10.25, 40.75)] {
                let p = lens.direction(u, v) * 3.0;
                let [pu, pv] = lens.project(p).unwrap();
                assert!(
                    (pu - u).abs() < 1e-3 && (pv - v).abs() < 1e-3,
                    "{d:?} {u} {v}"
                );
            }
        }
    }

    #[test]
    fn optical_z_is_body_x_and_optical_x_is_body_minus_y() {
        let r = body_from_optical();
        assert!((r.transform_vector3a(Vec3A::Z) - Vec3A::X).length() < 1e-6);
        assert!((r.transform_vector3a(Vec3A::X) + Vec3A::Y).length() < 1e-6);
        assert!((r.transform_vector3a(Vec3A::Y) + Vec3A::Z).length() < 1e-6);
    }

    #[test]
    fn bad_intrinsics_are_refused() {
        let mut i = intrinsics([0.0; 5]);
        i.fx = 0.0;
        assert!(Lens::new(&i).is_err());
        let mut i = intrinsics([0.0; 5]);
        i.ncols = 0;
        assert!(Lens::new(&i).is_err());
        let mut i = intrinsics([0.0; 5]);
        i.clip_min = i.clip_max;
        assert!(Lens::new(&i).is_err());
    }
}
