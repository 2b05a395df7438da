//! `rgbd_camera`: a depth camera and a colour camera with their own intrinsics and clip
//! ranges, as MVSim's `DepthCameraSensor`.
//!
//! Frames: `pose_3d` is the depth sensor's body (+X forward); the depth image is taken in its
//! optical frame (`pose_3d ⊕ (yaw -90°, roll -90°)`), the colour image in
//! `pose_3d ⊕ relativePoseIntensityWRTDepth` (an optical frame: the shipped definition's
//! `-90 0 -90` makes both coincide).
//!
//! Depth: 16-bit integers of `depth_resolution` metres along the optical axis, 0 where nothing
//! is within the clip range. Noise (`depth_noise_sigma`) is a normal draw per valid pixel, left
//! to right on its row's own stream of the sensor's generator (see `SensorRng::split`: rows are
//! noised in parallel), rounded to whole units; a pixel pushed past
//! `depth_clip_max` or to zero becomes invalid. (MVSim cycles through a fixed table of 7,823
//! draws; independent draws have no such period.)
//!
//! The point cloud comes from the depth image as published (noise and quantisation included),
//! in the depth optical frame, row-major; each point carries the instance and class its pixel
//! saw and, when the colour camera senses, the colour of the colour pixel it projects to (black
//! outside the colour image). Label images and 2D boxes are on the colour camera's grid.

use crate::Observation;
use crate::SceneView;
use crate::camera::{CameraFrame, Lens, Lighting, Visibility, body_from_optical, trace};
use crate::noise::SensorRng;
use crate::tasks::LazyZeros;
use crate::unit::{Mount, Pass as UnitPass, Reaching, SensorUnit, StepContext};
use glam::Affine3A;
use passerby_world::SensorRef;
use passerby_world::{Intrinsics, RgbdCameraParams};
use rayon::prelude::*;

/// A 16-bit depth image.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthImage {
    /// The depth camera's intrinsics.
    pub intrinsics: Intrinsics,
    /// Metres per unit.
    pub units: f64,
    /// Row-major depths in `units` (0: invalid).
    pub data: Vec<u16>,
}

/// The points of a depth image, in the depth optical frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DepthPoints {
    /// Positions, metres.
    pub xyz: Vec<[f32; 3]>,
    /// sRGB colour per point (empty when the colour camera does not sense).
    pub rgb: Vec<[u8; 3]>,
    /// Instance id per point.
    pub instance: Vec<u32>,
    /// Class id per point.
    pub label: Vec<u16>,
}

/// One frame of an `rgbd_camera`.
#[derive(Clone, Debug, PartialEq)]
pub struct RgbdFrame {
    /// The sensor.
    pub sensor: SensorRef,
    /// Simulated seconds.
    pub stamp: f64,
    /// The depth image, when `sense_depth`.
    pub depth: Option<DepthImage>,
    /// The colour image with its labels and boxes, when `sense_rgb`.
    pub colour: Option<CameraFrame>,
    /// Points from the depth image (empty without depth).
    pub points: DepthPoints,
}

/// An `rgbd_camera` with its noise generator.
#[derive(Clone, Debug)]
pub struct RgbdCamera {
    sensor: SensorRef,
    params: RgbdCameraParams,
    depth_lens: Lens,
    colour_lens: Lens,
    /// `depth_body_from_colour_optical`.
    body_from_colour: Affine3A,
    rng: SensorRng,
    /// How primary visibility is found.
    pub visibility: Visibility,
}

impl RgbdCamera {
    /// The camera, or why its intrinsics make no image.
    pub fn new(
        sensor: SensorRef,
        params: &RgbdCameraParams,
        rng: SensorRng,
    ) -> Result<RgbdCamera, crate::camera::LensError> {
        Ok(RgbdCamera {
            sensor,
            depth_lens: Lens::new(&params.depth)?,
            colour_lens: Lens::new(&params.rgb)?,
            body_from_colour: params.rgb_pose_wrt_depth.to_affine(),
            params: params.clone(),
            rng,
            visibility: Visibility::default(),
        })
    }

