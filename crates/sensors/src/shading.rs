//! Shading of camera samples: the world's light, each sample's albedo (material, texture at
//! the right level of detail) and the sun's incidence on it (Lambert, smooth normals where
//! the surface has them), the sun's shadows by any-hit rays traced a run at a time, and the
//! sky where nothing is hit.
//!
//! Owns: how a seen surface becomes a linear colour. Must not touch: which surface a pixel
//! sees (the rasteriser and the ray caster), images and their encoding.

use crate::SceneView;
use glam::Vec3A;
use passerby_raycast::{GridBudget, ParallelGrid};
use passerby_scene::TriangleLook;
use passerby_scene::appearance::TexturePoint;
use passerby_world::World;
use sun_rays::SunRays;

mod sun_rays;

/// The world's light as cameras use it.
#[derive(Clone, Debug, PartialEq)]
pub struct Lighting {
    /// Unit vector towards the sun.
    pub to_sun: Vec3A,
    /// Linear colour of sunlight.
    pub colour: [f32; 3],
    /// Fraction of light that reaches every surface (0..1).
    pub ambient: f32,
    /// Cast the sun's shadows.
    pub shadows: bool,
}

impl Lighting {
    /// The light of a world's `<lights>`.
    pub fn of_world(world: &World) -> Lighting {
        let l = &world.lights;
        let [x, y, z] = l.light_direction();
        let c = l.light_color;
        Lighting {
            to_sun: -Vec3A::new(x as f32, y as f32, z as f32).normalize_or_zero(),
            colour: [c.r, c.g, c.b].map(passerby_scene::appearance::srgb_byte_to_linear),
            ambient: l.light_ambient.clamp(0.0, 1.0) as f32,
            shadows: l.enable_shadows,
        }
    }
}

/// Per-class colours (class id modulo the table), linear, for surfaces without a look.
const PALETTE: [[f32; 3]; 8] = [
    [0.30, 0.30, 0.30],
    [0.22, 0.20, 0.17],
    [0.52, 0.48, 0.44],
    [0.32, 0.19, 0.09],
    [0.70, 0.04, 0.02],
    [0.78, 0.45, 0.27],
    [0.07, 0.27, 0.10],
    [0.10, 0.18, 0.52],
];

/// The sky seen along a world direction when the world has no sky box: lighter towards the
/// horizon (linear).
fn gradient_sky(dir: Vec3A) -> [f32; 3] {
    gradient_at(dir.normalize_or_zero().z)
}

/// The gradient sky at `up`, the height of a direction of length 1.
#[inline(always)]
fn gradient_at(up: f32) -> [f32; 3] {
    let up = up.clamp(0.0, 1.0);
    [0.52 - 0.40 * up, 0.69 - 0.38 * up, 0.89 - 0.15 * up]
}

/// What `Vec3A::new(x, y, z).normalize_or_zero().z` gives, with glam's very operations:
/// the sum `(x x + y y) + z z`, its square root, one over that, times `z`.
#[inline(always)]
fn normalized_height(x: f32, y: f32, z: f32) -> f32 {
    let recip = 1.0 / ((x * x + y * y) + z * z).sqrt();
    if recip.is_finite() && recip > 0.0 {
        z * recip
    } else {
        0.0
    }
}

/// The grid that answers a frame of `pixels` pixels' shadow rays (all towards the sun) from the
/// leaves under each one's origin, if the light casts shadows and the scene is small enough
/// for the grid to repay its making: at most a leaf per 64 pixels (a room; not a warehouse of
/// shelves, nor a meadow) and four pixels per entry.
pub(crate) fn sun_grid(
    view: &SceneView<'_>,
    light: &Lighting,
    pixels: usize,
) -> Option<ParallelGrid> {
    if !light.shadows {
        return None;
    }
    let budget = GridBudget {
        max_leaves: pixels / 64,
        max_entries: pixels / 4,
    };
    ParallelGrid::new(&view.built.scene, light.to_sun, budget)
}

