//! Leaf triangles packed four at a time (structure of arrays), tested against one ray in
//! 4-lane arithmetic with the same watertight formulas as the scalar test.
//!
//! Every triangle goes through the same lane arithmetic (a lone triangle too), so two
//! triangles sharing an edge see identical edge values there: the test stays watertight. A lane
//! whose edge function comes out exactly zero is redone by the scalar test, which falls back to
//! double precision as the paper prescribes.

use crate::ray::{Shear, intersect_triangle};
use crate::wide::lane_of;
use glam::{Mat4, Vec3A, Vec4};

/// Up to four triangles: `v[j][a]` holds coordinate `a` of vertex `j` of each lane's triangle
/// (NaN in empty lanes, so that no comparison of the test ever selects them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TriPack {
    pub(crate) v: [[Vec4; 3]; 3],
    /// Triangle index per lane; `u32::MAX` for an empty lane.
    pub(crate) prim: [u32; 4],
}

pub(crate) const EMPTY_LANE: u32 = u32::MAX;

impl TriPack {
    pub(crate) fn empty() -> TriPack {
        TriPack {
            v: [[Vec4::NAN; 3]; 3],
            prim: [EMPTY_LANE; 4],
        }
    }

    pub(crate) fn set(&mut self, lane: usize, prim: u32, corners: [Vec3A; 3]) {
        self.prim[lane] = prim;
        for (j, c) in corners.iter().enumerate() {
            for a in 0..3 {
                self.v[j][a][lane] = c[a];
            }
        }
    }

    /// Rewrites every used lane's corners from `corners_of(triangle)`, a whole vector at a time
    /// (a refit does this for every pack of a moving mesh).
    pub(crate) fn refit(&mut self, mut corners_of: impl FnMut(u32) -> [Vec3A; 3]) {
        let lanes: [[Vec3A; 3]; 4] = std::array::from_fn(|lane| match self.prim[lane] {
            EMPTY_LANE => [Vec3A::NAN; 3],
            p => corners_of(p),
        });
        // Each corner of the four lanes as the columns of a matrix, transposed in registers
        // (made lane by lane, the vectors were read back from memory across the stores that
        // had just written the corners, and stalled).
        self.v = std::array::from_fn(|j| {
            let column = |lane: usize| lanes[lane][j].extend(0.0);
            let rows = Mat4::from_cols(column(0), column(1), column(2), column(3)).transpose();
            [rows.x_axis, rows.y_axis, rows.z_axis]
        });
    }

    pub(crate) fn corners(&self, lane: usize) -> [Vec3A; 3] {
        std::array::from_fn(|j| {
            let c = &self.v[j];
            Vec3A::new(
                lane_of(&c[0], lane),
                lane_of(&c[1], lane),
                lane_of(&c[2], lane),
            )
        })
    }
}

/// A hit within a pack: `(t, u, v, lane)`.
pub(crate) type PackHit = (f32, f32, f32, usize);

/// A ray's constants for the pack test, broadcast to four lanes once per ray rather than once
/// per pack.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PackRay {
    origin: Vec3A,
    shear: Shear,
    /// The origin's `[kx, ky, kz]` coordinates (see [`Shear`]) in every lane.
    lanes_origin: [Vec4; 3],
    /// `[Sx, Sy, Sz]` in every lane.
    lanes_coeffs: [Vec4; 3],
}

impl PackRay {
    pub(crate) fn new(origin: Vec3A, shear: &Shear) -> PackRay {
        PackRay {
            origin,
            shear: *shear,
            lanes_origin: shear.axes.map(|k| Vec4::splat(origin.to_array()[k])),
            lanes_coeffs: shear.coeffs.map(Vec4::splat),
        }
    }
}

/// A pack's corners relative to a ray origin: `[j][a]` is coordinate `a` of corner `j` minus
/// the origin's, in every lane. Rays from one origin (a lidar's, a camera's) share it.
pub(crate) type RelativeCorners = [[Vec4; 3]; 3];

impl TriPack {
    /// The corners relative to `origin` (given as one splatted vector per axis).
    #[inline(always)]
    pub(crate) fn relative_to(&self, origin: &[Vec4; 3]) -> RelativeCorners {
        self.v
            .map(|corner| [0, 1, 2].map(|a| corner[a] - origin[a]))
    }
}

