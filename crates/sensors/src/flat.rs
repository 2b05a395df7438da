//! The world as MVSim's cheap 2D laser mode sees it: footprints in the horizontal plane, whatever
//! the heights. Walls (`<walls>` segments and vertical planes, with their thickness, door gaps
//! open and windows closed), blocks that are not intangible, vehicles (chassis) and, unlike
//! MVSim (whose actors have no collision body), actors' collision circles. With `bodies_visible = false` only walls are seen. Occupancy grids
//! are not decoded yet (the scene warns about them).

use crate::{SceneView, Target};
use glam::{Vec2, Vec3A};
use passerby_sim::Simulation;
use passerby_sim::contacts::{Footprint, Shape};
use passerby_world::{OccupancyCells, Pose3, World, WorldElement};
use std::collections::HashMap;

#[derive(Clone, Debug)]
enum Outline {
    /// Closed polygon, world frame.
    Polygon(Vec<Vec2>),
    Circle(Vec2, f32),
    /// An occupancy grid (occupied cells are obstacles).
    Grid(std::sync::Arc<OccupancyCells>),
}

#[derive(Clone, Debug)]
struct Item {
    outline: Outline,
    /// Object name (to ignore the sensor's own vehicle).
    name: String,
    instance: u32,
    label: u16,
}

/// Footprints at one instant.
#[derive(Clone, Debug, Default)]
pub struct FlatWorld {
    items: Vec<Item>,
}

/// The static outlines of a world (walls), built once.
#[derive(Clone, Debug, Default)]
pub struct FlatStatics {
    walls: Vec<(Vec<Vec2>, String)>,
    grids: Vec<(std::sync::Arc<OccupancyCells>, String)>,
    vehicles: Vec<Footprint>,
    blocks: Vec<Option<Footprint>>,
    actors: Vec<f64>,
    /// The scene's instance and class ids of the outlines' objects (walls, grids, vehicles,
    /// blocks, actors) by name, found on first use in one pass over the scene's objects: a
    /// MAVS meadow has a million, and a table of them all made at every scan took a 2D
    /// laser there to 0.09x real time.
    ids: std::sync::OnceLock<HashMap<String, (u32, u16)>>,
    /// The names `ids` looks for.
    named: Vec<String>,
}

impl FlatStatics {
    /// The walls, footprints and actor radii of `world`.
    pub fn new(world: &World) -> FlatStatics {
        let walls: Vec<(Vec<Vec2>, String)> = (passerby_world::wall_outlines(world).into_iter())
            .map(|w| {
                let corners = w.corners.map(|[x, y]| Vec2::new(x as f32, y as f32));
                (corners.to_vec(), w.name)
            })
            .collect();
        let grids: Vec<(std::sync::Arc<OccupancyCells>, String)> = world
            .elements
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match &e.element {
                WorldElement::OccupancyGrid(g) => g
                    .cells
                    .clone()
                    .map(|c| (std::sync::Arc::new(c), format!("element{}", i + 1))),
                _ => None,
            })
            .collect();
        let named = (walls.iter().map(|(_, name)| name))
            .chain(grids.iter().map(|(_, name)| name))
            .chain(world.vehicles.iter().map(|v| &v.name))
            .chain(world.blocks.iter().map(|b| &b.name))
            .chain(world.actors.iter().map(|a| &a.name))
            .cloned()
            .collect();
        FlatStatics {
            walls,
            grids,
            vehicles: world.vehicles.iter().map(Footprint::of_vehicle).collect(),
            blocks: world.blocks.iter().map(Footprint::of_block).collect(),
            actors: world.actors.iter().map(|a| a.collision_radius).collect(),
            ids: std::sync::OnceLock::new(),
            named,
        }
    }

    /// Everything at the simulation's current poses; ids and classes from the scene.
    pub fn at(&self, sim: &Simulation, view: &SceneView<'_>, bodies_visible: bool) -> FlatWorld {
        let ids = self.ids.get_or_init(|| {
            let mut ids: HashMap<String, (u32, u16)> = HashMap::new();
            let wanted: std::collections::HashSet<&str> =
                self.named.iter().map(String::as_str).collect();
            // A name's last object (its parts share the id), as a table of them all kept.
            for o in view.built.all_objects() {
                if wanted.contains(&*o.name.to_str()) {
                    ids.insert(o.name.to_string(), (o.id, o.class_id));
                }
            }
            ids
        });
        let mut items = Vec::new();
        let mut push = |outline: Outline, name: &str| {
            let (instance, label) = ids.get(name).copied().unwrap_or((0, 0));
            items.push(Item {
                outline,
                name: name.to_owned(),
                instance,
                label,
            });
        };
        for (outline, name) in &self.walls {
            push(Outline::Polygon(outline.clone()), name);
        }
        for (grid, name) in &self.grids {
            push(Outline::Grid(grid.clone()), name);
        }
        if bodies_visible {
            let footprints = sim
                .vehicles()
                .iter()
                .zip(&self.vehicles)
                .map(|(v, f)| (&v.name, &v.pose, Some(f)))
                .chain(
                    sim.blocks()
                        .iter()
                        .zip(&self.blocks)
                        .map(|(b, f)| (&b.name, &b.pose, f.as_ref())),
                );
            for (name, pose, footprint) in footprints {
                let Some(f) = footprint else { continue };
                let outline = match &f.shape {
                    Shape::Polygon(pts) => Outline::Polygon(
                        pts.iter()
                            .map(|p| place(pose, Vec2::new(p[0] as f32, p[1] as f32)))
                            .collect(),
                    ),
                    Shape::Circle(r) => Outline::Circle(place(pose, Vec2::ZERO), *r as f32),
                };
                push(outline, name);
            }
            for (a, r) in sim.actors().iter().zip(&self.actors) {
                push(
                    Outline::Circle(Vec2::new(a.pose.x as f32, a.pose.y as f32), *r as f32),
                    &a.name,
                );
            }
        }
        FlatWorld { items }
    }
}

