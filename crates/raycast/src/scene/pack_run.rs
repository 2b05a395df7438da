//! One pack of triangles tried on a whole run of rays that share one direction (a sun's
//! shadow rays under a roof: the pack that blocked the last ray blocks nearly all the next).
//!
//! The shared direction is what makes this cheap: one inverse for the instance's world box,
//! one shear into ray space for every ray, so each ray costs its box test, its origin carried
//! into the mesh's frame and the pack's triangle tests, lane by lane in a loop the compiler
//! lays out in the widest vectors the CPU has.
//!
//! Owns: nothing but speed. Must not touch the answers: a ray is reported blocked only where
//! [`Scene::instance_blocks`] with that pack as its hint finds it blocked on its first try,
//! by the very IEEE operations of the box test (`intersect_box`), the instance's transform
//! (`Instance::point_to_mesh`) and the triangle test (`intersect_triangle`, the 16-lane
//! test); what it cannot decide that way (an edge value of exactly zero, which the triangle
//! test settles in double precision; a slab value that is NaN) it leaves open.

use super::{Scene, shadow::share_direction};
use crate::mesh::PACKET;
use crate::packs::{EMPTY_LANE, TriPack};
use crate::ray::{Ray, Shear, larger_or, smaller_or};
use glam::Vec3A;

/// A run's rays' origins and ranges, lane by lane (lanes past the run's end are never
/// reported).
pub(super) struct RunLanes<'a> {
    pub(super) origin: [&'a [f32; PACKET]; 3],
    pub(super) t_min: &'a [f32; PACKET],
    pub(super) t_max: &'a [f32; PACKET],
}

/// What the run's shared direction and the instance give every ray.
struct Along {
    /// The world direction's inverse, for the world box.
    inv: [f32; 3],
    box_min: [f32; 3],
    box_max: [f32; 3],
    /// The instance's mesh-from-world columns (x, y, z axes, translation), unless it is
    /// placed as its mesh is.
    to_mesh: Option<[[f32; 3]; 4]>,
    /// The shear of the direction in the mesh's frame: `[kx, ky, kz]` and `[Sx, Sy, Sz]`.
    axes: [usize; 3],
    coeffs: [f32; 3],
}

/// A pack of an instance's triangles, ready to be tried on runs of rays along one direction
/// (what the direction gives the tests made once).
pub(super) struct PackOnRuns<'s> {
    /// The instance and the pack's index in its mesh.
    pub(super) which: (u32, u32),
    pack: &'s TriPack,
    along: Along,
}

impl Scene {
    /// Pack `pack` of instance `index`'s mesh, to be tried on runs of rays along `dir` (None
    /// for a pack the mesh does not have).
    pub(super) fn pack_on_runs(&self, index: u32, pack: u32, dir: Vec3A) -> Option<PackOnRuns<'_>> {
        let inst = &self.instances[index as usize];
        let triangles = self.meshes[inst.mesh.0 as usize].pack(pack)?;
        let world_box = &self.top.boxes[index as usize].get();
        let shear = Shear::new(inst.dir_to_mesh(dir));
        let m = inst.mesh_from_world();
        Some(PackOnRuns {
            which: (index, pack),
            pack: triangles,
            along: Along {
                inv: dir.recip().to_array(),
                box_min: world_box.min.to_array(),
                box_max: world_box.max.to_array(),
                to_mesh: (!inst.placed_as_is()).then(|| {
                    [
                        m.matrix3.x_axis,
                        m.matrix3.y_axis,
                        m.matrix3.z_axis,
                        m.translation,
                    ]
                    .map(|c| c.to_array())
                }),
                axes: shear.axes,
                coeffs: shear.coeffs,
            },
        })
    }

    /// The rays of `run` (at most [`PACKET`]) that pack `pack` of instance `index`'s mesh
    /// blocks, as [`Scene::instance_blocks`] with that hint finds them on its first try (the
    /// instance's world box, then the pack's triangles): a mask, with no ray the tests
    /// cannot decide by their single-precision path. 0 when the rays do not all share one
    /// direction.
    pub(super) fn pack_blocks_run(&self, index: u32, pack: u32, run: &[Ray]) -> u32 {
        let Some(first) = run.first() else {
            return 0;
        };
        if run.len() > PACKET || !share_direction(first.dir, run) {
            return 0;
        }
        let Some(pack) = self.pack_on_runs(index, pack, first.dir) else {
            return 0;
        };
        let mut origin = [[0.0; PACKET]; 3];
        let (mut t_min, mut t_max) = ([0.0; PACKET], [0.0; PACKET]);
        for (r, ray) in run.iter().enumerate() {
            for (a, axis) in origin.iter_mut().enumerate() {
                axis[r] = ray.origin[a];
            }
            (t_min[r], t_max[r]) = (ray.t_min, ray.t_max);
        }
        let [x, y, z] = &origin;
        let lanes = RunLanes {
            origin: [x, y, z],
            t_min: &t_min,
            t_max: &t_max,
        };
        pack.blocks(&lanes, run.len())
    }
}

