//! Height queries over the world's ground surfaces (horizontal planes and elevation maps),
//! as MVSim answers them (`World::getElevationsAt`, `getHighestElevationUnder`).

use crate::{World, WorldElement};
use serde::Serialize;

/// A regular grid of heights: cell `(i, j)` is at `corner_min + (i, j) · resolution`.
///
/// Indexing follows MVSim's elevation mesh: the first index runs along +X (an image's rows,
/// or a matrix's rows), the second along +Y (columns).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ElevationGrid {
    /// Number of samples along X.
    pub nx: usize,
    /// Number of samples along Y.
    pub ny: usize,
    /// Metres between samples.
    pub resolution: f64,
    /// World position of sample (0, 0), metres.
    pub corner_min: [f64; 2],
    /// Heights in metres, `nx × ny`, sample `(i, j)` at `i * ny + j`.
    #[serde(skip)]
    pub heights: Vec<f64>,
}

impl ElevationGrid {
    /// The height at a world position, interpolated on the two triangles of each cell
    /// (split along the diagonal from (i, j) to (i+1, j+1), as MVSim's mesh); `None` outside.
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        if self.nx < 2 || self.ny < 2 || self.heights.len() != self.nx * self.ny {
            return None;
        }
        let u = (x - self.corner_min[0]) / self.resolution;
        let v = (y - self.corner_min[1]) / self.resolution;
        let (max_u, max_v) = ((self.nx - 1) as f64, (self.ny - 1) as f64);
        if !(0.0..=max_u).contains(&u) || !(0.0..=max_v).contains(&v) {
            return None;
        }
        let i = (u.floor() as usize).min(self.nx - 2);
        let j = (v.floor() as usize).min(self.ny - 2);
        let (fu, fv) = (u - i as f64, v - j as f64);
        let z = |di: usize, dj: usize| self.heights[(i + di) * self.ny + j + dj];
        Some(if fv >= fu {
            // Triangle (0,0) (0,1) (1,1).
            z(0, 0) + fv * (z(0, 1) - z(0, 0)) + fu * (z(1, 1) - z(0, 1))
        } else {
            // Triangle (0,0) (1,0) (1,1).
            z(0, 0) + fu * (z(1, 0) - z(0, 0)) + fv * (z(1, 1) - z(1, 0))
        })
    }
}

impl World {
    /// Heights of every ground surface above or below `(x, y)`, unsorted.
    pub fn elevations_at_unsorted(&self, x: f64, y: f64) -> Vec<f64> {
        let mut out = Vec::new();
        for e in &self.elements {
            match &e.element {
                // A plane that moves is a floor the simulation keeps (`passerby_sim::floors`).
                WorldElement::HorizontalPlane(p) if !p.moves() => {
                    let [x0, x1, y0, y1] = p.extent;
                    if (x0..=x1).contains(&x) && (y0..=y1).contains(&y) {
                        out.push(p.z);
                    }
                }
                WorldElement::ElevationMap(m) => {
                    if let Some(z) = m.grid.as_ref().and_then(|g| g.height_at(x, y)) {
                        out.push(z);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The highest ground surface at `(x, y)` not above `z`, or 0 when there is none (MVSim).
    pub fn highest_elevation_under(&self, x: f64, y: f64, z: f64) -> f64 {
        self.elevations_at_unsorted(x, y)
            .into_iter()
            .filter(|h| *h <= z)
            .fold(None, |best: Option<f64>, h| {
                Some(best.map_or(h, |b| b.max(h)))
            })
            .unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_is_exact_on_samples_and_planar_inside_triangles() {
        // z = x + 2y on a 3 × 3 grid with 0.5 m spacing from (-1, -1).
        let mut heights = Vec::new();
        for i in 0..3 {
            for j in 0..3 {
                heights.push((-1.0 + 0.5 * i as f64) + 2.0 * (-1.0 + 0.5 * j as f64));
            }
        }
        let g = ElevationGrid {
            nx: 3,
            ny: 3,
            resolution: 0.5,
            corner_min: [-1.0, -1.0],
            heights,
        };
        for (x, y) in [
            (-1.0, -1.0),
            (0.0, 0.0),
            (-0.3, -0.9),
            (-0.7, -0.2),
            (-0.5, -0.5),
            (-0.01, -0.01),
        ] {
            let z = g.height_at(x, y).unwrap();
            assert!((z - (x + 2.0 * y)).abs() < 1e-12, "({x}, {y}) -> {z}");
        }
        assert_eq!(g.height_at(-1.01, 0.0), None);
        assert_eq!(g.height_at(0.0, 0.001), None);
    }
}
