//! A hit's distance worked out again in doubles: where a ray meets the plane of the triangle
//! the watertight test said it hits, in `f64`.
//!
//! Why: the watertight test finds a hit's distance with the rounding of the triangle's
//! coordinates relative to the ray, millimetres along a grazing ray for a triangle 1e5 m
//! across (MAVS's ground). In doubles the corners' differences are exact (they are floats)
//! and the rest rounds at 2^-53.
//!
//! Owns: that arithmetic. Must not touch which triangle is hit, or whether: the watertight
//! test's answer stands.

use super::{LocalHit, TriangleMesh};

/// The plane of one of a mesh's triangles in doubles: a corner and the normal (not of unit
/// length: the cross product of two edges, exact but for one rounding an axis).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlaneInDoubles {
    triangle: u32,
    corner: [f64; 3],
    normal: [f64; 3],
}

impl TriangleMesh {
    /// The plane of triangle `triangle` (none past the mesh's triangles).
    pub(crate) fn plane_in_doubles(&self, triangle: u32) -> Option<PlaneInDoubles> {
        let corners = self.triangles.get(triangle as usize)?;
        let mut p = [[0.0; 3]; 3];
        for (corner, &i) in p.iter_mut().zip(corners) {
            let v = self.vertices.get(i as usize)?;
            *corner = [v.x, v.y, v.z].map(f64::from);
        }
        Some(PlaneInDoubles {
            triangle,
            corner: p[0],
            normal: cross(sub(p[1], p[0]), sub(p[2], p[0])),
        })
    }
}

impl PlaneInDoubles {
    /// The triangle it is the plane of.
    pub(crate) fn triangle(&self) -> u32 {
        self.triangle
    }

    /// `hit`, a hit on this plane's triangle of the ray `origin + t·dir` (the mesh's frame, in
    /// doubles), with its distance worked out again: where the ray meets the plane, not below
    /// `t_min` (as it was for a ray along the plane). Its barycentrics stay the watertight
    /// test's: as floats they cannot be finer than 2^-24 of the triangle (12 mm on MAVS's
    /// ground's), which the test's come within a few ulps of.
    pub(crate) fn hit(
        &self,
        (origin, dir): ([f64; 3], [f64; 3]),
        hit: &LocalHit,
        t_min: f32,
    ) -> LocalHit {
        let t = dot(self.normal, sub(self.corner, origin)) / dot(self.normal, dir);
        if !t.is_finite() {
            return *hit;
        }
        LocalHit {
            t: (t as f32).max(t_min),
            ..*hit
        }
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