/// Linear colours of hits seen along `dirs` (of depth 1) from `origin`, each sample
/// `pixel_width` wide at depth 1, lit by `light` (on this thread), shadow rays answered from
/// `sun_grid` if there is one.
pub(crate) fn shade(
    view: &SceneView<'_>,
    origin: Vec3A,
    dirs: &[Vec3A],
    hits: &[Option<crate::Target>],
    (light, sun_grid): (&Lighting, Option<&ParallelGrid>),
    pixel_width: f32,
) -> Vec<[f32; 3]> {
    let mut shader =
        Shader::new(view, origin, (light, sun_grid), pixel_width).with_room(dirs.len());
    let mut lit: Vec<Lit> = (hits.iter().zip(dirs).enumerate())
        .map(|(k, (hit, dir))| shader.sample(k, *dir, hit.as_ref()))
        .collect();
    shader.sample_textures(&mut lit);
    shader.darken_shadowed(&mut lit);
    lit.iter().map(|&l| light.colour_of(l)).collect()
}

/// A sample's albedo (or, for the sky, its final colour) and the sun's incidence on it
/// (negative: sky).
pub(crate) type Lit = ([f32; 3], f32);

impl Lighting {
    /// The linear colour of a lit sample.
    pub(crate) fn colour_of(&self, (colour, incidence): Lit) -> [f32; 3] {
        if incidence < 0.0 {
            return colour; // sky
        }
        let diffuse = (1.0 - self.ambient) * incidence;
        std::array::from_fn(|c| colour[c] * (self.ambient + diffuse * self.colour[c]))
    }
}

/// Shades a run of neighbouring samples seen from `origin` (on this thread): their albedo and
/// the sun's incidence one by one, and the shadow rays of those facing the sun, traced
/// together at the end.
pub(crate) struct Shader<'a> {
    view: &'a SceneView<'a>,
    origin: Vec3A,
    pub(crate) light: &'a Lighting,
    /// What answers shadow rays, if not the scene's trees.
    sun_grid: Option<&'a ParallelGrid>,
    /// A sample's width at depth 1 across the optical axis.
    pixel_width: f32,
    /// Neighbouring samples mostly share a triangle: what it is and how it looks are found
    /// once.
    last_seen: Option<((u32, u32), SeenTriangle<'a>)>,
    shadow_rays: SunRays,
    /// The textured samples so far, to be sampled together (`sample_textures`): each
    /// sample's index, its footprint and where its texture is read. Sampling as each is
    /// shaded makes too long a chain of dependent steps for the processor to overlap the next
    /// sample's work with it.
    texture_points: Vec<(u32, f32, TexturePoint<'a>)>,
    /// Which samples of a uniform run see the back of its triangle (kept for the next run).
    run_backs: Vec<bool>,
    /// A sky run's heights, or a flat run's footprints (kept for the next run).
    run_heights: Vec<f32>,
}

/// What the samples that see one triangle share: what it is (as a ray reports it, its
/// distance and point aside) and how it looks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeenTriangle<'a> {
    pub(crate) target: crate::Target,
    look: Option<TriangleLook<'a>>,
    /// Texture coordinates per metre (0: untextured).
    texture_scale: f32,
    /// For a triangle that looks the same all over (or has no look), what every sample of it
    /// shades to, seen from in front of its normal and from behind (`shade`'s values, made
    /// once).
    uniform: Option<[Lit; 2]>,
}

impl<'a> SeenTriangle<'a> {
    /// For a triangle that looks the same all over, what its samples shade to seen in front
    /// of its normal and from behind.
    pub(crate) fn uniform(&self) -> Option<[Lit; 2]> {
        self.uniform
    }

    /// Whether it is a flat facet with a look whose colour varies over it (its samples are
    /// shaded by [`Shader::shade_flat_run`]).
    pub(crate) fn is_flat_varying(&self) -> bool {
        self.uniform.is_none() && self.look.is_some_and(|look| look.is_flat())
    }

