//! The scene following the simulation: a skinned Walker on a path is hit where the simulation
//! put it, with the very vertices its clip gives at that time; bodies move; bad clip and part
//! names give errors that list what exists.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::{Vec3, Vec3A};
use passerby_assets::{ModelLibrary, Pose, Poser, Resolver, Wrap};
use passerby_raycast::Ray;
use passerby_scene::{LiveScene, RaysCast, Reach, build_scene, rest_vertices};
use passerby_sim::Simulation;
use passerby_world::*;
use std::path::{Path, PathBuf};

fn walker_glb() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets/characters/Walker.glb")
}

fn world_with_walker() -> World {
    let visual = Visual {
        model_uri: walker_glb().display().to_string(),
        // glTF is +Y up: stand the model up in the Z-up world, as MVSim worlds do.
        model_roll: 90f64.to_radians(),
        ..Visual::default()
    };
    let waypoint = |x: f64| Waypoint {
        pose: Pose3 {
            x,
            ..Pose3::default()
        },
        is_3d: false,
        pause: 0.0,
        animation: WaypointAnimation::Walk,
    };
    World {
        actors: vec![Actor {
            name: "walker".into(),
            animation_idle: "Idle".into(),
            animation_walk: "Walk".into(),
            animation_run: "Run".into(),
            visuals: vec![visual],
            path: Some(ActorPath {
                looped: false,
                waypoints: vec![waypoint(20.0)],
            }),
            turning_rate: None,
            ..Actor::default()
        }],
        blocks: vec![Block {
            name: "crate".into(),
            common: SimulableCommon {
                init_pose: Pose3 {
                    x: -5.0,
                    ..Pose3::default()
                },
                ..SimulableCommon::default()
            },
            ..Block::default()
        }],
        ..World::default()
    }
}

fn library() -> ModelLibrary {
    ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ))
}

fn down_at(x: f32, y: f32) -> Ray {
    Ray::new(Vec3A::new(x, y, 10.0), Vec3A::NEG_Z, 0.0, 100.0).unwrap()
}

#[test]
fn a_walking_skinned_actor_is_seen_where_and_as_the_simulation_has_it() {
    let world = world_with_walker();
    let mut library = library();
    let built = build_scene(&world, &mut library);
    assert_eq!(built.skinned.len(), 1, "{:?}", built.warnings);
    let model = built.skinned[0].model.clone();
    let mut live = LiveScene::new(built, &world).unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    sim.run_until(2.0);
    live.update(&sim).unwrap();
    let actor = &sim.actors()[0];
    let x = actor.pose.x as f32;
    assert!((x - 2.8).abs() < 0.02, "walked 2 s at 1.4 m/s: {x}");
    // A ray straight down onto the actor's head hits it near its height; one where it stood
    // at the start hits nothing.
    let hit = live
        .built
        .scene
        .closest(&down_at(x, 0.0))
        .expect("the actor is hit");
    assert_eq!(
        &*live.built.objects[hit.instance as usize].name.to_str(),
        "walker"
    );
    let top = 10.0 - hit.t;
    assert!(top > 1.5 && top < 1.9, "top of the head at {top} m");
    assert!(live.built.scene.closest(&down_at(0.0, 0.0)).is_none());
    // The mesh holds the Walk clip's vertices at the actor's clip time, in assimp's frame.
    let state = actor.animation();
    assert_eq!(state.current.clip, "Walk");
    let mut pose = Pose::rest(&model);
    let walk = model.clip("Walk").unwrap();
    pose.sample(&model, walk, state.current.time as f32, Wrap::Loop);
    let expected: Vec<Vec3> = Poser::new()
        .posed_vertices(&model, &pose)
        .iter()
        .map(|p| model.frame.assimp_from_file.transform_point3(*p))
        .collect();
    let rest = rest_vertices(&model);
    assert_ne!(expected, rest, "the clip moves the body");
    let mesh = live.built.scene.mesh(live.built.skinned[0].mesh);
    assert_eq!(mesh.triangle_count(), model.triangle_count());
    let got: Vec<Vec3> = mesh.vertices().iter().map(|v| Vec3::from(*v)).collect();
    assert_eq!(got, expected);
    mesh.validate().unwrap();
    // The block moves with the simulation too.
    sim.set_pose(
        "crate",
        Pose3 {
            x: -5.0,
            y: 7.0,
            ..Pose3::default()
        },
    )
    .unwrap();
    sim.step();
    live.update(&sim).unwrap();
    let hit = live
        .built
        .scene
        .closest(&down_at(-5.0, 7.0))
        .expect("the crate");
    assert_eq!(
        &*live.built.objects[hit.instance as usize].name.to_str(),
        "crate"
    );
    assert!(live.built.scene.closest(&down_at(-5.0, 0.0)).is_none());
}

