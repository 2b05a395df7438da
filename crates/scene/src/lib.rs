//! The ray-casting scene of a world: built at its initial state, then kept in step with the
//! simulation by [`LiveScene`].
//!
//! Owns: turning world objects into placed triangle meshes: ground and wall elements
//! (horizontal and vertical planes, elevation maps, `<walls>` polylines), blocks (their
//! `<visual>` models as MVSim places them, or their `<geometry>` primitive, or their extruded
//! `<shape>`), vehicle bodies, and actors (their model at its rest pose, or MVSim's placeholder
//! body). Each model file becomes one mesh shared by all its instances, except skinned actor
//! models: each such actor gets its own mesh, re-skinned and refitted every update. Every
//! actor, vehicle and block records its instances ([`Body`]) so they follow its pose.
//!
//! The world's sky box too ([`SkyBox`]), for cameras. Building is `build.rs`; keeping in step,
//! `live.rs`.
//!
//! Must not touch: how objects move (it reads poses and animation states from `passerby-sim`),
//! sensors. Not yet built (listed in [`BuiltScene::warnings`] when a world has them): point
//! clouds, elevation maps from DEM text files, walls from models, semi-cylinder bump
//! primitives.
//!
//! Modules: the walk over a world's objects (`build.rs`) with elevation-map textures
//! (`build/terrain.rs`), occupancy grids as MVSim draws them (`build/occupancy.rs`), parts that
//! transform sets move (`build/parts.rs`: wheels, block model nodes), placed mesh files
//! (`build/placed.rs`), objects' ids by name (`build/object_ids.rs`); primitive shapes (`shapes.rs`); how surfaces look to cameras
//! (`appearance.rs`); the sky box (`sky.rs`); ground height queries (`ground.rs`); keeping in
//! step with the simulation, posing ahead (`live.rs`).

pub mod appearance;
mod build;
mod ground;
mod live;
mod shapes;
mod sky;

pub use appearance::{Surface, SurfaceMaterial, TriangleLook};
pub use build::{build_scene, build_scene_taking_meshes};
pub use ground::SceneGround;
pub use live::{LiveError, LiveScene, RaysCast, Reach, Skeleton};
pub use passerby_assets::rest_vertices;
pub use shapes::cuboid;
pub use sky::SkyBox;

use glam::{Affine3A, Vec3, Vec3A};
use passerby_assets::Model;
use passerby_raycast::{MeshId, Scene};
pub use passerby_world::Name;
use std::sync::Arc;

/// What a scene instance stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneObject {
    /// Object name (`ground`, `block003`, `r1`, `person1`, `oat_grass_single_17`, …).
    pub name: Name,
    /// The object's instance id for labels: 1 and up in build order (elements, walls, blocks,
    /// vehicles, actors), shared by all the object's scene instances; 0 means nothing.
    pub id: u32,
    /// The class's id in [`BuiltScene::classes`] (0 means nothing): its semantic class
    /// (`ground`, `wall`, `static`, `vehicle`, `pedestrian`, or a `<label>`) by name is
    /// [`BuiltScene::class_name`] (a meadow has a million objects of one class).
    pub class_id: u16,
}

/// The built-in semantic classes, with ids 1 to 5; `<label>` classes follow in order of first
/// use. Id 0 is "nothing" (sky, no return).
pub const BUILTIN_CLASSES: [&str; 5] = ["ground", "wall", "static", "vehicle", "pedestrian"];

/// A movable object's instances: `(instance, object_from_mesh)` each, so that the instance's
/// transform is `world_from_object · object_from_mesh` wherever the object goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// The object's name (an actor, vehicle or block).
    pub object: String,
    /// Whether the object is an actor (cameras box actors).
    pub is_actor: bool,
    /// Its instances.
    pub instances: Vec<(u32, Affine3A)>,
    /// Its parts that move relative to it (a vehicle's wheels), in the object's order.
    pub parts: Vec<RigidPart>,
}

/// A rigid part of a movable object (a vehicle's wheel, a node of a block's model): its
/// instances are placed at `world_from_object · object_from_part · part_from_mesh`, where
/// `object_from_part` is its parent's placement (or `parent_frame` for a part without one)
/// times its local transform: `rest`, unless a transform set replaces it (as a bone's local
/// transform is replaced; a Simulink transform set gives a wheel's place on the vehicle).
#[derive(Clone, Debug, PartialEq)]
pub struct RigidPart {
    /// The part's name (a wheel's tag, `l_wheel`, `fr_wheel`, ...; a model node's name).
    pub name: String,
    /// The part it hangs from, by index among its object's parts.
    pub parent: Option<usize>,
    /// `object_from_parent` for a part without a parent (a model's placement on its block).
    pub parent_frame: Affine3A,
    /// Its local transform at rest (`parent_from_part`).
    pub rest: Affine3A,
    /// Its instances: `(instance, part_from_mesh)`.
    pub instances: Vec<(u32, Affine3A)>,
}

