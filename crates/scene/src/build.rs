//! Building a world's scene at its initial state: each object's meshes placed as instances
//! (or merged into the static batch), with what each instance is and how it looks.
//!
//! Owns: the walk over a world's elements, walls, blocks, vehicles and actors, and the
//! bookkeeping of meshes shared by URI. Must not touch: how objects move afterwards
//! ([`crate::LiveScene`]).

mod object_ids;
mod objects;
mod occupancy;
mod parts;
mod placed;
mod terrain;

use crate::shapes::{circle, cuboid, prism, quad, ramp, sphere};
use crate::sky::{self, SkyBox};
use crate::{
    BUILTIN_CLASSES, Body, BuiltScene, KeyframedBody, SceneObject, SkinnedBody, Surface,
    SurfaceMaterial,
};
use glam::{Affine3A, Mat4, Vec2, Vec3};
use object_ids::ObjectIds;
use passerby_assets::{Model, ModelLibrary, merged_triangles, rest_vertices};
use passerby_raycast::{MeshId, Scene, TriangleMesh};
use passerby_world::*;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

struct Builder<'l> {
    scene: Scene,
    objects: Vec<SceneObject>,
    warnings: Vec<String>,
    library: &'l mut ModelLibrary,
    base: std::path::PathBuf,
    model_meshes: HashMap<String, Option<(MeshId, Mat4, Arc<Surface>)>>,
    /// Model looks with smooth shading normals, by URI.
    smooth_surfaces: HashMap<String, Arc<Surface>>,
    /// Models split by node (for blocks whose nodes move), by URI and tint.
    node_meshes: HashMap<(String, Option<Color>), Option<Arc<parts::NodeMeshes>>>,
    /// Models split by group, by URI and smoothness.
    group_meshes: HashMap<(String, bool), Option<Arc<Vec<placed::GroupMesh>>>>,
    /// Per instance, how its mesh looks.
    instance_surfaces: Vec<Arc<Surface>>,
    model_bvh_seconds: f64,
    bodies: Vec<Body>,
    skinned: Vec<SkinnedBody>,
    keyframed: Vec<KeyframedBody>,
    /// Class names by id (objects hold the id).
    classes: Vec<String>,
    /// Object ids by name, while objects are placed.
    object_ids: ObjectIds,
    /// While true, geometry goes into `batch` instead of becoming instances.
    batching: bool,
    batch: StaticBatch,
    /// While true, instances are placed as moving ones (vehicles, actors, movable blocks), kept
    /// out of the ray caster's tree of still instances.
    placing_moving: bool,
}

/// A mesh's look in one texture, its corners mapped to texture coordinates by `uv`.
fn textured_surface(
    mesh: &TriangleMesh,
    image: Arc<passerby_assets::TextureImage>,
    uv: impl Fn(Vec3) -> Vec2,
) -> Surface {
    let vertices = mesh.vertices();
    Surface {
        materials: vec![SurfaceMaterial {
            colour: [1.0; 3],
            texture: Some(image),
        }],
        triangle_material: vec![0; mesh.triangle_count()],
        triangle_uvs: mesh
            .triangles()
            .iter()
            .map(|t| t.map(|i| uv(Vec3::from(vertices[i as usize]))))
            .collect(),
        triangle_normals: Vec::new(),
    }
}

/// Static geometry merged into one world-space mesh, with the object of each triangle.
#[derive(Default)]
struct StaticBatch {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    triangle_object: Vec<u32>,
    objects: Vec<SceneObject>,
    by_name: HashMap<String, u32>,
    surface: Surface,
}

