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

use crate::Observation;
use crate::SceneView;
pub use crate::lens::{Lens, LensError, Pixels, body_from_optical};
use crate::raster::{BandHits, PixelHit};
pub use crate::shading::Lighting;
use crate::shading::{FlatRun, Lit, SeenTriangle, Shader, UniformRun, shade};
use crate::tasks::{Chunk, LazyZeros};
use crate::unit::{Mount, Pass as UnitPass, Reaching, SensorUnit, StepContext};
use glam::{Affine3A, Vec3A};
use passerby_scene::appearance::linear_to_srgb_bytes;
use passerby_world::Intrinsics;
use passerby_world::SensorRef;
use rayon::prelude::*;

/// How a camera finds what each pixel centre sees first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Visibility {
    /// Rasterise, frame by frame, unless the lens has distortion or the instances in view hold
    /// more than [`RASTER_TRIANGLES_PER_PIXEL`] triangles a pixel (a meadow of a million grass
    /// meshes): then cast rays, which the top level and the meshes' trees spare from what
    /// they cannot meet. The choice depends only on the scene and the pose, so it is the
    /// same on every run and thread count.
    #[default]
    Auto,
    /// Rasterise triangles ([`crate::raster`]) when the lens has no distortion, else cast rays.
    Raster,
    /// Cast a ray through every pixel centre.
    Rays,
}

/// Triangles in view per pixel above which [`Visibility::Auto`] casts rays. Rasterising costs
/// about 30 ns per triangle in view (projecting, setting up, binning), a ray through dense
/// grass about 65 ns, so the two meet near 2 triangles a pixel. Measured with `passerby bench
/// --simulate 1 --camera-visibility raster|rays`: the warehouse camera benchmark has 0.22
/// triangles in view a pixel (rasterising wins), MAVS's `grass_dense` 21.6 (rays are 5x
/// faster), MVSim's `demo_turtlebot_world` 0.0004.
pub const RASTER_TRIANGLES_PER_PIXEL: usize = 2;

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
        sun_grid: lighting.and_then(|light| crate::shading::sun_grid(view, light, n)),
        antialias: antialias.max(1) as usize,
    };
    // Each block zeroes its share of the images as it fills it (see `LazyZeros`).
    let mut depth = LazyZeros::new(n);
    let mut instance = LazyZeros::new(n);
    let mut class = LazyZeros::new(n);
    let mut rgb = lighting.map(|_| LazyZeros::new(3 * n));
    // Blocks of the rasteriser's bands of rows, each finished by one task from its own small
    // buffers: the lens casts a row of tiles before the next, and a band holds whole rows of
    // tiles, so a block is a run of its casting order.
    let block = crate::raster::BAND * w;
    let mut rgb_chunks = rgb.as_mut().map(|rgb| rgb.chunks(3 * block).into_iter());
    let blocks: Vec<_> = (depth.chunks(block).into_iter())
        .zip(instance.chunks(block))
        .zip(class.chunks(block))
        .map(|((depth, instance), class)| BlockSlots {
            depth,
            instance,
            class,
            rgb: rgb_chunks.as_mut().and_then(Iterator::next),
        })
        .collect();
    let scene = &view.built.scene;
    let rasterise = !lens.has_distortion()
        && match visibility {
            Visibility::Rays => false,
            Visibility::Raster => true,
            Visibility::Auto => {
                let limit = RASTER_TRIANGLES_PER_PIXEL * n;
                crate::raster::triangles_in_view(scene, lens, world_from_optical, limit) < limit
            }
        };
    if rasterise {
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
    drop(rgb_chunks);
    Pixels {
        depth: depth.into_vec(),
        instance: instance.into_vec(),
        class: class.into_vec(),
        rgb: rgb.map_or_else(Vec::new, LazyZeros::into_vec),
    }
}

/// One camera pass: what every block of rows needs.
struct Pass<'a> {
    view: &'a SceneView<'a>,
    lens: &'a Lens,
    world_from_optical: &'a Affine3A,
    lighting: Option<&'a Lighting>,
    /// The frame's shadow rays' grid, if there is one (see `shading::sun_grid`).
    sun_grid: Option<passerby_raycast::ParallelGrid>,
    antialias: usize,
}

/// A block's share of the output images, before its task zeroes it.
struct BlockSlots<'a> {
    depth: Chunk<'a, f32>,
    instance: Chunk<'a, i32>,
    class: Chunk<'a, u16>,
    rgb: Option<Chunk<'a, u8>>,
}

