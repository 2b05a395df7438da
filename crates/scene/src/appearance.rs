//! How surfaces look to cameras: per triangle of a mesh, its material (a base colour and
//! an optional texture) and the texture coordinates of its corners.
//!
//! Colours are linear RGB in 0..1; texture images are sRGB (as glTF, OBJ and PNG files mean
//! them) and are converted when sampled. Texture coordinates follow glTF: `(0, 0)` is the
//! image's top-left corner, and coordinates outside 0..1 repeat.

use glam::{Vec2, Vec3};
use passerby_assets::{Model, TextureImage};
use passerby_world::Color;
use std::collections::HashMap;
use std::sync::Arc;

/// One material as a camera sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceMaterial {
    /// Linear RGB base colour (a factor on the texture when there is one).
    pub colour: [f32; 3],
    /// The base colour texture, if any.
    pub texture: Option<Arc<TextureImage>>,
}

impl SurfaceMaterial {
    /// An untextured material of a world colour (sRGB bytes, as MVSim's `#rrggbb`).
    pub fn plain(c: Color) -> SurfaceMaterial {
        SurfaceMaterial {
            colour: [c.r, c.g, c.b].map(srgb_byte_to_linear),
            texture: None,
        }
    }
}

/// The look of every triangle of one mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// The materials.
    pub materials: Vec<SurfaceMaterial>,
    /// Per triangle, its index in `materials`.
    pub triangle_material: Vec<u32>,
    /// Per triangle, the texture coordinates of its three corners (zeros where the mesh has
    /// none).
    pub triangle_uvs: Vec<[Vec2; 3]>,
    /// Per triangle, the unit normals of its three corners in the mesh's frame, interpolated
    /// for shading (MAVS `Smooth Normals`); empty for flat facets.
    pub triangle_normals: Vec<[Vec3; 3]>,
}

impl Surface {
    /// A surface of `triangles` triangles of one colour.
    pub fn plain(colour: Color, triangles: usize) -> Surface {
        Surface {
            materials: vec![SurfaceMaterial::plain(colour)],
            triangle_material: vec![0; triangles],
            triangle_uvs: vec![[Vec2::ZERO; 3]; triangles],
            triangle_normals: Vec::new(),
        }
    }

    /// Gives the surface smooth shading normals: at each corner, the area-weighted mean of the
    /// facets around its position (corners at the same position are welded, so a mesh whose
    /// file splits vertices per facet is smoothed too).
    pub fn with_smooth_normals(mut self, vertices: &[Vec3], triangles: &[[u32; 3]]) -> Surface {
        let key = |v: Vec3| v.to_array().map(f32::to_bits);
        let mut sums: HashMap<[u32; 3], Vec3> = HashMap::new();
        for t in triangles {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let facet = (b - a).cross(c - a);
            for p in [a, b, c] {
                *sums.entry(key(p)).or_insert(Vec3::ZERO) += facet;
            }
        }
        self.triangle_normals = triangles
            .iter()
            .map(|t| t.map(|i| sums[&key(vertices[i as usize])].normalize_or_zero()))
            .collect();
        self
    }

    /// A model's look, its meshes merged in order (as the scene merges their triangles);
    /// `tint` replaces every material's colour and texture (MVSim's `model_color`).
    pub fn of_model(model: &Model, tint: Option<Color>) -> Surface {
        let mut materials: Vec<SurfaceMaterial> = match tint {
            Some(c) => vec![SurfaceMaterial::plain(c)],
            None => model
                .materials
                .iter()
                .map(|m| SurfaceMaterial {
                    colour: [m.base_color[0], m.base_color[1], m.base_color[2]],
                    texture: m.texture.as_ref().and_then(|t| t.image.clone()),
                })
                .collect(),
        };
        // Meshes without a material get a light grey of their own.
        let fallback = materials.len() as u32;
        materials.push(SurfaceMaterial {
            colour: [0.6; 3],
            texture: None,
        });
        let mut surface = Surface {
            materials,
            ..Surface::default()
        };
        for mesh in &model.meshes {
            let material = match (tint, mesh.material) {
                (Some(_), _) => 0,
                (None, Some(m)) if m < model.materials.len() => m as u32,
                _ => fallback,
            };
            surface
                .triangle_material
                .extend(std::iter::repeat_n(material, mesh.triangles.len()));
            surface.triangle_uvs.extend(
                mesh.triangles
                    .iter()
                    .map(|t| t.map(|i| mesh.uvs.get(i as usize).copied().unwrap_or(Vec2::ZERO))),
            );
        }
        surface
    }