impl Builder<'_> {
    /// Adds a primitive of one colour.
    fn add(
        &mut self,
        mesh: TriangleMesh,
        colour: Color,
        world_from_mesh: Affine3A,
        name: &str,
        class: &str,
    ) {
        let surface = Surface::plain(colour, mesh.triangle_count());
        self.add_with_surface(mesh, surface, world_from_mesh, name, class);
    }

    /// Adds a primitive of the given look.
    fn add_with_surface(
        &mut self,
        mesh: TriangleMesh,
        surface: Surface,
        world_from_mesh: Affine3A,
        name: &str,
        class: &str,
    ) {
        if mesh.triangle_count() == 0 {
            return;
        }
        let surface = Arc::new(surface);
        if self.batching {
            self.append_to_batch(&mesh, &surface, world_from_mesh, name, class);
            return;
        }
        let id = self.scene.add_mesh(mesh);
        self.place(id, surface, world_from_mesh, name, class);
    }

    /// The look of a primitive of `colour` with the texture at `uri` (none when empty), its
    /// corners mapped to texture coordinates by `uv` (repeating past 0..1). A texture that
    /// cannot be had leaves the plain colour, with a warning.
    fn textured(
        &mut self,
        mesh: &TriangleMesh,
        colour: Color,
        uri: &str,
        uv: impl Fn(Vec3) -> Vec2,
    ) -> Surface {
        let plain = Surface::plain(colour, mesh.triangle_count());
        if uri.is_empty() {
            return plain;
        }
        let image = match self.library.texture(uri, &self.base) {
            (Ok(image), _) => image,
            (Err(e), first) => {
                if first {
                    self.warn(format!(
                        "texture `{uri}` not available ({e}); plain colour used"
                    ));
                }
                return plain;
            }
        };
        textured_surface(mesh, image, uv)
    }

    /// The sky box whose six images `pattern` names (`%s` replaced by each face's name); none,
    /// with a warning, if an image cannot be had (cameras then show the sky gradient).
    fn sky_box(&mut self, pattern: &str) -> Option<SkyBox> {
        let mut faces = Vec::with_capacity(6);
        for name in sky::FACE_NAMES {
            let uri = pattern.replacen("%s", name, 1);
            match self.library.texture(&uri, &self.base) {
                (Ok(image), _) => faces.push(image),
                (Err(e), _) => {
                    self.warn(format!(
                        "sky box image `{uri}` not available ({e}); the sky is a gradient"
                    ));
                    return None;
                }
            }
        }
        Some(SkyBox::new(faces.try_into().ok()?))
    }

    /// Copies a mesh's triangles, placed in the world, into the static batch.
    fn append_to_batch(
        &mut self,
        mesh: &TriangleMesh,
        surface: &Surface,
        world_from_mesh: Affine3A,
        name: &str,
        class: &str,
    ) {
        let object = self.scene_object(name, class);
        let batch = &mut self.batch;
        let index = match batch.by_name.get(name) {
            Some(&i) => i,
            None => {
                batch.objects.push(object);
                let i = batch.objects.len() as u32 - 1;
                batch.by_name.insert(name.to_owned(), i);
                i
            }
        };
        let base = batch.vertices.len() as u32;
        batch.vertices.extend(
            mesh.vertices()
                .iter()
                .map(|v| Vec3::from(world_from_mesh.transform_point3a(*v))),
        );
        batch
            .triangles
            .extend(mesh.triangles().iter().map(|t| t.map(|i| i + base)));
        batch
            .triangle_object
            .extend(std::iter::repeat_n(index, mesh.triangle_count()));
        batch.surface.append(surface);
    }

    /// The label entry of an object (its id and class id assigned on first use).
    fn scene_object(&mut self, name: &str, class: &str) -> SceneObject {
        let (name, id) = self.object_ids.get_or_insert(name, || name.into());
        self.classed(name, id, class)
    }

    /// [`Builder::scene_object`] for a name as the world keeps it (shared with the object: a
    /// meadow names a million placements).
    fn scene_object_named(&mut self, name: &Name, class: &str) -> SceneObject {
        let (name, id) = self.object_ids.get_or_insert_name(name);
        self.classed(name, id, class)
    }

    /// The object `name` of id `object_id`, its class's id assigned on first use.
    fn classed(&mut self, name: Name, object_id: u32, class: &str) -> SceneObject {
        let class_id = match self.classes.iter().position(|c| c == class) {
            Some(i) => i as u16,
            None => {
                self.classes.push(class.into());
                (self.classes.len() - 1) as u16
            }
        };
        SceneObject {
            name,
            id: object_id,
            class_id,
        }
    }

    fn place(
        &mut self,
        id: MeshId,
        surface: Arc<Surface>,
        world_from_mesh: Affine3A,
        name: &str,
        class: &str,
    ) -> u32 {
        self.place_named(id, surface, world_from_mesh, &Name::from(name), class)
    }

    /// [`Builder::place`] for a name as the world keeps it (shared with the object).
    fn place_named(
        &mut self,
        id: MeshId,
        surface: Arc<Surface>,
        world_from_mesh: Affine3A,
        name: &Name,
        class: &str,
    ) -> u32 {
        if self.batching {
            let mesh = self.scene.mesh(id).clone();
            self.append_to_batch(&mesh, &surface, world_from_mesh, &name.to_str(), class);
            return u32::MAX;
        }
        let instance = if self.placing_moving {
            self.scene.add_moving_instance(id, world_from_mesh)
        } else {
            self.scene.add_instance(id, world_from_mesh)
        };
        let object = self.scene_object_named(name, class);
        self.objects.push(object);
        self.instance_surfaces.push(surface);
        instance
    }

    /// A horizontal plane's quad in its own frame and its look: one texture tile per
    /// `texture_size` metres from the (x_min, y_max) corner, the image's top towards +y.
    fn plane(&mut self, p: &passerby_world::HorizontalPlane) -> (TriangleMesh, Surface) {
        let [x0, x1, y0, y1] = p.extent.map(|v| v as f32);
        let z = p.z as f32;
        let mesh = quad([
            Vec3::new(x0, y0, z),
            Vec3::new(x1, y0, z),
            Vec3::new(x1, y1, z),
            Vec3::new(x0, y1, z),
        ]);
        let [tx, ty] = p.texture_size.map(|s| s as f32);
        let surface = self.textured(&mesh, p.color, &p.texture, |v| {
            Vec2::new((v.x - x0) / tx, (y1 - v.y) / ty)
        });
        (mesh, surface)
    }

    /// Records that the instances added since `first` move with object `name`, placed at
    /// `world_from_object`.
    fn bind(&mut self, name: &str, is_actor: bool, first: u32, world_from_object: Affine3A) {
        let object_from_world = world_from_object.inverse();
        let instances = (first..self.scene.instance_count() as u32)
            .map(|i| {
                (
                    i,
                    object_from_world * self.scene.instance(i).world_from_mesh(),
                )
            })
            .collect();
        self.bodies.push(Body {
            object: name.to_owned(),
            is_actor,
            instances,
            parts: Vec::new(),
        });
    }

    /// A skinned model as the actor's own movable mesh, at rest pose; `None` when the model
    /// has no skin (it is then shared and rigid, as MVSim keeps a model without animations).
    fn skinned_actor(
        &mut self,
        actor: usize,
        visual: &Visual,
        world_from_actor: Affine3A,
        name: &str,
        class: &str,
    ) -> Option<()> {
        let (result, _) = self.library.get(&visual.model_uri, &self.base);
        let model = result.ok()?;
        if !model.meshes.iter().any(|m| m.skin.is_some()) {
            return None;
        }
        let vertices = rest_vertices(&model);
        let triangles = merged_triangles(&model);
        let mesh = self
            .scene
            .add_mesh(TriangleMesh::new_dynamic(vertices, triangles));
        let object_from_mesh = affine_from_rows4(&visual.object_from_model(None));
        let surface = Arc::new(Surface::of_model(&model, visual.model_color));
        let instance = self.place(
            mesh,
            surface,
            world_from_actor * object_from_mesh,
            name,
            class,
        );
        self.skinned.push(SkinnedBody {
            actor,
            model,
            mesh,
            object_from_mesh,
            instance,
        });
        Some(())
    }

    /// A keyframe mesh sequence as the actor's own dynamic mesh, at its first frame; `None`
    /// (with a warning) when a frame does not load or has other vertices than the first.
    fn keyframed_actor(
        &mut self,
        actor: usize,
        keyframes: &KeyframeMeshes,
        world_from_actor: Affine3A,
        name: &str,
        class: &str,
    ) -> Option<()> {
        let mut frames = Vec::with_capacity(keyframes.frames.len());
        let mut first: Option<Arc<Model>> = None;
        for uri in &keyframes.frames {
            let (result, _) = self.library.get(uri, &self.base);
            let model = match result {
                Ok(model) => model,
                Err(e) => {
                    self.warn(format!(
                        "keyframe `{uri}` not available ({e}); placeholder geometry used"
                    ));
                    return None;
                }
            };
            let vertices = rest_vertices(&model);
            if let Some(f) = &first
                && (vertices.len() != frames.first().map_or(0, Vec::len)
                    || merged_triangles(&model) != merged_triangles(f))
            {
                self.warn(format!(
                    "keyframe `{uri}` does not have the vertices and triangles of the first frame; placeholder geometry used"
                ));
                return None;
            }
            first.get_or_insert(model);
            frames.push(vertices);
        }
        let model = first?;
        let mesh = self.scene.add_mesh(TriangleMesh::new_dynamic(
            frames[0].clone(),
            merged_triangles(&model),
        ));
        let surface = Arc::new(Surface::of_model(&model, None));
        let object_from_mesh = affine_from_rows(&keyframes.object_from_model);
        self.place(
            mesh,
            surface,
            world_from_actor * object_from_mesh,
            name,
            class,
        );
        self.keyframed.push(KeyframedBody {
            actor,
            frames: Arc::new(frames),
            frame_rate: keyframes.frame_rate,
            mesh,
        });
        Some(())
    }

    fn warn(&mut self, message: String) {
        if !self.warnings.contains(&message) {
            self.warnings.push(message);
        }
    }

    /// A model's mesh (all its meshes merged, at rest pose, in assimp's frame), built once per URI.
    fn model_mesh(&mut self, uri: &str) -> Option<(MeshId, Arc<Surface>)> {
        if let Some(done) = self.model_meshes.get(uri) {
            return done.as_ref().map(|(id, _, s)| (*id, s.clone()));
        }
        let (result, _) = self.library.get(uri, &self.base);
        let built = match result {
            Ok(model) => {
                let to_assimp = model.frame.assimp_from_file;
                let vertices = rest_vertices(&model);
                let triangles = merged_triangles(&model);
                let started = std::time::Instant::now();
                let mesh = TriangleMesh::new(vertices, triangles);
                self.model_bvh_seconds += started.elapsed().as_secs_f64();
                let id = self.scene.add_mesh(mesh);
                Some((id, to_assimp, Arc::new(Surface::of_model(&model, None))))
            }
            Err(e) => {
                self.warn(format!(
                    "model `{uri}` not available ({e}); placeholder geometry used"
                ));
                None
            }
        };
        let answer = built.as_ref().map(|(id, _, s)| (*id, s.clone()));
        self.model_meshes.insert(uri.to_owned(), built);
        answer
    }

    /// Places every visual of an object; returns whether any model was placed.
    fn visuals(
        &mut self,
        visuals: &[Visual],
        world_from_object: Affine3A,
        scale: Option<f64>,
        name: &str,
        class: &str,
    ) -> bool {
        let mut any = false;
        for v in visuals
            .iter()
            .filter(|v| v.enabled && !v.model_uri.is_empty())
        {
            if let Some((id, surface)) = self.model_mesh(&v.model_uri) {
                let surface = match v.model_color {
                    Some(tint) => {
                        let (result, _) = self.library.get(&v.model_uri, &self.base);
                        match result {
                            Ok(model) => Arc::new(Surface::of_model(&model, Some(tint))),
                            Err(_) => surface,
                        }
                    }
                    None => surface,
                };
                let object_from_model = affine_from_rows4(&v.object_from_model(scale));
                self.place(
                    id,
                    surface,
                    world_from_object * object_from_model,
                    name,
                    class,
                );
                any = true;
            }
        }
        any
    }
}

