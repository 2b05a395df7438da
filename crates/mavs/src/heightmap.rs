//! MAVS heightmaps (`Layered Surface.Heightmap`): a grey image whose pixels are heights.
//!
//! One sample per pixel, `Resolution` metres apart, the grey level (0-255, the image's luma)
//! times `Scale` metres, centred on the origin, image rows running south (the top row is the
//! northern edge, +Y). MAVS writes such a map out as a mesh and uses it both as the visible
//! ground and as the height surface; here it is an elevation grid, which serves both.

use crate::read::Report;
use passerby_diag::Span;
use passerby_world::ElevationGrid;

/// The grid of the image at `path`; a file that cannot be read is reported at `span`.
pub(crate) fn grid(
    path: &str,
    resolution: f64,
    metres_per_level: f64,
    report: &mut Report,
    span: Span,
    key: &str,
) -> Option<ElevationGrid> {
    if resolution.is_nan() || resolution <= 0.0 {
        report.error(
            span,
            &format!("{key}.Resolution"),
            format!("must be positive, found {resolution}"),
        );
        return None;
    }
    let image = match image::open(path) {
        Ok(image) => image.into_luma8(),
        Err(e) => {
            report.error(
                span,
                &format!("{key}.Map"),
                format!("cannot read the heightmap `{path}`: {e}"),
            );
            return None;
        }
    };
    let (width, height) = (image.width() as usize, image.height() as usize);
    if width < 2 || height < 2 {
        report.error(
            span,
            &format!("{key}.Map"),
            format!("a heightmap needs at least 2 x 2 pixels, `{path}` has {width} x {height}"),
        );
        return None;
    }
    // Sample (i, j): i along +X (image columns), j along +Y (image rows from the bottom).
    let mut heights = Vec::with_capacity(width * height);
    for i in 0..width {
        for j in 0..height {
            let row = height - 1 - j;
            heights.push(f64::from(image.get_pixel(i as u32, row as u32).0[0]) * metres_per_level);
        }
    }
    Some(ElevationGrid {
        nx: width,
        ny: height,
        resolution,
        corner_min: [
            -0.5 * (width - 1) as f64 * resolution,
            -0.5 * (height - 1) as f64 * resolution,
        ],
        heights,
    })
}