    /// Appends another surface's triangles (after this one's), keeping their materials.
    pub fn append(&mut self, other: &Surface) {
        let base = self.materials.len() as u32;
        self.materials.extend(other.materials.iter().cloned());
        self.triangle_material
            .extend(other.triangle_material.iter().map(|m| m + base));
        self.triangle_uvs.extend_from_slice(&other.triangle_uvs);
        // Shading normals are in each mesh's own frame, which merging changes: merged
        // surfaces are flat.
        self.triangle_normals.clear();
    }

    /// Texture coordinates per unit of length on `triangle` (the square root of the ratio of
    /// its area in texture coordinates to `area()`, its area; asked for only when it is
    /// textured), or 0 when it has no texture.
    pub fn texture_scale(&self, triangle: u32, area: impl FnOnce() -> f32) -> f32 {
        let t = triangle as usize;
        let textured = (self.triangle_material.get(t))
            .and_then(|&m| self.materials.get(m as usize))
            .is_some_and(|m| m.texture.is_some());
        let Some([a, b, c]) = self.triangle_uvs.get(t).filter(|_| textured) else {
            return 0.0;
        };
        let uv_area = 0.5 * (*b - *a).perp_dot(*c - *a).abs();
        let scale = (uv_area / area()).sqrt();
        if scale.is_finite() { scale } else { 0.0 }
    }
}

/// How one triangle of a placed mesh looks: what [`Surface`] holds for it and how its normals
/// reach the world frame, looked up once for the many samples that see it.
#[derive(Clone, Copy, Debug)]
pub struct TriangleLook<'a> {
    material: &'a SurfaceMaterial,
    /// Its corners' texture coordinates (when textured).
    uvs: Option<&'a [Vec2; 3]>,
    /// Its corners' shading normals, mesh frame (when smooth).
    normals: Option<&'a [Vec3; 3]>,
    normal_to_world: glam::Mat3A,
}

impl<'a> TriangleLook<'a> {
    /// The look of `triangle` of `surface`, placed with `normal_to_world` (the inverse
    /// transpose of its placement); `None` if the surface has no such triangle.
    pub fn new(
        surface: &'a Surface,
        triangle: u32,
        normal_to_world: glam::Mat3A,
    ) -> Option<TriangleLook<'a>> {
        let t = triangle as usize;
        let material = surface
            .materials
            .get(*surface.triangle_material.get(t)? as usize)?;
        let uvs = surface
            .triangle_uvs
            .get(t)
            .filter(|_| material.texture.is_some());
        Some(TriangleLook {
            material,
            uvs,
            normals: surface.triangle_normals.get(t),
            normal_to_world,
        })
    }

    /// The linear colour at barycentric `(u, v)`, seen through a footprint `uv_across` wide in
    /// texture coordinates (0 for the full-resolution texture).
    #[inline]
    pub fn colour_at(&self, u: f32, v: f32, uv_across: f32) -> Option<[f32; 3]> {
        if self.material.texture.is_none() {
            return Some(self.material.colour);
        }
        Some(self.texture_at(u, v)?.colour(uv_across))
    }

    /// Where its texture is to be sampled at barycentric `(u, v)` (`None` when it has no
    /// texture, or no texture coordinates): [`TriangleLook::colour_at`] in two steps, for
    /// callers that sample many points' textures after finding them.
    #[inline]
    pub fn texture_at(&self, u: f32, v: f32) -> Option<TexturePoint<'a>> {
        let texture = self.material.texture.as_deref()?;
        let [a, b, c] = self.uvs?;
        Some(TexturePoint {
            texture,
            uv: *a * (1.0 - u - v) + *b * u + *c * v,
            colour: self.material.colour,
        })
    }

    /// Whether it looks the same all over: no texture to sample and no shading normals to
    /// interpolate ([`TriangleLook::colour_at`] and [`TriangleLook::shading_normal`] then do not
    /// depend on where they are asked).
    pub fn is_uniform(&self) -> bool {
        self.uvs.is_none() && self.normals.is_none()
    }

    /// Whether it is a flat facet: [`TriangleLook::shading_normal`] is `None` everywhere.
    pub fn is_flat(&self) -> bool {
        self.normals.is_none()
    }

    /// The world-frame unit shading normal at barycentric `(u, v)`; `None` for a flat facet.
    #[inline]
    pub fn shading_normal(&self, u: f32, v: f32) -> Option<glam::Vec3A> {
        let [a, b, c] = self.normals?;
        let n = *a * (1.0 - u - v) + *b * u + *c * v;
        let unit = (self.normal_to_world * glam::Vec3A::from(n)).normalize_or_zero();
        (unit != glam::Vec3A::ZERO).then_some(unit)
    }
}

