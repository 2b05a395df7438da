//! FBX import through `ufbx` (vendored C, compiled by the `cc` crate: no system library).
//!
//! The model keeps the file's own axes and units, read from its `GlobalSettings`
//! (`ufbx`'s `scene.settings.axes` and `unit_meters`), and stated in [`Model::frame`].
//! Node rest transforms are ufbx's `local_transform` (pre/post-rotations and pivots folded in);
//! each animation stack becomes a clip by baking it with `ufbx::bake_anim` into linear keys of
//! the same local transforms. Skin clusters give the joints, `geometry_to_bone` is the inverse
//! bind matrix, and mesh vertices are the control points in geometry space, one more for each
//! further texture coordinate a control point takes (FBX keeps them per face corner). A mesh is
//! split by the materials its faces use; textures come embedded or from beside the file.
//!
//! Counting: every FBX node except ufbx's synthetic root is a node here; a joint is a node that
//! some skin cluster binds (helper bones without weights are nodes, not joints).

use crate::AssetError;
use crate::model::*;
use glam::{Mat4, Quat, Vec3, Vec4};
use std::path::Path;

fn vec3(v: ufbx::Vec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

fn quat(q: ufbx::Quat) -> Quat {
    Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32).normalize()
}

fn mat4(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(m.m00 as f32, m.m10 as f32, m.m20 as f32, 0.0),
        Vec4::new(m.m01 as f32, m.m11 as f32, m.m21 as f32, 0.0),
        Vec4::new(m.m02 as f32, m.m12 as f32, m.m22 as f32, 0.0),
        Vec4::new(m.m03 as f32, m.m13 as f32, m.m23 as f32, 1.0),
    )
}

fn axis(a: ufbx::CoordinateAxis) -> Option<Vec3> {
    Some(match a {
        ufbx::CoordinateAxis::PositiveX => Vec3::X,
        ufbx::CoordinateAxis::NegativeX => Vec3::NEG_X,
        ufbx::CoordinateAxis::PositiveY => Vec3::Y,
        ufbx::CoordinateAxis::NegativeY => Vec3::NEG_Y,
        ufbx::CoordinateAxis::PositiveZ => Vec3::Z,
        ufbx::CoordinateAxis::NegativeZ => Vec3::NEG_Z,
        ufbx::CoordinateAxis::Unknown => return None,
    })
}

fn axis_name(v: Vec3) -> String {
    let names = [
        (Vec3::X, "+X"),
        (Vec3::NEG_X, "-X"),
        (Vec3::Y, "+Y"),
        (Vec3::NEG_Y, "-Y"),
        (Vec3::Z, "+Z"),
        (Vec3::NEG_Z, "-Z"),
    ];
    names
        .iter()
        .find(|(a, _)| *a == v)
        .map_or("?".into(), |(_, n)| (*n).to_owned())
}

/// Imports an FBX file (binary or ASCII).
pub fn import(path: &Path, bytes: &[u8]) -> Result<Model, AssetError> {
    let invalid = |reason: String| AssetError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    let opts = ufbx::LoadOpts::default();
    let scene = ufbx::load_memory(bytes, opts)
        .map_err(|e| invalid(format!("not a readable FBX file: {}", e.description)))?;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build(path, &scene)));
    result.unwrap_or_else(|_| Err(invalid("the FBX reader failed on this file".into())))
}