#[test]
fn a_clip_the_model_lacks_plays_its_first_clip_with_a_warning() {
    // It aborted `run` before (MVSim keeps running).
    let vertices_after_walking = |walk: &str| {
        let mut world = world_with_walker();
        world.actors[0].animation_walk = walk.into();
        let built = build_scene(&world, &mut library());
        let mut live = LiveScene::new(built, &world).unwrap();
        let mut sim = Simulation::new(&world).unwrap();
        for _ in 0..40 {
            sim.step();
            live.update(&sim).unwrap();
        }
        let body = &live.built.skinned[0];
        let first = body.model.clips[0].name.clone();
        let vertices = live.built.scene.mesh(body.mesh).vertices().to_vec();
        (vertices, first, live.warnings)
    };
    let (stroll, first, warnings) = vertices_after_walking("Stroll");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let text = &warnings[0];
    assert!(
        text.contains("`Stroll`")
            && text.contains("'Walk'")
            && text.contains("animation_walk")
            && text.contains(&format!("playing '{first}' instead")),
        "{text}"
    );
    // It is posed, not left at rest, and not by the walk clip. (Equality with a world naming
    // the first clip cannot be asked: a clip named twice cross-fades into itself there.)
    let (walk, _, warnings) = vertices_after_walking("Walk");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(stroll != walk, "another clip than Walk plays");
    let world = world_with_walker();
    let rest = LiveScene::new(build_scene(&world, &mut library()), &world).unwrap();
    let body = &rest.built.skinned[0];
    assert!(
        stroll != rest.built.scene.mesh(body.mesh).vertices(),
        "posed"
    );
}

#[test]
fn wrong_part_names_are_errors_listing_what_exists() {
    let world = world_with_walker();
    let mut live = LiveScene::new(build_scene(&world, &mut library()), &world).unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    sim.set_transform("walker", Some("Head"), Transform::default())
        .unwrap();
    live.update(&sim).unwrap();
    sim.set_transform("walker", Some("Tail"), Transform::default())
        .unwrap();
    let e = live.update(&sim).unwrap_err().to_string();
    assert!(e.contains("`Tail`") && e.contains("Hips"), "{e}");
}

