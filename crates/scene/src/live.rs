//! The scene following the simulation: every movable instance placed at its object's pose (and
//! scale), every skinned actor re-posed from its clips, its parts' transforms applied, skinned
//! into its own mesh and refitted, then the top level rebuilt. Sensors then see exactly the
//! bodies of that instant; no actor is culled or simplified for being out of view.
//!
//! A second copy of what moves (its own actor meshes and posing state; static meshes are shared)
//! can be posed for the next step while sensors read this one ([`LiveScene::overlap`]), and
//! becomes the scene at [`LiveScene::catch_up`]. An actor's body out of every sensor's reach may
//! then be staler in one copy than in the other: no ray can meet it, and its skeleton (which is
//! recorded) is taken from whichever copy posed it last.

use crate::{Body, BuiltScene, KeyframedBody, SkinnedBody, find_part, place_parts};
use glam::{Affine3A, Mat4, Quat, Vec3};
use passerby_assets::{Model, Pose, Poser, Trs, Wrap};
use passerby_raycast::Scene;
use passerby_sim::gait::AnimationState;
use passerby_sim::{External, Simulation};
use passerby_world::{Transform, World};
use rayon::prelude::*;
use std::collections::HashMap;

/// Why the scene cannot follow a simulation.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LiveError {
    /// An actor names a clip its model does not have (a warning: the first clip plays).
    #[error(
        "actor `{actor}`: clip `{clip}` (from <{tag}>) is not in {model}; its clips: {available}"
    )]
    NoSuchClip {
        /// The actor.
        actor: String,
        /// The tag that named it.
        tag: &'static str,
        /// The missing clip.
        clip: String,
        /// The model file.
        model: String,
        /// The clips the model has.
        available: String,
    },
    /// A transform was set on a part the model does not have.
    #[error("`{object}`: no part `{part}` in its model (parts are bones or named nodes: {some}…)")]
    NoSuchPart {
        /// The object.
        object: String,
        /// The part asked for.
        part: String,
        /// Some of the part names there are.
        some: String,
    },
    /// An object of the simulation has no counterpart in the scene (a different world).
    #[error("the simulation has no object `{0}` of the scene")]
    Mismatch(String),
}

/// A skinned actor's animation resources.
#[derive(Clone)]
struct Animated {
    body: SkinnedBody,
    /// Clip name → index, for the clips the actor uses.
    clips: HashMap<String, usize>,
    /// Node name → index, for part transforms.
    nodes: HashMap<String, usize>,
    pose: Pose,
    fading: Pose,
    poser: Poser,
    vertices: Vec<Vec3>,
    to_assimp: Mat4,
    /// Metres its body may extend from its feet (see [`body_reach`]).
    reach: f32,
    /// Re-posed (skeleton) in the current update.
    posed: bool,
    /// The simulation step it was last posed at (`None`: at rest since the start). Its
    /// skeleton is the one of that step while no sensor can see it.
    posed_at: Option<u64>,
    /// Re-skinned in the current update.
    fresh: bool,
}

/// Metres a body may extend from its feet at least (tall people, raised arms).
const BODY_REACH: f32 = 2.5;

/// Metres a skinned body may extend from its feet (its object's origin) in any pose: half as
/// far again as its rest pose reaches (limbs swing within that), and never less than
/// [`BODY_REACH`]. `rest`: its mesh's vertices at rest.
fn body_reach(rest: &[glam::Vec3A], object_from_mesh: &Affine3A) -> f32 {
    let at_rest = rest.iter().fold(0.0f32, |m, v| {
        m.max(object_from_mesh.transform_point3a(*v).length())
    });
    BODY_REACH.max(1.5 * at_rest)
}

/// Where one sensor may look in the coming step: how far from where, and which of its rays it
/// casts then. Actors beyond every sensor's reach keep their last articulation; those within
/// reach but away from every ray cast this step are posed (their skeletons stay current) but
/// not re-skinned, which is most of an update's cost when a rotating lidar sweeps a few
/// degrees a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// The sensor's position, world frame.
    pub centre: [f32; 3],
    /// Its range, metres.
    pub radius: f32,
    /// The rays it casts this step.
    pub rays: RaysCast,
}