impl Builder<'_> {
    /// The outlines of blocks and chassis that take theirs from their visuals: the convex hull
    /// of the visuals' bounding boxes seen from above, in the object's frame.
    fn visual_outlines(&mut self, world: &World) -> Vec<(String, Vec<[f64; 2]>)> {
        let blocks = (world.blocks.iter())
            .filter(|b| !b.intangible && matches!(b.shape, BlockShape::FromVisual))
            .map(|b| (&b.name, &b.visuals, b.visual_scale));
        let vehicles = (world.vehicles.iter())
            .filter(|v| v.dynamics.chassis.shape_from_visual)
            .map(|v| (&v.name, &v.visuals, None));
        let wanted: Vec<_> = blocks.chain(vehicles).collect();
        let mut out = Vec::new();
        for (name, visuals, scale) in wanted {
            let mut corners = Vec::new();
            for v in visuals
                .iter()
                .filter(|v| v.enabled && !v.model_uri.is_empty())
            {
                let Some((id, _)) = self.model_mesh(&v.model_uri) else {
                    continue;
                };
                let bounds = self.scene.mesh(id).bounds();
                if bounds.min.x > bounds.max.x {
                    continue;
                }
                let object_from_model = affine_from_rows4(&v.object_from_model(scale));
                for i in 0..8 {
                    let pick = |bit: usize, lo: f32, hi: f32| if i & bit == 0 { lo } else { hi };
                    let corner = glam::Vec3::new(
                        pick(1, bounds.min.x, bounds.max.x),
                        pick(2, bounds.min.y, bounds.max.y),
                        pick(4, bounds.min.z, bounds.max.z),
                    );
                    let p = object_from_model.transform_point3(corner);
                    corners.push([f64::from(p.x), f64::from(p.y)]);
                }
            }
            if let Some(hull) = convex_hull_2d(corners) {
                out.push((name.clone(), hull));
            }
        }
        out
    }
}