#[test]
fn actors_walk_up_a_ramp_found_by_casting_rays_down_and_ignore_the_ceiling() {
    use passerby_scene::SceneGround;
    let plane = |z| LabeledElement {
        element: WorldElement::HorizontalPlane(HorizontalPlane {
            extent: [-50.0, 50.0, -50.0, 50.0],
            z,
            color: Color::rgb(0, 0, 0),
            enable_shadows: false,
            cull_face: "NONE".into(),
            texture: String::new(),
            texture_size: [1.0, 1.0],
            init_pose: None,
            keyframes: None,
        }),
        label: None,
    };
    let mut world = world_with_walker();
    world.actors[0].visuals.clear(); // the placeholder body is enough here
    world.elements = vec![plane(0.0), plane(2.5)];
    world.blocks = vec![Block {
        name: "ramp".into(),
        common: SimulableCommon {
            init_pose: Pose3 {
                x: 2.0,
                y: -1.0,
                ..Pose3::default()
            },
            ..SimulableCommon::default()
        },
        shape: BlockShape::Geometry(Geometry {
            kind: GeometryKind::Ramp,
            radius: 0.0,
            length: 0.0,
            lx: 4.0,
            ly: 2.0,
            lz: 1.0,
            vertex_count: 10,
        }),
        ..Block::default()
    }];
    let built = build_scene(&world, &mut library());
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    let mut sim = Simulation::new(&world).unwrap();
    sim.set_ground(Box::new(SceneGround::new(&built, &world)));
    let mut on_ramp = 0;
    while sim.time() < 8.0 {
        sim.step();
        let p = sim.actors()[0].pose;
        let expected = if (2.0..6.0).contains(&p.x) {
            on_ramp += 1;
            (p.x - 2.0) / 4.0
        } else {
            0.0
        };
        assert!((p.z - expected).abs() < 1e-4, "{p:?}");
    }
    assert!(on_ramp > 500, "{on_ramp} steps on the ramp");
    assert!(sim.contacts().is_empty());
}

#[test]
fn actors_out_of_every_sensors_reach_are_not_reskinned_until_one_can_see_them() {
    let world = world_with_walker();
    let built = build_scene(&world, &mut library());
    let mesh_id = built.skinned[0].mesh;
    let rest: Vec<_> = built.scene.mesh(mesh_id).vertices().to_vec();
    let mut live = LiveScene::new(built, &world).unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    sim.run_until(0.5);
    // A sensor 100 m away reaching 10 m: the walker keeps its rest body...
    live.update_within(&sim, Some(&[Reach::all([100.0, 0.0, 0.0], 10.0)]))
        .unwrap();
    assert_eq!(live.built.scene.mesh(mesh_id).vertices(), &rest[..]);
    // ...but its instance follows its pose; once a sensor is near, it is posed for the step.
    live.update_within(&sim, Some(&[Reach::all([0.0, 0.0, 1.0], 10.0)]))
        .unwrap();
    assert_ne!(live.built.scene.mesh(mesh_id).vertices(), &rest[..]);
}

#[test]
fn actors_within_reach_but_away_from_every_ray_are_posed_but_not_reskinned() {
    let world = world_with_walker();
    let built = build_scene(&world, &mut library());
    let mesh_id = built.skinned[0].mesh;
    let rest: Vec<_> = built.scene.mesh(mesh_id).vertices().to_vec();
    let mut live = LiveScene::new(built, &world).unwrap();
    let rest_skeleton = live.skeletons();
    let mut sim = Simulation::new(&world).unwrap();
    sim.run_until(0.5);
    let near = |rays| Reach {
        centre: [0.0, 0.0, 1.0],
        radius: 10.0,
        rays,
    };
    // A camera between frames: the skeleton follows, the body waits.
    live.update_within(&sim, Some(&[near(RaysCast::None)]))
        .unwrap();
    assert_eq!(live.built.scene.mesh(mesh_id).vertices(), &rest[..]);
    assert_ne!(live.skeletons(), rest_skeleton);
    // A lidar's columns looking the other way (the walker is at the origin, within a body's
    // reach of the sensor: it is re-skinned whatever the arc), then from 20 m away.
    let arc = |mid: f32| RaysCast::Arc {
        x_axis: [1.0, 0.0, 0.0],
        y_axis: [0.0, 1.0, 0.0],
        mid,
        half_width: 0.1,
    };
    let far = |mid| Reach {
        centre: [20.0, 0.0, 1.0],
        radius: 30.0,
        rays: arc(mid),
    };
    live.update_within(&sim, Some(&[far(0.0)])).unwrap();
    assert_eq!(live.built.scene.mesh(mesh_id).vertices(), &rest[..]);
    live.update_within(&sim, Some(&[far(std::f32::consts::PI)]))
        .unwrap();
    assert_ne!(live.built.scene.mesh(mesh_id).vertices(), &rest[..]);
    // A part moved from outside may reach anywhere: no arc spares the body then.
    let mut live = LiveScene::new(build_scene(&world, &mut library()), &world).unwrap();
    let mut moved = Simulation::new(&world).unwrap();
    moved.run_until(0.5);
    moved
        .set_transform("walker", Some("Head"), Transform::default())
        .unwrap();
    live.update_within(&moved, Some(&[far(0.0)])).unwrap();
    assert_ne!(live.built.scene.mesh(mesh_id).vertices(), &rest[..]);
}

