//! The ground that actors and vehicles stand on, as ray-cast geometry: every instance of the
//! built scene that does not move (ground and wall elements, blocks without keyframes, at their
//! initial poses). A query casts one ray straight down, as AWSIM does, so stairs, ramps, floors
//! of several storeys and any static model are ground.

use crate::BuiltScene;
use glam::Vec3A;
use passerby_raycast::{MeshId, Ray, Scene};
use passerby_sim::ground::Ground;
use passerby_world::{World, WorldElement};
use std::collections::{HashMap, HashSet};

/// Static geometry for downward probes.
#[derive(Clone, Debug, Default)]
pub struct SceneGround {
    scene: Scene,
}

impl SceneGround {
    /// The static part of `built` (a scene built from `world`); only its height surfaces when
    /// it has some (a MAVS scene's `Surface Mesh`: MAVS's height queries ignore every object).
    pub fn new(built: &BuiltScene, world: &World) -> SceneGround {
        if let Some(surfaces) = &built.height_surfaces {
            return SceneGround {
                scene: surfaces.clone(),
            };
        }
        let movers: HashSet<&str> = world
            .actors
            .iter()
            .map(|a| a.name.as_str())
            .chain(world.vehicles.iter().map(|v| v.name.as_str()))
            .chain(
                world
                    .blocks
                    .iter()
                    .filter(|b| b.common.keyframes.is_some())
                    .map(|b| b.name.as_str()),
            )
            .collect();
        // Planes that move are the simulation's own floors (`passerby_sim::floors`).
        let floors: Vec<String> = world
            .elements
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(&e.element, WorldElement::HorizontalPlane(p) if p.moves()))
            .map(|(i, _)| format!("element{}", i + 1))
            .collect();
        let movers: HashSet<&str> = movers
            .into_iter()
            .chain(floors.iter().map(String::as_str))
            .collect();
        let mut scene = Scene::new();
        let mut copied: HashMap<MeshId, MeshId> = HashMap::new();
        for (i, object) in built.objects.iter().enumerate() {
            if movers.contains(&*object.name.to_str()) {
                continue;
            }
            let instance = built.scene.instance(i as u32);
            let mesh = *copied.entry(instance.mesh).or_insert_with(|| {
                scene.add_shared_mesh(built.scene.shared_mesh(instance.mesh).clone())
            });
            scene.add_instance(mesh, instance.world_from_mesh());
        }
        scene.commit();
        SceneGround { scene }
    }
}

impl Ground for SceneGround {
    fn surface_below(&self, x: f64, y: f64, top: f64, depth: f64) -> Option<f64> {
        let origin = Vec3A::new(x as f32, y as f32, top as f32);
        let ray = Ray::new(origin, Vec3A::NEG_Z, 0.0, depth as f32).ok()?;
        self.scene.closest(&ray).map(|hit| top - f64::from(hit.t))
    }
}
