//! An occupancy grid in the 3D scene, as MVSim puts it there (MRPT's
//! `COccupancyGridMap2D::getVisualizationInto`, inserted in MVSim's "physical" scene): a plane
//! at z = 0 over the grid, each cell in its shade (its free probability: black occupied, white
//! free) and as opaque as it is certain (alpha `2·|shade − 127|`, so unknown cells are not
//! drawn). Rays have no partial transparency, so a cell is there when it is at least half
//! opaque (shade ≤ 63 or ≥ 191). Cells are merged into rectangles of occupied or of free
//! cells, so a map costs triangles by its detail, not its size; their shades come from a
//! texture of the grid (one texel a cell).
//!
//! With Passerby's `<wall_height>` the occupied cells (as the 2D laser reads them) also stand
//! as boxes that tall, so 3D lidars and cameras see the walls the map describes.

use super::{Builder, textured_surface};
use crate::Surface;
use crate::shapes::cuboid;
use glam::{Affine3A, Vec2, Vec3};
use passerby_assets::TextureImage;
use passerby_raycast::TriangleMesh;
use passerby_world::{Color, OccupancyCells, OccupancyGrid};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The most cells a grid's shades may have as a texture; a larger grid is drawn in MRPT's
/// two extremes (occupied black, free white).
pub const MAX_TEXTURE_CELLS: usize = 16 << 20;

/// The most rectangles one grid may put in the scene (a flat cell costs two triangles, a
/// wall twelve); a grid past it is left out of the 3D scene with a warning.
pub const MAX_GRID_RECTANGLES: usize = 2_000_000;

/// Shades at least half opaque: `2·|shade − 127| ≥ 128`.
fn drawn(shade: u8) -> bool {
    !(64..191).contains(&shade)
}

/// The colour of the walls `<wall_height>` raises: MRPT's occupied shade, a little lifted so
/// that cameras still show their shading.
const WALL_COLOUR: Color = Color {
    r: 0x30,
    g: 0x30,
    b: 0x30,
    a: 0xff,
};

impl Builder<'_> {
    /// Adds grid element `name` (labelled `label`, default `wall`, for its occupied cells;
    /// its free cells are `ground`). The object `name` exists even when nothing is drawn, for
    /// the 2D lasers that read the grid's cells.
    pub(crate) fn occupancy_grid(&mut self, grid: &OccupancyGrid, name: &str, label: &str) {
        let object = self.scene_object(name, label);
        self.batch
            .by_name
            .insert(name.to_owned(), self.batch.objects.len() as u32);
        self.batch.objects.push(object);
        let Some(cells) = &grid.cells else {
            return;
        };
        let world_from_grid = Affine3A::from_translation(Vec3::new(
            cells.origin[0] as f32,
            cells.origin[1] as f32,
            0.0,
        )) * Affine3A::from_rotation_z(cells.yaw as f32);
        let shade_at = |i: usize| cells.shade.get(i).copied().unwrap_or(127);
        // Rectangles by what a cell is (occupied or free), coloured by a texture of shades.
        let Some(flat) = rectangles(cells, |i| {
            let shade = shade_at(i);
            drawn(shade).then_some(u8::from(shade >= 128))
        }) else {
            return self.too_detailed(name);
        };
        let res = cells.resolution as f32;
        let corner = |col: usize, row: usize| Vec3::new(col as f32 * res, row as f32 * res, 0.0);
        let size = Vec2::new(cells.cols as f32 * res, cells.rows as f32 * res);
        let texture = shade_texture(cells).map(Arc::new);
        let free = (format!("{name}.free"), "ground");
        for (value, (object, class)) in [(1, free), (0, (name.to_owned(), label))] {
            let mut vertices = Vec::new();
            let mut triangles = Vec::new();
            for r in flat.iter().filter(|r| r.value == value) {
                let base = vertices.len() as u32;
                vertices.extend([
                    corner(r.cols[0], r.rows[0]),
                    corner(r.cols[1], r.rows[0]),
                    corner(r.cols[1], r.rows[1]),
                    corner(r.cols[0], r.rows[1]),
                ]);
                triangles.extend([[base, base + 1, base + 2], [base, base + 2, base + 3]]);
            }
            let mesh = TriangleMesh::new(vertices, triangles);
            let surface = match &texture {
                // u across the image's columns, v down its rows (its top row is the last).
                Some(image) => textured_surface(&mesh, image.clone(), |v| {
                    Vec2::new(v.x / size.x, 1.0 - v.y / size.y)
                }),
                None => {
                    let tone = if value == 1 { 252 } else { 2 };
                    Surface::plain(Color::rgb(tone, tone, tone), mesh.triangle_count())
                }
            };
            self.add_with_surface(mesh, surface, world_from_grid, &object, class);
        }
        if grid.wall_height > 0.0 {
            let Some(walls) = rectangles(cells, |i| cells.occupied[i].then_some(0)) else {
                return self.too_detailed(name);
            };
            let top = grid.wall_height as f32;
            for r in walls {
                let mut low = corner(r.cols[0], r.rows[0]);
                let mut high = corner(r.cols[1], r.rows[1]);
                (low.z, high.z) = (0.0, top);
                self.add(cuboid(low, high), WALL_COLOUR, world_from_grid, name, label);
            }
        }
    }

    fn too_detailed(&mut self, name: &str) {
        self.warn(format!(
            "occupancy grid `{name}` needs more than {MAX_GRID_RECTANGLES} rectangles in the 3D \
             scene: left out of it (2D lasers still see its cells)"
        ));
    }
}

