//! Ray casting against exact triangles: the engine behind every range and camera sensor.
//!
//! Owns: triangle meshes with SAH-built BVHs ([`TriangleMesh`]), refit after vertex motion (a
//! skinned actor re-posed each step) with a rebuild when the refit degrades the tree, a
//! two-level [`Scene`] of instances with a top-level BVH, closest-hit and any-hit queries, and
//! batch queries on the rayon pool. Hits are watertight (Woop et al. 2013) and deterministic:
//! ties are broken by instance, then triangle index, so results do not depend on traversal
//! order or thread count.
//!
//! Must not touch: worlds, models, sensors. Pure Rust; no system library.
//!
//! ```
//! use glam::{Affine3A, Vec3, Vec3A};
//! use passerby_raycast::{Ray, Scene, TriangleMesh};
//! let floor = TriangleMesh::new(
//!     vec![Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(1.0, 1.0, 0.0), Vec3::new(-1.0, 1.0, 0.0)],
//!     vec![[0, 1, 2], [0, 2, 3]],
//! );
//! let mut scene = Scene::new();
//! let mesh = scene.add_mesh(floor);
//! scene.add_instance(mesh, Affine3A::IDENTITY);
//! scene.commit();
//! let ray = Ray::new(Vec3A::new(0.2, 0.3, 2.0), Vec3A::new(0.0, 0.0, -1.0), 0.0, f32::INFINITY).unwrap();
//! assert_eq!(scene.closest(&ray).unwrap().t, 2.0);
//! ```
//!
//! Modules: binned-SAH BVH (`bvh.rs`) and its 4-wide collapse kept for traversal and refit
//! (`wide.rs`), arrays shared chunk by chunk between a scene's copies (`chunks.rs`), rays, hits
//! and the watertight test (`ray.rs`), leaf triangles four at a time (`packs.rs`), a packet's
//! rays as one beam (`beam.rs`), meshes (`mesh.rs`) with packet traversal (`mesh/packet.rs`),
//! the two-level scene of instances (`scene.rs`; a packet's box tests in `scene/lanes.rs`) and
//! its top level (`top.rs`: a tree of the instances that stay put, rebuilt only when they
//! change, and one of those that move, rebuilt every commit), and rays of one direction
//! answered from a grid of the leaves over each point (`parallel.rs`: shadow rays towards the
//! sun). Loops compiled again for wider vectors, chosen at run time: `widest.rs`.

mod beam;
pub mod bvh;
mod chunks;
mod mesh;
mod packs;
mod parallel;
mod ray;
mod scene;
mod top;
mod wide;
pub mod widest;

pub use mesh::{LocalHit, PACKET, TriangleMesh, wide_leaf_tests};
pub use parallel::{GridBudget, ParallelGrid};
pub use ray::{Hit, Ray, RayError};
pub use scene::{Instance, MeshId, Scene};