/// The convex hull of points on the plane, counter-clockwise (Andrew's monotone chain);
/// `None` when it encloses no area.
fn convex_hull_2d(mut points: Vec<[f64; 2]>) -> Option<Vec<[f64; 2]>> {
    points.retain(|p| p[0].is_finite() && p[1].is_finite());
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.dedup();
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(points.len() + 1);
    for pass in [false, true] {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &[f64; 2]>> = if pass {
            Box::new(points.iter().rev())
        } else {
            Box::new(points.iter())
        };
        for &p in ordered {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    let area: f64 = (0..hull.len())
        .map(|i| cross([0.0, 0.0], hull[i], hull[(i + 1) % hull.len()]))
        .sum();
    (hull.len() >= 3 && area.abs() > 1e-9).then_some(hull)
}

/// Builds the scene of a world at its initial poses.
pub fn build_scene(world: &World, library: &mut ModelLibrary) -> BuiltScene {
    build(world, Cow::Borrowed(&world.meshes), library)
}

/// As [`build_scene`], taking the world's placed mesh files (`world.meshes` is left empty):
/// they are dropped once placed, before the scene's top level is built, so that a meadow's
/// million placements (120 bytes each and a name) are not held through the build's peak. For
/// a caller that runs the world and has no more use for them (the scene holds them).
pub fn build_scene_taking_meshes(world: &mut World, library: &mut ModelLibrary) -> BuiltScene {
    let meshes = std::mem::take(&mut world.meshes);
    build(world, Cow::Owned(meshes), library)
}

/// [`build_scene`] with the world's placed mesh files, `meshes`, borrowed or owned.
fn build(world: &World, meshes: Cow<'_, [MeshInstance]>, library: &mut ModelLibrary) -> BuiltScene {
    let base = world
        .source
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut b = Builder {
        scene: Scene::new(),
        objects: Vec::new(),
        warnings: Vec::new(),
        library,
        base,
        model_meshes: HashMap::new(),
        smooth_surfaces: HashMap::new(),
        node_meshes: HashMap::new(),
        group_meshes: HashMap::new(),
        instance_surfaces: Vec::new(),
        model_bvh_seconds: 0.0,
        bodies: Vec::new(),
        skinned: Vec::new(),
        keyframed: Vec::new(),
        classes: std::iter::once("")
            .chain(BUILTIN_CLASSES)
            .map(String::from)
            .collect(),
        // Room for every object name the world gives at once: growing the table rehashed
        // (wrote out) a meadow's million numbered names some twenty times.
        object_ids: ObjectIds::with_capacity(
            meshes.len() + world.blocks.len() + world.vehicles.len() + world.actors.len(),
        ),
        batching: true,
        placing_moving: false,
        batch: StaticBatch::default(),
    };
    let sky = b.static_elements(world);
    let model_walls = b.walls(world);
    b.fixed_blocks(world);
    b.batching = false;
    let batch = std::mem::take(&mut b.batch);
    let static_instance = (!batch.triangles.is_empty()).then(|| {
        let mesh = b
            .scene
            .add_mesh(TriangleMesh::new(batch.vertices, batch.triangles));
        let instance = b.scene.add_instance(mesh, Affine3A::IDENTITY);
        b.instance_surfaces.push(Arc::new(batch.surface));
        b.objects.push(SceneObject {
            name: "".into(),
            id: 0,
            class_id: 0,
        });
        instance
    });
    b.placed_meshes(&meshes);
    // Owned, they go now (the objects share their names).
    drop(meshes);
    b.placing_moving = true;
    b.moving_planes(world);
    b.movable_blocks(world);
    b.vehicles(world);
    b.actors(world);
    // Every object has its id: the table (a meadow's million names) goes before the scene's
    // top level is built, where the build's memory peaks.
    b.object_ids = ObjectIds::default();
    b.scene.commit();
    let height_surfaces = (!world.surfaces.is_empty()).then(|| {
        let mut surfaces = Scene::new();
        for surface in &world.surfaces {
            if let Some((id, _)) = b.model_mesh(&surface.model_uri) {
                let mesh = surfaces.add_mesh(b.scene.mesh(id).clone());
                surfaces.add_instance(mesh, affine_from_rows(&surface.world_from_model));
            }
        }
        surfaces.commit();
        surfaces
    });
    let outlines = b.visual_outlines(world);
    BuiltScene {
        outlines,
        model_walls,
        height_surfaces,
        model_bvh_seconds: b.model_bvh_seconds,
        scene: b.scene,
        objects: b.objects,
        warnings: b.warnings,
        bodies: b.bodies,
        skinned: b.skinned,
        keyframed: b.keyframed,
        classes: b.classes,
        static_instance,
        static_objects: batch.objects,
        static_triangle_object: batch.triangle_object,
        instance_surfaces: b.instance_surfaces,
        sky,
    }
}

/// Elevation maps without a texture (MVSim draws them in their colour map; a soil tone here).
pub(crate) const TERRAIN_COLOUR: Color = Color {
    r: 0x8a,
    g: 0x7b,
    b: 0x5c,
    a: 0xff,
};

/// MVSim's actor placeholder is drawn in a skin-like tone.
const PLACEHOLDER_COLOUR: Color = Color {
    r: 0xd9,
    g: 0xa0,
    b: 0x7a,
    a: 0xff,
};

fn block_class(block: &Block) -> String {
    block
        .common
        .label
        .clone()
        .unwrap_or_else(|| "static".into())
}

impl Builder<'_> {
    /// A block's visuals, or its primitive, or its extruded shape.
    fn block_shape(&mut self, block: &Block, world_from_block: Affine3A, class: &str) {
        let b = self;
        if b.visuals(
            &block.visuals,
            world_from_block,
            block.visual_scale,
            &block.name,
            class,
        ) {
            return;
        }
        let (zmin, zmax) = (
            block.zmin.unwrap_or(0.0) as f32,
            block.zmax.unwrap_or(1.0) as f32,
        );
        let mesh = match &block.shape {
            BlockShape::Geometry(g) => match g.kind {
                GeometryKind::Box => {
                    cuboid(Vec3::ZERO, Vec3::new(g.lx as f32, g.ly as f32, g.lz as f32))
                }
                GeometryKind::Cylinder => prism(
                    &circle(g.radius as f32, g.vertex_count),
                    0.0,
                    g.length as f32,
                ),
                GeometryKind::Sphere => sphere(g.radius as f32, g.vertex_count),
                GeometryKind::Ramp => ramp(g.lx as f32, g.ly as f32, g.lz as f32),
                GeometryKind::SemiCylinderBump => {
                    return b.warn("semi-cylinder bump primitives are not built yet".into());
                }
            },
            BlockShape::Polygon(pts) => {
                let pts: Vec<[f32; 2]> = pts.iter().map(|p| [p[0] as f32, p[1] as f32]).collect();
                prism(&pts, zmin, zmax)
            }
            BlockShape::FromVisual | BlockShape::Default => {
                let pts = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];
                prism(&pts, zmin, zmax)
            }
        };
        b.add(mesh, block.color, world_from_block, &block.name, class);
    }
}

#[cfg(test)]
mod tests {
    use super::convex_hull_2d;

    #[test]
    fn the_hull_of_box_corners_is_their_rectangle_counter_clockwise() {
        let corners = vec![
            [1.0, 1.0],
            [-1.0, -1.0],
            [1.0, -1.0],
            [-1.0, 1.0],
            [0.0, 0.0],
            [1.0, 1.0],
        ];
        let hull = convex_hull_2d(corners).unwrap();
        assert_eq!(
            hull,
            vec![[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]
        );
        assert!(convex_hull_2d(vec![[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]).is_none());
        assert!(convex_hull_2d(vec![]).is_none());
    }
}