#[test]
fn skeletons_follow_the_posed_body() {
    let world = world_with_walker();
    let mut live = LiveScene::new(build_scene(&world, &mut library()), &world).unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    sim.run_until(1.0);
    live.update(&sim).unwrap();
    let skeletons = live.skeletons();
    assert_eq!(skeletons.len(), 1);
    let s = &skeletons[0];
    assert_eq!(s.joints.len(), 11, "Walker has 11 bones");
    assert_eq!(s.bones.len(), 10, "every bone but the root has a parent");
    // Joints stand on the actor: around its position, between the ground and its height.
    let x = sim.actors()[0].pose.x;
    for j in &s.joints {
        assert!(
            (j[0] - x).abs() < 1.0 && j[1].abs() < 1.0 && (0.0..2.0).contains(&j[2]),
            "{j:?}"
        );
    }
}

/// MVSim's elevator (`demo_multistorey`): a horizontal plane with an `<init_pose>` and
/// keyframes moves in the scene, and an actor standing on it rises with it. Its `<init_pose>`
/// and `<animation>` were read and ignored before (with "unknown tag" warnings).
#[test]
fn an_animated_horizontal_plane_moves_and_carries_who_stands_on_it() {
    let loaded = passerby_mvsim::load_world_file(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/worlds/mvsim/mvsim_tutorial/demo_multistorey.world.xml"),
        &passerby_mvsim::LoadOptions::default(),
    );
    assert!(
        loaded
            .diagnostics
            .iter()
            .all(|d| !d.message.contains("unknown tag")),
        "{:?}",
        loaded
            .diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
    let mut world = loaded.value.unwrap();
    // A person waiting on the elevator (x 3..5, y -1..1 at ground level).
    world.actors.push(passerby_world::Actor {
        name: "rider".into(),
        common: passerby_world::SimulableCommon {
            init_pose: Pose3 {
                x: 4.0,
                y: 0.0,
                ..Pose3::default()
            },
            ..Default::default()
        },
        ..Default::default()
    });
    let built = build_scene(&world, &mut library());
    let ground = passerby_scene::SceneGround::new(&built, &world);
    let mut live = LiveScene::new(built, &world).unwrap();
    let mut sim = Simulation::new(&world).unwrap();
    sim.set_ground(Box::new(ground));
    let mut heights = Vec::new();
    while sim.time() < 12.0 - 1e-9 {
        sim.step();
        live.update(&sim).unwrap();
        if sim.steps().is_multiple_of(400) {
            let rider = sim.pose("rider").unwrap().z;
            // What a ray straight down at the elevator's corner meets (not under the rider).
            let hit = live.built.scene.closest(&down_at(4.9, -0.9)).unwrap();
            heights.push((sim.time(), rider, 10.0 - hit.t));
        }
    }
    // Keyframes: 0.02 m until 2 s, up to 2.98 m at 10 s, held until 15 s.
    for &(t, rider, plane) in &heights {
        let expected = if t <= 2.0 {
            0.02
        } else if t >= 10.0 {
            2.98
        } else {
            0.02 + (t - 2.0) / 8.0 * 2.96
        };
        assert!(
            (f64::from(plane) - expected).abs() < 1e-3,
            "t {t}: plane at {plane}"
        );
        assert!(
            (rider - expected).abs() < 0.02,
            "t {t}: rider at {rider}, floor at {expected}"
        );
    }
    assert_eq!(heights.len(), 6, "{heights:?}");
}