    /// The triangle a sample's `target` is on; how it looks only if it is to be shaded (in
    /// `light`).
    pub(crate) fn new(
        view: &'a SceneView<'a>,
        target: crate::Target,
        light: Option<&Lighting>,
    ) -> SeenTriangle<'a> {
        let shaded = light.is_some();
        let (instance, triangle, _) = target.surface;
        let look = shaded
            .then(|| view.built.look(instance, triangle))
            .flatten();
        let uniform = light.filter(|_| look.is_none_or(|look| look.is_uniform()));
        let uniform = uniform.map(|light| {
            // Neither depends on the sample's position (nor on its footprint: no texture).
            let albedo = look
                .and_then(|look| look.colour_at(0.0, 0.0, 0.0))
                .unwrap_or_else(|| PALETTE[target.label as usize % PALETTE.len()]);
            [1.0, -1.0].map(|toward_camera| {
                let facing = target.normal * toward_camera;
                (albedo, facing.dot(light.to_sun).max(0.0))
            })
        });
        SeenTriangle {
            target,
            look,
            texture_scale: if shaded {
                view.texture_scale(&target)
            } else {
                0.0
            },
            uniform,
        }
    }
}

/// Neighbouring samples `first..first + dirs.len()` on a flat facet that is not uniform (it
/// has texture coordinates: its texture's colour varies over it), seen along `dirs` (of depth
/// 1) at distances `depths` and barycentric `uvs`.
pub(crate) struct FlatRun<'r, 'a> {
    pub(crate) first: usize,
    /// The directions' x, y and z.
    pub(crate) dirs: [&'r [f32]; 3],
    pub(crate) depths: &'r [f32],
    /// Each sample's barycentric `u` and `v`.
    pub(crate) uvs: [&'r [f32]; 2],
    pub(crate) seen: &'r SeenTriangle<'a>,
}

/// Neighbouring samples `first..first + dirs.len()` on a triangle that looks the same all
/// over, seen along `dirs` (of depth 1) at distances `depths`.
pub(crate) struct UniformRun<'r> {
    pub(crate) first: usize,
    /// The directions' x, y and z.
    pub(crate) dirs: [&'r [f32]; 3],
    pub(crate) depths: &'r [f32],
    /// The triangle's geometric normal.
    pub(crate) normal: Vec3A,
    /// What it shades to (see [`SeenTriangle::uniform`]).
    pub(crate) lits: [Lit; 2],
}

impl<'a> Shader<'a> {
    pub(crate) fn new(
        view: &'a SceneView<'a>,
        origin: Vec3A,
        (light, sun_grid): (&'a Lighting, Option<&'a ParallelGrid>),
        pixel_width: f32,
    ) -> Shader<'a> {
        Shader {
            view,
            origin,
            light,
            sun_grid,
            pixel_width,
            last_seen: None,
            shadow_rays: SunRays::new(light.to_sun),
            texture_points: Vec::new(),
            run_backs: Vec::new(),
            run_heights: Vec::new(),
        }
    }

    /// Room made for a run of `samples` samples' shadow rays and textures at once: grown a
    /// doubling at a time, the buffers were copied about twice over.
    pub(crate) fn with_room(mut self, samples: usize) -> Shader<'a> {
        if self.light.shadows {
            self.shadow_rays.reserve(samples);
        }
        self.texture_points.reserve(samples / 2);
        self
    }

    /// A sample that hit nothing: the sky (no light on it): the world's sky box, or else a
    /// gradient; black where the lens has no direction.
    #[inline]
    pub(crate) fn sky(&self, dir: Vec3A) -> Lit {
        let background = match &self.view.built.sky {
            _ if !dir.is_finite() => [0.0; 3],
            Some(sky_box) => sky_box.colour(dir),
            None => gradient_sky(dir),
        };
        (background, -1.0)
    }

    /// Neighbouring samples that see the sky along `dirs` (x, y and z): what [`Shader::sky`]
    /// gives each, pushed onto `out`; the gradient's heights in a loop the compiler lays out
    /// in vectors.
    pub(crate) fn sky_run(&mut self, [xs, ys, zs]: [&[f32]; 3], out: &mut Vec<Lit>) {
        let dirs = xs.iter().zip(ys).zip(zs).map(|((&x, &y), &z)| (x, y, z));
        if self.view.built.sky.is_some() {
            out.extend(dirs.map(|(x, y, z)| self.sky(Vec3A::new(x, y, z))));
            return;
        }
        let heights = &mut self.run_heights;
        heights.clear();
        // Black where the lens has no direction, as `sky`.
        heights.extend(dirs.map(|(x, y, z)| {
            let finite = x.is_finite() & y.is_finite() & z.is_finite();
            if finite {
                normalized_height(x, y, z)
            } else {
                f32::NAN
            }
        }));
        out.extend(heights.iter().map(|&up| {
            let background = if up.is_nan() {
                [0.0; 3]
            } else {
                gradient_at(up)
            };
            (background, -1.0)
        }));
    }

