//! Placed mesh files (MAVS objects): labels per OBJ group land on each group's triangles under
//! the placement's one instance id, and smooth shading normals interpolate the welded vertex
//! normals while flat placements keep their facets.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::Vec3A;
use passerby_assets::{ModelLibrary, Resolver};
use passerby_raycast::Ray;
use passerby_scene::{BuiltScene, build_scene, build_scene_taking_meshes};
use passerby_world::{IDENTITY_3X4, MeshFile, MeshInstance, World};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A roof of two groups meeting at a ridge along +Y at x = 0, z = 1: `west` slopes down to
/// x = −1, `east` to x = +1 (each face split into its own vertices, as OBJ exporters do).
/// Written once per test process, in Cargo's scratch directory for tests under a fixed name:
/// through a temporary file renamed into place, so that no test (of this process or another)
/// sees it half-written, and nothing is left behind per run.
fn roof() -> PathBuf {
    static ROOF: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOF.get_or_init(|| {
        use std::io::Write;
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join("placed-roof.obj");
        let mut file = tempfile::NamedTempFile::new_in(dir).unwrap();
        file.write_all(
            b"v -1 -1 0\nv 0 -1 1\nv 0 1 1\nv -1 1 0\nv 0 -1 1\nv 1 -1 0\nv 1 1 0\nv 0 1 1\n\
              g west\nf 1 2 3\nf 1 3 4\ng east\nf 5 6 7\nf 5 7 8\n",
        )
        .unwrap();
        file.persist(&path).unwrap();
        path
    })
    .clone()
}

fn build(meshes: Vec<MeshInstance>) -> BuiltScene {
    let world = World {
        meshes,
        ..World::default()
    };
    let mut library = ModelLibrary::new(Resolver::new(std::env::temp_dir().join("no-cache")));
    let built = build_scene(&world, &mut library);
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    built
}

fn placement(
    name: &str,
    x: f64,
    smooth: bool,
    groups: Option<BTreeMap<String, String>>,
) -> MeshInstance {
    let mut world_from_model = IDENTITY_3X4;
    world_from_model[0][3] = x;
    MeshInstance {
        name: name.into(),
        file: std::sync::Arc::new(MeshFile {
            model_uri: roof().display().to_string(),
            label: Some("building".into()),
            smooth_normals: smooth,
            group_labels: groups,
        }),
        world_from_model,
    }
}

/// What a ray straight down at (x, y) hits: object id, class and the hit.
fn down(built: &BuiltScene, x: f32, y: f32) -> (u32, String, passerby_raycast::Hit) {
    let ray = Ray::new(Vec3A::new(x, y, 5.0), Vec3A::NEG_Z, 0.0, 10.0).unwrap();
    let hit = built.scene.closest(&ray).unwrap();
    let object = built.object_of(hit.instance, hit.triangle).unwrap();
    (object.id, built.class_name(object).to_owned(), hit)
}

#[test]
fn labels_by_group_fall_on_each_groups_triangles_of_one_object() {
    let groups: BTreeMap<String, String> = [("west".to_string(), "roof_tiles".to_string())]
        .into_iter()
        .collect();
    let built = build(vec![
        placement("grouped", 0.0, false, Some(groups)),
        placement("whole", 10.0, false, None),
    ]);
    let (west_id, west_class, _) = down(&built, -0.5, 0.0);
    let (east_id, east_class, _) = down(&built, 0.5, 0.0);
    assert_eq!(
        (west_class.as_str(), east_class.as_str()),
        ("roof_tiles", "building")
    );
    assert_eq!(west_id, east_id, "one placement, one instance id");
    let (whole_id, whole_class, _) = down(&built, 9.5, 0.0);
    assert_eq!(whole_class, "building");
    assert_ne!(whole_id, west_id);
}

#[test]
fn smooth_placements_interpolate_welded_vertex_normals_and_flat_ones_do_not() {
    let built = build(vec![
        placement("smooth", 0.0, true, None),
        placement("flat", 10.0, false, None),
    ]);
    let slope = Vec3A::new(-1.0, 0.0, 1.0).normalize();
    let other_slope = Vec3A::new(1.0, 0.0, 1.0).normalize();
    // The ridge corner (0, 1, 1) is in both western triangles and one eastern one: its normal
    // is their area-weighted mean (equal areas), leaning west.
    let ridge = (2.0 * slope + other_slope).normalize();
    let normal_at = |x: f32, y: f32| {
        let (_, _, hit) = down(&built, x, y);
        built
            .shading_normal(hit.instance, hit.triangle, hit.u, hit.v)
            .unwrap()
    };
    let n = normal_at(-0.001, 0.998);
    assert!((n - ridge).length() < 0.01, "{n:?} vs {ridge:?}");
    // The eave corners are only in western triangles: the slope's own normal.
    let n = normal_at(-0.999, 0.0);
    assert!((n - slope).length() < 0.01, "{n:?}");
    // Halfway along the diagonal from an eave corner to that ridge corner, halfway between.
    let n = normal_at(-0.5, 0.0);
    let halfway = (slope + ridge).normalize();
    assert!((n - halfway).length() < 1e-4, "{n:?} vs {halfway:?}");
    let (_, _, flat) = down(&built, 9.5, 0.0);
    assert!(
        built
            .shading_normal(flat.instance, flat.triangle, flat.u, flat.v)
            .is_none()
    );
    assert!((Vec3A::from(flat.normal) - slope).length() < 1e-5);
}

/// Taking the world's placed meshes builds the same scene (objects, instances and what rays
/// hit) and leaves the world without them.
#[test]
fn a_scene_built_taking_the_meshes_is_the_scene_built_borrowing_them() {
    let groups: BTreeMap<String, String> = [("east".to_string(), "roof_tiles".to_string())]
        .into_iter()
        .collect();
    let meshes = vec![
        placement("flat", 0.0, false, None),
        placement("grouped", 3.0, false, Some(groups)),
        placement("smooth", 6.0, true, None),
    ];
    let borrowed = build(meshes.clone());
    let mut world = World {
        meshes,
        ..World::default()
    };
    let mut library = ModelLibrary::new(Resolver::new(std::env::temp_dir().join("no-cache")));
    let taken = build_scene_taking_meshes(&mut world, &mut library);
    assert!(world.meshes.is_empty());
    assert!(taken.warnings.is_empty(), "{:?}", taken.warnings);
    assert_eq!(taken.objects, borrowed.objects);
    assert_eq!(
        taken.scene.instance_count(),
        borrowed.scene.instance_count()
    );
    for i in 0..taken.scene.instance_count() as u32 {
        let (a, b) = (taken.scene.instance(i), borrowed.scene.instance(i));
        assert_eq!((a.mesh, a.world_from_mesh()), (b.mesh, b.world_from_mesh()));
    }
    for x in [-0.5, 0.5, 2.5, 3.5, 5.5, 6.5] {
        let (a, b) = (down(&taken, x, 0.25), down(&borrowed, x, 0.25));
        assert_eq!((a.0, a.1), (b.0, b.1));
        assert_eq!(a.2.t.to_bits(), b.2.t.to_bits());
        assert_eq!(a.2.normal.to_array(), b.2.normal.to_array());
    }
}
