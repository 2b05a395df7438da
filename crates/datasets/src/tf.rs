//! The transform tree of a recording: `/tf_static` edges and `/tf` edges sampled in time, looked
//! up as a frame's pose in a root frame at any instant (translation interpolated linearly,
//! rotation by SLERP between the two samples around it; held before the first and after the
//! last).

use crate::cdr::{Cdr, CdrError};
use glam::{DQuat, DVec3};
use std::collections::BTreeMap;

/// A rigid transform `parent_from_child`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rigid {
    /// Translation, metres.
    pub translation: DVec3,
    /// Rotation.
    pub rotation: DQuat,
}

impl Rigid {
    /// No motion.
    pub const IDENTITY: Rigid = Rigid {
        translation: DVec3::ZERO,
        rotation: DQuat::IDENTITY,
    };

    /// `self * other` (`a_from_b * b_from_c = a_from_c`).
    pub fn then(&self, other: &Rigid) -> Rigid {
        Rigid {
            translation: self.translation + self.rotation * other.translation,
            rotation: self.rotation * other.rotation,
        }
    }

    /// The inverse transform.
    pub fn inverse(&self) -> Rigid {
        let rotation = self.rotation.inverse();
        Rigid {
            translation: -(rotation * self.translation),
            rotation,
        }
    }

    /// A 3 x 4 row-major matrix `[R | t]`.
    pub fn rows(&self) -> [[f64; 4]; 3] {
        let m = glam::DMat3::from_quat(self.rotation);
        let t = self.translation;
        [
            [m.x_axis.x, m.y_axis.x, m.z_axis.x, t.x],
            [m.x_axis.y, m.y_axis.y, m.z_axis.y, t.y],
            [m.x_axis.z, m.y_axis.z, m.z_axis.z, t.z],
        ]
    }
}

/// One frame's link to its parent.
#[derive(Default)]
struct Edge {
    parent: String,
    /// Samples by stamp (ns); a static edge has one, at stamp 0 and held.
    samples: BTreeMap<u64, Rigid>,
}

/// The tree, built from the messages of `/tf_static` and `/tf`.
#[derive(Default)]
pub struct TfTree {
    edges: BTreeMap<String, Edge>,
}

impl TfTree {
    /// Adds a `tf2_msgs/TFMessage`.
    pub fn add_message(&mut self, data: &[u8]) -> Result<(), CdrError> {
        let mut cdr = Cdr::new(data)?;
        let n = cdr.count(72)?;
        for _ in 0..n {
            let (stamp, parent) = cdr.header()?;
            let child = cdr.string()?;
            let translation = DVec3::new(cdr.f64()?, cdr.f64()?, cdr.f64()?);
            let (x, y, z, w) = (cdr.f64()?, cdr.f64()?, cdr.f64()?, cdr.f64()?);
            let edge = self.edges.entry(child.to_owned()).or_default();
            if edge.parent != parent {
                edge.parent = parent.to_owned();
                edge.samples.clear();
            }
            let rotation = DQuat::from_xyzw(x, y, z, w).normalize();
            edge.samples.insert(
                stamp,
                Rigid {
                    translation,
                    rotation,
                },
            );
        }
        Ok(())
    }

    /// `root_from_frame` at `stamp` (ns), or the first frame of the chain that has no parent
    /// when that is not `root`.
    pub fn lookup(&self, root: &str, frame: &str, stamp: u64) -> Result<Rigid, String> {
        let mut pose = Rigid::IDENTITY;
        let mut at = frame;
        for _ in 0..=self.edges.len() {
            if at == root {
                return Ok(pose);
            }
            let Some(edge) = self.edges.get(at) else {
                return Err(format!("frame `{at}` has no transform to `{root}`"));
            };
            pose = sample(&edge.samples, stamp).then(&pose);
            at = &edge.parent;
        }
        Err(format!("the transforms above `{frame}` form a cycle"))
    }
}

/// The edge at `stamp`: interpolated between the samples around it, held outside them.
fn sample(samples: &BTreeMap<u64, Rigid>, stamp: u64) -> Rigid {
    let before = samples.range(..=stamp).next_back();
    let after = samples.range(stamp..).next();
    match (before, after) {
        (Some((&t0, a)), Some((&t1, b))) if t1 > t0 => {
            let s = (stamp - t0) as f64 / (t1 - t0) as f64;
            Rigid {
                translation: a.translation.lerp(b.translation, s),
                rotation: a.rotation.slerp(b.rotation, s),
            }
        }
        (Some((_, a)), _) => *a,
        (None, Some((_, b))) => *b,
        (None, None) => Rigid::IDENTITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composes_inverts_and_interpolates() {
        let a = Rigid {
            translation: DVec3::new(1.0, 2.0, 3.0),
            rotation: DQuat::from_rotation_z(0.5),
        };
        let identity = a.then(&a.inverse());
        assert!(identity.translation.length() < 1e-12);
        assert!((identity.rotation - DQuat::IDENTITY).length() < 1e-12);
        let mut samples = BTreeMap::new();
        samples.insert(10, Rigid::IDENTITY);
        samples.insert(20, a);
        let mid = sample(&samples, 15);
        assert!((mid.translation - DVec3::new(0.5, 1.0, 1.5)).length() < 1e-12);
        assert!((mid.rotation.angle_between(DQuat::IDENTITY) - 0.25).abs() < 1e-9);
        assert_eq!(sample(&samples, 5), Rigid::IDENTITY);
        assert_eq!(sample(&samples, 25), a);
        let rows = a.rows();
        let p = a.rotation * DVec3::X + a.translation;
        assert!((rows[0][0] + rows[0][3] - p.x).abs() < 1e-12);
    }
}