/// Where each of `parts` stands on its object (`object_from_part`), given their local
/// transforms `locals`: parents before children whatever their order.
pub fn place_parts(parts: &[RigidPart], locals: &[Affine3A]) -> Vec<Affine3A> {
    let mut placed: Vec<Option<Affine3A>> = vec![None; parts.len()];
    let mut chain = Vec::new();
    for i in 0..parts.len() {
        let mut j = i;
        while placed[j].is_none() && !chain.contains(&j) {
            chain.push(j);
            match parts[j].parent {
                Some(p) if p < parts.len() => j = p,
                _ => break,
            }
        }
        while let Some(k) = chain.pop() {
            let parent = (parts[k].parent)
                .and_then(|p| placed.get(p).copied().flatten())
                .unwrap_or(parts[k].parent_frame);
            placed[k] = Some(parent * locals[k]);
        }
    }
    placed.into_iter().map(Option::unwrap_or_default).collect()
}

/// Finds a part among an object's `names` (in the object's order) by its name or as `#K`,
/// the K-th (from 1), as a Simulink transform set addresses parts by row.
pub fn find_part<'a>(mut names: impl Iterator<Item = &'a str>, part: &str) -> Option<usize> {
    if let Some(k) = part.strip_prefix('#').and_then(|k| k.parse::<usize>().ok()) {
        return k.checked_sub(1).filter(|&i| names.nth(i).is_some());
    }
    names.position(|n| n == part)
}

/// An actor whose model is skinned: its own mesh, re-posed by [`LiveScene`].
#[derive(Clone, Debug)]
pub struct SkinnedBody {
    /// Index of the actor in the world (and in the simulation).
    pub actor: usize,
    /// The model.
    pub model: Arc<Model>,
    /// The actor's own mesh in the scene (all the model's meshes, in assimp's frame).
    pub mesh: MeshId,
    /// `object_from_mesh` of its instance (the visual's placement).
    pub object_from_mesh: Affine3A,
    /// The instance.
    pub instance: u32,
}

/// An actor whose body is a keyframe mesh sequence (MAVS animations): one dynamic mesh whose
/// vertices are blended from two frames each step.
#[derive(Clone, Debug)]
pub struct KeyframedBody {
    /// Index of the actor in the world (and in the simulation).
    pub actor: usize,
    /// Every frame's vertices (the mesh file's frame), all of the same count.
    pub frames: Arc<Vec<Vec<Vec3>>>,
    /// Frames per second.
    pub frame_rate: f64,
    /// The actor's own mesh in the scene.
    pub mesh: MeshId,
}

/// A built scene and what each instance is.
#[derive(Default)]
pub struct BuiltScene {
    /// The ray-casting scene, committed.
    pub scene: Scene,
    /// Per instance index.
    pub objects: Vec<SceneObject>,
    /// Actors, vehicles and blocks with the instances that move with them.
    pub bodies: Vec<Body>,
    /// Actors with skinned models.
    pub skinned: Vec<SkinnedBody>,
    /// Class names by id (index 0 is `""`: nothing).
    pub classes: Vec<String>,
    /// The instance holding every element, wall and static block merged (its entry in
    /// `objects` is a blank; [`BuiltScene::object_of`] looks up each triangle's object).
    pub static_instance: Option<u32>,
    /// The objects merged into the static instance.
    pub static_objects: Vec<SceneObject>,
    /// Per triangle of the static instance's mesh, its index in `static_objects`.
    pub static_triangle_object: Vec<u32>,
    /// What could not be built (each once).
    pub warnings: Vec<String>,
    /// Seconds spent building the BVHs of model meshes (the rest of a build is file loading).
    pub model_bvh_seconds: f64,
    /// Per instance, how it looks to cameras.
    pub instance_surfaces: Vec<Arc<Surface>>,
    /// Meshes that serve only as the ground (MAVS `Surface Mesh`): not seen by sensors.
    pub height_surfaces: Option<Scene>,
    /// Actors with keyframe mesh bodies.
    pub keyframed: Vec<KeyframedBody>,
    /// The world's sky box, when it has one whose images could all be had.
    pub sky: Option<SkyBox>,
    /// Outlines on the floor of blocks and chassis with `<shape_from_visual/>`, in their own
    /// frames, by object name: what their contacts use (the simulation takes them).
    pub outlines: Vec<(String, Vec<[f64; 2]>)>,
    /// The line segments of `<walls>` read from model files, by index in the world's walls:
    /// what the description takes in place of the file ([`passerby_world::WallSource`]).
    pub model_walls: Vec<(usize, Vec<[[f64; 3]; 2]>)>,
}