impl<'a> BlockSlots<'a> {
    fn zeroed(self) -> BlockOut<'a> {
        BlockOut {
            depth: self.depth.zeroed(),
            instance: self.instance.zeroed(),
            class: self.class.zeroed(),
            rgb: self.rgb.map(Chunk::zeroed),
        }
    }
}

/// A block's share of the output images.
struct BlockOut<'a> {
    depth: &'a mut [f32],
    instance: &'a mut [i32],
    class: &'a mut [u16],
    rgb: Option<&'a mut [u8]>,
}

impl<'a> Pass<'a> {
    /// How wide a sample's footprint is at depth 1 across the optical axis, with `aa` x `aa`
    /// samples per pixel (the lens's directions have depth 1).
    fn pixel_width(&self, aa: usize) -> f32 {
        let i = self.lens.intrinsics();
        (1.0 / ((i.fx * i.fy).sqrt() * aa as f64)) as f32
    }

    /// [`Pass::block`] from rasterised hits, one sample per pixel, without a distortion: each
    /// pixel's labels and shading in row-major order, then the colours' encoding.
    fn finish_raster_block(&self, first: usize, raster: BandHits<'_>, out: BlockOut<'_>) {
        let view = self.view;
        let origin = self.world_from_optical.translation;
        let labels = (out.depth, out.instance, out.class);
        let (Some(light), Some(rgb)) = (self.lighting, out.rgb) else {
            return self.raster_pixels(first, raster, labels, None, &mut ());
        };
        let shader = Shader::new(
            view,
            origin,
            (light, self.sun_grid.as_ref()),
            self.pixel_width(1),
        )
        .with_room(raster.len());
        // Colours wait for the block's shadow rays (if any), and are encoded in a loop of their
        // own: a pixel's shading and encoding in one loop is too long a chain of dependent
        // steps (divisions, square roots, table lookups) for the processor to overlap the
        // next pixel's with it (3-4 % slower measured without shadows).
        let mut shading = Shading {
            waiting: Vec::with_capacity(raster.len()),
            shader,
        };
        self.raster_pixels(first, raster, labels, Some(light), &mut shading);
        let Shading {
            mut waiting,
            mut shader,
        } = shading;
        shader.sample_textures(&mut waiting);
        shader.darken_shadowed(&mut waiting);
        let mut encoder = RunEncoder::default();
        for (bytes, &lit) in rgb.chunks_exact_mut(3).zip(&waiting) {
            bytes.copy_from_slice(&encoder.encode(light, lit));
        }
    }