/// A point of a textured surface, to be sampled: [`TriangleLook::texture_at`].
#[derive(Clone, Copy, Debug)]
pub struct TexturePoint<'a> {
    texture: &'a TextureImage,
    /// Texture coordinates.
    uv: Vec2,
    /// The material's colour (a factor on the texture's).
    colour: [f32; 3],
}

impl TexturePoint<'_> {
    /// The linear colour there, seen through a footprint `uv_across` wide in texture
    /// coordinates.
    #[inline]
    pub fn colour(&self, uv_across: f32) -> [f32; 3] {
        let texel = sample_mipmapped(self.texture, self.uv, uv_across);
        std::array::from_fn(|k| self.colour[k] * texel[k])
    }
}

/// The linear RGB of a texture at `uv` seen through a footprint `uv_across` wide in texture
/// coordinates: bilinearly filtered in the mip level whose texels are nearest that wide
/// (level 0, the image, when they are narrower or the width is not a finite positive number).
/// Distant textured surfaces then show their mean colour rather than a scatter of texels
/// (which also read memory all over a large image).
pub fn sample_mipmapped(image: &TextureImage, uv: Vec2, uv_across: f32) -> [f32; 3] {
    let texels_across = uv_across * ((image.width as f32) * (image.height as f32)).sqrt();
    // Level k has texels 2^k wide: the nearest level in log2 is round(log2(texels_across)),
    // level 1 from sqrt(2) texels on.
    if texels_across.is_nan() || texels_across < std::f32::consts::SQRT_2 {
        return sample_bilinear(image, uv);
    }
    // round(log2(x)) = floor(log2(x * sqrt(2))): the float's exponent.
    let level = (((texels_across * std::f32::consts::SQRT_2).to_bits() >> 23) - 127) as usize;
    let levels = image.derived(mip_levels);
    match levels.get(level.min(levels.len()).wrapping_sub(1)) {
        Some(smaller) => sample_bilinear(smaller, uv),
        None => sample_bilinear(image, uv),
    }
}

