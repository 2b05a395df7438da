//! Planes and walls: doors and windows are cut out of walls; textures show the texel under each
//! point, one tile per `texture_size` metres; a texture that cannot be had leaves the colour.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use glam::Vec3A;
use passerby_assets::{ModelLibrary, Resolver};
use passerby_raycast::Ray;
use passerby_scene::{BuiltScene, build_scene};
use std::path::Path;

/// A 2 x 2 texture: red, green on the top row; blue, white below.
fn write_texture(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("quads.png");
    let image = image::RgbImage::from_fn(2, 2, |x, y| match (x, y) {
        (0, 0) => image::Rgb([255, 0, 0]),
        (1, 0) => image::Rgb([0, 255, 0]),
        (0, 1) => image::Rgb([0, 0, 255]),
        _ => image::Rgb([255, 255, 255]),
    });
    image.save(&path).unwrap();
    path
}

fn build(world_xml: &str, dir: &Path) -> BuiltScene {
    let loaded = passerby_mvsim::load_world_str(
        &dir.join("inline.world.xml"),
        world_xml.to_owned(),
        &passerby_mvsim::LoadOptions::default(),
    );
    let world = loaded.value.unwrap();
    let mut library = ModelLibrary::new(Resolver::new(dir.join("no-cache")));
    build_scene(&world, &mut library)
}

/// The linear colour where a ray from `origin` along `dir` lands.
fn colour(built: &BuiltScene, origin: [f32; 3], dir: Vec3A) -> [f32; 3] {
    let ray = Ray::new(Vec3A::from_array(origin), dir, 0.0, 100.0).unwrap();
    let hit = built.scene.closest(&ray).unwrap();
    built
        .colour_at(hit.instance, hit.triangle, [hit.u, hit.v], 0.0)
        .unwrap()
}

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3)
}

#[test]
fn floors_and_walls_show_their_texture_one_tile_per_texture_size() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let texture = write_texture(&dir);
    let xml = format!(
        r#"<mvsim_world version="1.0">
          <element class="horizontal_plane"><x_min>-1</x_min><x_max>1</x_max><y_min>-1</y_min>
            <y_max>1</y_max><texture>{t}</texture><texture_size_x>2</texture_size_x>
            <texture_size_y>2</texture_size_y></element>
          <element class="vertical_plane"><x0>0</x0><y0>3</y0><x1>2</x1><y1>3</y1><height>2</height>
            <texture>{t}</texture><texture_size_x>2</texture_size_x><texture_size_y>2</texture_size_y>
          </element>
        </mvsim_world>"#,
        t = texture.display()
    );
    let built = build(&xml, &dir);
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    let (red, green, blue, white) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0; 3]);
    // The floor, seen from above: the image's top row towards +y, texel centres exact.
    let down = Vec3A::NEG_Z;
    assert!(close(colour(&built, [-0.5, 0.5, 5.0], down), red));
    assert!(close(colour(&built, [0.5, 0.5, 5.0], down), green));
    assert!(close(colour(&built, [-0.5, -0.5, 5.0], down), blue));
    assert!(close(colour(&built, [0.5, -0.5, 5.0], down), white));
    // The wall, from its start along x and down from its top.
    let ahead = Vec3A::Y;
    assert!(close(colour(&built, [0.5, 2.0, 1.5], ahead), red));
    assert!(close(colour(&built, [1.5, 2.0, 1.5], ahead), green));
    assert!(close(colour(&built, [0.5, 2.0, 0.5], ahead), blue));
    assert!(close(colour(&built, [1.5, 2.0, 0.5], ahead), white));
    // Past the first tile the texture repeats.
    let far = format!(
        r#"<mvsim_world version="1.0"><element class="horizontal_plane"><x_min>-1</x_min>
          <x_max>5</x_max><y_min>-1</y_min><y_max>1</y_max><texture>{t}</texture><texture_size_x>2</texture_size_x>
          <texture_size_y>2</texture_size_y></element></mvsim_world>"#,
        t = texture.display()
    );
    let built = build(&far, &dir);
    assert!(close(colour(&built, [3.5, 0.5, 5.0], down), red));
}

