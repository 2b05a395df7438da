//! MAVS `Vegetation Distribution`: plants of each species scattered over the surface with a
//! density interpolated between zones (`LoadVegDistribution`, peers.md §1.1).
//!
//! On a 20 m grid over the surface's bounds, each cell's density per species is the zones'
//! densities weighted by 1/d⁶ (d from the cell centre to the zone); the cell gets ⌊ρ·400⌋
//! plants plus one with probability frac(ρ·400), uniform in the cell, on the surface, with a
//! random yaw; a trunk diameter D ~ U(min, max) cm (interpolated like the density) gives the
//! height h = 0.5·(1.3 + 0.6208·D − 0.00308·D²) m and the scale h / `Mesh Height`.
//! Points within half a trail's width of its course are skipped, as MAVS skips them.
//! Differences: seeded draws.

use crate::json::Value;
use crate::placement::entry_rng;
use crate::read::Report;
use crate::scene::SceneReader;
use crate::transform::{AxisSwaps, YprConvention, object_transform};
use passerby_world::{MeshFile, MeshInstance, Name};
use rand::RngExt;
use std::path::Path;
use std::sync::Arc;

/// Metres per grid cell.
const CELL: f64 = 20.0;
/// Cells at most: a surface larger than this (MAVS's 2e9 m slabs) is refused.
const MAX_CELLS: f64 = 4e6;
/// Plants at most, over all species.
const MAX_PLANTS: usize = 2_000_000;

struct Species {
    /// The mesh file and its label, shared by every plant of the species.
    file: Arc<MeshFile>,
    /// Its plants are named `<name>_<n>`.
    name: Arc<str>,
    mesh_height: f64,
    rotated: bool,
}

/// A zone: where it is and, per species, (density per m², min and max trunk diameter in cm).
struct Zone {
    at: [f64; 2],
    species: Vec<[f64; 3]>,
}

