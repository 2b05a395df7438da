//! The world's sky box (MVSim's `skybox` element): six images on the faces of a cube at
//! infinity around every camera, unlit, seen wherever nothing is hit.
//!
//! Where each image goes is where MVSim (through MRPT 2's `CSkyBox`) puts it: an OpenGL cube
//! map looked up along the world direction with its y and z swapped, `(x, z, y)`, with MRPT's
//! faces `RIGHT` +X, `LEFT` -X, `TOP` +Y, `BOTTOM` -Y, `BACK` +Z, `FRONT` -Z of the cube map
//! filled by the files named `Right`, `Left`, `Up`, `Down`, `Back`, `Front`. In world terms
//! (z up): `Up` overhead, `Down` below, `Right` towards +x, `Left` towards -x, `Back` towards
//! +y, `Front` towards -y; each image upright (its top row towards +z on the four sides) and
//! seen from inside the cube unmirrored. Within a face, OpenGL's table of cube-map coordinates
//! picks the texel, with the image's first row at `t = 0`.
//!
//! Owns: the cube's images and the lookup. Must not touch: shading (the sky takes no light),
//! how images are found and decoded (`passerby-assets`).

use glam::Vec3A;
use passerby_assets::TextureImage;
use std::sync::Arc;

/// The names MVSim substitutes for `%s` in a sky box's `<textures>` pattern, in the order of
/// [`SkyBox::new`]'s faces.
pub const FACE_NAMES: [&str; 6] = ["Right", "Left", "Up", "Down", "Back", "Front"];

/// Six face images, each looked up where MVSim shows it.
#[derive(Clone, Debug)]
pub struct SkyBox {
    /// In the order of [`FACE_NAMES`].
    faces: [Arc<TextureImage>; 6],
}

impl SkyBox {
    /// A sky box from its images in the order of [`FACE_NAMES`].
    pub fn new(faces: [Arc<TextureImage>; 6]) -> SkyBox {
        SkyBox { faces }
    }

    /// The linear colour seen along the world direction `dir` (any length; black for a zero or
    /// non-finite one).
    pub fn colour(&self, dir: Vec3A) -> [f32; 3] {
        if !dir.is_finite() || dir == Vec3A::ZERO {
            return [0.0; 3];
        }
        // The cube map's direction.
        let (rx, ry, rz) = (dir.x, dir.z, dir.y);
        let (ax, ay, az) = (rx.abs(), ry.abs(), rz.abs());
        // (face, s coordinate, t coordinate, major axis magnitude), as OpenGL's table has them;
        // ties go to x, then y.
        let (face, sc, tc, ma) = if ax >= ay && ax >= az {
            if rx > 0.0 {
                (0, -rz, -ry, ax)
            } else {
                (1, rz, -ry, ax)
            }
        } else if ay >= az {
            if ry > 0.0 {
                (2, rx, rz, ay)
            } else {
                (3, rx, -rz, ay)
            }
        } else if rz > 0.0 {
            (4, rx, -ry, az)
        } else {
            (5, -rx, -ry, az)
        };
        let s = 0.5 * (sc / ma + 1.0);
        let t = 0.5 * (tc / ma + 1.0);
        sample_clamped(&self.faces[face], s, t)
    }
}

