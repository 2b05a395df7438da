//! Mesh files placed by the world (MAVS `Objects`): each file one shared mesh, instanced once
//! per placement, with smooth shading normals when asked (`Smooth Normals`) and, with
//! per-group classes (`Label By Group`), one shared mesh per group of the file so each group
//! is its own instance with its own class, all under the placement's one object id.

use super::Builder;
use crate::appearance::Surface;
use passerby_assets::{merged_triangles, rest_vertices};
use passerby_raycast::{MeshId, TriangleMesh};
use passerby_world::MeshInstance;
use passerby_world::affine_from_rows;
use std::sync::Arc;

/// One group of a mesh file: its name, its mesh and how it looks.
pub(crate) type GroupMesh = (String, MeshId, Arc<Surface>);

impl Builder<'_> {
    /// Places one mesh file placement.
    pub(crate) fn placed_mesh(&mut self, m: &MeshInstance) {
        let file = &*m.file;
        let class = file.label.as_deref().unwrap_or("static");
        let world_from_model = affine_from_rows(&m.world_from_model);
        // A placement beyond single precision (a position of 1e308) would give the ray caster
        // infinite bounds, and every ray would test it: such an object is left out.
        if !world_from_model.is_finite() {
            self.warn(format!(
                "`{}` is placed beyond single precision (non-finite transform): left out",
                m.name
            ));
            return;
        }
        if let Some(labels) = &file.group_labels {
            let Some(groups) = self.group_meshes(&file.model_uri, file.smooth_normals) else {
                return;
            };
            for (group, id, surface) in groups.iter() {
                let class = labels.get(group).map_or(class, String::as_str);
                self.place_named(*id, surface.clone(), world_from_model, &m.name, class);
            }
            return;
        }
        let Some((id, surface)) = self.model_mesh(&file.model_uri) else {
            return;
        };
        let surface = if file.smooth_normals {
            self.smooth_surface(&file.model_uri, id, surface)
        } else {
            surface
        };
        self.place_named(id, surface, world_from_model, &m.name, class);
    }

    /// The model's look with smooth shading normals, made once per file.
    fn smooth_surface(&mut self, uri: &str, id: MeshId, flat: Arc<Surface>) -> Arc<Surface> {
        if let Some(s) = self.smooth_surfaces.get(uri) {
            return s.clone();
        }
        let mesh = self.scene.mesh(id);
        let smooth = Arc::new(
            (*flat)
                .clone()
                .with_smooth_normals(&mesh_vertices(mesh), mesh.triangles()),
        );
        self.smooth_surfaces.insert(uri.to_owned(), smooth.clone());
        smooth
    }

    /// The model's meshes grouped by name (OBJ groups), one scene mesh per group, made once
    /// per file and smoothness; `None` (warned) when the file does not load.
    fn group_meshes(&mut self, uri: &str, smooth: bool) -> Option<Arc<Vec<GroupMesh>>> {
        let key = (uri.to_owned(), smooth);
        if let Some(done) = self.group_meshes.get(&key) {
            return done.clone();
        }
        let (result, _) = self.library.get(uri, &self.base);
        let built = match result {
            Ok(model) => {
                let mut names: Vec<&str> = Vec::new();
                for mesh in &model.meshes {
                    if !names.contains(&mesh.name.as_str()) {
                        names.push(&mesh.name);
                    }
                }
                let vertices = rest_vertices(&model);
                let surface = Surface::of_model(&model, None);
                let all_triangles = merged_triangles(&model);
                // Triangle ranges of each model mesh in the merged lists.
                let mut first = 0usize;
                let mut ranges = Vec::new();
                for mesh in &model.meshes {
                    ranges.push((mesh.name.as_str(), first..first + mesh.triangles.len()));
                    first += mesh.triangles.len();
                }
                let mut groups = Vec::new();
                for name in names {
                    let picked: Vec<usize> = ranges
                        .iter()
                        .filter(|(n, _)| *n == name)
                        .flat_map(|(_, r)| r.clone())
                        .collect();
                    let triangles: Vec<[u32; 3]> =
                        picked.iter().map(|&t| all_triangles[t]).collect();
                    let mut look = Surface {
                        materials: surface.materials.clone(),
                        triangle_material: picked
                            .iter()
                            .map(|&t| surface.triangle_material[t])
                            .collect(),
                        triangle_uvs: picked.iter().map(|&t| surface.triangle_uvs[t]).collect(),
                        triangle_normals: Vec::new(),
                    };
                    if smooth {
                        look = look.with_smooth_normals(&vertices, &triangles);
                    }
                    let started = std::time::Instant::now();
                    let mesh = TriangleMesh::new(vertices.clone(), triangles);
                    self.model_bvh_seconds += started.elapsed().as_secs_f64();
                    let id = self.scene.add_mesh(mesh);
                    groups.push((name.to_owned(), id, Arc::new(look)));
                }
                Some(Arc::new(groups))
            }
            Err(e) => {
                self.warn(format!(
                    "model `{uri}` not available ({e}); placeholder geometry used"
                ));
                None
            }
        };
        self.group_meshes.insert(key, built.clone());
        built
    }
}

fn mesh_vertices(mesh: &TriangleMesh) -> Vec<glam::Vec3> {
    mesh.vertices()
        .iter()
        .map(|v| glam::Vec3::from(*v))
        .collect()
}
