//! Pose maths, in one place: the world's one Euler convention (MRPT's intrinsic yaw-pitch-roll,
//! `R = Rz(yaw)·Ry(pitch)·Rx(roll)`), composing poses, and poses and row-major matrices as the
//! affine transforms the scene and the sensors place things with. Every crate that turns a
//! pose into a rotation or a transform goes through here, so there is one convention to test.

use crate::{Affine3x4, Pose3};
use glam::{Affine3A, DQuat, DVec3, EulerRot, Mat3, Quat, Vec3};

impl Pose3 {
    /// The pose's translation.
    pub fn translation(&self) -> DVec3 {
        DVec3::new(self.x, self.y, self.z)
    }

    /// The pose's rotation, `Rz(yaw)·Ry(pitch)·Rx(roll)`.
    pub fn rotation(&self) -> DQuat {
        DQuat::from_euler(EulerRot::ZYX, self.yaw, self.pitch, self.roll)
    }

    /// The pose of a translation and a rotation (its angles as [`Pose3::rotation`] reads them).
    pub fn from_translation_rotation(t: DVec3, q: DQuat) -> Pose3 {
        let (yaw, pitch, roll) = q.to_euler(EulerRot::ZYX);
        Pose3 {
            x: t.x,
            y: t.y,
            z: t.z,
            yaw,
            pitch,
            roll,
        }
    }

    /// `self ⊕ b`: pose `b`, given in this pose's frame, brought to the frame this pose is in.
    pub fn compose(&self, b: &Pose3) -> Pose3 {
        let q = self.rotation();
        Pose3::from_translation_rotation(self.translation() + q * b.translation(), q * b.rotation())
    }

    /// `parent_from_pose` in single precision, as the scene places instances: the rotation
    /// composed from single-precision factors, then the translation.
    pub fn to_affine(&self) -> Affine3A {
        let rotation = Quat::from_rotation_z(self.yaw as f32)
            * Quat::from_rotation_y(self.pitch as f32)
            * Quat::from_rotation_x(self.roll as f32);
        let translation = Vec3::new(self.x as f32, self.y as f32, self.z as f32);
        Affine3A::from_rotation_translation(rotation, translation)
    }
}

/// A row-major 3×4 matrix (`[R·S | t]`) as an affine transform, in single precision.
pub fn affine_from_rows(m: &Affine3x4) -> Affine3A {
    let column = |j: usize| Vec3::new(m[0][j] as f32, m[1][j] as f32, m[2][j] as f32);
    Affine3A::from_mat3_translation(Mat3::from_cols(column(0), column(1), column(2)), column(3))
}

/// A row-major 4×4 matrix (its bottom row `0 0 0 1`) as an affine transform.
pub fn affine_from_rows4(m: &[[f64; 4]; 4]) -> Affine3A {
    affine_from_rows(&[m[0], m[1], m[2]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    fn pose(x: f64, y: f64, z: f64, yaw: f64, pitch: f64, roll: f64) -> Pose3 {
        Pose3 {
            x,
            y,
            z,
            yaw,
            pitch,
            roll,
        }
    }

    #[test]
    fn yaw_pitch_roll_are_intrinsic_z_then_y_then_x() {
        // Yaw 90°: +X turns to +Y. Pitch 90°: +X turns to -Z. Roll 90°: +Y turns to +Z.
        let r = |p: Pose3, v: DVec3| p.rotation() * v;
        assert!(
            (r(pose(0.0, 0.0, 0.0, FRAC_PI_2, 0.0, 0.0), DVec3::X) - DVec3::Y).length() < 1e-12
        );
        assert!(
            (r(pose(0.0, 0.0, 0.0, 0.0, FRAC_PI_2, 0.0), DVec3::X) + DVec3::Z).length() < 1e-12
        );
        assert!(
            (r(pose(0.0, 0.0, 0.0, 0.0, 0.0, FRAC_PI_2), DVec3::Y) - DVec3::Z).length() < 1e-12
        );
        // Yaw then pitch, intrinsically: X -> (pitch) -Z -> (yaw about world Z) still -Z; and Y
        // -> (yaw) -X.
        let both = pose(0.0, 0.0, 0.0, FRAC_PI_2, FRAC_PI_2, 0.0);
        assert!((r(both, DVec3::X) + DVec3::Z).length() < 1e-12);
        assert!((r(both, DVec3::Y) + DVec3::X).length() < 1e-12);
    }

    #[test]
    fn angles_survive_a_round_trip_through_a_rotation() {
        let p = pose(1.0, -2.0, 3.0, 0.3, -0.4, 1.2);
        let q = Pose3::from_translation_rotation(p.translation(), p.rotation());
        for (a, b) in [
            (p.yaw, q.yaw),
            (p.pitch, q.pitch),
            (p.roll, q.roll),
            (p.z, q.z),
        ] {
            assert!((a - b).abs() < 1e-12, "{p:?} vs {q:?}");
        }
    }

    #[test]
    fn composing_brings_a_child_pose_to_the_parent_frame() {
        // A sensor 1 m ahead of a robot at (2, 0) facing +Y is at (2, 1), facing +Y.
        let robot = pose(2.0, 0.0, 0.0, FRAC_PI_2, 0.0, 0.0);
        let sensor = robot.compose(&pose(1.0, 0.0, 0.5, 0.0, 0.0, 0.0));
        assert!((sensor.translation() - DVec3::new(2.0, 1.0, 0.5)).length() < 1e-12);
        assert!((sensor.yaw - FRAC_PI_2).abs() < 1e-12);
    }

    #[test]
    fn affine_transforms_agree_with_the_pose_and_rows_layouts() {
        let p = pose(1.0, 2.0, 3.0, 0.3, -0.4, 1.2);
        let a = p.to_affine();
        let v = DVec3::new(0.5, -1.0, 2.0);
        let expected = p.translation() + p.rotation() * v;
        let got = a.transform_point3(v.as_vec3()).as_dvec3();
        assert!((got - expected).length() < 1e-5, "{got} vs {expected}");
        // Rows: x' = 2x + 1, y' = z, z' = -y + 3.
        let rows = [
            [2.0, 0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0, 3.0],
        ];
        let m = affine_from_rows(&rows);
        assert_eq!(
            m.transform_point3(Vec3::new(1.0, 2.0, 4.0)),
            Vec3::new(3.0, 4.0, 1.0)
        );
    }
}