/// The linear RGB of `image` at `(s, t)` (0..1 across and down), bilinearly filtered between
/// texel centres, clamped at the edges (a cube's faces do not repeat).
fn sample_clamped(image: &TextureImage, s: f32, t: f32) -> [f32; 3] {
    let (w, h) = (image.width as usize, image.height as usize);
    if w == 0 || h == 0 || image.rgba.len() < w * h * 4 {
        return [0.0; 3];
    }
    let x = (s * w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
    let y = (t * h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
    let (x0, y0) = (x as usize, y as usize);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let texel = |xi: usize, yi: usize| -> [f32; 3] {
        let rgb = &image.rgba[(yi * w + xi) * 4..][..3];
        std::array::from_fn(|k| crate::appearance::srgb_byte_to_linear(rgb[k]))
    };
    crate::appearance::blend(
        [texel(x0, y0), texel(x1, y0), texel(x0, y1), texel(x1, y1)],
        fx,
        fy,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A face of one sRGB colour, or split into a left and a right half, or a top and a bottom.
    fn face(pixels: impl Fn(usize, usize) -> [u8; 3]) -> Arc<TextureImage> {
        let n = 8;
        let mut rgba = Vec::new();
        for y in 0..n {
            for x in 0..n {
                rgba.extend_from_slice(&pixels(x, y));
                rgba.push(255);
            }
        }
        Arc::new(TextureImage::new(n as u32, n as u32, rgba))
    }

    fn linear(rgb: [u8; 3]) -> [f32; 3] {
        rgb.map(crate::appearance::srgb_byte_to_linear)
    }

    const COLOURS: [[u8; 3]; 6] = [
        [200, 0, 0],
        [0, 200, 0],
        [0, 0, 200],
        [200, 200, 0],
        [0, 200, 200],
        [200, 0, 200],
    ];

    #[test]
    fn each_face_is_where_mvsim_shows_it() {
        let sky = SkyBox::new(std::array::from_fn(|k| face(|_, _| COLOURS[k])));
        // Right +x, Left -x, Up +z, Down -z, Back +y, Front -y.
        let towards = [
            Vec3A::X,
            -Vec3A::X,
            Vec3A::Z,
            -Vec3A::Z,
            Vec3A::Y,
            -Vec3A::Y,
        ];
        for (k, dir) in towards.into_iter().enumerate() {
            assert_eq!(
                sky.colour(dir * 3.0),
                linear(COLOURS[k]),
                "{}",
                FACE_NAMES[k]
            );
            // Off the centre, still on the face.
            let tilted = dir + 0.4 * Vec3A::new(dir.y + dir.z, dir.z + dir.x, dir.x + dir.y);
            assert_eq!(sky.colour(tilted), linear(COLOURS[k]), "{}", FACE_NAMES[k]);
        }
        assert_eq!(sky.colour(Vec3A::ZERO), [0.0; 3]);
        assert_eq!(sky.colour(Vec3A::splat(f32::NAN)), [0.0; 3]);
    }

    #[test]
    fn side_faces_are_upright_and_unmirrored_from_inside() {
        // Left half dark, right half light; top half dark, bottom half light.
        let (dark, light) = ([20, 20, 20], [230, 230, 230]);
        let halves = SkyBox::new(std::array::from_fn(|_| {
            face(|x, _| if x < 4 { dark } else { light })
        }));
        let rows = SkyBox::new(std::array::from_fn(|_| {
            face(|_, y| if y < 4 { dark } else { light })
        }));
        // Facing each side with z up, the viewer's right is `facing x z`.
        for facing in [Vec3A::X, -Vec3A::X, Vec3A::Y, -Vec3A::Y] {
            let right = facing.cross(Vec3A::Z);
            assert_eq!(halves.colour(facing - 0.5 * right), linear(dark));
            assert_eq!(halves.colour(facing + 0.5 * right), linear(light));
            assert_eq!(rows.colour(facing + 0.5 * Vec3A::Z), linear(dark));
            assert_eq!(rows.colour(facing - 0.5 * Vec3A::Z), linear(light));
        }
        // Overhead the image's top is towards -y (the `Front` face), its left towards -x.
        assert_eq!(rows.colour(Vec3A::Z - 0.5 * Vec3A::Y), linear(dark));
        assert_eq!(halves.colour(Vec3A::Z - 0.5 * Vec3A::X), linear(dark));
        // Below, the image's top is towards +y, its left towards -x.
        assert_eq!(rows.colour(-Vec3A::Z + 0.5 * Vec3A::Y), linear(dark));
        assert_eq!(halves.colour(-Vec3A::Z - 0.5 * Vec3A::X), linear(dark));
    }

    #[test]
    fn filtering_blends_neighbouring_texels_and_clamps_at_edges() {
        // Columns alternate black and white: between two texel centres, their mean.
        let stripes = SkyBox::new(std::array::from_fn(|_| {
            face(|x, _| if x % 2 == 0 { [0; 3] } else { [255; 3] })
        }));
        // Facing +x the image's s runs towards -y; s = 0.5 lies between texels 3 and 4.
        let mid = stripes.colour(Vec3A::X);
        assert!((mid[0] - 0.5).abs() < 1e-6, "{mid:?}");
        // At the very edge of a face: the edge texel, not the far side's.
        let edge = stripes.colour(Vec3A::new(1.0, 0.999_999, 0.0));
        assert!(edge[0] == 0.0 || edge[0] == 1.0, "{edge:?}");
    }
}