/// Which of a sensor's rays are cast in a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RaysCast {
    /// None (a camera between frames).
    None,
    /// Any.
    All,
    /// Only rays in the half-planes bounded by the sensor's z axis at azimuths within
    /// `half_width` of `mid` (radians, from the sensor's x axis towards its y axis): the
    /// columns of a rotating lidar.
    Arc {
        /// The sensor's x axis, world frame.
        x_axis: [f32; 3],
        /// The sensor's y axis, world frame.
        y_axis: [f32; 3],
        /// Azimuth of the arc's middle.
        mid: f32,
        /// Half the arc's width.
        half_width: f32,
    },
}

impl Reach {
    /// A sensor at `centre` reaching `radius` metres that casts rays anywhere.
    pub fn all(centre: [f32; 3], radius: f32) -> Reach {
        Reach {
            centre,
            radius,
            rays: RaysCast::All,
        }
    }

    /// Whether a body within `body` metres of its feet at `feet` is within reach, and whether
    /// a ray cast this step may touch it (an arc counts as every ray unless `arcs`).
    fn sees(&self, feet: [f32; 3], body: f32, arcs: bool) -> (bool, bool) {
        let d = std::array::from_fn::<f32, 3, _>(|k| feet[k] - self.centre[k]);
        let dot = |a: [f32; 3]| d[0] * a[0] + d[1] * a[1] + d[2] * a[2];
        if dot(d).sqrt() > self.radius + BODY_REACH.max(body) {
            return (false, false);
        }
        let touched = match self.rays {
            RaysCast::None => false,
            RaysCast::All => true,
            RaysCast::Arc { .. } if !arcs => true,
            RaysCast::Arc {
                x_axis,
                y_axis,
                mid,
                half_width,
            } => {
                // The body lies within a ball of `body` about its feet; a ray lies in the
                // half-plane of its azimuth, which meets that ball only within the angle the
                // ball's shadow on the sensor's xy plane spans (a small margin covers
                // rounding).
                let (x, y) = (dot(x_axis), dot(y_axis));
                let across = x.hypot(y);
                across <= body || {
                    let off = (y.atan2(x) - mid + std::f32::consts::PI)
                        .rem_euclid(std::f32::consts::TAU)
                        - std::f32::consts::PI;
                    off.abs() <= half_width + (body / across).asin() + 1e-3
                }
            }
        };
        (true, touched)
    }
}

/// An actor's skeleton in the world: joint positions and the bones joining them.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// Index of the actor in the world.
    pub actor: usize,
    /// World positions of the joints, metres.
    pub joints: Vec<[f64; 3]>,
    /// Bones as pairs of joint indices (parent, child).
    pub bones: Vec<(usize, usize)>,
}

/// A keyframe-mesh actor's blend buffer.
#[derive(Clone)]
struct Blended {
    body: KeyframedBody,
    vertices: Vec<Vec3>,
    /// Re-blended in the current update.
    fresh: bool,
}

impl Blended {
    /// Blends the two frames around simulated time `t` (the sequence loops from time 0).
    fn blend(&mut self, t: f64) {
        let frames = &self.body.frames;
        let u = (t * self.body.frame_rate).max(0.0);
        let k = u.floor();
        let weight = (u - k) as f32;
        let current = (k as usize) % frames.len();
        let next = (current + 1) % frames.len();
        self.vertices.clear();
        self.vertices.extend(
            frames[current]
                .iter()
                .zip(&frames[next])
                .map(|(a, b)| a.lerp(*b, weight)),
        );
    }
}

/// A built scene kept in step with a simulation.
pub struct LiveScene {
    /// The scene and what each instance is.
    pub built: BuiltScene,
    /// How its actors stand in it.
    posing: Posing,
    /// A second copy of what moves, posed for the next step while sensors read this one (see
    /// [`LiveScene::overlap`]); made on first use.
    ahead: Option<Ahead>,
    /// What could not be followed as asked and what was done instead (a clip the model lacks).
    pub warnings: Vec<String>,
}