impl PackOnRuns<'_> {
    /// The first `n` rays of `lanes` (along its direction) it blocks, as
    /// [`Scene::pack_blocks_run`] finds them: a mask.
    pub(super) fn blocks(&self, lanes: &RunLanes<'_>, n: usize) -> u32 {
        let in_run = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        blocked_widest(lanes, &self.along, self.pack) & in_run
    }
}

/// `x` times `y` less `z` times `w`, the triangle test's 2 x 2 determinants (no fused
/// operation: Rust never contracts them).
#[inline(always)]
fn cross(x: f32, y: f32, z: f32, w: f32) -> f32 {
    x * y - z * w
}

/// [`blocked_widest`]'s body (compiled for each vector width).
#[inline(always)]
fn blocked_body(lanes: &RunLanes<'_>, along: &Along, pack: &TriPack) -> u32 {
    let (inv, lo, hi) = (along.inv, along.box_min, along.box_max);
    // Each ray's world box test, and its origin in the mesh's frame.
    let mut reach = [false; PACKET];
    let mut origin = [[0.0f32; PACKET]; 3];
    for r in 0..PACKET {
        let o = [0, 1, 2].map(|a| lanes.origin[a][r]);
        let t0 = [0, 1, 2].map(|a| (lo[a] - o[a]) * inv[a]);
        let t1 = [0, 1, 2].map(|a| (hi[a] - o[a]) * inv[a]);
        // Without NaNs the slab test's minima and maxima do not depend on their order.
        let nan = (0..3).fold(false, |n, a| n | t0[a].is_nan() | t1[a].is_nan());
        let near_axes = [0, 1, 2].map(|a| if t1[a] < t0[a] { t1[a] } else { t0[a] });
        let far_axes = [0, 1, 2].map(|a| if t1[a] > t0[a] { t1[a] } else { t0[a] });
        let max3 = |v: [f32; 3]| larger_or(larger_or(v[0], v[1]), v[2]);
        let min3 = |v: [f32; 3]| smaller_or(smaller_or(v[0], v[1]), v[2]);
        let near = larger_or(max3(near_axes), lanes.t_min[r]);
        let far = smaller_or(
            min3(far_axes) * (1.0 + 2.0 * 3.0 * f32::EPSILON),
            lanes.t_max[r],
        );
        reach[r] = !nan & (near <= far);
        let moved = match &along.to_mesh {
            // glam's `matrix3 * p + translation`: ((x·X + y·Y) + z·Z) + T.
            Some([x, y, z, t]) => {
                [0, 1, 2].map(|c| ((x[c] * o[0] + y[c] * o[1]) + z[c] * o[2]) + t[c])
            }
            None => o,
        };
        for a in 0..3 {
            origin[a][r] = moved[a];
        }
    }
    let [kx, ky, kz] = along.axes;
    let [sx, sy, sz] = along.coeffs;
    // The origins' axes in the shear's order, picked once (an axis picked per lane keeps
    // the loop from vectors).
    let (okx, oky, okz) = (&origin[kx], &origin[ky], &origin[kz]);
    let mut blocked = [false; PACKET];
    for (lane, &triangle) in pack.prim.iter().enumerate() {
        if triangle == EMPTY_LANE {
            continue;
        }
        let corners = pack.corners(lane).map(|c| [c[kx], c[ky], c[kz]]);
        for r in 0..PACKET {
            // Each corner relative to the origin, in ray space (`Shear::apply`).
            let sheared = corners.map(|c| {
                let dz = c[2] - okz[r];
                [
                    (c[0] - okx[r]) - sx * dz,
                    (c[1] - oky[r]) - sy * dz,
                    sz * dz,
                ]
            });
            let [[ax, ay, az], [bx, by, bz], [cx, cy, cz]] = sheared;
            let u = cross(cx, by, cy, bx);
            let v = cross(ax, cy, ay, cx);
            let w = cross(bx, ay, by, ax);
            let on_edge = (u == 0.0) | (v == 0.0) | (w == 0.0);
            let negative = (u < 0.0) | (v < 0.0) | (w < 0.0);
            let positive = (u > 0.0) | (v > 0.0) | (w > 0.0);
            let det = (u + v) + w;
            let t = ((u * az + v * bz) + w * cz) * (1.0 / det);
            let hit = !on_edge
                & !(negative & positive)
                & (det != 0.0)
                & (t > lanes.t_min[r])
                & (t < lanes.t_max[r]);
            blocked[r] |= hit;
        }
    }
    (0..PACKET).fold(0, |mask, r| mask | u32::from(reach[r] & blocked[r]) << r)
}

