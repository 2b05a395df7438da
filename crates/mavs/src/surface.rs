//! Height queries over placed meshes: the surface random placement stands objects on.
//! As MAVS's `GetSurfaceHeight`: a ray straight down from above the surface; the first hit.

use crate::read::Report;
use glam::Vec3A;
use passerby_diag::Span;
use passerby_raycast::{Ray, Scene, TriangleMesh};
use passerby_world::Affine3x4;
use std::collections::HashMap;

/// Meshes to query heights on.
pub(crate) struct HeightSurface {
    scene: Scene,
    top: f32,
    /// (x, y) bounds of the meshes and grids: lower and upper corners.
    pub bounds: Option<([f64; 2], [f64; 2])>,
    /// Heightmap grids, which are surfaces too.
    grids: Vec<passerby_world::ElevationGrid>,
}

impl HeightSurface {
    /// The meshes `(file, world_from_model)`; a file that does not load is reported at `span`.
    pub fn build(
        placed: &[(String, Affine3x4)],
        grids: Vec<passerby_world::ElevationGrid>,
        report: &mut Report,
        span: Span,
        path: &str,
    ) -> HeightSurface {
        let mut scene = Scene::new();
        let mut meshes = HashMap::new();
        let mut top = f32::NEG_INFINITY;
        let mut bounds: Option<([f64; 2], [f64; 2])> = None;
        let mut grow = |x: f64, y: f64| {
            let (lo, hi) = bounds.get_or_insert(([x, y], [x, y]));
            *lo = [lo[0].min(x), lo[1].min(y)];
            *hi = [hi[0].max(x), hi[1].max(y)];
        };
        for (file, m) in placed {
            let mesh = match meshes.get(file) {
                Some(&id) => id,
                // A missing file was warned about where it was named; objects then stand at z 0.
                None if !std::path::Path::new(file).is_file() => continue,
                None => match passerby_assets::load_model(std::path::Path::new(file)) {
                    Ok(model) => {
                        // As the scene draws it (in assimp's frame), so objects stand on the
                        // surface sensors see.
                        let vertices = passerby_assets::rest_vertices(&model);
                        let triangles = passerby_assets::merged_triangles(&model);
                        let id = scene.add_mesh(TriangleMesh::new(vertices, triangles));
                        meshes.insert(file.clone(), id);
                        id
                    }
                    Err(e) => {
                        report.error(
                            span,
                            path,
                            format!("cannot load the surface mesh `{file}`: {e}"),
                        );
                        continue;
                    }
                },
            };
            let world_from_mesh = passerby_world::affine_from_rows(m);
            for v in scene.mesh(mesh).vertices() {
                let w = world_from_mesh.transform_point3a(*v);
                top = top.max(w.z);
                grow(f64::from(w.x), f64::from(w.y));
            }
            scene.add_instance(mesh, world_from_mesh);
        }
        for g in &grids {
            grow(g.corner_min[0], g.corner_min[1]);
            grow(
                g.corner_min[0] + (g.nx - 1) as f64 * g.resolution,
                g.corner_min[1] + (g.ny - 1) as f64 * g.resolution,
            );
        }
        scene.commit();
        HeightSurface {
            scene,
            top,
            bounds,
            grids,
        }
    }

    /// The height of the highest surface at `(x, y)`, if any.
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        let on_grids = self.grids.iter().filter_map(|g| g.height_at(x, y));
        on_grids.chain(self.mesh_height_at(x, y)).reduce(f64::max)
    }

    fn mesh_height_at(&self, x: f64, y: f64) -> Option<f64> {
        if !self.top.is_finite() {
            return None;
        }
        // Just above the top (MAVS starts 500 m up; in f32 that costs a tenth of a millimetre).
        let start = self.top + 1.0;
        let origin = Vec3A::new(x as f32, y as f32, start);
        let ray = Ray::new(origin, Vec3A::NEG_Z, 0.0, f32::MAX).ok()?;
        self.scene.closest(&ray).map(|hit| f64::from(start - hit.t))
    }
}