impl SceneReader<'_> {
    pub(crate) fn vegetation(&mut self, v: &Value) {
        let key = "Vegetation Distribution";
        self.report.unknown_members(
            v,
            key,
            "vegetation",
            &["Write Check File", "Species", "Zones"],
        );
        let Some(species) = self.species(v, key) else {
            return;
        };
        let Some(zones) = self.zones(v, key, species.len()) else {
            return;
        };
        if species.is_empty() || zones.is_empty() {
            return;
        }
        let heights = self
            .heights
            .take()
            .or_else(|| self.surface_heights(v.span, key));
        let Some((lo, hi)) = heights.as_ref().and_then(|h| h.bounds) else {
            self.report.error(
                v.span,
                key,
                "there is no surface to plant on (a `Surface Mesh`, a heightmap or a first object)",
            );
            self.heights = heights;
            return;
        };
        let (nx, ny) = (
            ((hi[0] - lo[0]) / CELL).ceil(),
            ((hi[1] - lo[1]) / CELL).ceil(),
        );
        if nx * ny > MAX_CELLS {
            self.report.error(
                v.span,
                key,
                format!("the surface is {:.0} x {:.0} m: more than {MAX_CELLS} cells of {CELL} m to plant", hi[0] - lo[0], hi[1] - lo[1]),
            );
            self.heights = heights;
            return;
        }
        let trails = TrailIndex::new(&self.trails);
        let mut rng = entry_rng(self.seed, usize::MAX);
        let mut planted: Vec<MeshInstance> = Vec::new();
        'cells: for i in 0..nx as usize {
            for j in 0..ny as usize {
                let corner = [lo[0] + i as f64 * CELL, lo[1] + j as f64 * CELL];
                let centre = [corner[0] + CELL / 2.0, corner[1] + CELL / 2.0];
                let weights: Vec<f64> = zones
                    .iter()
                    .map(|z| {
                        let d2 = (z.at[0] - centre[0]).powi(2) + (z.at[1] - centre[1]).powi(2);
                        1.0 / d2.powi(3).max(1e-300)
                    })
                    .collect();
                let total: f64 = weights.iter().sum();
                for (s, sp) in species.iter().enumerate() {
                    let mix = |k: usize| {
                        zones
                            .iter()
                            .zip(&weights)
                            .map(|(z, w)| w * z.species[s][k])
                            .sum::<f64>()
                            / total
                    };
                    let (density, min_d, max_d) = (mix(0), mix(1), mix(2));
                    let expected = density * CELL * CELL;
                    let count = expected.floor() as usize
                        + usize::from(rng.random::<f64>() < expected.fract());
                    for _ in 0..count {
                        let x = corner[0] + CELL * rng.random::<f64>();
                        let y = corner[1] + CELL * rng.random::<f64>();
                        let yaw = rng.random::<f64>() * std::f64::consts::TAU;
                        let d = min_d + (max_d - min_d) * rng.random::<f64>();
                        if trails.covers([x, y]) {
                            continue;
                        }
                        let h = 0.5 * (1.3 + 0.6208 * d - 0.00308 * d * d);
                        let scale = h / sp.mesh_height;
                        let z = heights
                            .as_ref()
                            .and_then(|hs| hs.height_at(x, y))
                            .unwrap_or(0.0);
                        let swaps = AxisSwaps {
                            y_to_z: sp.rotated,
                            ..AxisSwaps::default()
                        };
                        planted.push(MeshInstance {
                            name: Name::numbered(&sp.name, planted.len() as u32 + 1),
                            file: sp.file.clone(),
                            world_from_model: object_transform(
                                [yaw, 0.0, 0.0],
                                [x, y, z],
                                [scale; 3],
                                swaps,
                                YprConvention::Current,
                            ),
                        });
                        if planted.len() > MAX_PLANTS {
                            self.report.error(
                                v.span,
                                key,
                                format!(
                                    "more than {MAX_PLANTS} plants: the densities are too high"
                                ),
                            );
                            break 'cells;
                        }
                    }
                }
            }
        }
        self.heights = heights;
        self.world.meshes.extend(planted);
    }

    fn species(&mut self, v: &Value, key: &str) -> Option<Vec<Species>> {
        let list = self.report.required(v, key, "Species")?;
        let items = self.report.array(list, &format!("{key}.Species"))?;
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{key}.Species[{i}]");
            self.report.object(item, &path)?;
            let r = &mut *self.report;
            let mesh = r
                .required(item, &path, "Mesh")
                .and_then(|m| r.string(m, &format!("{path}.Mesh")).map(|s| (s, m.span)));
            let height = r.optional(item, &path, "Mesh Height", 1.0, Report::number);
            let rotated = r.optional(item, &path, "Rotated", false, Report::boolean);
            let name = match item.get("Name") {
                Some(n) => r.string(n, &format!("{path}.Name")),
                None => Some(""),
            };
            let (Some((mesh, span)), Some(height), Some(rotated), Some(name)) =
                (mesh, height, rotated, name)
            else {
                return None;
            };
            if height <= 0.0 {
                self.report.error(
                    span,
                    &format!("{path}.Mesh Height"),
                    format!("must be positive, found {height}"),
                );
                return None;
            }
            let file = format!("{}{mesh}", self.meshes_dir);
            if !Path::new(&file).is_file() {
                self.report.error(
                    span,
                    &format!("{path}.Mesh"),
                    format!("mesh file `{file}` does not exist"),
                );
                return None;
            }
            let stem = Path::new(mesh)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("plant");
            out.push(Species {
                file: Arc::new(MeshFile {
                    label: self.labels.class_of(mesh).map(Into::into),
                    model_uri: file,
                    smooth_normals: false,
                    group_labels: None,
                }),
                name: if name.is_empty() {
                    stem.into()
                } else {
                    name.replace(' ', "_").into()
                },
                mesh_height: height,
                rotated,
            });
        }
        Some(out)
    }

    fn zones(&mut self, v: &Value, key: &str, species: usize) -> Option<Vec<Zone>> {
        let list = self.report.required(v, key, "Zones")?;
        let items = self.report.array(list, &format!("{key}.Zones"))?;
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{key}.Zones[{i}]");
            self.report.object(item, &path)?;
            let r = &mut *self.report;
            let at = r
                .required(item, &path, "Coordinates")
                .and_then(|c| r.numbers::<2>(c, &format!("{path}.Coordinates")))?;
            let list = r.required(item, &path, "Species")?;
            let entries = r.array(list, &format!("{path}.Species"))?;
            if entries.len() != species {
                r.error(
                    list.span,
                    &format!("{path}.Species"),
                    format!(
                        "expected one entry per species ({species}), found {}",
                        entries.len()
                    ),
                );
                return None;
            }
            let mut per_species = Vec::new();
            for (k, e) in entries.iter().enumerate() {
                let epath = format!("{path}.Species[{k}]");
                r.object(e, &epath)?;
                let density = r.optional(e, &epath, "Density", 0.0, Report::number)?;
                let min = r.optional(e, &epath, "MinDiam", 0.0, Report::number)?;
                let max = r.optional(e, &epath, "MaxDiam", min, Report::number)?;
                if density < 0.0 || min < 0.0 || max < min {
                    r.error(e.span, &epath, format!("expected Density >= 0 and 0 <= MinDiam <= MaxDiam, found {density}, {min}, {max}"));
                    return None;
                }
                per_species.push([density, min, max]);
            }
            out.push(Zone {
                at,
                species: per_species,
            });
        }
        Some(out)
    }
}