/// The grid's shades as an image (its top row the grid's last), `None` past
/// [`MAX_TEXTURE_CELLS`].
fn shade_texture(cells: &OccupancyCells) -> Option<TextureImage> {
    let count = cells.cols.checked_mul(cells.rows)?;
    if count > MAX_TEXTURE_CELLS || cells.shade.len() != count {
        return None;
    }
    let rgba = cells
        .shade
        .chunks_exact(cells.cols.max(1))
        .rev()
        .flat_map(|row| row.iter().flat_map(|&s| [s, s, s, 255]))
        .collect();
    Some(TextureImage::new(
        cells.cols as u32,
        cells.rows as u32,
        rgba,
    ))
}

/// Cells merged into one rectangle: `cols[0]..cols[1]` by `rows[0]..rows[1]`, all of `value`.
#[derive(Debug, PartialEq)]
struct Rectangle {
    cols: [usize; 2],
    rows: [usize; 2],
    value: u8,
}

/// The cells `value_of` gives a value, as rectangles of one value: runs along each row, each
/// extended upwards while the row above has the same run. `None` past [`MAX_GRID_RECTANGLES`].
fn rectangles(
    cells: &OccupancyCells,
    value_of: impl Fn(usize) -> Option<u8>,
) -> Option<Vec<Rectangle>> {
    let (cols, rows) = (cells.cols, cells.rows);
    let mut done = Vec::new();
    // Runs of the previous row: (first col, end col, value) -> first row.
    let mut open: BTreeMap<(usize, usize, u8), usize> = BTreeMap::new();
    let close =
        |open: BTreeMap<(usize, usize, u8), usize>, row: usize, done: &mut Vec<Rectangle>| {
            done.extend(open.into_iter().map(|((c0, c1, value), r0)| Rectangle {
                cols: [c0, c1],
                rows: [r0, row],
                value,
            }));
        };
    for row in 0..rows {
        let mut next = BTreeMap::new();
        let mut col = 0;
        while col < cols {
            let Some(value) = value_of(row * cols + col) else {
                col += 1;
                continue;
            };
            let start = col;
            while col < cols && value_of(row * cols + col) == Some(value) {
                col += 1;
            }
            let first_row = open.remove(&(start, col, value)).unwrap_or(row);
            next.insert((start, col, value), first_row);
        }
        close(std::mem::replace(&mut open, next), row, &mut done);
        if done.len() + open.len() > MAX_GRID_RECTANGLES {
            return None;
        }
    }
    close(open, rows, &mut done);
    Some(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(cols: usize, rows: usize, shade: &[u8]) -> OccupancyCells {
        OccupancyCells {
            cols,
            rows,
            resolution: 1.0,
            origin: [0.0; 2],
            yaw: 0.0,
            occupied: shade.iter().map(|&s| s < 128).collect(),
            shade: shade.to_vec(),
        }
    }

    #[test]
    fn equal_runs_merge_upwards_and_others_split() {
        // Rows bottom-up: an L of occupied cells beside free ones, one unknown cell.
        let g = cells(3, 3, &[0, 0, 255, 0, 0, 127, 0, 255, 255]);
        let mut r = rectangles(&g, |i| drawn(g.shade[i]).then_some(g.shade[i])).unwrap();
        r.sort_by_key(|r| (r.rows, r.cols));
        let got: Vec<_> = r.iter().map(|r| (r.cols, r.rows, r.value)).collect();
        assert_eq!(
            got,
            [
                ([2, 3], [0, 1], 255),
                ([0, 2], [0, 2], 0),
                ([0, 1], [2, 3], 0),
                ([1, 3], [2, 3], 255),
            ]
        );
    }

    #[test]
    fn half_opaque_cells_are_drawn() {
        assert!(drawn(0) && drawn(63) && drawn(191) && drawn(255));
        assert!(!drawn(64) && !drawn(127) && !drawn(190));
    }
}