/// The posing state of the actors of one copy of the scene.
#[derive(Clone)]
struct Posing {
    animated: Vec<Animated>,
    blended: Vec<Blended>,
}

/// The scene (its moving meshes its own, the rest shared) and posing state of the next step.
struct Ahead {
    scene: Scene,
    posing: Posing,
    /// The step it was posed for, with the reach it was posed for; `None` while it is not
    /// ready (or was used).
    posed_for: Option<(u64, Vec<Reach>)>,
}

impl LiveScene {
    /// Takes a scene built from `world`. A clip name an actor's model lacks plays the model's
    /// first clip instead, with a warning in [`LiveScene::warnings`].
    pub fn new(built: BuiltScene, world: &World) -> Result<LiveScene, LiveError> {
        let mut animated = Vec::new();
        let mut warnings = Vec::new();
        for body in &built.skinned {
            let model = &body.model;
            let Some(actor) = world.actors.get(body.actor) else {
                continue;
            };
            let mut clips = HashMap::new();
            if !model.clips.is_empty() {
                let available: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
                for (_, name) in actor.named_clips() {
                    if let Some(i) = available.iter().position(|c| *c == name) {
                        clips.insert(name.to_owned(), i);
                    }
                }
                // MVSim keeps running with a clip name its model lacks; so do we, playing the
                // model's first clip in its place, and say so once.
                for (tag, name) in actor.missing_clips(&available) {
                    clips.insert(name.to_owned(), 0);
                    warnings.push(
                        LiveError::NoSuchClip {
                            actor: actor.name.clone(),
                            tag,
                            clip: name.to_owned(),
                            model: model.source.display().to_string(),
                            available: available
                                .iter()
                                .map(|c| format!("'{c}'"))
                                .collect::<Vec<_>>()
                                .join(", "),
                        }
                        .to_string()
                            + &format!("; playing '{}' instead", available[0]),
                    );
                }
            }
            let nodes = model
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| !n.name.is_empty())
                .map(|(i, n)| (n.name.clone(), i))
                .collect();
            let reach = body_reach(
                built.scene.mesh(body.mesh).vertices(),
                &body.object_from_mesh,
            );
            // Posed at rest until a sensor can see it, so its skeleton is there from the start.
            let mut poser = Poser::new();
            poser.update(model, &Pose::rest(model));
            animated.push(Animated {
                body: body.clone(),
                clips,
                nodes,
                pose: Pose::rest(model),
                fading: Pose::rest(model),
                poser,
                vertices: Vec::with_capacity(model.vertex_count()),
                to_assimp: model.frame.assimp_from_file,
                reach,
                posed: false,
                posed_at: None,
                fresh: false,
            });
        }
        let blended = built
            .keyframed
            .iter()
            .map(|body| Blended {
                body: body.clone(),
                vertices: Vec::new(),
                fresh: false,
            })
            .collect();
        Ok(LiveScene {
            built,
            posing: Posing { animated, blended },
            ahead: None,
            warnings,
        })
    }

    /// The skeletons of the skinned actors as last posed (the first skin of each model), for
    /// ground-truth markers.
    pub fn skeletons(&self) -> Vec<Skeleton> {
        (self.posing.animated.iter())
            .filter_map(|a| {
                let model = &a.body.model;
                let skin = model.skins.first()?;
                let world_from_mesh = self.built.scene.instance(a.body.instance).world_from_mesh();
                let joints = a
                    .poser
                    .joint_positions(model, 0)
                    .iter()
                    .map(|p| {
                        let q = world_from_mesh.transform_point3(a.to_assimp.transform_point3(*p));
                        [f64::from(q.x), f64::from(q.y), f64::from(q.z)]
                    })
                    .collect();
                let bones = skin
                    .joints
                    .iter()
                    .enumerate()
                    .filter_map(|(child, &node)| {
                        let parent = model.nodes.get(node)?.parent?;
                        let p = skin.joints.iter().position(|&j| j == parent)?;
                        Some((p, child))
                    })
                    .collect();
                Some(Skeleton {
                    actor: a.body.actor,
                    joints,
                    bones,
                })
            })
            .collect()
    }

    /// Places every movable instance and re-poses every skinned actor as the simulation stands
    /// now, then commits the scene.
    pub fn update(&mut self, sim: &Simulation) -> Result<(), LiveError> {
        self.update_within(sim, None)
    }

    /// As [`LiveScene::update`], but poses only the actors within some sensor's reach and
    /// re-skins only those that a ray cast this step may touch (see [`Reach`]): the others keep
    /// their last body (their instances still follow their poses) until a sensor can see them,
    /// so every ray that can meet an actor meets it as posed for this step. `None` re-skins
    /// every actor.
    pub fn update_within(
        &mut self,
        sim: &Simulation,
        reach: Option<&[Reach]>,
    ) -> Result<(), LiveError> {
        let built = &mut self.built;
        pose_scene(
            &mut built.scene,
            &mut self.posing,
            &built.bodies,
            sim,
            reach,
        )
    }

    /// Runs `sensors` on the scene as it stands (step `now` of a simulation) while a second copy
    /// of it is posed for the next step, as [`LiveScene::update_within`] would pose it: `ahead`
    /// (a second simulation of the same world and seed, in step with the first up to `now`)
    /// makes that step and `reach` says what the sensors will cast in it. Sensors and posing
    /// share the threads; what each produces does not depend on their number. The copy becomes
    /// the scene at [`LiveScene::catch_up`].
    pub fn overlap<R: Send>(
        &mut self,
        sensors: impl FnOnce(&BuiltScene) -> R + Send,
        ahead: &mut Simulation,
        now: u64,
        reach: impl FnOnce(&Simulation) -> Vec<Reach> + Send,
    ) -> (R, Result<(), LiveError>) {
        let copy = self.ahead.get_or_insert_with(|| Ahead {
            scene: self.built.scene.clone(),
            posing: self.posing.clone(),
            posed_for: None,
        });
        let built = &self.built;
        rayon::join(
            || sensors(built),
            || {
                copy.posed_for = None;
                while ahead.steps() <= now {
                    ahead.step();
                }
                let reach = reach(ahead);
                pose_scene(
                    &mut copy.scene,
                    &mut copy.posing,
                    &built.bodies,
                    ahead,
                    Some(&reach),
                )?;
                copy.posed_for = Some((ahead.steps(), reach));
                Ok(())
            },
        )
    }

    /// Makes the copy posed by [`LiveScene::overlap`] the scene if it was posed for step
    /// `step` with `reach`, from a simulation that made the very step the one this scene
    /// follows has just made (the caller's to vouch for): then the scene is what
    /// [`LiveScene::update_within`] would have made of it for every ray the sensors cast.
    /// Whether it did.
    pub fn catch_up(&mut self, step: u64, reach: &[Reach]) -> bool {
        let Some(copy) = &mut self.ahead else {
            return false;
        };
        match copy.posed_for.take() {
            Some((posed_step, posed_reach)) if posed_step == step && posed_reach == reach => {}
            _ => return false,
        }
        std::mem::swap(&mut self.built.scene, &mut copy.scene);
        std::mem::swap(&mut self.posing, &mut copy.posing);
        // An actor no sensor could see keeps the skeleton it was last posed with, which the
        // other copy may hold (it was posed a step later than this one).
        for (now, other) in (self.posing.animated.iter_mut()).zip(&copy.posing.animated) {
            if other.posed_at > now.posed_at {
                now.pose.clone_from(&other.pose);
                now.poser.clone_from(&other.poser);
                now.posed_at = other.posed_at;
            }
        }
        true
    }

    /// Forgets the copy posed ahead (its simulation no longer stands for the run's).
    pub fn discard_ahead(&mut self) {
        if let Some(copy) = &mut self.ahead {
            copy.posed_for = None;
        }
    }
}