#[test]
fn a_missing_texture_leaves_the_plain_colour_with_a_warning() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let xml = r##"<mvsim_world version="1.0"><element class="horizontal_plane">
        <texture>missing.png</texture><color>#ffffff</color></element></mvsim_world>"##;
    let built = build(xml, &dir);
    assert!(
        built
            .warnings
            .iter()
            .any(|w| w.contains("texture `") && w.contains("plain colour")),
        "{:?}",
        built.warnings
    );
    assert!(close(
        colour(&built, [0.0, 0.0, 5.0], Vec3A::NEG_Z),
        [1.0; 3]
    ));
}

#[test]
fn doors_and_windows_are_openings_in_walls() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    // A 4 m wall along y = 3, a door in its middle (1.5 .. 2.5 m, up to 2.1 m) and a window
    // near its start (0.3 .. 1.3 m, from 1 to 2 m).
    let xml = r#"<mvsim_world version="1.0">
      <element class="vertical_plane"><x0>0</x0><y0>3</y0><x1>4</x1><y1>3</y1><height>3</height>
        <door position="0.5" width="1.0" z_max="2.1"/>
        <window><position>0.2</position><width>1.0</width><z_min>1.0</z_min><z_max>2.0</z_max></window>
      </element>
    </mvsim_world>"#;
    let built = build(xml, &dir);
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    let hits = |x: f32, z: f32| {
        let ray = Ray::new(Vec3A::new(x, 0.0, z), Vec3A::Y, 0.0, 10.0).unwrap();
        built.scene.closest(&ray).map(|h| h.t)
    };
    // Through the door, and the wall over it and beside it.
    assert_eq!(hits(2.0, 1.0), None);
    assert!(hits(2.0, 2.5).is_some_and(|t| (t - 2.99).abs() < 1e-4));
    assert!(hits(3.0, 1.0).is_some());
    // Through the window, and the wall below and above it.
    assert_eq!(hits(0.8, 1.5), None);
    assert!(hits(0.8, 0.5).is_some() && hits(0.8, 2.5).is_some());
}

/// Issue 24, item 4: an elevation map's `texture_image` was read and ignored (a fixed colour).
/// As MRPT's `CMesh` lays it: image rows along +X and columns along +Y from the minimum corner,
/// the whole image over the map (or one tile per `texture_extension`), turned first by
/// `texture_image_rotate` as MRPT's `CImage::rotateImage` turns it.
#[test]
fn elevation_maps_show_their_texture_as_mvsim_lays_it() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    let texture = write_texture(&dir);
    let world = |rotate: i32, extension: f64| {
        format!(
            r#"<mvsim_world version="1.0">
              <element class="elevation_map"><elevation_data_matrix>[0 0 0; 0 0 0; 0 0 0]</elevation_data_matrix>
                <resolution>1</resolution><corner_min_x>0</corner_min_x><corner_min_y>0</corner_min_y>
                <texture_image>{}</texture_image><texture_image_rotate>{rotate}</texture_image_rotate>
                <texture_extension_x>{extension}</texture_extension_x><texture_extension_y>{extension}</texture_extension_y>
              </element></mvsim_world>"#,
            texture.display()
        )
    };
    let (red, green, blue, white) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0; 3]);
    let down = Vec3A::NEG_Z;
    // The map spans 2 x 2 m from the origin: quarter (x, y) centres.
    let at = |built: &BuiltScene, x: f32, y: f32| colour(built, [x, y, 5.0], down);
    let built = build(&world(0, 0.0), &dir);
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    // Image row 0 (red, green) at low x; column 0 (red, blue) at low y.
    assert!(close(at(&built, 0.5, 0.5), red));
    assert!(close(at(&built, 0.5, 1.5), green));
    assert!(close(at(&built, 1.5, 0.5), blue));
    assert!(close(at(&built, 1.5, 1.5), white));
    // Turned +90 degrees: destination (u, v) shows source (v, 1 - u).
    let built = build(&world(90, 0.0), &dir);
    assert!(close(at(&built, 0.5, 0.5), blue));
    assert!(close(at(&built, 0.5, 1.5), red));
    assert!(close(at(&built, 1.5, 0.5), white));
    assert!(close(at(&built, 1.5, 1.5), green));
    // One tile per metre: the image repeats, each texel a quarter metre.
    let built = build(&world(0, 1.0), &dir);
    assert!(close(at(&built, 1.25, 1.75), green));
    assert!(close(at(&built, 0.75, 0.25), blue));
}
