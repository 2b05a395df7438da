//! How an elevation map looks: its `texture_image` laid over it as MVSim lays it (MRPT's
//! `CMesh`): image rows along +X and columns along +Y from the map's minimum corner, the whole
//! image over the whole map, or one tile per `texture_extension_x/y` metres when those are set;
//! `texture_image_rotate` (0, ±90, 180) turns the image about its centre first, as MRPT's
//! `CImage::rotateImage` (destination pixel (x, y) from source (cos·x + sin·y, −sin·x + cos·y)
//! about the centre, y down). Without a texture, a plain colour.

use super::{Builder, TERRAIN_COLOUR};
use crate::appearance::Surface;
use glam::{Vec2, Vec3};
use passerby_raycast::TriangleMesh;
use passerby_world::{ElevationGrid, ElevationMap};

impl Builder<'_> {
    /// The look of elevation map `m` (its grid `g`, its mesh `mesh`).
    pub(crate) fn terrain_look(
        &mut self,
        m: &ElevationMap,
        g: &ElevationGrid,
        mesh: &TriangleMesh,
    ) -> Surface {
        let extent = |n: usize| n.saturating_sub(1) as f32 * g.resolution as f32;
        let size = |given: f64, whole: f32| if given > 0.0 { given as f32 } else { whole };
        let size_x = size(m.texture_extension[0], extent(g.nx)).max(f32::MIN_POSITIVE);
        let size_y = size(m.texture_extension[1], extent(g.ny)).max(f32::MIN_POSITIVE);
        let [x0, y0] = g.corner_min.map(|c| c as f32);
        let rotate = m.texture_image_rotate;
        self.textured(mesh, TERRAIN_COLOUR, &m.texture_image, |v: Vec3| {
            // u across the image (its columns), v down it (its rows).
            let (u, w) = ((v.y - y0) / size_y, (v.x - x0) / size_x);
            let (u, w) = match rotate {
                90 => (w, 1.0 - u),
                -90 => (1.0 - w, u),
                180 | -180 => (1.0 - u, 1.0 - w),
                _ => (u, w),
            };
            Vec2::new(u, w)
        })
    }
}