fn build(path: &Path, scene: &ufbx::Scene) -> Result<Model, AssetError> {
    let invalid = |reason: String| AssetError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    let mut warnings = Vec::new();
    let (nodes, index_of) = read_nodes(scene);
    let eval_order = crate::gltf_import::parents_first(&nodes)
        .ok_or_else(|| invalid("the node hierarchy has a cycle".into()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let materials = read_materials(scene, dir, &mut warnings);
    // Meshes, one per (mesh, instancing node) and material; skins per skin deformer.
    let mut meshes = Vec::new();
    let mut skins = Vec::new();
    for node in scene.nodes.iter() {
        let (Some(mesh), Some(node_index)) =
            (node.mesh.as_ref(), index_of[node.element.typed_id as usize])
        else {
            continue;
        };
        let skin = (mesh.skin_deformers.first())
            .map(|deformer| read_skin(mesh, deformer, &index_of, &mut skins, &mut warnings));
        let instance = MeshInstance {
            mesh,
            node: node_index,
            geometry_to_node: mat4(&node.geometry_to_node),
            control_points: mesh.vertices.iter().map(|v| vec3(*v)).collect(),
            skin,
        };
        for (material, faces) in material_parts(mesh, materials.len()) {
            meshes.push(instance.part(material, &faces));
        }
    }
    let clips = read_clips(scene, &index_of).map_err(invalid)?;
    let frame = read_frame(scene, &mut warnings);
    // The file's normals are per face corner; a mesh of control points gets smooth ones.
    for mesh in &mut meshes {
        mesh.compute_normals();
    }
    Ok(Model {
        source: path.to_path_buf(),
        frame,
        nodes,
        eval_order,
        meshes,
        skins,
        clips,
        materials,
        lines: Vec::new(),
        warnings,
    })
}

/// The nodes (skipping ufbx's synthetic root), and each ufbx node's index among them (by
/// `typed_id`).
fn read_nodes(scene: &ufbx::Scene) -> (Vec<Node>, Vec<Option<usize>>) {
    let mut index_of = vec![None; scene.nodes.len()];
    let mut nodes = Vec::new();
    for n in scene.nodes.iter() {
        if n.is_root {
            continue;
        }
        index_of[n.element.typed_id as usize] = Some(nodes.len());
        let t = &n.local_transform;
        nodes.push(Node {
            name: n.element.name.to_string(),
            parent: None,
            rest: Trs {
                translation: vec3(t.translation),
                rotation: quat(t.rotation),
                scale: vec3(t.scale),
            },
        });
    }
    for n in scene.nodes.iter() {
        if let (Some(me), Some(parent)) = (index_of[n.element.typed_id as usize], n.parent.as_ref())
        {
            nodes[me].parent = index_of[parent.element.typed_id as usize];
        }
    }
    (nodes, index_of)
}

/// Materials, indexed by ufbx typed_id; a textured one shows its texture unscaled (as assimp,
/// and as our Collada import).
fn read_materials(scene: &ufbx::Scene, dir: &Path, warnings: &mut Vec<String>) -> Vec<Material> {
    let materials: Vec<Material> = scene
        .materials
        .iter()
        .map(|m| {
            let c = m.pbr.base_color.value_vec4;
            let texture = (m.pbr.base_color.texture.as_ref())
                .or(m.fbx.diffuse_color.texture.as_ref())
                .map(|t| texture_of(t, dir, warnings));
            let base_color = match texture {
                Some(_) => [1.0, 1.0, 1.0, c.w as f32],
                None => [c.x as f32, c.y as f32, c.z as f32, c.w as f32],
            };
            Material {
                name: m.element.name.to_string(),
                base_color,
                texture,
            }
        })
        .collect();
    materials
}

/// A skin deformer as a skin (appended to `skins`) and the binding of a mesh's control points.
fn read_skin(
    mesh: &ufbx::Mesh,
    deformer: &ufbx::SkinDeformer,
    index_of: &[Option<usize>],
    skins: &mut Vec<Skin>,
    warnings: &mut Vec<String>,
) -> SkinBinding {
    let skin_index = skins.len();
    let mut joints = Vec::new();
    let mut inverse_bind = Vec::new();
    let mut influences: Vec<Vec<(u16, f32)>> = vec![Vec::new(); mesh.vertices.len()];
    for cluster in deformer.clusters.iter() {
        let Some(bone) = cluster.bone_node.as_ref() else {
            continue;
        };
        let Some(bone_index) = index_of[bone.element.typed_id as usize] else {
            continue;
        };
        let j = joints.len() as u16;
        joints.push(bone_index);
        inverse_bind.push(mat4(&cluster.geometry_to_bone));
        for (&v, &w) in cluster.vertices.iter().zip(cluster.weights.iter()) {
            if let Some(list) = influences.get_mut(v as usize)
                && w > 0.0
            {
                list.push((j, w as f32));
            }
        }
    }
    skins.push(Skin {
        name: deformer.element.name.to_string(),
        joints,
        inverse_bind,
    });
    let (joints, weights, fixed) = crate::gltf_import::top_four(influences);
    if fixed > 0 {
        warnings.push(format!("mesh {}: {fixed} vertices had weights not summing to 1 or more than 4 influences; renormalized", mesh.element.name));
    }
    SkinBinding {
        skin: skin_index,
        joints,
        weights,
    }
}

/// The faces of each material a mesh uses (all faces when it has none).
fn material_parts(mesh: &ufbx::Mesh, materials: usize) -> Vec<(Option<usize>, Vec<u32>)> {
    if mesh.materials.is_empty() {
        vec![(None, (0..mesh.faces.len() as u32).collect())]
    } else {
        (mesh.material_parts.iter())
            .filter(|p| p.num_triangles > 0)
            .map(|p| {
                let material = mesh
                    .materials
                    .get(p.index as usize)
                    .map(|m| m.element.typed_id as usize)
                    .filter(|&m| m < materials);
                (material, p.face_indices.iter().copied().collect())
            })
            .collect()
    }
}

/// A mesh as one node instances it.
struct MeshInstance<'a> {
    mesh: &'a ufbx::Mesh,
    node: usize,
    geometry_to_node: Mat4,
    control_points: Vec<Vec3>,
    skin: Option<SkinBinding>,
}

impl MeshInstance<'_> {
    /// The part of `faces` (of one material): vertices are control points, one more for each
    /// further texture coordinate a control point takes (FBX keeps them per face corner; as our
    /// Collada import).
    fn part(&self, material: Option<usize>, faces: &[u32]) -> Mesh {
        let (mesh, skin, control_points) = (self.mesh, &self.skin, &self.control_points);
        let geometry_to_node = self.geometry_to_node;
        let node_index = self.node;
        let uv_layer = &mesh.vertex_uv;
        let mut scratch = vec![0u32; mesh.max_face_triangles * 3];
        let mut vertex_of: std::collections::HashMap<(u32, u32), u32> =
            std::collections::HashMap::new();
        let mut corners: Vec<(u32, u32)> = Vec::new();
        let mut triangles = Vec::new();
        for &f in faces {
            let Some(face) = mesh.faces.get(f as usize) else {
                continue;
            };
            if face.num_indices < 3 {
                continue;
            }
            let n = mesh.triangulate_face(&mut scratch, *face) as usize;
            for t in scratch[..3 * n].chunks_exact(3) {
                triangles.push([t[0], t[1], t[2]].map(|corner| {
                    let point = mesh.vertex_indices[corner as usize];
                    let uv = if uv_layer.exists {
                        uv_layer
                            .indices
                            .get(corner as usize)
                            .copied()
                            .unwrap_or(u32::MAX)
                    } else {
                        u32::MAX
                    };
                    *vertex_of.entry((point, uv)).or_insert_with(|| {
                        corners.push((point, uv));
                        corners.len() as u32 - 1
                    })
                }));
            }
        }
        let mut positions: Vec<Vec3> = corners
            .iter()
            .map(|&(p, _)| {
                control_points
                    .get(p as usize)
                    .copied()
                    .unwrap_or(Vec3::ZERO)
            })
            .collect();
        if skin.is_none() {
            // Unskinned: bake the geometry transform into the vertices.
            for p in &mut positions {
                *p = geometry_to_node.transform_point3(*p);
            }
        }
        // FBX's texture v grows upwards; ours (glTF's) downwards.
        let uvs = if uv_layer.exists {
            corners
                .iter()
                .map(|&(_, uv)| {
                    // ufbx clamps bad indices; a missing value reads as (0, 0).
                    let (x, y) = uv_layer
                        .values
                        .get(uv as usize)
                        .map_or((0.0, 0.0), |v| (v.x, v.y));
                    glam::Vec2::new(x as f32, 1.0 - y as f32)
                })
                .collect()
        } else {
            Vec::new()
        };
        let binding = skin.as_ref().map(|s| SkinBinding {
            skin: s.skin,
            joints: (corners.iter())
                .map(|&(p, _)| s.joints.get(p as usize).copied().unwrap_or_default())
                .collect(),
            weights: (corners.iter())
                .map(|&(p, _)| s.weights.get(p as usize).copied().unwrap_or_default())
                .collect(),
        });
        Mesh {
            name: mesh.element.name.to_string(),
            node: node_index,
            positions,
            normals: Vec::new(),
            uvs,
            triangles,
            material,
            skin: binding,
        }
    }
}