/// Places every movable instance of `scene` as `sim` stands and poses its actors (see
/// [`LiveScene::update_within`]), then commits it.
fn pose_scene(
    scene: &mut Scene,
    posing: &mut Posing,
    bodies: &[Body],
    sim: &Simulation,
    reach: Option<&[Reach]>,
) -> Result<(), LiveError> {
    for body in bodies {
        let pose = sim
            .pose(&body.object)
            .ok_or_else(|| LiveError::Mismatch(body.object.clone()))?;
        let scale = sim
            .external(&body.object)
            .map_or(Vec3::ONE, |e| vec3(e.scale));
        let world_from_object = pose.to_affine() * Affine3A::from_scale(scale);
        for &(instance, object_from_mesh) in &body.instances {
            scene.set_transform(instance, world_from_object * object_from_mesh);
        }
        let set = sim.external(&body.object).map(|e| &e.parts);
        if body.parts.is_empty() && set.as_ref().map_or(true, |s| s.is_empty()) {
            continue; // Most bodies: nothing moves on them.
        }
        let skinned = |a: &Animated| body.instances.iter().any(|&(i, _)| i == a.body.instance);
        if body.is_actor && posing.animated.iter().any(skinned) {
            continue; // Skinned actors' parts are bones, posed below.
        }
        let mut locals: Vec<Affine3A> = body.parts.iter().map(|p| p.rest).collect();
        for (part, t) in set.into_iter().flatten() {
            let names = body.parts.iter().map(|p| p.name.as_str());
            let Some(i) = find_part(names, part) else {
                let names: Vec<&str> = body.parts.iter().map(|p| p.name.as_str()).collect();
                return Err(LiveError::NoSuchPart {
                    object: body.object.clone(),
                    part: part.clone(),
                    some: names.join(", "),
                });
            };
            let t = trs(t);
            locals[i] =
                Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
        }
        let object_from_parts = place_parts(&body.parts, &locals);
        for (part, object_from_part) in body.parts.iter().zip(object_from_parts) {
            for &(instance, part_from_mesh) in &part.instances {
                scene.set_transform(
                    instance,
                    world_from_object * object_from_part * part_from_mesh,
                );
            }
        }
    }
    // Pose and skin every actor in parallel (each into its own buffer), then refit their
    // meshes in parallel; neither depends on the thread count.
    let actors = sim.actors();
    let step = sim.steps();
    // Whether an actor may be seen (its feet within a sensor's range plus its body's
    // size), and whether a ray cast now may touch it.
    let seen = |p: &passerby_world::Pose3, body: f32, arcs: bool| {
        let feet = [p.x as f32, p.y as f32, p.z as f32];
        reach.map_or((true, true), |reaches| {
            reaches.iter().fold((false, false), |(seen, touched), r| {
                let (s, t) = r.sees(feet, body, arcs);
                (seen || s, touched || t)
            })
        })
    };
    for a in &mut posing.animated {
        (a.posed, a.fresh) = actors.get(a.body.actor).map_or((false, false), |actor| {
            // Parts moved from outside may go anywhere: no arc spares such a body.
            let scale = actor
                .external
                .scale
                .iter()
                .fold(1.0f64, |m, &s| m.max(s.abs()));
            let arcs = actor.external.parts.is_empty() && scale.is_finite();
            seen(&actor.pose, a.reach * scale as f32, arcs)
        });
    }
    posing
        .animated
        .par_iter_mut()
        .filter(|a| a.posed)
        .map(|a| -> Result<(), LiveError> {
            let Some(actor) = actors.get(a.body.actor) else {
                return Err(LiveError::Mismatch(format!("actor #{}", a.body.actor)));
            };
            let model = a.body.model.clone();
            sample(
                &model,
                &a.clips,
                actor.animation(),
                &mut a.pose,
                &mut a.fading,
            );
            apply_parts(&model, &a.nodes, &actor.name, &actor.external, &mut a.pose)?;
            a.poser.update(&model, &a.pose);
            a.posed_at = Some(step);
            if !a.fresh {
                return Ok(());
            }
            a.vertices.clear();
            for mesh in &model.meshes {
                let start = a.vertices.len();
                a.vertices.resize(start + mesh.positions.len(), Vec3::ZERO);
                a.poser
                    .pose_mesh(&model, mesh, &mut a.vertices[start..], None);
            }
            for v in &mut a.vertices {
                *v = a.to_assimp.transform_point3(*v);
            }
            Ok(())
        })
        .collect::<Result<Vec<()>, LiveError>>()?;
    let now = sim.time();
    for b in &mut posing.blended {
        b.fresh = actors
            .get(b.body.actor)
            // Keyframe meshes may be of any size: no arc spares them.
            .is_some_and(|actor| seen(&actor.pose, BODY_REACH, false).1);
    }
    posing
        .blended
        .par_iter_mut()
        .filter(|b| b.fresh)
        .for_each(|b| b.blend(now));
    let mut posed: Vec<Option<&[Vec3]>> = vec![None; scene.mesh_count()];
    for a in posing.animated.iter().filter(|a| a.fresh) {
        if let Some(slot) = posed.get_mut(a.body.mesh.0 as usize) {
            *slot = Some(&a.vertices);
        }
    }
    for b in posing.blended.iter().filter(|b| b.fresh) {
        if let Some(slot) = posed.get_mut(b.body.mesh.0 as usize) {
            *slot = Some(&b.vertices);
        }
    }
    scene.update_meshes(&posed);
    scene.commit();
    Ok(())
}
fn vec3(v: [f64; 3]) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