/// Mip levels 1, 2, …: each half the size of the one before (rounded down, at least 1), each
/// texel the mean in linear light of the (up to) 2 x 2 texels it covers, down to 1 x 1.
pub fn mip_levels(image: &TextureImage) -> Vec<TextureImage> {
    let mut levels: Vec<TextureImage> = Vec::new();
    let valid = |i: &TextureImage| {
        i.width > 0 && i.height > 0 && i.rgba.len() >= i.width as usize * i.height as usize * 4
    };
    if !valid(image) {
        return levels;
    }
    let to_linear = &tables().to_linear;
    loop {
        let above = levels.last().unwrap_or(image);
        if above.width == 1 && above.height == 1 {
            return levels;
        }
        let (w, h) = ((above.width / 2).max(1), (above.height / 2).max(1));
        let (aw, ah) = (above.width as usize, above.height as usize);
        let mut rgba = Vec::with_capacity(w as usize * h as usize * 4);
        for y in 0..h as usize {
            let rows = [2 * y, (2 * y + 1).min(ah - 1)];
            for x in 0..w as usize {
                let cols = [2 * x, (2 * x + 1).min(aw - 1)];
                let mut sum = [0.0f32; 4];
                for row in rows {
                    for col in cols {
                        let texel = &above.rgba[(row * aw + col) * 4..][..4];
                        for k in 0..3 {
                            sum[k] += to_linear[usize::from(texel[k])];
                        }
                        sum[3] += f32::from(texel[3]);
                    }
                }
                let colour = linear_to_srgb_bytes([sum[0], sum[1], sum[2]].map(|c| c / 4.0));
                rgba.extend_from_slice(&colour);
                rgba.push((sum[3] / 4.0).round() as u8);
            }
        }
        levels.push(TextureImage::new(w, h, rgba));
    }
}

/// The linear RGB of a texture at `uv`, bilinearly filtered between the four nearest texel
/// centres, repeating at the edges.
pub fn sample_bilinear(image: &TextureImage, uv: Vec2) -> [f32; 3] {
    let (w, h) = (image.width as i64, image.height as i64);
    if w == 0 || h == 0 || image.rgba.len() < (w * h * 4) as usize {
        return [1.0; 3];
    }
    // Texel centres sit at half-integers.
    let x = f64::from(uv.x) * w as f64 - 0.5;
    let y = f64::from(uv.y) * h as f64 - 0.5;
    // Beyond ±2^52 texels coordinates have no fraction left (and wrap meaninglessly).
    const LIMIT: f64 = 4.5e15;
    if !(x.abs() < LIMIT && y.abs() < LIMIT) {
        return [1.0; 3];
    }
    // Floors without a libm call (the casts are exact within the limit).
    let floor = |v: f64| {
        let t = v as i64;
        t - i64::from(v < t as f64)
    };
    let (x0, y0) = (floor(x), floor(y));
    let (fx, fy) = ((x - x0 as f64) as f32, (y - y0 as f64) as f32);
    // Repeats (tiled surfaces sample mostly outside the image): a mask for power-of-two sizes
    // (what `rem_euclid` gives, negative coordinates included), else a division, and none for
    // coordinates inside; the next texel wraps from the first.
    let wrap = |v: i64, n: i64| {
        if (0..n).contains(&v) {
            v
        } else if n & (n - 1) == 0 {
            v & (n - 1)
        } else {
            v.rem_euclid(n)
        }
    };
    let (x0, y0) = (wrap(x0, w), wrap(y0, h));
    let next = |v: i64, n: i64| if v + 1 == n { 0 } else { v + 1 };
    let (x1, y1) = (next(x0, w), next(y0, h));
    let to_linear = &tables().to_linear;
    let texel = |xi: i64, yi: i64| -> [f32; 3] {
        let i = ((yi * w + xi) * 4) as usize;
        let rgb = &image.rgba[i..i + 3];
        std::array::from_fn(|k| to_linear[usize::from(rgb[k])])
    };
    blend(
        [texel(x0, y0), texel(x1, y0), texel(x0, y1), texel(x1, y1)],
        fx,
        fy,
    )
}

/// Bilinear interpolation between four texels (top left, top right, bottom left, bottom
/// right) at fractions `fx` across and `fy` down.
#[inline(always)]
pub(crate) fn blend([a, b, c, d]: [[f32; 3]; 4], fx: f32, fy: f32) -> [f32; 3] {
    std::array::from_fn(|k| {
        let top = a[k] + (b[k] - a[k]) * fx;
        let bottom = c[k] + (d[k] - c[k]) * fx;
        top + (bottom - top) * fy
    })
}

/// sRGB byte to linear 0..1 (IEC 61966-2-1), from a table.
pub fn srgb_byte_to_linear(byte: u8) -> f32 {
    tables().to_linear[usize::from(byte)]
}

