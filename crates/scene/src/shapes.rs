//! Triangle meshes of the primitive shapes worlds describe: quads, boxes, extruded outlines,
//! ramps, walls, spheres and elevation grids.

use glam::Vec3;
use passerby_raycast::TriangleMesh;
use passerby_world::ElevationGrid;

pub(crate) fn quad(p: [Vec3; 4]) -> TriangleMesh {
    TriangleMesh::new(p.to_vec(), vec![[0, 1, 2], [0, 2, 3]])
}

/// A box from `min` to `max`.
pub fn cuboid(min: Vec3, max: Vec3) -> TriangleMesh {
    let pts = [
        [min.x, min.y],
        [max.x, min.y],
        [max.x, max.y],
        [min.x, max.y],
    ];
    prism(&pts, min.z, max.z)
}

/// A vertical prism over a convex or star-shaped polygon (fan-triangulated caps).
pub(crate) fn prism(pts: &[[f32; 2]], z0: f32, z1: f32) -> TriangleMesh {
    let n = pts.len() as u32;
    let mut v: Vec<Vec3> = pts.iter().map(|p| Vec3::new(p[0], p[1], z0)).collect();
    v.extend(pts.iter().map(|p| Vec3::new(p[0], p[1], z1)));
    let mut t = Vec::new();
    for i in 0..n {
        let j = (i + 1) % n;
        t.push([i, j, n + j]);
        t.push([i, n + j, n + i]);
    }
    for i in 1..n.saturating_sub(1) {
        t.push([0, i + 1, i]);
        t.push([n, n + i, n + i + 1]);
    }
    TriangleMesh::new(v, t)
}

/// A wall of `thickness` along the segment `a`–`c`, from `z` up by `height`.
/// A wedge over (0,0)-(lx,ly) rising along +X from z = 0 to z = lz (MVSim's ramp spans the same
/// box as its box primitive).
pub(crate) fn ramp(lx: f32, ly: f32, lz: f32) -> TriangleMesh {
    let v = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(lx, 0.0, 0.0),
        Vec3::new(lx, ly, 0.0),
        Vec3::new(0.0, ly, 0.0),
        Vec3::new(lx, 0.0, lz),
        Vec3::new(lx, ly, lz),
    ];
    let t = vec![
        [0, 2, 1], // bottom
        [0, 3, 2],
        [0, 1, 4], // sloped face is [0, 4, 5, 3]; sides and back:
        [0, 4, 5],
        [0, 5, 3],
        [1, 2, 5],
        [1, 5, 4],
        [3, 5, 2],
    ];
    TriangleMesh::new(v, t)
}

pub(crate) fn wall_box(a: Vec3, c: Vec3, z: f32, height: f32, thickness: f32) -> TriangleMesh {
    let along = (c - a).normalize_or_zero();
    let side = Vec3::new(-along.y, along.x, 0.0) * (thickness / 2.0);
    let pts = [a - side, c - side, c + side, a + side].map(|p| [p.x, p.y]);
    prism(&pts, z, z + height)
}

pub(crate) fn circle(r: f32, n: u32) -> Vec<[f32; 2]> {
    let n = n.max(3);
    (0..n)
        .map(|i| {
            let a = i as f32 * std::f32::consts::TAU / n as f32;
            [r * a.cos(), r * a.sin()]
        })
        .collect()
}

pub(crate) fn sphere(r: f32, n: u32) -> TriangleMesh {
    let (rings, sectors) = (n.max(4) / 2, n.max(4));
    let mut v = Vec::new();
    for i in 0..=rings {
        let phi = std::f32::consts::PI * i as f32 / rings as f32;
        for j in 0..sectors {
            let theta = std::f32::consts::TAU * j as f32 / sectors as f32;
            v.push(Vec3::new(
                r * phi.sin() * theta.cos(),
                r * phi.sin() * theta.sin(),
                r * phi.cos(),
            ));
        }
    }
    let mut t = Vec::new();
    for i in 0..rings {
        for j in 0..sectors {
            let (a, b) = (i * sectors + j, i * sectors + (j + 1) % sectors);
            let (c, d) = (a + sectors, b + sectors);
            t.push([a, c, b]);
            t.push([b, c, d]);
        }
    }
    TriangleMesh::new(v, t)
}

pub(crate) fn terrain(g: &ElevationGrid) -> TriangleMesh {
    let mut v = Vec::with_capacity(g.nx * g.ny);
    for i in 0..g.nx {
        for j in 0..g.ny {
            v.push(Vec3::new(
                (g.corner_min[0] + i as f64 * g.resolution) as f32,
                (g.corner_min[1] + j as f64 * g.resolution) as f32,
                g.heights[i * g.ny + j] as f32,
            ));
        }
    }
    let mut t = Vec::new();
    let id = |i: usize, j: usize| (i * g.ny + j) as u32;
    for i in 0..g.nx.saturating_sub(1) {
        for j in 0..g.ny.saturating_sub(1) {
            // The same diagonal as ElevationGrid::height_at: (i, j)–(i+1, j+1).
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    TriangleMesh::new(v, t)
}