    /// Sample `k`, seen along `dir` (of depth 1): what it hit, if anything.
    #[inline]
    pub(crate) fn sample(&mut self, k: usize, dir: Vec3A, hit: Option<&crate::Target>) -> Lit {
        let Some(t) = hit else {
            return self.sky(dir);
        };
        let (instance, triangle, uv) = t.surface;
        let seen = match self.last_seen {
            Some((key, seen)) if key == (instance, triangle) => seen,
            _ => {
                let seen = SeenTriangle::new(self.view, *t, Some(self.light));
                self.last_seen = Some(((instance, triangle), seen));
                seen
            }
        };
        self.shade(k, dir, &seen, t.t, uv)
    }

    /// Sample `k`, seen along `dir` (of depth 1), on the triangle `seen` at distance `t` and
    /// barycentric `(u, v)`.
    #[inline(always)]
    pub(crate) fn shade(
        &mut self,
        k: usize,
        dir: Vec3A,
        seen: &SeenTriangle<'a>,
        t: f32,
        [u, v]: [f32; 2],
    ) -> Lit {
        let normal = seen.target.normal;
        let cos = normal.dot(dir);
        if let Some(lits) = &seen.uniform {
            let lit = lits[usize::from(cos > 0.0)];
            if self.light.shadows && lit.1 > 0.0 {
                let toward_camera = if cos > 0.0 { -1.0 } else { 1.0 };
                self.push_shadow_ray(k, dir, t, normal * toward_camera);
            }
            return lit;
        }
        let look = seen.look;
        // The sample's footprint on a textured surface, in texture coordinates: its width
        // across the line of sight, spread by the obliquity (up to 16 times, where texture
        // levels stop mattering anyway).
        let scale = seen.texture_scale;
        let uv_across = if scale > 0.0 {
            let obliquity = (cos.abs() / dir.length()).max(1.0 / 16.0);
            t * self.pixel_width / obliquity * scale
        } else {
            0.0
        };
        let albedo = match look.and_then(|look| look.texture_at(u, v)) {
            // Sampled with the others (`sample_textures`).
            Some(point) => {
                self.texture_points.push((k as u32, uv_across, point));
                [0.0; 3]
            }
            None => look
                .and_then(|look| look.colour_at(u, v, uv_across))
                .unwrap_or_else(|| PALETTE[seen.target.label as usize % PALETTE.len()]),
        };
        // Lambert from the side the camera sees, with the interpolated normal of a smooth
        // surface turned to that side too.
        let toward_camera = if cos > 0.0 { -1.0 } else { 1.0 };
        let facing = normal * toward_camera;
        let shading = look
            .and_then(|look| look.shading_normal(u, v))
            .map_or(facing, |n| n * toward_camera);
        let light = self.light;
        let incidence = shading.dot(light.to_sun).max(0.0);
        if light.shadows && incidence > 0.0 {
            self.push_shadow_ray(k, dir, t, facing);
        }
        (albedo, incidence)
    }

    /// The samples of `run`: what [`Shader::shade`] gives each, pushed onto `out`, and the
    /// shadow rays it would queue. `shade`'s operations, axis by axis in loops the compiler
    /// lays out in vectors (glam's dot product sums `(x + y) + z`): the same values.
    #[inline(always)]
    pub(crate) fn shade_uniform_run(&mut self, run: UniformRun<'_>, out: &mut Vec<Lit>) {
        let ([xs, ys, zs], normal) = (run.dirs, run.normal);
        // Which side of the triangle each sample sees (`cos > 0`: its back).
        let backs = &mut self.run_backs;
        backs.clear();
        backs.extend(
            (xs.iter().zip(ys).zip(zs))
                .map(|((&x, &y), &z)| (normal.x * x + normal.y * y) + normal.z * z > 0.0),
        );
        out.extend(backs.iter().map(|&back| run.lits[usize::from(back)]));
        let lit = run.lits.map(|lit| lit.1 > 0.0);
        if self.light.shadows && (lit[0] || lit[1]) {
            (self.shadow_rays).push_run(
                (self.origin, run.first),
                (run.dirs, run.depths),
                (normal, backs),
                lit,
            );
        }
    }