/// Linear 0..1 to the nearest sRGB byte (clamped), by search in a table of the linear values
/// halfway between bytes (exactly `round(255 * srgb(linear))`, without a power per call).
pub fn linear_to_srgb_byte(linear: f32) -> u8 {
    srgb_byte_in(tables(), linear)
}

/// [`linear_to_srgb_byte`] of each channel.
#[inline]
pub fn linear_to_srgb_bytes([r, g, b]: [f32; 3]) -> [u8; 3] {
    let t = tables();
    // `cell_of` for the three channels in one vector: `maxps` with 0 takes NaN and -0 to +0
    // and `minps` with 1 keeps 1, as its comparisons do, and the products and sums are the
    // same operations lane by lane; the tables are read channel by channel.
    const MAGIC: f32 = 12_582_912.0;
    let clamped = glam::Vec4::new(r, g, b, 0.0)
        .max(glam::Vec4::ZERO)
        .min(glam::Vec4::ONE);
    let shifted = (clamped * CELLS as f32 - glam::Vec4::splat(0.5)) + glam::Vec4::splat(MAGIC);
    let (clamped, shifted) = (clamped.to_array(), shifted.to_array());
    std::array::from_fn(|k| {
        let cell = ((shifted[k].to_bits() & 0x7F_FFFF) - (1 << 22)) as usize;
        let (byte, next) = (t.byte_at_cell[cell], t.halfway_after_cell[cell]);
        byte + u8::from(next <= clamped[k])
    })
}

#[inline]
fn srgb_byte_in(t: &SrgbTables, linear: f32) -> u8 {
    // The byte is the number of halfway points at or below the value: start from the count at
    // the lower end of the value's cell (exact: scaling by a power of two does not round),
    // then step over the halfway point (at most one) between there and the value. Both table
    // reads depend on the cell only, so they overlap.
    let (cell, clamped) = cell_of(linear);
    let (byte, next) = (t.byte_at_cell[cell], t.halfway_after_cell[cell]);
    // A step taken or not by arithmetic: which one is unpredictable, and a branch on it cost
    // more than the rest of the conversion. (Clamped: above the last cell, where the next
    // halfway point is infinite, an infinite value must not step.)
    byte + u8::from(next <= clamped)
}

/// The cell of `linear` (clamped to `0..=1`, NaN as 0): `floor(linear * CELLS)`, or one less
/// where `linear` is exactly a cell's lower end, which is also the upper end of the cell below
/// (the tables answer the same there). Without a float-to-integer conversion: adding
/// `1.5 * 2^23` rounds `linear * CELLS - 0.5` to an integer (ties to even) in the low bits of
/// the sum. `linear * CELLS` is exact (CELLS is a power of two), and so is the subtraction
/// wherever it matters (from 0.5 up; below, everything rounds to cell 0).
/// Also returns the clamped value.
#[inline]
fn cell_of(linear: f32) -> (usize, f32) {
    const MAGIC: f32 = 12_582_912.0;
    let clamped = if linear > 0.0 { linear } else { 0.0 };
    let clamped = if clamped < 1.0 { clamped } else { 1.0 };
    let shifted = (clamped * CELLS as f32 - 0.5) + MAGIC;
    (
        ((shifted.to_bits() & 0x7F_FFFF) - (1 << 22)) as usize,
        clamped,
    )
}

/// Cells of the linear range `0..1` indexing [`SrgbTables::byte_at_cell`].
/// Halfway points are at least 1 / (255 x 12.92) = 3.0e-4 apart (the linear segment at the
/// bottom; above it they spread), so cells of 1 / 4096 hold at most one, and the table (4 KB)
/// stays in the first-level cache beside a frame's other data.
const CELLS: usize = 4096;

struct SrgbTables {
    to_linear: [f32; 256],
    /// The number of halfway points at or below `cell / CELLS`.
    byte_at_cell: [u8; CELLS + 1],
    /// The first halfway point above `cell / CELLS` (infinite above the last).
    halfway_after_cell: [f32; CELLS + 1],
}

