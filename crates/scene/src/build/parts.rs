//! The parts of movable objects that transform sets can move on their own: a vehicle's wheels
//! (drawn as MVSim draws them) and the nodes of a movable block's model (each node holding
//! meshes becomes its own instance, its meshes in the node's frame, shared by every block of
//! that model).

use super::Builder;
use crate::shapes::{circle, prism};
use crate::{RigidPart, Surface};
use glam::{Affine3A, Vec3};
use passerby_assets::{Model, Pose, Poser};
use passerby_raycast::{MeshId, TriangleMesh};
use passerby_world::{Block, Vehicle, Visual, affine_from_rows4};
use std::sync::Arc;

/// The most nodes holding meshes a movable block's model is split into (each becomes an
/// instance per block); a model with more moves whole, without parts.
pub const MAX_SPLIT_NODES: usize = 256;

/// A model split by node: per node holding meshes, its mesh (in the node's frame) and look.
pub(crate) struct NodeMeshes {
    model: Arc<Model>,
    meshes: Vec<(usize, MeshId, Arc<Surface>)>,
}

impl Builder<'_> {
    /// Adds vehicle `v`'s wheels as parts of its body, as MVSim draws them: each in its frame
    /// at `(x, y, diameter / 2)` turned by its yaw, its own visuals or else a 15-sided cylinder
    /// of its diameter and width about its y axis, in its colour.
    pub(super) fn wheels(
        &mut self,
        v: &Vehicle,
        world_from_vehicle: Affine3A,
        class: &str,
    ) -> Vec<RigidPart> {
        let mut parts = Vec::new();
        for w in &v.dynamics.wheels {
            let object_from_wheel = Affine3A::from_translation(Vec3::new(
                w.pose.x as f32,
                w.pose.y as f32,
                (0.5 * w.diameter) as f32,
            )) * Affine3A::from_rotation_z(w.pose.yaw as f32);
            let world_from_wheel = world_from_vehicle * object_from_wheel;
            let first = self.scene.instance_count() as u32;
            if !self.visuals(&w.visuals, world_from_wheel, None, &v.name, class) {
                let half = (0.5 * w.width) as f32;
                let cylinder = prism(&circle((0.5 * w.diameter) as f32, 15), -half, half);
                // The prism's axis is z; the wheel's axle is its y.
                let axle = Affine3A::from_rotation_x(-std::f32::consts::FRAC_PI_2);
                self.add(cylinder, w.color, world_from_wheel * axle, &v.name, class);
            }
            let wheel_from_world = world_from_wheel.inverse();
            parts.push(RigidPart {
                name: w.role.clone(),
                parent: None,
                parent_frame: Affine3A::IDENTITY,
                rest: object_from_wheel,
                instances: (first..self.scene.instance_count() as u32)
                    .map(|i| {
                        (
                            i,
                            wheel_from_world * self.scene.instance(i).world_from_mesh(),
                        )
                    })
                    .collect(),
            });
        }
        parts
    }

    /// A movable block's look, as [`Builder::block_shape`] draws it, with the nodes of its
    /// model visuals as parts (in the order the visuals and their models list them). A model
    /// that cannot be split (a node's placement cannot be inverted) stays whole, without parts.
    pub(super) fn movable_block_shape(
        &mut self,
        block: &Block,
        world_from_block: Affine3A,
        class: &str,
    ) -> Vec<RigidPart> {
        let mut parts = Vec::new();
        let mut whole = Vec::new();
        for v in block
            .visuals
            .iter()
            .filter(|v| v.enabled && !v.model_uri.is_empty())
        {
            match self.node_meshes(v) {
                Some(split) => {
                    let object_from_file =
                        affine_from_rows4(&v.object_from_model(block.visual_scale))
                            * Affine3A::from_mat4(split.model.frame.assimp_from_file);
                    let offset = parts.len();
                    parts.extend(split.model.nodes.iter().map(|n| RigidPart {
                        name: n.name.clone(),
                        parent: n.parent.map(|p| p + offset),
                        parent_frame: object_from_file,
                        rest: Affine3A::from_mat4(n.rest.matrix()),
                        instances: Vec::new(),
                    }));
                    let mut poser = Poser::new();
                    poser.update(&split.model, &Pose::rest(&split.model));
                    for (node, mesh, surface) in &split.meshes {
                        let model_from_node = Affine3A::from_mat4(poser.model_from_node[*node]);
                        let world_from_node = world_from_block * object_from_file * model_from_node;
                        let instance =
                            self.place(*mesh, surface.clone(), world_from_node, &block.name, class);
                        parts[offset + node]
                            .instances
                            .push((instance, Affine3A::IDENTITY));
                    }
                }
                None => whole.push(v.clone()),
            }
        }
        if parts.is_empty() {
            self.block_shape(block, world_from_block, class);
            return parts;
        }
        self.visuals(
            &whole,
            world_from_block,
            block.visual_scale,
            &block.name,
            class,
        );
        parts
    }

    /// Model `v` split by node (cached by URI and tint); `None` when it cannot be had or split.
    fn node_meshes(&mut self, v: &Visual) -> Option<Arc<NodeMeshes>> {
        let key = (v.model_uri.clone(), v.model_color);
        if let Some(done) = self.node_meshes.get(&key) {
            return done.clone();
        }
        let (result, _) = self.library.get(&v.model_uri, &self.base);
        let split = match result {
            Ok(model) => self.split_by_node(model, v),
            Err(e) => {
                self.warn(format!(
                    "model `{}` not available ({e}); placeholder geometry used",
                    v.model_uri
                ));
                None
            }
        };
        self.node_meshes.insert(key, split.clone());
        split
    }

    fn split_by_node(&mut self, model: Arc<Model>, v: &Visual) -> Option<Arc<NodeMeshes>> {
        let holders = (0..model.nodes.len())
            .filter(|&n| model.meshes.iter().any(|m| m.node == n))
            .count();
        if holders > MAX_SPLIT_NODES {
            self.warn(format!(
                "model `{}` has {holders} nodes with meshes (over {MAX_SPLIT_NODES}): blocks \
                 using it move whole, without parts",
                v.model_uri
            ));
            return None;
        }
        let mut poser = Poser::new();
        poser.update(&model, &Pose::rest(&model));
        let whole = Surface::of_model(&model, v.model_color);
        // Each mesh's first triangle in the whole model's look.
        let mut first_triangle = Vec::with_capacity(model.meshes.len());
        let mut count = 0;
        for m in &model.meshes {
            first_triangle.push(count);
            count += m.triangles.len();
        }
        let mut meshes = Vec::new();
        for node in 0..model.nodes.len() {
            let held: Vec<usize> = (0..model.meshes.len())
                .filter(|&m| model.meshes[m].node == node)
                .collect();
            if held.is_empty() {
                continue;
            }
            let node_from_model = poser.model_from_node.get(node)?.inverse();
            if !node_from_model.is_finite() {
                return None;
            }
            let mut vertices = Vec::new();
            let mut triangles = Vec::new();
            let mut surface = Surface {
                materials: whole.materials.clone(),
                ..Surface::default()
            };
            for &m in &held {
                let mesh = &model.meshes[m];
                let mut posed = vec![Vec3::ZERO; mesh.positions.len()];
                poser.pose_mesh(&model, mesh, &mut posed, None);
                let base = vertices.len() as u32;
                vertices.extend(posed.iter().map(|p| node_from_model.transform_point3(*p)));
                triangles.extend(mesh.triangles.iter().map(|t| t.map(|i| i + base)));
                let range = first_triangle[m]..first_triangle[m] + mesh.triangles.len();
                surface
                    .triangle_material
                    .extend_from_slice(&whole.triangle_material[range.clone()]);
                surface
                    .triangle_uvs
                    .extend_from_slice(&whole.triangle_uvs[range]);
            }
            let started = std::time::Instant::now();
            let mesh = TriangleMesh::new(vertices, triangles);
            self.model_bvh_seconds += started.elapsed().as_secs_f64();
            meshes.push((node, self.scene.add_mesh(mesh), Arc::new(surface)));
        }
        Some(Arc::new(NodeMeshes { model, meshes }))
    }
}