/// The nearest hit of the ray among the pack's lanes with `t` in `(t_min, t_max)`; equal `t`
/// go to the lower triangle index.
#[inline(always)]
pub(crate) fn intersect_pack(
    ray: &PackRay,
    t_min: f32,
    t_max: f32,
    pack: &TriPack,
) -> Option<PackHit> {
    let [kx, ky, kz] = ray.shear.axes;
    let o = &ray.lanes_origin;
    intersect_with(ray, t_min, t_max, pack, |j| {
        let corner = &pack.v[j];
        (corner[kx] - o[0], corner[ky] - o[1], corner[kz] - o[2])
    })
}

/// [`intersect_pack`] with the pack's corners relative to the ray's origin already found
/// ([`TriPack::relative_to`]): the same operations, so the same answer.
#[inline(always)]
pub(crate) fn intersect_relative(
    ray: &PackRay,
    t_min: f32,
    t_max: f32,
    pack: &TriPack,
    relative: &RelativeCorners,
) -> Option<PackHit> {
    let [kx, ky, kz] = ray.shear.axes;
    intersect_with(ray, t_min, t_max, pack, |j| {
        (relative[j][kx], relative[j][ky], relative[j][kz])
    })
}

/// The pack test, given each corner `j`'s coordinates relative to the ray's origin on the
/// ray's `[kx, ky, kz]` axes.
#[inline(always)]
fn intersect_with(
    ray: &PackRay,
    t_min: f32,
    t_max: f32,
    pack: &TriPack,
    relative: impl Fn(usize) -> (Vec4, Vec4, Vec4),
) -> Option<PackHit> {
    let [sx, sy, sz] = &ray.lanes_coeffs;
    // Ray-space coordinates of each vertex, with the scalar test's very operations.
    let to_ray = |j: usize| -> [Vec4; 3] {
        let (dx, dy, dz) = relative(j);
        [dx - *sx * dz, dy - *sy * dz, *sz * dz]
    };
    let [ax, ay, az] = to_ray(0);
    let [bx, by, bz] = to_ray(1);
    let [cx, cy, cz] = to_ray(2);
    let u = cx * by - cy * bx;
    let v = ax * cy - ay * cx;
    let w = bx * ay - by * ax;
    let zero = Vec4::ZERO;
    let negative = u.cmplt(zero) | v.cmplt(zero) | w.cmplt(zero);
    let positive = u.cmpgt(zero) | v.cmpgt(zero) | w.cmpgt(zero);
    let det = u + v + w;
    // Scaled t times the reciprocal, exactly as the scalar test computes it.
    let inv_det = det.recip();
    let t = (u * az + v * bz + w * cz) * inv_det;
    let candidates = !(negative & positive)
        & det.cmpne(zero)
        & t.cmpgt(Vec4::splat(t_min))
        & t.cmplt(Vec4::splat(t_max));
    let on_edge = u.cmpeq(zero) | v.cmpeq(zero) | w.cmpeq(zero);
    let mut best: Option<PackHit> = None;
    let mut consider = |lane: usize, hit: (f32, f32, f32)| {
        let better = match best {
            None => true,
            Some((bt, _, _, bl)) => hit.0 < bt || (hit.0 == bt && pack.prim[lane] < pack.prim[bl]),
        };
        if better {
            best = Some((hit.0, hit.1, hit.2, lane));
        }
    };
    let edge_mask = on_edge.bitmask();
    let hit_mask = candidates.bitmask();
    // Empty lanes hold NaN corners: every comparison above is false for them.
    let mut todo = edge_mask | hit_mask;
    if todo == 0 {
        return None;
    }
    // Lanes read from arrays (a vector indexed by a variable lane goes through a `match`).
    let (t, v, w, inv_det) = (t.to_array(), v.to_array(), w.to_array(), inv_det.to_array());
    while todo != 0 {
        let lane = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        if edge_mask & (1 << lane) != 0 {
            // An exact zero edge value: the scalar test decides, in double precision.
            if let Some(hit) =
                intersect_triangle(ray.origin, &ray.shear, t_min, t_max, pack.corners(lane))
            {
                consider(lane, hit);
            }
        } else if hit_mask & (1 << lane) != 0 {
            consider(
                lane,
                (t[lane], v[lane] * inv_det[lane], w[lane] * inv_det[lane]),
            );
        }
    }
    best
}