fn place(pose: &Pose3, p: Vec2) -> Vec2 {
    let (s, c) = (pose.yaw as f32).sin_cos();
    Vec2::new(
        pose.x as f32 + c * p.x - s * p.y,
        pose.y as f32 + s * p.x + c * p.y,
    )
}

impl FlatWorld {
    /// The nearest footprint along each beam (its horizontal direction), within `max_range`
    /// (measured in the plane); `ignore` names the sensor's own vehicle.
    pub fn cast(
        &self,
        origin: Vec3A,
        dirs: &[Vec3A],
        max_range: f32,
        ignore: Option<&str>,
    ) -> Vec<Option<Target>> {
        let o = Vec2::new(origin.x, origin.y);
        dirs.iter()
            .map(|d| {
                let d = Vec2::new(d.x, d.y).normalize_or_zero();
                if d == Vec2::ZERO {
                    return None;
                }
                let mut best: Option<(f32, Vec2, &Item)> = None;
                for item in self
                    .items
                    .iter()
                    .filter(|i| ignore != Some(i.name.as_str()))
                {
                    if let Some((t, n)) = hit_outline(&item.outline, o, d)
                        && t <= max_range
                        && best.is_none_or(|b| t < b.0)
                    {
                        best = Some((t, n, item));
                    }
                }
                best.map(|(t, n, item)| Target {
                    t,
                    normal: Vec3A::new(n.x, n.y, 0.0),
                    instance: item.instance,
                    label: item.label,
                    // Footprints have no surface look; lasers do not need one.
                    surface: (u32::MAX, 0, [0.0; 2]),
                })
            })
            .collect()
    }
}

/// The first crossing of a ray (origin inside counts as distance 0) with an outline, and the
/// outline's normal there.
fn hit_outline(outline: &Outline, o: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    match outline {
        Outline::Grid(g) => hit_grid(g, o, d),
        Outline::Circle(c, r) => {
            let oc = o - *c;
            let b = oc.dot(d);
            let cc = oc.length_squared() - r * r;
            if cc <= 0.0 {
                return Some((0.0, -d));
            }
            let disc = b * b - cc;
            if disc < 0.0 {
                return None;
            }
            let t = -b - disc.sqrt();
            (t >= 0.0).then(|| (t, (o + d * t - *c).normalize_or_zero()))
        }
        Outline::Polygon(pts) => {
            let mut best: Option<(f32, Vec2)> = None;
            for i in 0..pts.len() {
                let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
                let e = b - a;
                let denom = d.perp_dot(e);
                if denom.abs() < 1e-12 {
                    continue;
                }
                let t = (a - o).perp_dot(e) / denom;
                let u = (a - o).perp_dot(d) / denom;
                if t >= 0.0 && (0.0..=1.0).contains(&u) && best.is_none_or(|bb| t < bb.0) {
                    best = Some((t, Vec2::new(-e.y, e.x).normalize_or_zero()));
                }
            }
            best
        }
    }
}

