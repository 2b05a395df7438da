//! A placed mesh: which mesh, and where (its transform, and the inverse that moves rays into
//! its frame).
//!
//! Owns: how a placement is kept and what it gives (the transform's bits exactly as placed,
//! its inverse made afresh). Must not touch: the scene's lists of instances, the top level.

use super::MeshId;
use glam::{Affine3A, DAffine3, Vec3A};

/// A placed mesh: its transform kept as twelve floats (48 bytes instead of `Affine3A`'s 64,
/// whose columns are padded to 16 bytes), and its inverse made where rays enter it (the same
/// function of the same bits, so the same bits every time), so that a million placed plants
/// hold 56 bytes each here instead of 144. Widening the transform back to `Affine3A` gives
/// the very bits it was made from.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The mesh.
    pub mesh: MeshId,
    /// Placed as it is (a mesh already in world coordinates, such as merged static geometry):
    /// rays need no moving into its frame.
    in_world: bool,
    world_from_mesh: PackedAffine,
}

/// An affine transform's columns (x, y, z axes, translation) as twelve floats.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PackedAffine([f32; 12]);

impl PackedAffine {
    fn new(m: &Affine3A) -> PackedAffine {
        PackedAffine(m.to_cols_array())
    }

    #[inline]
    fn get(&self) -> Affine3A {
        Affine3A::from_cols_array(&self.0)
    }
}

impl Instance {
    /// `world_from_mesh`: where the mesh is placed.
    #[inline]
    pub fn world_from_mesh(&self) -> Affine3A {
        self.world_from_mesh.get()
    }

    /// `world_from_mesh`'s inverse (`Affine3A::inverse`, made afresh: about as many operations
    /// as moving a few rays, and the same bits every time).
    #[inline]
    pub(crate) fn mesh_from_world(&self) -> Affine3A {
        self.world_from_mesh().inverse()
    }

    /// `world_from_mesh`'s inverse in doubles (none when it is placed as it is), for hits
    /// worked out again in doubles: the rays [`Instance::ray_to_mesh`] moves to the mesh carry
    /// its rounding, which along a grazing ray is millimetres at 1e5 m.
    pub(crate) fn mesh_from_world_in_doubles(&self) -> Option<DAffine3> {
        (!self.in_world).then(|| self.world_from_mesh().as_daffine3().inverse())
    }

    /// The linear part of [`Instance::mesh_from_world`], without its translation (the same
    /// bits: `Affine3A::inverse` inverts the linear part first), for what moves directions.
    #[inline]
    fn mesh_from_world_linear(&self) -> glam::Mat3A {
        self.world_from_mesh().matrix3.inverse()
    }

    /// The inverse transpose of `world_from_mesh`'s linear part: what carries a mesh-frame
    /// normal to the world frame (placements may scale unevenly), up to its length.
    pub fn normal_to_world(&self) -> glam::Mat3A {
        // `mesh_from_world`'s linear part is that inverse (the very same computation), so
        // only the transpose is left to make.
        self.mesh_from_world_linear().transpose()
    }

    /// A world ray's origin and direction in the mesh's frame.
    #[inline]
    pub(crate) fn ray_to_mesh(&self, origin: Vec3A, dir: Vec3A) -> (Vec3A, Vec3A) {
        if self.in_world {
            (origin, dir)
        } else {
            let m = self.mesh_from_world();
            (m.transform_point3a(origin), m.transform_vector3a(dir))
        }
    }

    /// Whether it is placed as it is (its mesh already in world coordinates): rays are not
    /// moved into its frame.
    pub(crate) fn placed_as_is(&self) -> bool {
        self.in_world
    }

    /// A world point in the mesh's frame (as [`Instance::ray_to_mesh`] moves origins).
    #[inline]
    pub(crate) fn point_to_mesh(&self, p: Vec3A) -> Vec3A {
        if self.in_world {
            p
        } else {
            self.mesh_from_world().transform_point3a(p)
        }
    }

    /// A world direction in the mesh's frame (as [`Instance::ray_to_mesh`] moves them).
    #[inline]
    pub(crate) fn dir_to_mesh(&self, d: Vec3A) -> Vec3A {
        if self.in_world {
            d
        } else {
            self.mesh_from_world_linear() * d
        }
    }
}

pub(super) fn make_instance(mesh: MeshId, world_from_mesh: Affine3A) -> Instance {
    Instance {
        mesh,
        in_world: world_from_mesh == Affine3A::IDENTITY,
        world_from_mesh: PackedAffine::new(&world_from_mesh),
    }
}