impl BuiltScene {
    /// The parts of object `object` that transform sets may address, in its order: a skinned
    /// actor's named nodes (bones included) in its model's order, a vehicle's wheels in its
    /// dynamics' order (MVSim's wheel indices). Empty for objects without parts.
    pub fn part_names(&self, object: &str) -> Vec<&str> {
        if let Some(skinned) = self.skinned.iter().find(|s| {
            self.objects
                .get(s.instance as usize)
                .is_some_and(|o| o.name.is(object))
        }) {
            return skinned
                .model
                .nodes
                .iter()
                .map(|n| n.name.as_str())
                .filter(|n| !n.is_empty())
                .collect();
        }
        self.bodies
            .iter()
            .find(|b| b.object == object)
            .map_or_else(Vec::new, |b| {
                b.parts.iter().map(|p| p.name.as_str()).collect()
            })
    }

    /// The name of part `part` (a name or `#K`) of `object`, or why there is none.
    pub fn resolve_part(&self, object: &str, part: &str) -> Result<String, String> {
        let names = self.part_names(object);
        match find_part(names.iter().copied(), part) {
            Some(i) => Ok(names[i].to_owned()),
            None if names.is_empty() => Err(format!("`{object}` has no parts")),
            None => {
                let shown: Vec<&str> = names.iter().copied().take(12).collect();
                let more = if names.len() > 12 { ", ..." } else { "" };
                Err(format!(
                    "`{object}` has no part `{part}` (its {} parts, also addressed as #1 to #{}: {}{more})",
                    names.len(),
                    names.len(),
                    shown.join(", ")
                ))
            }
        }
    }

    /// What a hit on `triangle` of `instance` is.
    pub fn object_of(&self, instance: u32, triangle: u32) -> Option<&SceneObject> {
        if Some(instance) == self.static_instance {
            let index = *self.static_triangle_object.get(triangle as usize)?;
            return self.static_objects.get(index as usize);
        }
        self.objects.get(instance as usize)
    }

    /// The linear colour of a hit on `triangle` of `instance` at barycentric `(u, v)`, seen
    /// through a footprint `uv_across` wide in texture coordinates (its width in metres times
    /// [`BuiltScene::texture_scale`]; 0 for the full-resolution texture).
    pub fn colour_at(
        &self,
        instance: u32,
        triangle: u32,
        [u, v]: [f32; 2],
        uv_across: f32,
    ) -> Option<[f32; 3]> {
        self.look(instance, triangle)?.colour_at(u, v, uv_across)
    }

    /// How `triangle` of `instance` looks as it is now, for the samples that see it.
    pub fn look(&self, instance: u32, triangle: u32) -> Option<TriangleLook<'_>> {
        let surface = self.instance_surfaces.get(instance as usize)?;
        let normal_to_world = self.scene.instance(instance).normal_to_world();
        TriangleLook::new(surface, triangle, normal_to_world)
    }

    /// The area (m²) of `triangle` of `instance` as placed now.
    fn triangle_area(&self, instance: u32, triangle: u32) -> f32 {
        let inst = self.scene.instance(instance);
        let mesh = self.scene.mesh(inst.mesh);
        let Some(corners) = mesh.triangles().get(triangle as usize) else {
            return 0.0;
        };
        let [a, b, c] = corners.map(|k| {
            inst.world_from_mesh()
                .transform_point3a(mesh.vertices()[k as usize])
        });
        0.5 * (b - a).cross(c - a).length()
    }

    /// Texture coordinates per metre on `triangle` of `instance` as it is now (0 where it has
    /// no texture): what turns a pixel's footprint into a texture level of detail.
    pub fn texture_scale(&self, instance: u32, triangle: u32) -> f32 {
        let Some(surface) = self.instance_surfaces.get(instance as usize) else {
            return 0.0;
        };
        surface.texture_scale(triangle, || self.triangle_area(instance, triangle))
    }

    /// The world-frame shading normal (unit) of a hit on `triangle` of `instance` at
    /// barycentric `(u, v)`; `None` where the surface is flat (use the geometric normal).
    pub fn shading_normal(&self, instance: u32, triangle: u32, u: f32, v: f32) -> Option<Vec3A> {
        self.look(instance, triangle)?.shading_normal(u, v)
    }

    /// An object's semantic class by name (`""` for none).
    pub fn class_name(&self, object: &SceneObject) -> &str {
        self.classes
            .get(usize::from(object.class_id))
            .map_or("", String::as_str)
    }

    /// Every labelled object once (static ones and instanced ones).
    pub fn all_objects(&self) -> impl Iterator<Item = &SceneObject> {
        self.static_objects
            .iter()
            .chain(self.objects.iter().filter(|o| o.id != 0))
    }
}