/// Longest distance walked through a grid (cells), to bound the traversal.
const MAX_GRID_STEPS: usize = 1 << 16;

/// The first occupied cell along a ray through a grid (Amanatides-Woo traversal in the grid's
/// frame), with the normal of the face it entered by. A ray starting in an occupied cell hits at
/// distance 0.
fn hit_grid(g: &OccupancyCells, o: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    let (s, c) = g.yaw.sin_cos();
    let res = g.resolution;
    // Into the grid frame, in cells.
    let rel = (f64::from(o.x) - g.origin[0], f64::from(o.y) - g.origin[1]);
    let p = (
        (c * rel.0 + s * rel.1) / res,
        (-s * rel.0 + c * rel.1) / res,
    );
    let dir = (
        c * f64::from(d.x) + s * f64::from(d.y),
        -s * f64::from(d.x) + c * f64::from(d.y),
    );
    // Enter the grid's box first.
    let (w, h) = (g.cols as f64, g.rows as f64);
    let mut t_enter: f64 = 0.0;
    let mut t_exit = f64::INFINITY;
    for (pos, dd, size) in [(p.0, dir.0, w), (p.1, dir.1, h)] {
        if dd.abs() < 1e-12 {
            if pos < 0.0 || pos >= size {
                return None;
            }
        } else {
            let (a, b) = ((0.0 - pos) / dd, (size - pos) / dd);
            t_enter = t_enter.max(a.min(b));
            t_exit = t_exit.min(a.max(b));
        }
    }
    if t_enter > t_exit {
        return None;
    }
    let start = (p.0 + dir.0 * t_enter, p.1 + dir.1 * t_enter);
    let mut cell = (
        (start.0.floor() as i64).clamp(0, g.cols as i64 - 1),
        (start.1.floor() as i64).clamp(0, g.rows as i64 - 1),
    );
    let step = (dir.0.signum() as i64, dir.1.signum() as i64);
    let next = |pos: f64, dd: f64, i: i64| -> f64 {
        if dd > 0.0 {
            ((i + 1) as f64 - pos) / dd
        } else if dd < 0.0 {
            (i as f64 - pos) / dd
        } else {
            f64::INFINITY
        }
    };
    let mut t_max = (next(p.0, dir.0, cell.0), next(p.1, dir.1, cell.1));
    let delta = (
        if dir.0 != 0.0 {
            1.0 / dir.0.abs()
        } else {
            f64::INFINITY
        },
        if dir.1 != 0.0 {
            1.0 / dir.1.abs()
        } else {
            f64::INFINITY
        },
    );
    // The face the ray entered the current cell by (grid frame), for the normal.
    let mut entered_x = t_enter > 0.0 && {
        let ax = if dir.0.abs() > 1e-12 {
            ((if dir.0 > 0.0 { 0.0 } else { w }) - p.0) / dir.0
        } else {
            f64::NEG_INFINITY
        };
        (ax - t_enter).abs() < 1e-9
    };
    let mut t = t_enter;
    for _ in 0..MAX_GRID_STEPS {
        if cell.0 < 0 || cell.1 < 0 || cell.0 >= g.cols as i64 || cell.1 >= g.rows as i64 {
            return None;
        }
        if g.is_occupied(cell.0, cell.1) {
            let n_grid = if entered_x {
                (-dir.0.signum(), 0.0)
            } else {
                (0.0, -dir.1.signum())
            };
            let normal = Vec2::new(
                (c * n_grid.0 - s * n_grid.1) as f32,
                (s * n_grid.0 + c * n_grid.1) as f32,
            );
            return Some(((t * res) as f32, normal));
        }
        if t_max.0 < t_max.1 {
            t = t_max.0;
            t_max.0 += delta.0;
            cell.0 += step.0;
            entered_x = true;
        } else {
            t = t_max.1;
            t_max.1 += delta.1;
            cell.1 += step.1;
            entered_x = false;
        }
    }
    None
}