    /// Walks rasterised hits in row-major order from pixel `first`: writes each pixel's depth
    /// and labels, and hands `samples` every pixel of the block. What a triangle is (and, in
    /// `light`, how it looks) is found once for the run of neighbouring pixels on it; a run on
    /// a triangle that looks the same all over goes whole (its depths and directions in loops
    /// the compiler lays out in vectors).
    fn raster_pixels(
        &self,
        first: usize,
        raster: BandHits<'_>,
        (depth, instance, class): (&mut [f32], &mut [i32], &mut [u16]),
        light: Option<&Lighting>,
        samples: &mut impl Samples<'a>,
    ) {
        let (view, lens) = (self.view, self.lens);
        let w = lens.size().0;
        let first_row = first / w;
        let rows = &lens.row_y[first_row..(first + depth.len()) / w];
        // What each of the band's triangles is and how it looks, found on the first row that
        // sees it (it depends on the triangle only): each band triangle's slot in
        // `seen_triangles`.
        let mut seen_slot = vec![u32::MAX; raster.triangle_count()];
        let mut seen_triangles: Vec<Option<SeenTriangle<'a>>> = Vec::new();
        // A pixel's world direction is `M (x, y, 1)`, which glam sums as `(X x + Y y) + Z`:
        // the same sums with `Y y` found once per run.
        let m = &self.world_from_optical.matrix3;
        let mut depths = vec![0.0f32; w];
        let (mut us, mut vs) = (vec![0.0f32; w], vec![0.0f32; w]);
        // A run's directions axis by axis, for loops the compiler lays out in vectors.
        let mut run_dirs: [Vec<f32>; 3] = std::array::from_fn(|_| Vec::with_capacity(w));
        // Every direction of a row is finite when its terms are moderate numbers (a sum of
        // three products of numbers under 1e3 and 1e30 cannot overflow): then the runs need
        // not check theirs.
        let moderate = |v: f32, limit: f32| v.abs() < limit;
        let finite_terms = (m.to_cols_array().iter()).all(|&v| moderate(v, 1e3))
            && (lens.column_x.iter()).fold(true, |all, &x| all & moderate(x, 1e30));
        let finite_row = |row: usize| {
            finite_terms
                && rows
                    .get(row - first_row)
                    .is_some_and(|&y| moderate(y, 1e30))
        };
        raster.for_each_run(|run| {
            let row_term = m.y_axis * rows.get(run.row - first_row).copied().unwrap_or(0.0);
            let dir_of = |col: usize| m.x_axis * lens.column_x[col] + row_term + m.z_axis;
            let pixels = run.first..run.first + run.cols.len();
            // `dir_of`'s sums, axis by axis: the same values.
            let run_directions = |run_dirs: &mut [Vec<f32>; 3]| {
                let xs = &lens.column_x[run.cols.clone()];
                for (axis, out) in run_dirs.iter_mut().enumerate() {
                    let (x_axis, row, z_axis) = (m.x_axis[axis], row_term[axis], m.z_axis[axis]);
                    out.clear();
                    out.extend(xs.iter().map(|&x| x_axis * x + row + z_axis));
                }
            };
            let Some(triangle) = &run.triangle else {
                if light.is_some() {
                    run_directions(&mut run_dirs);
                    let [xs, ys, zs] = &run_dirs;
                    samples.sky_run(pixels.start, [xs, ys, zs]);
                }
                return;
            };
            let slot = &mut seen_slot[run.band_triangle];
            if *slot == u32::MAX {
                *slot = seen_triangles.len() as u32;
                seen_triangles.push(
                    view.target_of(&triangle.hit(run.cols.start).to_hit())
                        .map(|target| SeenTriangle::new(view, target, light)),
                );
            }
            let seen = seen_triangles[*slot as usize].as_ref();
            // Labels only, or a triangle that looks the same all over: the run is finished
            // whole, unless the lens has no direction for one of its pixels.
            if let Some(seen) = seen.filter(|seen| light.is_none() || seen.uniform().is_some()) {
                run_directions(&mut run_dirs);
                // (Without early exits: a loop the compiler lays out in vectors.)
                let finite = finite_row(run.row)
                    || (run_dirs.iter().flatten()).fold(true, |all, d| all & d.is_finite());
                if finite {
                    let depths = &mut depths[..pixels.len()];
                    triangle.depths(run.cols.clone(), depths);
                    depth[pixels.clone()].copy_from_slice(depths);
                    instance[pixels.clone()].fill(seen.target.instance as i32);
                    class[pixels.clone()].fill(seen.target.label);
                    if let (Some(_), Some(lits)) = (light, seen.uniform()) {
                        let [xs, ys, zs] = &run_dirs;
                        samples.uniform_run(UniformRun {
                            first: pixels.start,
                            dirs: [xs, ys, zs],
                            depths,
                            normal: seen.target.normal,
                            lits,
                        });
                    }
                    return;
                }
            }
            // A flat facet whose colour varies, under light: shaded a run at a time.
            if let (Some(_), Some(seen)) = (light, seen.filter(|seen| seen.is_flat_varying())) {
                run_directions(&mut run_dirs);
                let finite = finite_row(run.row)
                    || (run_dirs.iter().flatten()).fold(true, |all, d| all & d.is_finite());
                if finite {
                    let n = pixels.len();
                    let (depths, us, vs) = (&mut depths[..n], &mut us[..n], &mut vs[..n]);
                    triangle.depths_and_uvs(run.cols.clone(), [&mut *depths, us, vs]);
                    depth[pixels.clone()].copy_from_slice(depths);
                    instance[pixels.clone()].fill(seen.target.instance as i32);
                    class[pixels.clone()].fill(seen.target.label);
                    let [xs, ys, zs] = &run_dirs;
                    samples.flat_run(FlatRun {
                        first: pixels.start,
                        dirs: [xs, ys, zs],
                        depths,
                        uvs: [us, vs],
                        seen,
                    });
                    return;
                }
            }
            for (q, col) in pixels.zip(run.cols.clone()) {
                let dir = dir_of(col);
                // Directions the lens has none for see nothing.
                let seen = seen.filter(|_| dir.is_finite());
                let hit = seen.map(|_| triangle.hit(col));
                if let (Some(seen), Some(hit)) = (seen, &hit) {
                    depth[q] = hit.depth;
                    instance[q] = seen.target.instance as i32;
                    class[q] = seen.target.label;
                }
                samples.one(q, dir, seen.zip(hit.as_ref()));
            }
        });
    }