    /// The depth camera's reach, metres.
    pub fn max_range(&self) -> f32 {
        let mut r = 0.0f64;
        if self.params.sense_depth {
            r = r.max(self.params.depth.clip_max);
        }
        if self.params.sense_rgb {
            r = r.max(self.params.rgb.clip_max);
        }
        r as f32
    }

    /// Takes a frame with the depth body at `world_from_body`.
    pub fn capture(
        &mut self,
        view: &SceneView<'_>,
        world_from_body: &Affine3A,
        lighting: &Lighting,
        stamp: f64,
    ) -> RgbdFrame {
        let mut colour_pixels = None;
        let colour = self.params.sense_rgb.then(|| {
            let world_from_colour = *world_from_body * self.body_from_colour;
            let pixels = trace(
                view,
                &self.colour_lens,
                &world_from_colour,
                Some(lighting),
                self.params.antialias,
                self.visibility,
            );
            let boxes =
                crate::boxes::actor_boxes(view, &self.colour_lens, &world_from_colour, &pixels);
            let frame = CameraFrame {
                sensor: self.sensor.clone(),
                stamp,
                intrinsics: self.params.rgb.clone(),
                rgb: Vec::new(),
                depth: Vec::new(),
                instance: Vec::new(),
                class: Vec::new(),
                boxes,
            };
            colour_pixels = Some(pixels);
            frame
        });
        let mut frame = RgbdFrame {
            sensor: self.sensor.clone(),
            stamp,
            depth: None,
            colour,
            points: DepthPoints::default(),
        };
        if !self.params.sense_depth {
            fill(&mut frame.colour, colour_pixels);
            return frame;
        }
        let world_from_depth = *world_from_body * body_from_optical();
        // The colour camera's pass answers for depth when both see through the same pixels
        // from the same place with the same near plane: the nearest surface beyond the near
        // plane, kept if within the depth camera's far plane.
        let own_pixels = match &colour_pixels {
            Some(_) if self.shares_depth_pixels() => None,
            _ => Some(trace(
                view,
                &self.depth_lens,
                &world_from_depth,
                None,
                1,
                self.visibility,
            )),
        };
        let (depths, far) = match (&own_pixels, &colour_pixels) {
            (Some(own), _) => (&own.depth, f32::INFINITY),
            (None, Some(colour)) => (&colour.depth, self.params.depth.clip_max as f32),
            (None, None) => unreachable!("depth pixels are shared only with a colour pass"),
        };
        let units = self.params.depth_resolution;
        let max_units = (self.params.depth.clip_max / units).floor().min(65535.0);
        let sigma = self.params.depth_noise_sigma;
        let (w, h) = self.depth_lens.size();
        // One noise stream per row (drawn left to right), so rows are noised in parallel.
        let mut rows: Vec<Option<SensorRng>> = if sigma > 0.0 && sigma.is_finite() {
            self.rng.split(h).into_iter().map(Some).collect()
        } else {
            vec![None; h]
        };
        // Each row zeroes its units as it fills them (see `LazyZeros`).
        let mut units_image = LazyZeros::new(w * h);
        let quantise = Quantise {
            units,
            far,
            max_units,
        };
        (units_image.chunks(w))
            .into_par_iter()
            .zip(depths.par_chunks(w))
            .zip(rows.par_iter_mut())
            .for_each_init(Vec::new, |draws, ((out, depth), rng)| {
                let out = out.zeroed();
                // The draws in order, one per pixel within range (the others' stay 0), then
                // every pixel's units in a loop without branches.
                draws.clear();
                draws.resize(depth.len(), 0.0);
                if let Some(rng) = rng {
                    let mut noise = rng.gaussians(sigma);
                    for (draw, &d) in draws.iter_mut().zip(depth) {
                        if quantise.within(d) {
                            *draw = noise.next().unwrap_or(0.0);
                        }
                    }
                }
                quantise_row(&quantise, depth, draws, out);
            });
        let data = units_image.into_vec();
        fill(&mut frame.colour, colour_pixels);
        // Labels of the pixels with a depth (the same pixels' in a shared pass).
        let (instance, class) = match (&own_pixels, &frame.colour) {
            (Some(own), _) => (&own.instance, &own.class),
            (None, Some(colour)) => (&colour.instance, &colour.class),
            (None, None) => unreachable!("depth pixels are shared only with a colour pass"),
        };
        frame.points = self.points(&data, (instance, class), frame.colour.as_ref());
        frame.depth = Some(DepthImage {
            intrinsics: self.params.depth.clone(),
            units,
            data,
        });
        frame
    }

