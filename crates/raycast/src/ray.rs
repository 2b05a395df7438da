//! Rays, hits, and the watertight ray–triangle test of Woop, Benthin and Wald (JCGT 2013).
//!
//! The test shears the triangle into the ray's frame (the ray's dominant axis becomes z) and
//! decides inside/outside from the signs of three edge functions, evaluated identically for the
//! two triangles sharing an edge: a ray through a shared edge or vertex hits at least one of
//! them, never neither. Edge functions that come out exactly zero in single precision are
//! recomputed in double precision, as the paper prescribes.

use glam::{Vec3, Vec3A};

/// Why a ray was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum RayError {
    /// A coordinate of the origin or direction is NaN or infinite.
    #[error("ray origin or direction is not finite")]
    NotFinite,
    /// The direction is zero.
    #[error("ray direction is zero")]
    ZeroDirection,
}

/// A ray `origin + t · dir`, `t` in `[t_min, t_max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Origin.
    pub origin: Vec3A,
    /// Direction (any length; `t` is measured in its units).
    pub dir: Vec3A,
    /// Nearest accepted `t`.
    pub t_min: f32,
    /// Farthest accepted `t`.
    pub t_max: f32,
}

impl Ray {
    /// A ray, checked: finite origin and direction, non-zero direction.
    pub fn new(origin: Vec3A, dir: Vec3A, t_min: f32, t_max: f32) -> Result<Ray, RayError> {
        if !origin.is_finite() || !dir.is_finite() || t_min.is_nan() || t_max.is_nan() {
            return Err(RayError::NotFinite);
        }
        if dir == Vec3A::ZERO {
            return Err(RayError::ZeroDirection);
        }
        Ok(Ray {
            origin,
            dir,
            t_min,
            t_max,
        })
    }
}

/// The closest intersection of a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Ray parameter of the hit.
    pub t: f32,
    /// Barycentric coordinate of the triangle's second vertex.
    pub u: f32,
    /// Barycentric coordinate of the third vertex.
    pub v: f32,
    /// Triangle index within its mesh.
    pub triangle: u32,
    /// Instance index within the scene (0 for a lone mesh).
    pub instance: u32,
    /// Unit geometric normal in the ray's frame (world), facing the side the triangle's vertex
    /// order makes its front (counter-clockwise). Three floats, not a `Vec3A`: a hit is then 32
    /// bytes (36 as an `Option`) instead of 64, and a whole scan's answers stream through
    /// memory at about half the traffic.
    pub normal: Vec3,
}

/// Per-ray constants of the watertight test.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shear {
    /// `[kx, ky, kz]`: the ray's dominant axis is `kz`; `kx`, `ky` keep the winding.
    pub(crate) axes: [usize; 3],
    /// `[Sx, Sy, Sz]`: ray space maps `d = p - origin` to `(d[kx] - Sx·d[kz],
    /// d[ky] - Sy·d[kz], Sz·d[kz])`.
    pub(crate) coeffs: [f32; 3],
    pub(crate) inv_dir: Vec3A,
}

impl Shear {
    pub(crate) fn new(dir: Vec3A) -> Shear {
        let a = dir.abs();
        let kz = if a.x >= a.y && a.x >= a.z {
            0
        } else if a.y >= a.z {
            1
        } else {
            2
        };
        let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
        // Components read from an array (a vector indexed by a variable goes through a `match`).
        let d = dir.to_array();
        if d[kz] < 0.0 {
            std::mem::swap(&mut kx, &mut ky); // keep the winding
        }
        Shear {
            axes: [kx, ky, kz],
            coeffs: [d[kx] / d[kz], d[ky] / d[kz], 1.0 / d[kz]],
            inv_dir: dir.recip(),
        }
    }

    /// `p - origin` in ray space.
    #[inline]
    fn apply(&self, d: Vec3A) -> Vec3A {
        let [kx, ky, kz] = self.axes;
        let [sx, sy, sz] = self.coeffs;
        let d = d.to_array();
        Vec3A::new(d[kx] - sx * d[kz], d[ky] - sy * d[kz], sz * d[kz])
    }
}

/// Intersects a ray with a triangle; returns `(t, u, v)` with `t` in `(t_min, t_max)`.
/// Degenerate (zero-area) triangles are never hit.
#[inline]
pub(crate) fn intersect_triangle(
    origin: Vec3A,
    s: &Shear,
    t_min: f32,
    t_max: f32,
    p: [Vec3A; 3],
) -> Option<(f32, f32, f32)> {
    let a = s.apply(p[0] - origin);
    let b = s.apply(p[1] - origin);
    let c = s.apply(p[2] - origin);
    let (ax, ay, bx, by, cx, cy) = (a.x, a.y, b.x, b.y, c.x, c.y);
    let mut u = cx * by - cy * bx;
    let mut v = ax * cy - ay * cx;
    let mut w = bx * ay - by * ax;
    if u == 0.0 || v == 0.0 || w == 0.0 {
        let (ax, ay, bx, by, cx, cy) = (
            ax as f64, ay as f64, bx as f64, by as f64, cx as f64, cy as f64,
        );
        u = (cx * by - cy * bx) as f32;
        v = (ax * cy - ay * cx) as f32;
        w = (bx * ay - by * ax) as f32;
    }
    if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
        return None;
    }
    let det = u + v + w;
    if det == 0.0 {
        return None;
    }
    let (az, bz, cz) = (a.z, b.z, c.z);
    let t_scaled = u * az + v * bz + w * cz;
    let inv_det = 1.0 / det;
    let t = t_scaled * inv_det;
    if !(t > t_min && t < t_max) {
        return None;
    }
    Some((t, v * inv_det, w * inv_det))
}

/// Slab test of a box against a ray; the entry distance if the box is hit within `[t_min, t_max]`.
#[inline]
pub(crate) fn intersect_box(
    origin: Vec3A,
    inv_dir: Vec3A,
    t_min: f32,
    t_max: f32,
    min: Vec3A,
    max: Vec3A,
) -> Option<f32> {
    let t0 = (min - origin) * inv_dir;
    let t1 = (max - origin) * inv_dir;
    let near = larger_or(t0.min(t1).max_element(), t_min);
    // Widened by 2·gamma(3) (Ize 2013), so rounding never rejects a box that a ray through
    // one of its edges or corners does reach.
    let far = smaller_or(
        t0.max(t1).min_element() * (1.0 + 2.0 * 3.0 * f32::EPSILON),
        t_max,
    );
    (near <= far).then_some(near)
}

/// `x` if it is larger than `or`, else `or` (also when `x` is NaN): `x.max(or)` for an `or`
/// that is never NaN, in one instruction (`f32::max` must also handle a NaN `or`).
#[inline(always)]
pub(crate) fn larger_or(x: f32, or: f32) -> f32 {
    if x > or { x } else { or }
}

/// `x` if it is smaller than `or`, else `or` (also when `x` is NaN): `x.min(or)` for an `or`
/// that is never NaN, in one instruction.
#[inline(always)]
pub(crate) fn smaller_or(x: f32, or: f32) -> f32 {
    if x < or { x } else { or }
}