crate::widest_vectors! {
    /// The lanes of `lanes` that reach the world box and that a triangle of `pack` blocks,
    /// in the widest vectors the CPU has.
    fn blocked_widest(lanes: &RunLanes<'_>, along: &Along, pack: &TriPack) -> u32 => blocked_body
}

#[cfg(test)]
mod tests {
    use crate::{Ray, Scene, TriangleMesh};
    use glam::{Affine3A, Quat, Vec3, Vec3A};

    /// A roof of two triangles over a few small ones, placed as it is and turned and moved.
    fn roofed_scene(next: &mut impl FnMut() -> f32) -> Scene {
        let mut vertices = vec![
            Vec3::new(-5.0, -5.0, 3.0),
            Vec3::new(5.0, -5.0, 3.0),
            Vec3::new(5.0, 5.0, 3.0),
            Vec3::new(-5.0, 5.0, 3.0),
        ];
        let mut triangles = vec![[0, 1, 2], [0, 2, 3]];
        for k in 0..12u32 {
            let c = Vec3::new(next() * 8.0 - 4.0, next() * 8.0 - 4.0, 1.0 + next());
            vertices.extend([
                c,
                c + Vec3::new(0.4, 0.0, 0.1),
                c + Vec3::new(0.0, 0.4, 0.0),
            ]);
            triangles.push([4 + 3 * k, 5 + 3 * k, 6 + 3 * k]);
        }
        let mut scene = Scene::new();
        let mesh = scene.add_mesh(TriangleMesh::new(vertices, triangles));
        scene.add_instance(mesh, Affine3A::IDENTITY);
        let turned = Quat::from_rotation_z(0.3);
        let moved = Affine3A::from_rotation_translation(turned, Vec3::new(0.5, -0.2, 0.1));
        scene.add_instance(mesh, moved);
        scene.commit();
        scene
    }

    fn xorshift() -> impl FnMut() -> f32 {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// Whatever the pack, the run and the instance's placement, the run test reports the
    /// rays the 16-lane packet test of the same pack (what the run test replaced) finds
    /// blocked, and only rays `any_hit` finds blocked.
    #[test]
    fn a_pack_blocks_a_run_where_the_packet_test_finds_it_does() {
        let mut next = xorshift();
        let scene = roofed_scene(&mut next);
        let (mut reported, mut tested) = (0, 0);
        for case in 0..300 {
            let index = (case % 2) as u32;
            let dir = Vec3A::new(next() - 0.5, next() - 0.5, 0.5 + next()).normalize();
            let n = 1 + case % 32;
            let t_max = if case % 5 == 0 { 1.0 } else { 1e4 };
            let run: Vec<Ray> = (0..n)
                .map(|_| {
                    let o = Vec3A::new(next() * 9.0 - 4.5, next() * 9.0 - 4.5, next() * 2.5);
                    Ray::new(o, dir, 0.0, t_max).unwrap()
                })
                .collect();
            let mesh = &scene.meshes[0];
            for pack in 0..mesh.pack_count() as u32 {
                let mask = scene.pack_blocks_run(index, pack, &run);
                let packet = scene.run_packet(index, &run, u32::MAX);
                assert_eq!(
                    mask,
                    mesh.pack_blocks(pack, &packet),
                    "case {case}, pack {pack}"
                );
                for (r, ray) in run.iter().enumerate() {
                    tested += 1;
                    if mask >> r & 1 != 0 {
                        reported += 1;
                        assert!(scene.any_hit(ray), "case {case}, pack {pack}, ray {r}");
                    }
                }
            }
        }
        // The roof's pack blocks most rays going up from under it.
        assert!(reported * 20 > tested, "{reported} of {tested}");
    }

    /// Rays given by their origins along one direction get `any_hit`'s answers, under the
    /// roof (settled a run at a time), beside it (open sky) and across its edge.
    #[test]
    fn rays_along_one_direction_get_any_hits_answers() {
        let mut next = xorshift();
        let scene = roofed_scene(&mut next);
        for case in 0..40 {
            let dir = Vec3A::new(next() - 0.5, next() - 0.5, 0.5 + next()).normalize();
            let n = 1 + 37 * case;
            // Under the roof first, then a stretch reaching past its edge.
            let reach = if case % 2 == 0 { 9.0 } else { 16.0 };
            let origins: [Vec<f32>; 3] = [
                (0..n)
                    .map(|k| (k as f32 / n as f32) * reach - 4.5)
                    .collect(),
                (0..n).map(|_| next() * 9.0 - 4.5).collect(),
                (0..n).map(|_| 1.0 + next() * 1.9).collect(),
            ];
            // (Short ranges end near the roof for many rays.)
            let range = (0.0, if case % 3 == 0 { 1.2 } else { 1e4 });
            let mut out = vec![false; n];
            let [x, y, z] = &origins;
            scene.any_hit_along([x, y, z], dir, range, &mut out);
            for (k, &blocked) in out.iter().enumerate() {
                let o = Vec3A::new(x[k], y[k], z[k]);
                let ray = Ray::new(o, dir, range.0, range.1).unwrap();
                assert_eq!(blocked, scene.any_hit(&ray), "case {case}, ray {k}");
            }
        }
    }
}