/// The pose of the current clip, blended from the fading one while a cross-fade runs.
fn sample(
    model: &Model,
    clips: &HashMap<String, usize>,
    state: &AnimationState,
    pose: &mut Pose,
    fading: &mut Pose,
) {
    let clip = |name: &str| clips.get(name).and_then(|&i| model.clips.get(i));
    match clip(&state.current.clip) {
        Some(c) => pose.sample(model, c, state.current.time as f32, Wrap::Loop),
        None => *pose = Pose::rest(model),
    }
    if let Some((old, weight)) = &state.fading
        && let Some(c) = clip(&old.clip)
    {
        fading.sample(model, c, old.time as f32, Wrap::Loop);
        fading.blend_towards(pose, *weight as f32);
        std::mem::swap(pose, fading);
    }
}

/// Overrides the local transforms of the parts an external source set.
fn apply_parts(
    model: &Model,
    nodes: &HashMap<String, usize>,
    object: &str,
    external: &External,
    pose: &mut Pose,
) -> Result<(), LiveError> {
    for (part, t) in &external.parts {
        let found = nodes.get(part).copied().or_else(|| {
            // `#K`: the K-th named node in the model's order.
            let named = model
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| !n.name.is_empty());
            let names = named.clone().map(|(_, n)| n.name.as_str());
            find_part(names, part).and_then(|k| named.clone().nth(k).map(|(i, _)| i))
        });
        let Some(node) = found else {
            let mut names: Vec<&str> = model.nodes.iter().map(|n| n.name.as_str()).collect();
            names.retain(|n| !n.is_empty());
            names.truncate(12);
            return Err(LiveError::NoSuchPart {
                object: object.to_owned(),
                part: part.clone(),
                some: names.join(", "),
            });
        };
        if let Some(local) = pose.locals.get_mut(node) {
            *local = trs(t);
        }
    }
    Ok(())
}

fn trs(t: &Transform) -> Trs {
    let [yaw, pitch, roll] = t.yaw_pitch_roll.map(|a| a as f32);
    Trs {
        translation: vec3(t.translation),
        rotation: Quat::from_rotation_z(yaw)
            * Quat::from_rotation_y(pitch)
            * Quat::from_rotation_x(roll),
        scale: vec3(t.scale),
    }
}