/// Clips: each animation stack baked to linear keys.
fn read_clips(scene: &ufbx::Scene, index_of: &[Option<usize>]) -> Result<Vec<Clip>, String> {
    let mut clips = Vec::new();
    for stack in scene.anim_stacks.iter() {
        let baked =
            ufbx::bake_anim(scene, &stack.anim, ufbx::BakeOpts::default()).map_err(|e| {
                format!(
                    "animation stack `{}`: {}",
                    stack.element.name, e.description
                )
            })?;
        let start = stack.time_begin;
        let mut channels = Vec::new();
        for bn in baked.nodes.iter() {
            let Some(node) = index_of.get(bn.typed_id as usize).copied().flatten() else {
                continue;
            };
            let times = |keys: &mut dyn Iterator<Item = f64>| -> Vec<f32> {
                keys.map(|t| (t - start) as f32).collect()
            };
            let t: Vec<f32> = times(&mut bn.translation_keys.iter().map(|k| k.time));
            let v: Vec<f32> = bn
                .translation_keys
                .iter()
                .flat_map(|k| vec3(k.value).to_array())
                .collect();
            channels.push(Channel {
                node,
                property: Property::Translation,
                interpolation: Interpolation::Linear,
                times: t,
                values: v,
            });
            let t: Vec<f32> = times(&mut bn.rotation_keys.iter().map(|k| k.time));
            let v: Vec<f32> = bn
                .rotation_keys
                .iter()
                .flat_map(|k| quat(k.value).to_array())
                .collect();
            channels.push(Channel {
                node,
                property: Property::Rotation,
                interpolation: Interpolation::Linear,
                times: t,
                values: v,
            });
            let t: Vec<f32> = times(&mut bn.scale_keys.iter().map(|k| k.time));
            let v: Vec<f32> = bn
                .scale_keys
                .iter()
                .flat_map(|k| vec3(k.value).to_array())
                .collect();
            channels.push(Channel {
                node,
                property: Property::Scale,
                interpolation: Interpolation::Linear,
                times: t,
                values: v,
            });
        }
        channels.retain(|c| !c.times.is_empty() && c.times.windows(2).all(|w| w[1] > w[0]));
        clips.push(Clip {
            name: stack.element.name.to_string(),
            duration: (stack.time_end - stack.time_begin).max(0.0) as f32,
            channels,
        });
    }
    Ok(clips)
}