/// A piece of a trail's course and half the trail's width.
type TrailPiece = ([f64; 2], [f64; 2], f64);

/// Trail pieces bucketed by grid cell, to ask whether a point lies on a trail.
struct TrailIndex {
    cells: std::collections::HashMap<(i64, i64), Vec<TrailPiece>>,
}

impl TrailIndex {
    fn cell(p: [f64; 2]) -> (i64, i64) {
        ((p[0] / CELL).floor() as i64, (p[1] / CELL).floor() as i64)
    }

    fn new(trails: &[(f64, Vec<[f64; 2]>)]) -> TrailIndex {
        let mut cells: std::collections::HashMap<_, Vec<TrailPiece>> =
            std::collections::HashMap::new();
        for (width, course) in trails {
            let half = width / 2.0;
            for s in course.windows(2) {
                // Long segments go in pieces of at most a cell, so each touches few cells.
                let (a, b) = (s[0], s[1]);
                let pieces = ((b[0] - a[0]).hypot(b[1] - a[1]) / CELL)
                    .ceil()
                    .clamp(1.0, 1e5) as usize;
                let at = |k: usize| {
                    let t = k as f64 / pieces as f64;
                    [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]
                };
                for k in 0..pieces {
                    let (p, q) = (at(k), at(k + 1));
                    let lo = Self::cell([p[0].min(q[0]) - half, p[1].min(q[1]) - half]);
                    let hi = Self::cell([p[0].max(q[0]) + half, p[1].max(q[1]) + half]);
                    if (hi.0 - lo.0 + 1).saturating_mul(hi.1 - lo.1 + 1) > 10_000 {
                        continue; // a trail hundreds of metres wide is not one
                    }
                    for i in lo.0..=hi.0 {
                        for j in lo.1..=hi.1 {
                            cells.entry((i, j)).or_default().push((p, q, half));
                        }
                    }
                }
            }
        }
        TrailIndex { cells }
    }

    /// Whether `p` is within half a trail's width of a trail's course.
    fn covers(&self, p: [f64; 2]) -> bool {
        self.cells.get(&Self::cell(p)).is_some_and(|segments| {
            segments.iter().any(|&(a, b, half)| {
                let ab = [b[0] - a[0], b[1] - a[1]];
                let ap = [p[0] - a[0], p[1] - a[1]];
                let len2 = ab[0] * ab[0] + ab[1] * ab[1];
                let t = if len2 > 0.0 {
                    ((ap[0] * ab[0] + ap[1] * ab[1]) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let d = [ap[0] - t * ab[0], ap[1] - t * ab[1]];
                d[0] * d[0] + d[1] * d[1] <= half * half
            })
        })
    }
}