    /// Whether the depth camera's pixels are the colour camera's: same intrinsics (but the far
    /// plane), same optical frame.
    fn shares_depth_pixels(&self) -> bool {
        let (d, c) = (&self.params.depth, &self.params.rgb);
        let same_lens = (
            d.ncols,
            d.nrows,
            d.cx,
            d.cy,
            d.fx,
            d.fy,
            d.clip_min,
            d.distortion,
        ) == (
            c.ncols,
            c.nrows,
            c.cx,
            c.cy,
            c.fx,
            c.fy,
            c.clip_min,
            c.distortion,
        );
        let depth_from_colour = body_from_optical().inverse() * self.body_from_colour;
        same_lens
            && d.clip_max <= c.clip_max
            && depth_from_colour.abs_diff_eq(Affine3A::IDENTITY, 1e-6)
    }

    /// The depth image's points, coloured from `colour` when there is one.
    fn points(
        &self,
        data: &[u16],
        (pixel_instance, pixel_class): (&[i32], &[u16]),
        colour: Option<&CameraFrame>,
    ) -> DepthPoints {
        let (w, _) = self.depth_lens.size();
        // depth optical -> colour optical.
        let colour_from_depth = self.body_from_colour.inverse() * body_from_optical();
        // Runs of rows in parallel, each writing its points where the valid pixels before it
        // end: the lists are allocated once, at their final size.
        let run = RUN_ROWS * w;
        let counts: Vec<usize> = data
            .par_chunks(run)
            .map(|units| units.iter().filter(|&&u| u != 0).count())
            .collect();
        let total = counts.iter().sum();
        let with_rgb = colour.is_some();
        // When both halves share their pixels, a depth pixel's colour is its own pixel's (what
        // projecting its point would find, without the round trip).
        let same_pixels = self.shares_depth_pixels();
        // Without distortion a pixel's direction is `(x(column), y(row), 1)`: the axes once.
        let axes = (!self.depth_lens.has_distortion()).then(|| {
            let (w, h) = self.depth_lens.size();
            let xs: Vec<f32> = (0..w)
                .map(|u| self.depth_lens.direction(u as f64, 0.0).x)
                .collect();
            let ys: Vec<f32> = (0..h)
                .map(|v| self.depth_lens.direction(0.0, v as f64).y)
                .collect();
            (xs, ys)
        });
        // Each run zeroes its share of the lists as it fills it (see `LazyZeros`).
        let mut xyz = LazyZeros::new(total);
        let mut rgb = LazyZeros::new(if with_rgb { total } else { 0 });
        let mut instance = LazyZeros::new(total);
        let mut label = LazyZeros::new(total);
        let rgb_counts: Vec<usize> = counts
            .iter()
            .map(|&n| if with_rgb { n } else { 0 })
            .collect();
        let shares = (xyz.chunks_by(&counts).into_iter())
            .zip(rgb.chunks_by(&rgb_counts))
            .zip(instance.chunks_by(&counts))
            .zip(label.chunks_by(&counts))
            .map(|(((xyz, rgb), instance), label)| (xyz, rgb, instance, label))
            .collect::<Vec<_>>();
        shares
            .into_par_iter()
            .zip(data.par_chunks(run))
            .enumerate()
            .for_each(|(k, ((xyz, rgb, instance, label), units))| {
                let (xyz, rgb) = (xyz.zeroed(), rgb.zeroed());
                let (instance, label) = (instance.zeroed(), label.zeroed());
                if let Some((xs, ys)) = axes.as_ref().filter(|_| colour.is_none() || same_pixels) {
                    let labels = (pixel_instance, pixel_class);
                    let rgb = colour.map(|c| (&c.rgb[..], rgb));
                    let out = (xyz, instance, label);
                    let resolution = self.params.depth_resolution;
                    plain_points(units, k * RUN_ROWS, (xs, ys), labels, rgb, out, resolution);
                    return;
                }
                let mut i = 0;
                for (row, line) in (k * RUN_ROWS..).zip(units.chunks(w)) {
                    for (col, &units) in line.iter().enumerate() {
                        if units == 0 {
                            continue;
                        }
                        let p = row * w + col;
                        let z = (f64::from(units) * self.params.depth_resolution) as f32;
                        // (As `Vec3A::new(x, y, 1) * z`, lane for lane.)
                        let point = match &axes {
                            Some((xs, ys)) => [xs[col] * z, ys[row] * z, z],
                            None => {
                                (self.depth_lens.direction(col as f64, row as f64) * z).to_array()
                            }
                        };
                        if let Some(c) = colour {
                            let q = if same_pixels {
                                Some(p)
                            } else {
                                self.colour_lens
                                    .project(colour_from_depth.transform_point3a(point.into()))
                                    .and_then(|uv| self.colour_lens.pixel_at(uv))
                            };
                            rgb[i] = q
                                .and_then(|q| c.rgb.get(3 * q..3 * q + 3))
                                .map_or([0; 3], |c| [c[0], c[1], c[2]]);
                        }
                        xyz[i] = point;
                        instance[i] = pixel_instance[p].max(0) as u32;
                        label[i] = pixel_class[p];
                        i += 1;
                    }
                }
            });
        DepthPoints {
            xyz: xyz.into_vec(),
            rgb: rgb.into_vec(),
            instance: instance.into_vec(),
            label: label.into_vec(),
        }
    }
}