/// The file's axes and unit, as it states them (assumed Y up, metres, when it does not).
fn read_frame(scene: &ufbx::Scene, warnings: &mut Vec<String>) -> ModelFrame {
    let axes = &scene.settings.axes;
    let (right, up, front) = (axis(axes.right), axis(axes.up), axis(axes.front));
    let (right, up, front) = match (right, up, front) {
        (Some(r), Some(u), Some(f)) => (r, u, f),
        _ => {
            warnings.push(
                "the file does not state its axes; assuming +X right, +Y up, +Z front".into(),
            );
            (Vec3::X, Vec3::Y, Vec3::Z)
        }
    };
    let metres_per_unit = if scene.settings.unit_meters > 0.0 {
        scene.settings.unit_meters as f32
    } else {
        1.0
    };
    ModelFrame {
        description: format!(
            "FBX as stored: right {}, up {}, front {}, {} m per unit",
            axis_name(right),
            axis_name(up),
            axis_name(front),
            metres_per_unit
        ),
        up,
        right,
        front,
        metres_per_unit,
        assimp_from_file: Mat4::IDENTITY,
    }
}

/// A material's texture: its embedded image, else the file its relative path names beside the
/// model (else its absolute path).
fn texture_of(t: &ufbx::Texture, dir: &Path, warnings: &mut Vec<String>) -> Texture {
    if !t.content.is_empty() {
        let source = format!("embedded `{}`", t.relative_filename);
        return Texture::from_bytes(source, Ok(t.content.to_vec()), warnings);
    }
    let relative = t.relative_filename.replace('\\', "/");
    let file = if relative.is_empty() {
        std::path::PathBuf::from(t.filename.to_string())
    } else {
        dir.join(relative)
    };
    let bytes = std::fs::read(&file).map_err(|e| e.to_string());
    Texture::from_bytes(file.display().to_string(), bytes, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pose, Poser, Wrap};

    /// Our import + sampling + skinning against ufbx's own scene evaluation and skin matrices,
    /// an independent path through the same file (pivots, pre-rotations, bind poses).
    fn compare_with_ufbx(file: &str) -> f32 {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/assets")
            .join(file);
        let bytes = std::fs::read(&path).unwrap();
        let model = import(&path, &bytes).unwrap();
        let scene = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).unwrap();
        // Our vertices are control points, split where they take several texture coordinates:
        // each is matched to the control points at its very position (copied bit for bit).
        let key = |v: Vec3| v.to_array().map(f32::to_bits);
        let mut points_at: std::collections::HashMap<[u32; 3], Vec<usize>> = Default::default();
        let source = scene.meshes.iter().next().unwrap();
        for (p, v) in source.vertices.iter().enumerate() {
            points_at.entry(key(vec3(*v))).or_default().push(p);
        }
        let our_points: Vec<&Vec<usize>> = (model.meshes.iter())
            .flat_map(|m| m.positions.iter().map(|&v| &points_at[&key(v)]))
            .collect();
        let mut poser = Poser::new();
        let mut pose = Pose::rest(&model);
        let mut worst = 0.0f32;
        let mut extent = 0.0f32;
        for (clip, stack) in model.clips.iter().zip(scene.anim_stacks.iter()) {
            for k in 0..=4 {
                let t = clip.duration * k as f32 / 4.0;
                pose.sample(&model, clip, t, Wrap::Clamp);
                let ours = poser.posed_vertices(&model, &pose);
                let evaluated = ufbx::evaluate_scene(
                    &scene,
                    &stack.anim,
                    stack.time_begin + f64::from(t),
                    ufbx::EvaluateOpts::default(),
                )
                .unwrap();
                let mesh = evaluated.meshes.iter().next().unwrap();
                let skin = mesh.skin_deformers.iter().next().unwrap();
                // The same weight rule as ours (the 4 largest, renormalized; the files have up
                // to 6 influences summing to 0.94..1.38), with ufbx's evaluated cluster transforms.
                let mut influences: Vec<Vec<(u16, f32)>> = vec![Vec::new(); mesh.vertices.len()];
                for (c, cluster) in skin.clusters.iter().enumerate() {
                    for (&v, &w) in cluster.vertices.iter().zip(cluster.weights.iter()) {
                        influences[v as usize].push((c as u16, w as f32));
                    }
                }
                let (joints, weights, _) = crate::gltf_import::top_four(influences);
                let clusters: Vec<Mat4> = skin
                    .clusters
                    .iter()
                    .map(|c| mat4(&c.geometry_to_world))
                    .collect();
                let theirs: Vec<Vec3> = (mesh.vertices.iter().enumerate())
                    .map(|(i, v)| {
                        let m = (0..4).fold(Mat4::ZERO, |acc, k| {
                            acc + clusters[joints[i][k] as usize] * weights[i][k]
                        });
                        m.transform_point3(vec3(*v))
                    })
                    .collect();
                assert_eq!(ours.len(), our_points.len());
                for (ours, points) in ours.iter().zip(&our_points) {
                    let nearest = (points.iter())
                        .map(|&p| theirs[p].distance(*ours))
                        .fold(f32::INFINITY, f32::min);
                    worst = worst.max(nearest);
                }
                for t in &theirs {
                    extent = extent.max(t.abs().max_element());
                }
            }
        }
        worst / extent
    }

    #[test]
    fn skinning_agrees_with_ufbx_evaluation() {
        for file in [
            "characters/Walker.fbx",
            "samples/fbx/animation_with_skeleton.fbx",
        ] {
            let relative = compare_with_ufbx(file);
            assert!(
                relative < 1e-5,
                "{file}: largest difference {relative:e} of the model's extent"
            );
        }
    }
}
