//! The walk over a world's objects in build order: static elements, walls and fixed blocks
//! (into the static batch), placed mesh files, moving planes, movable blocks, vehicles, actors,
//! and the ground-only surfaces. The order fixes instance and object ids; keep it.

use super::{Builder, PLACEHOLDER_COLOUR, block_class};
use crate::shapes::{circle, prism, sphere, terrain, wall_box};
use crate::sky::SkyBox;
use glam::{Affine3A, Vec2, Vec3};
use passerby_world::*;

impl Builder<'_> {
    /// Elements that do not move, into the static batch; the world's sky box.
    pub(super) fn static_elements(&mut self, world: &World) -> Option<SkyBox> {
        let mut sky = None;
        // Elements, walls and static blocks never move: they are merged into one mesh, so a ray
        // pays one instance entry for all of them (large planes would otherwise be entered by
        // every ray).
        for (i, e) in world.elements.iter().enumerate() {
            let name = format!("element{}", i + 1);
            let label = |default: &str| e.label.clone().unwrap_or_else(|| default.to_owned());
            match &e.element {
                // A plane that moves (an elevator) stands alone, after the static batch.
                WorldElement::HorizontalPlane(p) if p.moves() => {}
                WorldElement::HorizontalPlane(p) => {
                    let (mesh, surface) = self.plane(p);
                    self.add_with_surface(
                        mesh,
                        surface,
                        Affine3A::IDENTITY,
                        &name,
                        &label("ground"),
                    );
                }
                WorldElement::VerticalPlane(p) => {
                    let (a, c) = (
                        Vec3::new(p.start[0] as f32, p.start[1] as f32, 0.0),
                        Vec3::new(p.end[0] as f32, p.end[1] as f32, 0.0),
                    );
                    let placement = p
                        .init_pose
                        .as_ref()
                        .map_or(Affine3A::IDENTITY, Pose3::to_affine);
                    let along = (c - a).normalize_or_zero();
                    // One box per solid part once doors and windows are cut out; textures run
                    // along the wall from its start and down from its top, one tile per
                    // `texture_size` metres, across the parts.
                    let top = (p.z + p.height) as f32;
                    let [tx, ty] = p.texture_size.map(|s| s as f32);
                    for part in p.solid_parts() {
                        let [s0, s1] = part.along.map(|s| s as f32);
                        let mesh = wall_box(
                            a + along * s0,
                            a + along * s1,
                            (p.z + part.heights[0]) as f32,
                            (part.heights[1] - part.heights[0]) as f32,
                            p.thickness as f32,
                        );
                        let surface = self.textured(&mesh, p.color, &p.texture, |v| {
                            Vec2::new((v - a).dot(along) / tx, (top - v.z) / ty)
                        });
                        self.add_with_surface(mesh, surface, placement, &name, &label("wall"));
                    }
                }
                WorldElement::ElevationMap(m) => match &m.grid {
                    Some(g) => {
                        let mesh = terrain(g);
                        let surface = self.terrain_look(m, g, &mesh);
                        self.add_with_surface(
                            mesh,
                            surface,
                            Affine3A::IDENTITY,
                            &name,
                            &label("ground"),
                        );
                    }
                    None => {
                        self.warn("elevation maps from DEM text files are not built yet".into())
                    }
                },
                WorldElement::OccupancyGrid(g) => self.occupancy_grid(g, &name, &label("wall")),
                WorldElement::PointCloud(_) => {
                    self.warn("point cloud elements are not in the 3D scene yet".into())
                }
                WorldElement::Skybox(s) => {
                    if sky.is_some() {
                        self.warn("more than one `skybox`: the first is used".into());
                    } else {
                        sky = self.sky_box(&s.textures);
                    }
                }
                _ => {}
            }
        }
        sky
    }

    /// `<walls>` segments, into the static batch; a model's are its line segments (MVSim's
    /// walls from a model file). Returns, per `<walls>` read from a model (its index), the
    /// segments read, for the description ([`passerby_world::WallSource::Segments`]).
    pub(super) fn walls(&mut self, world: &World) -> Vec<(usize, Vec<[[f64; 3]; 2]>)> {
        let mut read = Vec::new();
        for (i, walls) in world.walls.iter().enumerate() {
            let name = format!("walls{}", i + 1);
            let mut walls = walls.clone();
            if let WallSource::Model(uri) = &walls.source {
                let (result, _) = self.library.get(uri, &self.base);
                let segments: Vec<[[f64; 3]; 2]> = match result {
                    Ok(model) => (passerby_assets::rest_lines(&model).iter())
                        .map(|s| s.map(|p| p.as_dvec3().to_array()))
                        .collect(),
                    Err(e) => {
                        self.warn(format!("walls model `{uri}` not available ({e}): no walls"));
                        continue;
                    }
                };
                if segments.is_empty() {
                    self.warn(format!(
                        "walls model `{uri}` has no line segments (Collada `<lines>`): no walls"
                    ));
                }
                walls.source = WallSource::Segments(segments.clone());
                read.push((i, segments));
            }
            for [a, c] in walls.floor_segments() {
                let a = Vec3::new(a[0] as f32, a[1] as f32, 0.0);
                let c = Vec3::new(c[0] as f32, c[1] as f32, 0.0);
                self.add(
                    wall_box(a, c, 0.0, walls.height as f32, walls.thickness as f32),
                    walls.color,
                    Affine3A::IDENTITY,
                    &name,
                    "wall",
                );
            }
        }
        read
    }

    /// Blocks that never move, into the static batch.
    pub(super) fn fixed_blocks(&mut self, world: &World) {
        for block in world.blocks.iter().filter(|b| b.is_fixed()) {
            let class = block_class(block);
            self.block_shape(block, block.common.init_pose.to_affine(), &class);
        }
    }

    /// Placed mesh files (MAVS objects), each file one shared mesh.
    pub(super) fn placed_meshes(&mut self, meshes: &[MeshInstance]) {
        // Placed mesh files (MAVS objects) stay instances of one shared mesh each, as MAVS
        // instances them: thousands of trees cost one tree's triangles.
        for m in meshes {
            self.placed_mesh(m);
        }
    }

    /// Horizontal planes that move (elevators), each its own body.
    pub(super) fn moving_planes(&mut self, world: &World) {
        // Planes that move stand alone, placed by the simulation's floors (`elementN`).
        for (i, e) in world.elements.iter().enumerate() {
            if let WorldElement::HorizontalPlane(p) = &e.element
                && p.moves()
            {
                let name = format!("element{}", i + 1);
                let class = e.label.clone().unwrap_or_else(|| "ground".to_owned());
                let world_from_floor = p.init_pose.unwrap_or_default().to_affine();
                let first = self.scene.instance_count() as u32;
                let (mesh, surface) = self.plane(p);
                self.add_with_surface(mesh, surface, world_from_floor, &name, &class);
                self.bind(&name, false, first, world_from_floor);
            }
        }
    }

    /// Blocks that may move, with their model nodes as parts.
    pub(super) fn movable_blocks(&mut self, world: &World) {
        for block in world.blocks.iter().filter(|b| !b.is_fixed()) {
            let class = block_class(block);
            let world_from_block = block.common.init_pose.to_affine();
            let first = self.scene.instance_count() as u32;
            let parts = self.movable_block_shape(block, world_from_block, &class);
            self.bind(&block.name, false, first, world_from_block);
            if let Some(body) = self.bodies.last_mut() {
                // The parts' instances follow their parts, not the body.
                let of_parts = |i: u32| {
                    parts
                        .iter()
                        .any(|p| p.instances.iter().any(|&(j, _)| j == i))
                };
                body.instances.retain(|&(i, _)| !of_parts(i));
                body.parts = parts;
            }
        }
    }

    /// Vehicles: their visuals or chassis, and their wheels as parts.
    pub(super) fn vehicles(&mut self, world: &World) {
        for v in &world.vehicles {
            let class = v.common.label.clone().unwrap_or_else(|| "vehicle".into());
            let world_from_vehicle = v.common.init_pose.to_affine();
            let first = self.scene.instance_count() as u32;
            if !self.visuals(&v.visuals, world_from_vehicle, None, &v.name, &class) {
                let c = &v.dynamics.chassis;
                let pts: Vec<[f32; 2]> = match &c.shape {
                    Some(pts) => pts.iter().map(|p| [p[0] as f32, p[1] as f32]).collect(),
                    None => vec![[-0.3, -0.3], [0.3, -0.3], [0.3, 0.3], [-0.3, 0.3]],
                };
                self.add(
                    prism(&pts, c.zmin as f32, c.zmax as f32),
                    c.color,
                    world_from_vehicle,
                    &v.name,
                    &class,
                );
            }
            self.bind(&v.name, false, first, world_from_vehicle);
            let wheels = self.wheels(v, world_from_vehicle, &class);
            if let Some(body) = self.bodies.last_mut() {
                body.parts = wheels;
            }
        }
    }

    /// Actors: keyframe meshes, a skinned model, a rigid model or MVSim's placeholder.
    pub(super) fn actors(&mut self, world: &World) {
        for (index, a) in world.actors.iter().enumerate() {
            let class = a
                .common
                .label
                .clone()
                .unwrap_or_else(|| "pedestrian".into());
            let world_from_actor = a.common.init_pose.to_affine();
            let first = self.scene.instance_count() as u32;
            let keyframed = a
                .keyframe_meshes
                .as_ref()
                .and_then(|k| self.keyframed_actor(index, k, world_from_actor, &a.name, &class));
            let skinned_visual = keyframed.or_else(|| {
                a.visuals
                    .iter()
                    .filter(|v| v.enabled && !v.model_uri.is_empty())
                    .find_map(|v| self.skinned_actor(index, v, world_from_actor, &a.name, &class))
            });
            if skinned_visual.is_none()
                && !self.visuals(&a.visuals, world_from_actor, None, &a.name, &class)
            {
                // MVSim's placeholder: a cylinder of collision_radius up to collision_height and a
                // head sphere of 0.8 radius at the top.
                let (r, h) = (a.collision_radius as f32, a.collision_height as f32);
                self.add(
                    prism(&circle(r, 16), 0.0, h),
                    PLACEHOLDER_COLOUR,
                    world_from_actor,
                    &a.name,
                    &class,
                );
                self.add(
                    sphere(0.8 * r, 16),
                    PLACEHOLDER_COLOUR,
                    world_from_actor * Affine3A::from_translation(Vec3::new(0.0, 0.0, h)),
                    &a.name,
                    &class,
                );
            }
            self.bind(&a.name, true, first, world_from_actor);
        }
    }
}