    /// Fills the block of pixels `first..first + out.depth.len()` (row-major indices, whole
    /// rows from an even one), from the rasterised `raster` hits of these pixels (row-major) or
    /// else by casting rays.
    fn block(&self, first: usize, raster: Option<BandHits<'_>>, slots: BlockSlots<'_>) {
        let out = slots.zeroed();
        let (view, lens) = (self.view, self.lens);
        let raster = match raster {
            Some(raster) if self.antialias == 1 && !lens.column_x.is_empty() => {
                return self.finish_raster_block(first, raster, out);
            }
            // (The other ways read them more than once.)
            raster => raster.map(|hits| {
                let mut all = Vec::with_capacity(hits.len());
                hits.for_each(|_, hit| all.push(hit.map(PixelHit::to_hit)));
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
            let light = (light, self.sun_grid.as_ref());
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
                (light, self.sun_grid.as_ref()),
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

/// What [`Pass::raster_pixels`] hands each pixel of a block, in row-major order: one pixel
/// at a time, or a run of pixels on a triangle that looks the same all over.
trait Samples<'a> {
    /// Pixel `q` (in the block), seen along `dir` (of depth 1), and what it sees.
    fn one(&mut self, q: usize, dir: Vec3A, seen: Option<(&SeenTriangle<'a>, &PixelHit<'_>)>);

    /// A run of pixels on a triangle that looks the same all over.
    fn uniform_run(&mut self, run: UniformRun<'_>);

    /// A run of pixels `first..` that see nothing, along `dirs` (x, y and z; of depth 1).
    fn sky_run(&mut self, first: usize, dirs: [&[f32]; 3]);

    /// A run of pixels on a flat facet whose colour varies.
    fn flat_run(&mut self, run: FlatRun<'_, 'a>);
}

/// Labels only: nothing to shade.
impl Samples<'_> for () {
    fn one(&mut self, _: usize, _: Vec3A, _: Option<(&SeenTriangle<'_>, &PixelHit<'_>)>) {}

    fn uniform_run(&mut self, _: UniformRun<'_>) {}

    fn sky_run(&mut self, _: usize, _: [&[f32]; 3]) {}

    fn flat_run(&mut self, _: FlatRun<'_, '_>) {}
}

/// Each pixel's light, waiting for the block's shadow rays and textures.
struct Shading<'a> {
    waiting: Vec<Lit>,
    shader: Shader<'a>,
}

impl<'a> Samples<'a> for Shading<'a> {
    #[inline(always)]
    fn one(&mut self, q: usize, dir: Vec3A, seen: Option<(&SeenTriangle<'a>, &PixelHit<'_>)>) {
        self.waiting.push(match seen {
            Some((seen, hit)) => self.shader.shade(q, dir, seen, hit.depth, hit.uv()),
            None => self.shader.sky(dir),
        });
    }

    #[inline(always)]
    fn uniform_run(&mut self, run: UniformRun<'_>) {
        self.shader.shade_uniform_run(run, &mut self.waiting);
    }

    #[inline(always)]
    fn flat_run(&mut self, run: FlatRun<'_, 'a>) {
        debug_assert_eq!(run.first, self.waiting.len());
        self.shader.shade_flat_run(run, &mut self.waiting);
    }

    #[inline(always)]
    fn sky_run(&mut self, first: usize, dirs: [&[f32]; 3]) {
        debug_assert_eq!(first, self.waiting.len());
        self.shader.sky_run(dirs, &mut self.waiting);
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

impl SensorUnit for Camera {
    fn pass(&self) -> UnitPass {
        UnitPass::Parallel
    }

    fn rank(&self) -> u8 {
        3
    }

    fn reaching(&self) -> Option<Reaching> {
        Some(Reaching::WhenDue(self.lens.intrinsics().clip_max as f32))
    }

    fn measure(&mut self, cx: &StepContext<'_>, mount: &Mount, due: bool) -> Vec<Observation> {
        if !due {
            return Vec::new();
        }
        self.capture(cx, mount).into_iter().collect()
    }

    fn capture(&mut self, cx: &StepContext<'_>, mount: &Mount) -> Option<Observation> {
        let pose = mount.world_from_sensor(cx.sim);
        Some(Observation::Camera(self.render(
            cx.view,
            &pose,
            cx.lighting,
            cx.now,
        )))
    }

    fn set_visibility(&mut self, visibility: Visibility) {
        self.visibility = visibility;
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