/// Rows of the depth image whose points one task makes.
const RUN_ROWS: usize = 16;

/// [`RgbdCamera::points`] for rows `first_row..` (their `units`) of a depth image without
/// distortion (a pixel's direction is `(xs[column], ys[row], 1)`) whose colour, if any, is its
/// own pixel's (`rgb`: the colour image's bytes and where its points' colours go): the same
/// points, made by the same operations, with each row's slices taken once.
fn plain_points(
    units: &[u16],
    first_row: usize,
    (xs, ys): (&[f32], &[f32]),
    (pixel_instance, pixel_class): (&[i32], &[u16]),
    mut rgb: Option<(&[u8], &mut [[u8; 3]])>,
    (xyz, instance, label): (&mut [[f32; 3]], &mut [u32], &mut [u16]),
    resolution: f64,
) {
    let w = xs.len();
    let mut i = 0;
    for (row, line) in (first_row..).zip(units.chunks(w)) {
        let (start, y) = (row * w, ys[row]);
        let instances = &pixel_instance[start..start + w];
        let classes = &pixel_class[start..start + w];
        for (col, (&units, &x)) in line.iter().zip(xs).enumerate() {
            if units == 0 {
                continue;
            }
            let z = (f64::from(units) * resolution) as f32;
            xyz[i] = [x * z, y * z, z];
            if let Some((image, colours)) = &mut rgb {
                let p = 3 * (start + col);
                colours[i] = image.get(p..p + 3).map_or([0; 3], |c| [c[0], c[1], c[2]]);
            }
            instance[i] = instances[col].max(0) as u32;
            label[i] = classes[col];
            i += 1;
        }
    }
}

/// Moves a colour pass's pixels into its frame.
fn fill(frame: &mut Option<CameraFrame>, pixels: Option<crate::camera::Pixels>) {
    if let (Some(c), Some(p)) = (frame, pixels) {
        (c.rgb, c.depth, c.instance, c.class) = (p.rgb, p.depth, p.instance, p.class);
    }
}

/// How a depth image's metres become units.
struct Quantise {
    /// Metres per unit.
    units: f64,
    /// Depths beyond are invalid.
    far: f32,
    /// The most units a valid pixel holds.
    max_units: f64,
}

impl Quantise {
    /// Whether a depth is within range (and draws its noise).
    #[inline(always)]
    fn within(&self, d: f32) -> bool {
        !((d <= 0.0) | (d > self.far))
    }