    /// The samples of `run`: what [`Shader::shade`] gives each, pushed onto `out`, with the
    /// textures and shadow rays it would queue. Its footprints and sides (a square root and
    /// two divisions a sample) axis by axis in loops the compiler lays out in vectors, with
    /// `shade`'s operations (glam's dot product and length sum `(x + y) + z`); a flat facet's
    /// incidence depends only on the side seen, so it is made once per side.
    pub(crate) fn shade_flat_run(&mut self, run: FlatRun<'_, 'a>, out: &mut Vec<Lit>) {
        let ([xs, ys, zs], [us, vs], seen) = (run.dirs, run.uvs, run.seen);
        let n = (xs.len().min(ys.len()).min(zs.len()))
            .min(run.depths.len())
            .min(us.len().min(vs.len()));
        let (xs, ys, zs, depths) = (&xs[..n], &ys[..n], &zs[..n], &run.depths[..n]);
        let normal = seen.target.normal;
        let cos = |k: usize| (normal.x * xs[k] + normal.y * ys[k]) + normal.z * zs[k];
        let backs = &mut self.run_backs;
        backs.clear();
        backs.extend((0..n).map(|k| cos(k) > 0.0));
        let across = &mut self.run_heights;
        across.clear();
        let (scale, pixel_width) = (seen.texture_scale, self.pixel_width);
        if scale > 0.0 {
            across.extend((0..n).map(|k| {
                let length = ((xs[k] * xs[k] + ys[k] * ys[k]) + zs[k] * zs[k]).sqrt();
                let obliquity = (cos(k).abs() / length).max(1.0 / 16.0);
                depths[k] * pixel_width / obliquity * scale
            }));
        } else {
            across.resize(n, 0.0);
        }
        let light = self.light;
        // Seen from in front of its normal, and from behind.
        let incidence = [1.0f32, -1.0].map(|toward_camera| {
            let facing = normal * toward_camera;
            facing.dot(light.to_sun).max(0.0)
        });
        let look = seen.look;
        for (k, (&back, &uv_across)) in backs.iter().zip(across.iter()).enumerate() {
            let (u, v) = (us[k], vs[k]);
            let albedo = match look.and_then(|look| look.texture_at(u, v)) {
                Some(point) => {
                    (self.texture_points).push(((run.first + k) as u32, uv_across, point));
                    [0.0; 3]
                }
                None => look
                    .and_then(|look| look.colour_at(u, v, uv_across))
                    .unwrap_or_else(|| PALETTE[seen.target.label as usize % PALETTE.len()]),
            };
            out.push((albedo, incidence[usize::from(back)]));
        }
        let lit = incidence.map(|incidence| incidence > 0.0);
        if light.shadows && (lit[0] || lit[1]) {
            (self.shadow_rays).push_run(
                (self.origin, run.first),
                ([xs, ys, zs], depths),
                (normal, backs),
                lit,
            );
        }
    }

    /// Samples the textures of the textured samples so far (`lit[k]` is sample `k`): their
    /// albedo.
    pub(crate) fn sample_textures(&mut self, lit: &mut [Lit]) {
        for (k, uv_across, point) in self.texture_points.drain(..) {
            lit[k as usize].0 = point.colour(uv_across);
        }
    }

    /// Queues the shadow ray of sample `k`, seen along `dir` at distance `t` on a surface
    /// `facing` the camera.
    #[inline(always)]
    fn push_shadow_ray(&mut self, k: usize, dir: Vec3A, t: f32, facing: Vec3A) {
        (self.shadow_rays).push(k, (self.origin, dir, t), facing);
    }

    /// Traces the shadow rays of the samples so far and takes the sun from those it misses
    /// (`lit[k]` is sample `k`).
    pub(crate) fn darken_shadowed(&mut self, lit: &mut [Lit]) {
        let scene = &self.view.built.scene;
        (self.shadow_rays).trace(scene, self.sun_grid, |k| lit[k].1 = 0.0);
    }
}
