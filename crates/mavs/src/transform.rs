//! Placement of MAVS meshes: the vertex swaps of the `Rotate …` flags and `YawPitchRoll`,
//! exactly as MAVS applies them (`shared/reference/peers.md` §1.1), including where objects and
//! surface meshes disagree.

use glam::{DMat3, DVec3};
use passerby_world::Affine3x4;

/// Which index of `YawPitchRoll` holds which angle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum YprConvention {
    /// Since MAVS commit 0d2ac93 (June 2026): yaw about Z at index 0, then pitch (X), roll (Y).
    #[default]
    Current,
    /// Scenes written before it: index 0 about X, index 1 (yaw) about Z.
    Legacy,
}

/// The `Rotate Y to Z`, `Rotate X to Y`, `Rotate Y to X` vertex swaps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxisSwaps {
    /// `(y, z) <- (-z, y)`: a Y-up mesh stands up (+Y becomes +Z).
    pub y_to_z: bool,
    /// `(x, y) <- (-y, x)`: +X becomes +Y.
    pub x_to_y: bool,
    /// `(x, y) <- (y, -x)`: +Y becomes +X.
    pub y_to_x: bool,
}

impl AxisSwaps {
    /// The swaps as one matrix, applied in MAVS's order (Y→Z, then X→Y, then Y→X).
    pub fn matrix(&self) -> DMat3 {
        let mut m = DMat3::IDENTITY;
        if self.y_to_z {
            m = DMat3::from_cols(DVec3::X, DVec3::Z, DVec3::NEG_Y) * m;
        }
        if self.x_to_y {
            m = DMat3::from_cols(DVec3::Y, DVec3::NEG_X, DVec3::Z) * m;
        }
        if self.y_to_x {
            m = DMat3::from_cols(DVec3::NEG_Y, DVec3::X, DVec3::Z) * m;
        }
        m
    }
}

/// glm's `orientate3` of MAVS's Euler vector, as a column-vector matrix `Ry·Rx·Rz`.
fn orientation(ypr: [f64; 3], convention: YprConvention) -> DMat3 {
    let (about_z, about_x, about_y) = match convention {
        YprConvention::Current => (ypr[0], ypr[1], ypr[2]),
        YprConvention::Legacy => (ypr[1], ypr[0], ypr[2]),
    };
    DMat3::from_rotation_y(about_y)
        * DMat3::from_rotation_x(about_x)
        * DMat3::from_rotation_z(about_z)
}

/// An `Objects` instance: Embree receives glm's matrix as row-major, so the rotation is the
/// transpose (`YawPitchRoll[0] = +π/2` turns mesh +X to world −Y), then the scale in mesh axes:
/// `world = Rᵀ · S · swaps · v + position`.
pub fn object_transform(
    ypr: [f64; 3],
    position: [f64; 3],
    scale: [f64; 3],
    swaps: AxisSwaps,
    convention: YprConvention,
) -> Affine3x4 {
    let linear = orientation(ypr, convention).transpose()
        * DMat3::from_diagonal(DVec3::from(scale))
        * swaps.matrix();
    affine(linear, position)
}

/// A `Surface Mesh`: its vertices are transformed in place by the matrix itself, and the scale
/// comes after the rotation: `world = S · R · swaps · v + position`.
pub fn surface_transform(
    ypr: [f64; 3],
    position: [f64; 3],
    scale: [f64; 3],
    swaps: AxisSwaps,
    convention: YprConvention,
) -> Affine3x4 {
    let linear =
        DMat3::from_diagonal(DVec3::from(scale)) * orientation(ypr, convention) * swaps.matrix();
    affine(linear, position)
}

fn affine(linear: DMat3, t: [f64; 3]) -> Affine3x4 {
    let r = |i: usize| [linear.x_axis[i], linear.y_axis[i], linear.z_axis[i], t[i]];
    [r(0), r(1), r(2)]
}

/// Applies a transform to a point.
pub fn apply(m: &Affine3x4, p: [f64; 3]) -> [f64; 3] {
    let row = |r: &[f64; 4]| r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + r[3];
    [row(&m[0]), row(&m[1]), row(&m[2])]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12)
    }

    #[test]
    fn swaps_move_axes_as_named() {
        let yz = AxisSwaps {
            y_to_z: true,
            ..AxisSwaps::default()
        };
        assert!(close(
            apply(&affine(yz.matrix(), [0.0; 3]), [0.0, 1.0, 0.0]),
            [0.0, 0.0, 1.0]
        ));
        assert!(close(
            apply(&affine(yz.matrix(), [0.0; 3]), [0.0, 0.0, 1.0]),
            [0.0, -1.0, 0.0]
        ));
        let xy = AxisSwaps {
            x_to_y: true,
            ..AxisSwaps::default()
        };
        assert!(close(
            apply(&affine(xy.matrix(), [0.0; 3]), [1.0, 0.0, 0.0]),
            [0.0, 1.0, 0.0]
        ));
        let yx = AxisSwaps {
            y_to_x: true,
            ..AxisSwaps::default()
        };
        assert!(close(
            apply(&affine(yx.matrix(), [0.0; 3]), [0.0, 1.0, 0.0]),
            [1.0, 0.0, 0.0]
        ));
    }

    #[test]
    fn objects_turn_clockwise_and_surfaces_counter_clockwise() {
        let yaw = [std::f64::consts::FRAC_PI_2, 0.0, 0.0];
        let none = AxisSwaps::default();
        let o = object_transform(yaw, [1.0, 2.0, 3.0], [1.0; 3], none, YprConvention::Current);
        assert!(
            close(apply(&o, [1.0, 0.0, 0.0]), [1.0, 1.0, 3.0]),
            "mesh +X to world -Y"
        );
        let s = surface_transform(yaw, [0.0; 3], [1.0; 3], none, YprConvention::Current);
        assert!(close(apply(&s, [1.0, 0.0, 0.0]), [0.0, 1.0, 0.0]));
        // The legacy files put the yaw at index 1.
        let legacy = [0.0, std::f64::consts::FRAC_PI_2, 0.0];
        let l = object_transform(
            legacy,
            [1.0, 2.0, 3.0],
            [1.0; 3],
            none,
            YprConvention::Legacy,
        );
        assert!(close(apply(&l, [1.0, 0.0, 0.0]), [1.0, 1.0, 3.0]));
    }

    #[test]
    fn object_scale_is_in_mesh_axes_and_surface_scale_in_world_axes() {
        let yaw = [std::f64::consts::FRAC_PI_2, 0.0, 0.0];
        let none = AxisSwaps::default();
        let o = object_transform(yaw, [0.0; 3], [2.0, 1.0, 1.0], none, YprConvention::Current);
        assert!(close(apply(&o, [1.0, 0.0, 0.0]), [0.0, -2.0, 0.0]));
        let s = surface_transform(yaw, [0.0; 3], [2.0, 1.0, 1.0], none, YprConvention::Current);
        assert!(close(apply(&s, [0.0, 1.0, 0.0]), [-2.0, 0.0, 0.0]));
    }
}