    /// A row's units from its depths (metres; 0: nothing) and each pixel's noise draw
    /// (metres): rounded to whole units each, summed, kept where valid and in range (0
    /// elsewhere).
    #[inline(always)]
    fn row(&self, depth: &[f32], draws: &[f64], out: &mut [u16]) {
        let n = depth.len().min(draws.len()).min(out.len());
        let (depth, draws, out) = (&depth[..n], &draws[..n], &mut out[..n]);
        for k in 0..n {
            let noisy = round(f64::from(depth[k]) / self.units) + round(draws[k] / self.units);
            // (`&`, not `&&`: conditions without branches, for the loop to be laid out in
            // vectors.)
            let kept = self.within(depth[k]) & (noisy > 0.0) & (noisy <= self.max_units);
            // Kept, `noisy` is whole and in `1..=65535`: plus 2^52, it is the low bits of the
            // double (`noisy as u16` exactly, without a conversion done lane by lane).
            let bits = (noisy + WHOLE_FROM).to_bits() as u16;
            // (Every unit written, 0 where not kept: a store on a condition is a branch.)
            out[k] = if kept { bits } else { 0 };
        }
    }
}

passerby_raycast::widest_vectors! {
    /// [`Quantise::row`] in the widest vectors the CPU has (eight doubles to an instruction
    /// with AVX-512).
    fn quantise_row(quantise: &Quantise, depth: &[f32], draws: &[f64], out: &mut [u16])
        => Quantise::row
}

/// 2^52: from here on every double is a whole number, and below it one plus 2^52 holds the
/// number in its low bits.
const WHOLE_FROM: f64 = 4_503_599_627_370_496.0;

/// `x.round()` (halves away from zero) without a libm call, which the baseline x86-64 target
/// makes for want of a rounding instruction, and in operations on doubles only (a loop of it
/// is laid out in vectors; converting to integers is not, lane by lane). Below 2^52, adding
/// and then taking away 2^52 rounds to the nearest whole number exactly, and the fraction left
/// by truncation is exact; from 2^52 on every double is whole (NaN and the infinities too are
/// their own rounding).
#[inline(always)]
fn round(x: f64) -> f64 {
    let magnitude = x.abs();
    let nearest = (magnitude + WHOLE_FROM) - WHOLE_FROM;
    let one = |up: bool| if up { 1.0 } else { 0.0 };
    let truncated = (nearest - one(nearest > magnitude)).copysign(x);
    // A truncated -0 and a step of +0 sum to +0, as the integer's 0 did before. The step is
    // a selection, not a branch: with noise its direction is a coin toss.
    let fraction = x - truncated;
    let rounded = truncated + (one(fraction >= 0.5) - one(fraction <= -0.5));
    if magnitude < WHOLE_FROM { rounded } else { x }
}

impl SensorUnit for RgbdCamera {
    fn pass(&self) -> UnitPass {
        UnitPass::Parallel
    }

    fn rank(&self) -> u8 {
        4
    }

    fn reaching(&self) -> Option<Reaching> {
        Some(Reaching::WhenDue(self.max_range()))
    }

    fn measure(&mut self, cx: &StepContext<'_>, mount: &Mount, due: bool) -> Vec<Observation> {
        if !due {
            return Vec::new();
        }
        SensorUnit::capture(self, cx, mount).into_iter().collect()
    }

    fn capture(&mut self, cx: &StepContext<'_>, mount: &Mount) -> Option<Observation> {
        let pose = mount.world_from_sensor(cx.sim);
        let frame = RgbdCamera::capture(self, cx.view, &pose, cx.lighting, cx.now);
        Some(Observation::Rgbd(Box::new(frame)))
    }

    fn set_visibility(&mut self, visibility: Visibility) {
        self.visibility = visibility;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rounding_matches_the_standard_library() {
        let probes = [
            0.0,
            -0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            -2.5,
            1e15 + 0.5,
            -1e15 - 0.5,
            4.6e15,
            4.5e15 + 0.5,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            9_007_199_254_740_993.0,
            9.1e18,
            -9.3e18,
            1e300,
            -7.3,
            65535.49,
            65535.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for x in probes
            .into_iter()
            .chain((0..100_000).map(|k| (k as f64 - 5e4) * 0.0173))
        {
            let (ours, std) = (super::round(x), x.round());
            assert!(
                ours == std || (ours.is_nan() && std.is_nan()),
                "{x}: {ours} vs {std}"
            );
            // Zeros come out positive (as from an integer), whatever the sign of `x`.
            if ours == 0.0 {
                assert!(ours.is_sign_positive(), "{x}: -0");
            }
        }
    }
}
