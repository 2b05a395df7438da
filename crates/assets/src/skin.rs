//! Posing a model: node transforms from a pose, and linear-blend skinning of meshes into
//! caller-provided buffers.
//!
//! `model_from_node` is computed parents first ([`Model::eval_order`]). A skinned vertex is
//! `Σ wᵢ · (model_from_joint(i) · joint_from_bind(i)) · v`; an unskinned mesh is placed by its
//! node's transform. Results are in the model's frame (the file's own axes and units).

use crate::anim::Pose;
use crate::model::{Mesh, Model};
use glam::{Mat4, Vec3};

/// Reusable buffers for posing, so that posing every frame allocates nothing after the first.
#[derive(Clone, Debug, Default)]
pub struct Poser {
    /// `model_from_node` per node for the last pose.
    pub model_from_node: Vec<Mat4>,
    joint_matrices: Vec<Mat4>,
}

impl Poser {
    /// An empty workspace.
    pub fn new() -> Poser {
        Poser::default()
    }

    /// Computes every node's `model_from_node` for `pose`.
    pub fn update(&mut self, model: &Model, pose: &Pose) {
        self.model_from_node.clear();
        self.model_from_node
            .resize(model.nodes.len(), Mat4::IDENTITY);
        for &i in &model.eval_order {
            let local = pose.locals.get(i).map_or(Mat4::IDENTITY, |t| t.matrix());
            self.model_from_node[i] = match model.nodes[i].parent {
                Some(p) => self.model_from_node[p] * local,
                None => local,
            };
        }
    }

    /// World (model-frame) positions of the joints of a skin, for ground-truth skeletons
    /// (the nodes' origins until the first [`Poser::update`]).
    pub fn joint_positions(&self, model: &Model, skin: usize) -> Vec<Vec3> {
        model.skins.get(skin).map_or_else(Vec::new, |s| {
            s.joints
                .iter()
                .map(|&j| (self.model_from_node.get(j)).map_or(Vec3::ZERO, |m| m.w_axis.truncate()))
                .collect()
        })
    }

    /// Writes the posed positions (and normals, if `normals_out` is given) of one mesh.
    /// Call [`Poser::update`] first. Buffers must hold the mesh's vertex count.
    pub fn pose_mesh(
        &mut self,
        model: &Model,
        mesh: &Mesh,
        positions_out: &mut [Vec3],
        normals_out: Option<&mut [Vec3]>,
    ) {
        let n = mesh.positions.len().min(positions_out.len());
        match &mesh.skin {
            Some(binding) => {
                let Some(skin) = model.skins.get(binding.skin) else {
                    return;
                };
                self.joint_matrices.clear();
                self.joint_matrices.extend(
                    skin.joints
                        .iter()
                        .zip(&skin.inverse_bind)
                        .map(|(&j, inv)| self.model_from_node[j] * *inv),
                );
                let m = &self.joint_matrices;
                let blend = |i: usize| -> Mat4 {
                    let (js, ws) = (binding.joints[i], binding.weights[i]);
                    let mut acc = Mat4::ZERO;
                    for k in 0..4 {
                        if ws[k] != 0.0
                            && let Some(jm) = m.get(js[k] as usize)
                        {
                            acc += *jm * ws[k];
                        }
                    }
                    acc
                };
                match normals_out {
                    Some(normals_out) if mesh.normals.len() == mesh.positions.len() => {
                        for i in 0..n.min(normals_out.len()) {
                            let b = blend(i);
                            positions_out[i] = b.transform_point3(mesh.positions[i]);
                            normals_out[i] =
                                b.transform_vector3(mesh.normals[i]).normalize_or_zero();
                        }
                    }
                    _ => {
                        for (i, (o, v)) in positions_out.iter_mut().zip(&mesh.positions).enumerate()
                        {
                            *o = blend(i).transform_point3(*v);
                        }
                    }
                }
            }
            None => {
                let m = self
                    .model_from_node
                    .get(mesh.node)
                    .copied()
                    .unwrap_or(Mat4::IDENTITY);
                for (o, v) in positions_out.iter_mut().zip(&mesh.positions) {
                    *o = m.transform_point3(*v);
                }
                if let Some(normals_out) = normals_out {
                    let nm = m.inverse().transpose();
                    for (o, v) in normals_out.iter_mut().zip(&mesh.normals) {
                        *o = nm.transform_vector3(*v).normalize_or_zero();
                    }
                }
            }
        }
    }

    /// Every mesh's posed vertices, concatenated in mesh order (convenience; allocates).
    pub fn posed_vertices(&mut self, model: &Model, pose: &Pose) -> Vec<Vec3> {
        self.update(model, pose);
        let mut out = Vec::with_capacity(model.vertex_count());
        for mesh in &model.meshes {
            let start = out.len();
            out.resize(start + mesh.positions.len(), Vec3::ZERO);
            self.pose_mesh(model, mesh, &mut out[start..], None);
        }
        out
    }
}

/// A model's vertices at rest pose, all meshes in order, in assimp's frame (the one MVSim's
/// `model_*` settings and MAVS's placements are written for): the model as every consumer
/// places it (scenes, surfaces to stand objects on).
pub fn rest_vertices(model: &Model) -> Vec<Vec3> {
    let to_assimp = model.frame.assimp_from_file;
    Poser::new()
        .posed_vertices(model, &crate::Pose::rest(model))
        .iter()
        .map(|p| to_assimp.transform_point3(*p))
        .collect()
}

/// A model's line segments (see [`crate::LineSet`]) at its rest pose, in assimp's frame, as
/// [`rest_vertices`] places its vertices.
pub fn rest_lines(model: &Model) -> Vec<[Vec3; 2]> {
    let mut poser = Poser::new();
    poser.update(model, &crate::Pose::rest(model));
    let to_assimp = model.frame.assimp_from_file;
    let mut out = Vec::new();
    for set in &model.lines {
        let m = to_assimp
            * poser
                .model_from_node
                .get(set.node)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
        out.extend(
            set.segments
                .iter()
                .map(|s| s.map(|p| m.transform_point3(p))),
        );
    }
    out
}

/// A model's triangles, all meshes in order, indexing [`rest_vertices`].
pub fn merged_triangles(model: &Model) -> Vec<[u32; 3]> {
    let mut triangles = Vec::with_capacity(model.triangle_count());
    let mut base = 0u32;
    for m in &model.meshes {
        triangles.extend(m.triangles.iter().map(|t| t.map(|i| i + base)));
        base += m.positions.len() as u32;
    }
    triangles
}
