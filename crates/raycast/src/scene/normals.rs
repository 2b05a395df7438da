//! A packet's hits' world normals, made once the walk has chosen each ray's hit (a ray may
//! meet several instances on its way), four hits to a vector: each normal's two
//! normalisations (in the mesh's frame, then in the world's) are a square root and a division
//! in a chain, which one hit at a time the processor cannot overlap with much else.
//!
//! Lane by lane these are the operations `Vec3A::normalize_or_zero` and `Mat3A * Vec3A` make
//! on every back end of glam (a square root and a division are correctly rounded in any
//! width), so every normal is the one a single ray's hit gets.

use super::Scene;
use crate::mesh::PACKET;
use crate::ray::Hit;
use glam::{Vec3A, Vec4};

/// `normalize_or_zero` of four vectors given per axis: the squared length as
/// `(x·x + y·y) + z·z`, one divided by its square root, and the vector times that where it is
/// finite and positive, else zero.
fn unit_or_zero([x, y, z]: [Vec4; 3]) -> [Vec4; 3] {
    let length_recip = Vec4::ONE / ((x * x + y * y) + z * z).sqrt();
    let usable = length_recip.is_finite_mask() & length_recip.cmpgt(Vec4::ZERO);
    [x, y, z].map(|axis| Vec4::select(usable, axis * length_recip, Vec4::ZERO))
}

/// Up to [`PACKET`] vectors per axis, made unit four at a time.
fn make_unit(axes: &mut [[f32; PACKET]; 3], count: usize) {
    for first in (0..count).step_by(4) {
        let group = |axis: &[f32; PACKET]| Vec4::from_slice(&axis[first..first + 4]);
        let unit = unit_or_zero([group(&axes[0]), group(&axes[1]), group(&axes[2])]);
        for (axis, values) in axes.iter_mut().zip(unit) {
            values.write_to_slice(&mut axis[first..first + 4]);
        }
    }
}

impl Scene {
    /// Turns each hit's normal, its triangle's as the mesh reported it (not yet unit), into its
    /// unit normal in the world, as [`super::world_normal`] makes a single ray's.
    pub(super) fn make_normals(&self, hits: &mut [Option<Hit>]) {
        let mut axes = [[0.0f32; PACKET]; 3];
        let mut count = 0;
        for hit in hits.iter().take(PACKET).flatten() {
            let normal = hit.normal.to_array();
            for (a, axis) in axes.iter_mut().enumerate() {
                axis[count] = normal[a];
            }
            count += 1;
        }
        make_unit(&mut axes, count);
        // Into the world, hit by hit (the instance's matrix made once for a run of hits on it).
        let mut turn: Option<(u32, glam::Mat3A)> = None;
        for (i, hit) in hits.iter().take(PACKET).flatten().enumerate() {
            let to_world = match turn {
                Some((instance, m)) if instance == hit.instance => m,
                _ => {
                    let m = self.instances[hit.instance as usize].normal_to_world();
                    turn = Some((hit.instance, m));
                    m
                }
            };
            let world = to_world * Vec3A::new(axes[0][i], axes[1][i], axes[2][i]);
            for (a, axis) in axes.iter_mut().enumerate() {
                axis[i] = world[a];
            }
        }
        make_unit(&mut axes, count);
        for (i, hit) in hits.iter_mut().take(PACKET).flatten().enumerate() {
            hit.normal = glam::Vec3::new(axes[0][i], axes[1][i], axes[2][i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four lanes give what `normalize_or_zero` gives each vector, bit for bit, also for zero,
    /// tiny, huge, infinite and NaN vectors.
    #[test]
    fn four_at_a_time_is_normalize_or_zero() {
        let vectors = [
            Vec3A::new(1.0, 2.0, 3.0),
            Vec3A::ZERO,
            Vec3A::new(1e-30, -2e-30, 0.5e-30),
            Vec3A::new(3e19, 4e19, -1e19),
            Vec3A::new(f32::INFINITY, 0.0, 1.0),
            Vec3A::new(f32::NAN, 1.0, 1.0),
            Vec3A::new(-0.0, -0.0, 1e-45),
            Vec3A::new(0.1, -0.7, 0.3),
        ];
        let mut axes = [[0.0f32; PACKET]; 3];
        for (i, v) in vectors.iter().enumerate() {
            for a in 0..3 {
                axes[a][i] = v[a];
            }
        }
        make_unit(&mut axes, vectors.len());
        for (i, v) in vectors.iter().enumerate() {
            let expected = v.normalize_or_zero();
            for a in 0..3 {
                assert_eq!(
                    axes[a][i].to_bits(),
                    expected[a].to_bits(),
                    "{v:?} axis {a}"
                );
            }
        }
    }
}