fn tables() -> &'static SrgbTables {
    static TABLES: std::sync::OnceLock<SrgbTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let halfway = halfway_points();
        let byte_at_cell: [u8; CELLS + 1] = std::array::from_fn(|cell| {
            let low = cell as f32 / CELLS as f32;
            halfway.partition_point(|&h| h <= low) as u8
        });
        SrgbTables {
            to_linear: std::array::from_fn(|b| decode(b as f64 / 255.0) as f32),
            byte_at_cell,
            halfway_after_cell: byte_at_cell.map(|byte| {
                halfway
                    .get(usize::from(byte))
                    .copied()
                    .unwrap_or(f32::INFINITY)
            }),
        }
    })
}

/// `k` -> the linear value whose sRGB encoding is `(k + 0.5) / 255`: where rounding to a
/// byte steps from `k` to `k + 1`.
fn halfway_points() -> [f32; 255] {
    std::array::from_fn(|k| decode((k as f64 + 0.5) / 255.0) as f32)
}

/// The sRGB transfer function's inverse: encoded 0..1 to linear 0..1.
fn decode(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_round_trips_every_byte_and_rounds_to_nearest() {
        for b in 0..=255u8 {
            assert_eq!(linear_to_srgb_byte(srgb_byte_to_linear(b)), b);
        }
        let encode = |l: f64| {
            if l <= 0.003_130_8 {
                12.92 * l
            } else {
                1.055 * l.powf(1.0 / 2.4) - 0.055
            }
        };
        for k in 0..=1000 {
            let l = k as f64 / 1000.0;
            let want = (255.0 * encode(l)).round() as u8;
            assert_eq!(linear_to_srgb_byte(l as f32), want, "{l}");
        }
        assert_eq!(
            (linear_to_srgb_byte(-1.0), linear_to_srgb_byte(2.0)),
            (0, 255)
        );
        assert_eq!(linear_to_srgb_byte(f32::NAN), 0);
        let extremes = [
            f32::NEG_INFINITY,
            -0.0,
            1e-45,
            0.5 / CELLS as f32,
            f32::INFINITY,
        ];
        assert_eq!(extremes.map(linear_to_srgb_byte), [0, 0, 0, 0, 255]);
        // The cell shortcut counts exactly as a search of the halfway points, on each side of
        // every halfway point and cell edge and across the range.
        let cells = &tables().byte_at_cell;
        assert!(
            cells.windows(2).all(|c| c[1] - c[0] <= 1),
            "one step at most"
        );
        let halfway = &halfway_points();
        let by_search = |l: f32| halfway.partition_point(|&h| h <= l) as u8;
        let cell_edges = (0..=CELLS).map(|c| c as f32 / CELLS as f32);
        let probes = halfway
            .iter()
            .copied()
            .chain(cell_edges)
            .flat_map(|x| [x.next_down(), x, x.next_up()]);
        for l in probes.chain((0..=100_000).map(|k| k as f32 / 100_000.0)) {
            assert_eq!(linear_to_srgb_byte(l), by_search(l), "{l}");
        }
    }

    /// The three channels at once (in a vector) give each channel's byte, on every probe of
    /// the test above and at the extremes, in each channel's place.
    #[test]
    fn three_channels_at_once_encode_as_one_at_a_time() {
        let halfway = halfway_points();
        let cell_edges = (0..=CELLS).map(|c| c as f32 / CELLS as f32);
        let extremes = [
            f32::NAN,
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1e-45,
            1.0,
            2.0,
        ];
        let probes: Vec<f32> = (halfway.iter().copied())
            .chain(cell_edges)
            .flat_map(|x| [x.next_down(), x, x.next_up()])
            .chain(extremes)
            .chain([f32::INFINITY])
            .chain((0..=20_000).map(|k| k as f32 / 20_000.0))
            .collect();
        for (i, &l) in probes.iter().enumerate() {
            let other = probes[(i * 7 + 3) % probes.len()];
            let want = [l, other, 0.5].map(linear_to_srgb_byte);
            assert_eq!(linear_to_srgb_bytes([l, other, 0.5]), want, "{l} {other}");
            let rotated = [0.5, l, other];
            assert_eq!(
                linear_to_srgb_bytes(rotated),
                rotated.map(linear_to_srgb_byte),
                "{l} {other}"
            );
        }
    }

    #[test]
    fn mip_levels_halve_down_to_one_texel_averaging_in_linear_light() {
        // 5 x 3, black and white columns alternating.
        let rgba: Vec<u8> = (0..15)
            .flat_map(|k| {
                let v = if k % 2 == 0 { 0 } else { 255 };
                [v, v, v, 255]
            })
            .collect();
        let image = TextureImage::new(5, 3, rgba);
        let levels = mip_levels(&image);
        let sizes: Vec<(u32, u32)> = levels.iter().map(|l| (l.width, l.height)).collect();
        assert_eq!(sizes, [(2, 1), (1, 1)]);
        // Two black and two white texels average to linear 0.5, not to byte 128.
        assert_eq!(&levels[0].rgba[..4], &[188, 188, 188, 255]);
        // The levels are made once and kept with the image.
        assert_eq!(image.derived(mip_levels).len(), 2);
        assert!(image.derived(|_| Vec::new()).len() == 2);
        // A footprint under sqrt(2) texels samples the image itself; a wide one the mean.
        let uv = Vec2::new(0.5, 0.5);
        assert_eq!(
            sample_mipmapped(&image, uv, 0.2),
            sample_bilinear(&image, uv)
        );
        assert_eq!(
            sample_mipmapped(&image, uv, f32::NAN),
            sample_bilinear(&image, uv)
        );
        let far = sample_mipmapped(&image, uv, 100.0);
        assert!((far[0] - srgb_byte_to_linear(188)).abs() < 1e-6, "{far:?}");
    }

    #[test]
    fn bilinear_hits_texel_centres_and_blends_between() {
        // 2 x 1: black, white.
        let image = TextureImage::new(2, 1, vec![0, 0, 0, 255, 255, 255, 255, 255]);
        assert_eq!(sample_bilinear(&image, Vec2::new(0.25, 0.5)), [0.0; 3]);
        assert_eq!(sample_bilinear(&image, Vec2::new(0.75, 0.5)), [1.0; 3]);
        let mid = sample_bilinear(&image, Vec2::new(0.5, 0.5));
        assert!((mid[0] - 0.5).abs() < 1e-6);
        // Repeats: u = 1.25 is u = 0.25.
        assert_eq!(sample_bilinear(&image, Vec2::new(1.25, 0.5)), [0.0; 3]);
    }

    #[test]
    fn repeats_wrap_every_way_for_any_size() {
        // Widths 3 (a division wraps) and 4 (a mask wraps), one row of distinct greys; texel
        // centres many periods away on both sides read the texel they repeat, and halfway
        // between the last texel and the first of the next period blends the two.
        for w in [3u32, 4] {
            let grey = |k: u32| (40 + 60 * k) as u8;
            let rgba = (0..w)
                .flat_map(|k| [grey(k), grey(k), grey(k), 255])
                .collect();
            let image = TextureImage::new(w, 1, rgba);
            for period in [-7i32, -1, 0, 1, 5] {
                for k in 0..w {
                    let u = period as f32 + (k as f32 + 0.5) / w as f32;
                    let got = sample_bilinear(&image, Vec2::new(u, 0.5))[0];
                    // (u itself is rounded to f32: a texel centre give or take a hair.)
                    let want = srgb_byte_to_linear(grey(k));
                    assert!((got - want).abs() < 1e-4, "w {w}, u {u}: {got} vs {want}");
                }
                let seam = sample_bilinear(&image, Vec2::new(period as f32, 0.5))[0];
                let mean = (srgb_byte_to_linear(grey(w - 1)) + srgb_byte_to_linear(grey(0))) / 2.0;
                assert!(
                    (seam - mean).abs() < 1e-6,
                    "w {w}, seam at {period}: {seam}"
                );
            }
        }
    }
}
