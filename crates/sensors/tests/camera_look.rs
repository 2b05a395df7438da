//! What cameras see beyond geometry: a textured quad shows its texture (against a reference
//! computed here), sunlight and shadows have Lambert's values, lens distortion moves a point to
//! the pixel OpenCV's model gives, the RGB-D point cloud lies on the lidar's points and takes the
//! colour of the pixel each point projects to, depth noise has its sigma on independent rows
//! whatever the thread count, the walking Walker's 2D box holds every pixel labelled with it,
//! a texture seen from afar shows its mean colour (mip levels), and a world's sky box shows each
//! image where MVSim does.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::load;
use glam::Vec3A;
use passerby_assets::{ModelLibrary, Resolver};
use passerby_scene::{LiveScene, build_scene};
use passerby_sensors::camera::{CameraFrame, Visibility};
use passerby_sensors::lidar::PointCloud;
use passerby_sensors::rgbd::RgbdFrame;
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::Simulation;
use passerby_world::World;
use std::path::{Path, PathBuf};

/// Every observation up to simulated time `until`.
fn observe(world: &World, until: f64) -> Vec<Observation> {
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(world, &mut library);
    assert!(built.warnings.is_empty(), "{:?}", built.warnings);
    let mut live = LiveScene::new(built, world).unwrap();
    let mut sim = Simulation::new(world).unwrap();
    let mut rig = Rig::new(world, 0);
    assert!(rig.notices().is_empty(), "{:?}", rig.notices());
    let mut out = Vec::new();
    while sim.time() < until - 1e-9 {
        sim.step();
        live.update(&sim).unwrap();
        out.extend(rig.step(&sim, &SceneView { built: &live.built }));
    }
    out
}

fn first_camera(world: &World) -> CameraFrame {
    observe(world, 0.1)
        .into_iter()
        .find_map(|o| match o {
            Observation::Camera(c) => Some(c),
            _ => None,
        })
        .unwrap()
}

fn first_rgbd(observations: &[Observation]) -> &RgbdFrame {
    observations
        .iter()
        .find_map(|o| match o {
            Observation::Rgbd(f) => Some(f.as_ref()),
            _ => None,
        })
        .unwrap()
}

fn srgb_to_linear(b: u8) -> f64 {
    let c = f64::from(b) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f64) -> f64 {
    let c = c.clamp(0.0, 1.0);
    255.0
        * if c <= 0.0031308 {
            12.92 * c
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Full ambient light, no shadows: a surface shows its material's colour unchanged.
const FLAT_LIGHT: &str =
    "<lights><light_ambient>1.0</light_ambient><enable_shadows>false</enable_shadows></lights>";

#[test]
fn a_textured_quad_shows_its_texture_bilinearly_filtered_from_obj_collada_and_fbx() {
    // A 4 x 4 texture of distinct colours on a 2 m quad 2 m ahead, seen by a 64 x 64 camera whose
    // view it fills exactly.
    let dir = scratch("textured_quad");
    let texels: Vec<[u8; 3]> = (0..16u8)
        .map(|i| [i * 16, 255 - i * 13, ((u16::from(i) * 97) % 251) as u8])
        .collect();
    let flat: Vec<u8> = texels.iter().flatten().copied().collect();
    let obj = textured_quad_obj(&dir, (4, png::ColorType::Rgb), &flat);
    let f = first_camera(&quad_world(&obj));
    // Pixel u meets the quad at texture coordinate (u + 0.5) / 64; texel centres are at
    // (k + 0.5) / 4; between them the reference blends linearly in linear light, repeating.
    let texel = |x: i64, y: i64| texels[(y.rem_euclid(4) * 4 + x.rem_euclid(4)) as usize];
    let mut worst = 0.0f64;
    for v in 0..64 {
        for u in 0..64 {
            let (x, y) = ((u as f64 + 0.5) / 16.0 - 0.5, (v as f64 + 0.5) / 16.0 - 0.5);
            let (x0, y0) = (x.floor(), y.floor());
            let (fx, fy) = (x - x0, y - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            for k in 0..3 {
                let lin = |t: [u8; 3]| srgb_to_linear(t[k]);
                let top = lin(texel(x0, y0)) * (1.0 - fx) + lin(texel(x0 + 1, y0)) * fx;
                let bottom = lin(texel(x0, y0 + 1)) * (1.0 - fx) + lin(texel(x0 + 1, y0 + 1)) * fx;
                let want = linear_to_srgb(top * (1.0 - fy) + bottom * fy);
                let got = f64::from(f.rgb[3 * (v * 64 + u) + k]);
                worst = worst.max((got - want).abs());
            }
        }
    }
    assert!(worst <= 1.0, "largest difference {worst} levels");

    // The same quad and texture as Collada (Y_UP, so placed as the OBJ is; texture through
    // surface and sampler2D parameters, bound by <bind_material>) and as FBX (ASCII; texture
    // coordinates per face corner, the texture connected to the material's diffuse colour)
    // render the same image.
    for (name, text) in [("quad.dae", COLLADA_QUAD), ("quad.fbx", FBX_QUAD)] {
        std::fs::write(dir.join(name), text).unwrap();
        let other = first_camera(&quad_world(&dir.join(name)));
        let worst = (f.rgb.iter().zip(&other.rgb))
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap();
        assert!(worst <= 1, "{name} differs from the OBJ by {worst} levels");
    }
}

/// The OBJ quad as an ASCII FBX in the same frame (Y up, metres).
const FBX_QUAD: &str = r#"; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UpAxis", "int", "Integer", "",1
		P: "UpAxisSign", "int", "Integer", "",1
		P: "FrontAxis", "int", "Integer", "",2
		P: "FrontAxisSign", "int", "Integer", "",1
		P: "CoordAxis", "int", "Integer", "",0
		P: "CoordAxisSign", "int", "Integer", "",1
		P: "UnitScaleFactor", "double", "Number", "",100
	}
}
Objects:  {
	Geometry: 1000, "Geometry::Quad", "Mesh" {
		Vertices: *12 {
			a: 2,1,1,2,-1,1,2,-1,-1,2,1,-1
		}
		PolygonVertexIndex: *4 {
			a: 0,1,2,-4
		}
		LayerElementUV: 0 {
			Version: 101
			Name: "UVMap"
			MappingInformationType: "ByPolygonVertex"
			ReferenceInformationType: "IndexToDirect"
			UV: *8 {
				a: 0,1,1,1,1,0,0,0
			}
			UVIndex: *4 {
				a: 0,1,2,3
			}
		}
		LayerElementMaterial: 0 {
			Version: 101
			Name: ""
			MappingInformationType: "AllSame"
			ReferenceInformationType: "IndexToDirect"
			Materials: *1 {
				a: 0
			}
		}
		Layer: 0 {
			Version: 100
			LayerElement:  {
				Type: "LayerElementUV"
				TypedIndex: 0
			}
			LayerElement:  {
				Type: "LayerElementMaterial"
				TypedIndex: 0
			}
		}
	}
	Model: 2000, "Model::Quad", "Mesh" {
		Version: 232
	}
	Material: 3000, "Material::tex", "" {
		Version: 102
		ShadingModel: "lambert"
		Properties70:  {
			P: "DiffuseColor", "Color", "", "A",0.8,0.8,0.8
		}
	}
	Texture: 4000, "Texture::checker", "" {
		Type: "TextureVideoClip"
		Version: 202
		TextureName: "Texture::checker"
		FileName: "texture.png"
		RelativeFilename: "texture.png"
	}
}
Connections:  {
	C: "OO",2000,0
	C: "OO",1000,2000
	C: "OO",3000,2000
	C: "OP",4000,3000, "DiffuseColor"
}
"#;

#[test]
fn a_minified_checkerboard_shows_its_mean_grey_not_a_moire() {
    // A 240 x 240 checkerboard of single black and white texels on the quad: 3.75 texels a
    // pixel. Sampling the full image would give each pixel whatever mix its centre falls on
    // (0 to 255); mip level 2 (4 x 4 texels a texel) is uniformly the mean, linear 0.5.
    let dir = scratch("minified_checker");
    let side = 240u32;
    let flat: Vec<u8> = (0..side * side)
        .map(|k| {
            if (k % side + k / side).is_multiple_of(2) {
                0
            } else {
                255
            }
        })
        .collect();
    let obj = textured_quad_obj(&dir, (side, png::ColorType::Grayscale), &flat);
    let f = first_camera(&quad_world(&obj));
    let grey = linear_to_srgb(0.5);
    let worst = f
        .rgb
        .iter()
        .map(|&b| (f64::from(b) - grey).abs())
        .fold(0.0, f64::max);
    assert!(worst <= 1.5, "{worst} levels from the mean grey {grey}");
}

/// Writes into `dir` a 2 m OBJ quad at x = 2 facing -X whose material's texture is the square
/// PNG of `side` x `side` 8-bit pixels `pixels` of `colour` type; returns the OBJ's path.
fn textured_quad_obj(dir: &Path, (side, colour): (u32, png::ColorType), pixels: &[u8]) -> PathBuf {
    let mut png_bytes = Vec::new();
    {
        let mut e = png::Encoder::new(&mut png_bytes, side, side);
        e.set_color(colour);
        e.set_depth(png::BitDepth::Eight);
        e.write_header().unwrap().write_image_data(pixels).unwrap();
    }
    std::fs::write(dir.join("texture.png"), png_bytes).unwrap();
    std::fs::write(
        dir.join("quad.mtl"),
        "newmtl tex\nKd 1 1 1\nmap_Kd texture.png\n",
    )
    .unwrap();
    // Image top-left (world +Y, +Z as the camera looks along +X) is the texture's top-left:
    // OBJ's v grows upwards.
    let obj = dir.join("quad.obj");
    std::fs::write(
        &obj,
        "mtllib quad.mtl\nv 2 1 1\nv 2 -1 1\nv 2 -1 -1\nv 2 1 -1\n\
         vt 0 1\nvt 1 1\nvt 1 0\nvt 0 0\nusemtl tex\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n",
    )
    .unwrap();
    obj
}

/// A block showing `model` under flat light, and a 64 x 64 camera at the origin looking along +X
/// whose view a 2 m quad at x = 2 fills exactly.
fn quad_world(model: &Path) -> World {
    load(&format!(
        r#"{FLAT_LIGHT}
           <block name="quad"><init_pose3d>0 0 0 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><visual><model_uri>{}</model_uri></visual></block>
           <sensor class="camera" name="cam"><pose_3d>0 0 0 -90 0 -90</pose_3d>
             <sensor_period>0.1</sensor_period><ncols>64</ncols><nrows>64</nrows>
             <cx>31.5</cx><cy>31.5</cy><fx>64</fx><fy>64</fy></sensor>"#,
        model.display()
    ))
}

/// A 2 m textured quad at x = 2 facing -X, texture coordinates as the OBJ quad's.
const COLLADA_QUAD: &str = r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><created>2026-01-01T00:00:00</created><modified>2026-01-01T00:00:00</modified>
    <unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_images><image id="checker-img"><init_from>texture.png</init_from></image></library_images>
  <library_effects><effect id="fx"><profile_COMMON>
    <newparam sid="surf"><surface type="2D"><init_from>checker-img</init_from></surface></newparam>
    <newparam sid="samp"><sampler2D><source>surf</source></sampler2D></newparam>
    <technique sid="common"><lambert><diffuse><texture texture="samp" texcoord="uv0"/></diffuse></lambert></technique>
  </profile_COMMON></effect></library_effects>
  <library_materials><material id="mat"><instance_effect url="#fx"/></material></library_materials>
  <library_geometries><geometry id="quad"><mesh>
    <source id="pos"><float_array id="pos-a" count="12">2 1 1 2 -1 1 2 -1 -1 2 1 -1</float_array>
      <technique_common><accessor source="#pos-a" count="4" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
    <source id="uv"><float_array id="uv-a" count="8">0 1 1 1 1 0 0 0</float_array>
      <technique_common><accessor source="#uv-a" count="4" stride="2"><param name="S" type="float"/><param name="T" type="float"/></accessor></technique_common></source>
    <vertices id="verts"><input semantic="POSITION" source="#pos"/></vertices>
    <triangles material="m" count="2">
      <input semantic="VERTEX" source="#verts" offset="0"/>
      <input semantic="TEXCOORD" source="#uv" offset="1" set="0"/>
      <p>0 0 1 1 2 2 0 0 2 2 3 3</p>
    </triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="scene"><node id="n">
    <instance_geometry url="#quad"><bind_material><technique_common>
      <instance_material symbol="m" target="#mat"/></technique_common></bind_material></instance_geometry>
  </node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"##;

#[test]
fn sunlight_is_lambertian_and_a_block_casts_its_shadow() {
    // A white floor, a 1 m block at x 0..1, the sun at azimuth 0 and elevation 60 degrees (its
    // light travels towards -X, so the shadow covers x in [-1/tan 60, 0]), a camera 5 m up
    // looking down with +Y of its image towards world -X.
    let world = load(
        r#"<lights><light_ambient>0.25</light_ambient><light_azimuth_deg>0</light_azimuth_deg>
             <light_elevation_deg>60</light_elevation_deg></lights>
           <element class="horizontal_plane"><x_min>-20</x_min><x_max>20</x_max>
             <y_min>-20</y_min><y_max>20</y_max><color>#ffffff</color></element>
           <block name="post"><init_pose3d>0 -0.5 0 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="1" ly="1" lz="1"/></block>
           <sensor class="camera" name="cam"><pose_3d>0 0 5 -90 0 180</pose_3d>
             <sensor_period>0.1</sensor_period><ncols>64</ncols><nrows>64</nrows>
             <cx>31.5</cx><cy>31.5</cy><fx>64</fx><fy>64</fy></sensor>"#,
    );
    let f = first_camera(&world);
    let at = |u: usize, v: usize| f.rgb[3 * (v * 64 + u)];
    // Pixel (30, 35) sees the floor at x = -(35 - 31.5) * 5 / 64 = -0.27: in the shadow.
    let shadow = linear_to_srgb(0.25).round() as u8;
    assert_eq!(at(30, 35), shadow);
    assert!((f.depth[35 * 64 + 30] - 5.0).abs() < 1e-4);
    // Pixel (30, 50) sees the floor at x = -1.45: lit, 0.25 + 0.75 sin 60.
    let lit = linear_to_srgb(0.25 + 0.75 * 60f64.to_radians().sin()).round() as u8;
    assert_eq!(at(30, 50), lit);
    // Without shadows the same pixel is lit.
    let mut no_shadows = world.clone();
    no_shadows.lights.enable_shadows = false;
    let f = first_camera(&no_shadows);
    assert_eq!(f.rgb[3 * (35 * 64 + 30)], lit);
}

#[test]
fn lens_distortion_moves_a_point_where_opencvs_model_puts_it() {
    // A 10 cm cube whose near face centre is at normalised (0.6, 0.4), 4 m ahead, with k1 -0.1
    // (3 pixels inwards there).
    let world = load(
        r#"<block name="wall"><init_pose3d>6 -50 -50 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="1" ly="100" lz="100"/></block>
           <block name="cube"><init_pose3d>4 -2.45 -1.65 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="0.1" ly="0.1" lz="0.1"/></block>
           <sensor class="camera" name="cam"><pose_3d>0 0 0 -90 0 -90</pose_3d>
             <sensor_period>0.1</sensor_period><ncols>200</ncols><nrows>150</nrows>
             <cx>99.5</cx><cy>74.5</cy><fx>100</fx><fy>100</fy>
             <distortion>-0.1 0 0 0 0</distortion></sensor>"#,
    );
    let f = first_camera(&world);
    let (x, y) = (0.6, 0.4);
    let radial = 1.0 - 0.1 * (x * x + y * y);
    let (u, v) = (99.5 + 100.0 * x * radial, 74.5 + 100.0 * y * radial);
    let pixel = |u: f64, v: f64| (v.round() as usize) * 200 + u.round() as usize;
    let cube = f.instance[pixel(u, v)];
    assert!(
        (f.depth[pixel(u, v)] - 4.0).abs() < 1e-4,
        "{}",
        f.depth[pixel(u, v)]
    );
    // Where an ideal pinhole would image it, the wall.
    let undistorted = pixel(99.5 + 100.0 * x, 74.5 + 100.0 * y);
    assert_ne!(f.instance[undistorted], cube);
    assert!(
        (f.depth[undistorted] - 6.0).abs() < 1e-4,
        "{} {}",
        f.depth[undistorted],
        f.instance[undistorted]
    );
    // The image corners lie beyond the radius where this barrel distortion folds back
    // (r = 1.22): no direction images there, and they see nothing.
    assert_eq!(
        (f.depth[0], f.instance[0], &f.rgb[..3]),
        (0.0, 0, &[0u8; 3][..])
    );
}

#[test]
fn the_rgbd_point_cloud_lies_on_the_lidars_points() {
    // A wall 3 m ahead and a cube in front of it, seen by an RGB-D camera without noise and by a
    // lidar at the same place.
    let world = load(
        r#"<block name="wall"><init_pose3d>3 -50 -50 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="1" ly="100" lz="100"/></block>
           <block name="cube"><init_pose3d>2 -0.3 0.7 0 0 30</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="0.5" ly="0.5" lz="0.5"/></block>
           <sensor class="rgbd_camera" name="rgbd"><pose_3d>0 0 1 0 0 0</pose_3d>
             <relativePoseIntensityWRTDepth>0 0 0 -90 0 -90</relativePoseIntensityWRTDepth>
             <sensor_period>0.1</sensor_period><depth_noise_sigma>0</depth_noise_sigma>
             <depth_ncols>160</depth_ncols><depth_nrows>120</depth_nrows><depth_cx>79.5</depth_cx>
             <depth_cy>59.5</depth_cy><depth_fx>100</depth_fx><depth_fy>100</depth_fy>
             <rgb_ncols>80</rgb_ncols><rgb_nrows>60</rgb_nrows><rgb_cx>39.5</rgb_cx>
             <rgb_cy>29.5</rgb_cy><rgb_fx>50</rgb_fx><rgb_fy>50</rgb_fy></sensor>
           <sensor class="lidar3d" name="lidar"><pose_3d>0 0 1 0 0 0</pose_3d>
             <sensor_period>0.1</sensor_period><vert_nrays>16</vert_nrays>
             <vert_fov_degrees>30</vert_fov_degrees><horz_nrays>360</horz_nrays>
             <range_std_noise>0</range_std_noise><scan_mode>flash</scan_mode></sensor>"#,
    );
    let observations = observe(&world, 0.1);
    let rgbd = first_rgbd(&observations);
    let lidar: &PointCloud = observations
        .iter()
        .find_map(|o| match o {
            Observation::PointCloud(c) => Some(c),
            _ => None,
        })
        .unwrap();
    let depth = rgbd.depth.as_ref().unwrap();
    assert_eq!(depth.data.len(), 160 * 120);
    assert_eq!(
        rgbd.points.xyz.len(),
        depth.data.iter().filter(|&&d| d > 0).count()
    );
    // Depth optical (x right, y down, z forward) to the sensor body (x forward, y left, z up).
    let to_body = |p: [f32; 3]| Vec3A::new(p[2], -p[0], -p[1]);
    let cloud: Vec<Vec3A> = rgbd.points.xyz.iter().map(|&p| to_body(p)).collect();
    let on_wall = cloud.iter().filter(|p| (p.x - 3.0).abs() < 1e-3).count();
    assert!(on_wall > 10_000, "{on_wall} points on the wall plane");
    // Every lidar point inside the depth camera's view has a depth point within a pixel's
    // footprint (3 m / 100 px = 3 cm between neighbours, so < 2.2 cm to the nearest).
    let mut compared = 0;
    for p in &lidar.points {
        let q = Vec3A::from(p.position);
        let (x, y) = (-q.y / q.x, -q.z / q.x);
        if q.x <= 0.0 || (79.5 + 100.0 * x).abs() > 150.0 || (59.5 + 100.0 * y).abs() > 110.0 {
            continue;
        }
        if (79.5 + 100.0 * x) < 10.0 || (59.5 + 100.0 * y) < 10.0 {
            continue;
        }
        let nearest = cloud
            .iter()
            .map(|c| (*c - q).length())
            .fold(f32::INFINITY, f32::min);
        assert!(
            nearest < 0.022,
            "lidar point {q} is {nearest} m from the cloud"
        );
        compared += 1;
    }
    assert!(compared > 300, "{compared} lidar points compared");
    // The colour camera sees the same scene: labels on its own 80 x 60 grid.
    let colour = rgbd.colour.as_ref().unwrap();
    assert_eq!(
        (colour.rgb.len(), colour.instance.len()),
        (80 * 60 * 3, 80 * 60)
    );
    assert!(colour.instance.iter().all(|&i| i > 0));
    assert_eq!(rgbd.points.rgb.len(), rgbd.points.xyz.len());
}

/// The Walker crossing the view 5 m ahead of a camera at the origin looking along +X, and a post
/// at x = 3 hiding part of it for a while.
#[test]
fn depth_noise_has_its_sigma_independent_rows_and_no_thread_dependence() {
    // A wall 3 m ahead filling the view, depth noise 5 cm in millimetre units.
    let world = load(
        r#"<block name="wall"><init_pose3d>3 -50 -50 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="1" ly="100" lz="100"/></block>
           <sensor class="rgbd_camera" name="rgbd"><pose_3d>0 0 1 0 0 0</pose_3d>
             <sensor_period>0.1</sensor_period><depth_noise_sigma>0.05</depth_noise_sigma>
             <depth_resolution>0.001</depth_resolution><sense_rgb>false</sense_rgb>
             <depth_ncols>120</depth_ncols><depth_nrows>90</depth_nrows><depth_cx>59.5</depth_cx>
             <depth_cy>44.5</depth_cy><depth_fx>100</depth_fx><depth_fy>100</depth_fy></sensor>"#,
    );
    let depth_at = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let observations = pool.install(|| observe(&world, 0.1));
        first_rgbd(&observations).depth.clone().unwrap()
    };
    let depth = depth_at(1);
    assert_eq!(depth.data, depth_at(2).data);
    // Every pixel sees the wall's face at 3 m along the optical axis.
    let errors: Vec<f64> = depth
        .data
        .iter()
        .map(|&d| f64::from(d) * 1e-3 - 3.0)
        .collect();
    let n = errors.len() as f64;
    let mean = errors.iter().sum::<f64>() / n;
    let sigma = (errors.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / n).sqrt();
    // 10,800 draws: the mean within 5 standard errors, sigma within 5 %.
    assert!(mean.abs() < 5.0 * 0.05 / n.sqrt(), "mean error {mean}");
    assert!((sigma - 0.05).abs() < 0.0025, "sigma {sigma}");
    // Rows draw from different streams: neighbouring rows are uncorrelated.
    let row = |r: usize| &errors[r * 120..(r + 1) * 120];
    let correlation: f64 = (0..89)
        .map(|r| {
            row(r)
                .iter()
                .zip(row(r + 1))
                .map(|(a, b)| a * b)
                .sum::<f64>()
        })
        .sum::<f64>()
        / (89.0 * 120.0 * sigma * sigma);
    assert!(correlation.abs() < 0.05, "row correlation {correlation}");
}

#[test]
fn shared_rgbd_pixels_colour_each_point_with_the_pixel_it_projects_to() {
    // Depth and colour with one lens and one optical frame (the shipped definition's layout):
    // every point's colour is the colour image's at the pixel its point projects to.
    let world = load(
        r#"<block name="wall"><init_pose3d>3 -50 -50 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="1" ly="100" lz="100"/>
             <color>#3080c0</color></block>
           <block name="cube"><init_pose3d>2 -0.3 0.7 0 0 30</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="0.5" ly="0.5" lz="0.5"/>
             <color>#e02010</color></block>
           <sensor class="rgbd_camera" name="rgbd"><pose_3d>0 0 1 0 0 0</pose_3d>
             <relativePoseIntensityWRTDepth>0 0 0 -90 0 -90</relativePoseIntensityWRTDepth>
             <sensor_period>0.1</sensor_period><depth_noise_sigma>0</depth_noise_sigma>
             <depth_ncols>64</depth_ncols><depth_nrows>48</depth_nrows><depth_cx>31.5</depth_cx>
             <depth_cy>23.5</depth_cy><depth_fx>40</depth_fx><depth_fy>40</depth_fy>
             <rgb_ncols>64</rgb_ncols><rgb_nrows>48</rgb_nrows><rgb_cx>31.5</rgb_cx>
             <rgb_cy>23.5</rgb_cy><rgb_fx>40</rgb_fx><rgb_fy>40</rgb_fy></sensor>"#,
    );
    let observations = observe(&world, 0.1);
    let rgbd = first_rgbd(&observations);
    let colour = rgbd.colour.as_ref().unwrap();
    let lens = passerby_sensors::camera::Lens::new(&colour.intrinsics).unwrap();
    assert_eq!(rgbd.points.xyz.len(), 64 * 48);
    let mut colours = std::collections::BTreeSet::new();
    for (xyz, rgb) in rgbd.points.xyz.iter().zip(&rgbd.points.rgb) {
        let q = lens
            .pixel_at(lens.project(Vec3A::from(*xyz)).unwrap())
            .unwrap();
        assert_eq!(rgb, &colour.rgb[3 * q..3 * q + 3], "{xyz:?}");
        colours.insert(*rgb);
    }
    assert!(colours.len() >= 2, "the wall and the cube: {colours:?}");
}

fn walker_and_post() -> String {
    format!(
        r#"<actor name="walker"><init_pose>5 3 -90</init_pose>
             <visual><model_uri>{}</model_uri><model_roll>90</model_roll></visual>
             <animation_idle>Idle</animation_idle><animation_walk>Walk</animation_walk>
             <animation_run>Run</animation_run>
             <path loop="false"><waypoint>5 -3 -90</waypoint></path></actor>
           <block name="post"><init_pose3d>3 -0.6 0 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="0.2" ly="0.4" lz="2"/></block>"#,
        walker_glb().display()
    )
}

fn walker_glb() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets/characters/Walker.glb")
}

#[test]
fn the_walking_walkers_box_holds_every_pixel_labelled_with_it() {
    // The Walker crosses the view 5 m ahead; a post hides part of it for a while.
    let world = load(&format!(
        r#"{FLAT_LIGHT}
           {}
           <sensor class="camera" name="cam"><pose_3d>0 0 1 -90 0 -90</pose_3d>
             <sensor_period>0.1</sensor_period><ncols>160</ncols><nrows>120</nrows>
             <cx>79.5</cx><cy>59.5</cy><fx>80</fx><fy>80</fy></sensor>"#,
        walker_and_post()
    ));
    let frames: Vec<CameraFrame> = observe(&world, 4.0)
        .into_iter()
        .filter_map(|o| match o {
            Observation::Camera(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(frames.len(), 40);
    let (mut boxed, mut partly_hidden) = (0, 0);
    for f in &frames {
        let labelled: Vec<(usize, usize)> = (0..160 * 120)
            .filter(|&i| f.class[i] == 5) // pedestrian
            .map(|i| (i % 160, i / 160))
            .collect();
        if labelled.is_empty() {
            continue;
        }
        let [b] = f.boxes.as_slice() else {
            panic!("t {}: one box expected, got {:?}", f.stamp, f.boxes);
        };
        assert_eq!(b.name, "walker");
        for &(u, v) in &labelled {
            assert_eq!(f.instance[v * 160 + u], b.instance as i32);
            let (u, v) = (u as f64, v as f64);
            assert!(
                b.min[0] <= u && u <= b.max[0] && b.min[1] <= v && v <= b.max[1],
                "t {}: pixel ({u}, {v}) outside {b:?}",
                f.stamp
            );
        }
        assert_eq!(b.visible_pixels as usize, labelled.len());
        assert!(b.unoccluded_pixels >= b.visible_pixels);
        if b.visible_fraction() < 0.9 {
            partly_hidden += 1;
        } else {
            assert_eq!(b.visible_pixels, b.unoccluded_pixels, "t {}", f.stamp);
        }
        // The box is tight: the labelled pixels reach within 1.5 pixels of its sides when the
        // walker is unoccluded and fully inside the image.
        if b.visible_pixels == b.unoccluded_pixels && b.min[0] > 0.0 && b.max[0] < 159.0 {
            let u_min = labelled.iter().map(|p| p.0).min().unwrap() as f64;
            let u_max = labelled.iter().map(|p| p.0).max().unwrap() as f64;
            assert!(u_min - b.min[0] < 1.5 && b.max[0] - u_max < 1.5, "{b:?}");
        }
        boxed += 1;
    }
    assert!(boxed > 20, "{boxed} frames with the walker");
    assert!(partly_hidden > 0, "the post hides part of it in some frame");
}

/// The first camera frame with primary visibility found `how`.
fn camera_with(world: &World, how: Visibility, until: f64) -> CameraFrame {
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let mut live = LiveScene::new(build_scene(world, &mut library), world).unwrap();
    let mut sim = Simulation::new(world).unwrap();
    let mut rig = Rig::new(world, 0);
    rig.set_camera_visibility(how);
    let mut last = None;
    while sim.time() < until - 1e-9 {
        sim.step();
        live.update(&sim).unwrap();
        for o in rig.step(&sim, &SceneView { built: &live.built }) {
            if let Observation::Camera(c) = o {
                last = Some(c);
            }
        }
    }
    last.unwrap()
}

#[test]
fn rasterised_and_ray_cast_frames_agree() {
    // The walking Walker with a post, a floor, and a wall cut by the near plane.
    let world = load(&format!(
        r#"<element class="horizontal_plane"><x_min>-20</x_min><x_max>20</x_max>
             <y_min>-20</y_min><y_max>20</y_max></element>
           {}
           <block name="slab"><init_pose3d>0.2 -3 0 0 0 -60</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="box" lx="0.05" ly="2" lz="2"/></block>
           <sensor class="camera" name="cam"><pose_3d>0 0 1 -90 0 -90</pose_3d>
             <clip_min>0.3</clip_min><clip_max>30</clip_max>
             <sensor_period>0.1</sensor_period><ncols>160</ncols><nrows>120</nrows>
             <cx>79.5</cx><cy>59.5</cy><fx>80</fx><fy>80</fy></sensor>"#,
        walker_and_post()
    ));
    let raster = camera_with(&world, Visibility::Raster, 2.0);
    let rays = camera_with(&world, Visibility::Rays, 2.0);
    let n = 160 * 120;
    let same = (0..n)
        .filter(|&i| raster.instance[i] == rays.instance[i])
        .count();
    assert!(same as f64 > 0.995 * n as f64, "{same} of {n} pixels agree");
    for i in (0..n).filter(|&i| raster.instance[i] == rays.instance[i] && rays.depth[i] > 0.0) {
        let (a, b) = (raster.depth[i], rays.depth[i]);
        assert!((a - b).abs() <= 1e-4 * b, "pixel {i}: {a} vs {b}");
    }
    let walker_pixels = raster.class.iter().filter(|&&c| c == 5).count();
    assert!(walker_pixels > 100, "{walker_pixels}");
    let differing_colour = (0..n)
        .filter(|&i| (0..3).any(|k| raster.rgb[3 * i + k].abs_diff(rays.rgb[3 * i + k]) > 2))
        .count();
    assert!(
        differing_colour as f64 <= 0.005 * n as f64,
        "{differing_colour}"
    );
}

#[test]
fn auto_visibility_casts_rays_only_where_the_view_is_dense() {
    // The walker's mesh alone holds more than 2 triangles for each of 16 x 12 pixels, and the
    // whole view fewer than 2 for each of 160 x 120. The two ways give different depths in
    // the last bits (interpolated against cast), so each frame tells which way made it.
    let world_of = |cols: u32, rows: u32| {
        load(&format!(
            r#"<element class="horizontal_plane"><x_min>-20</x_min><x_max>20</x_max>
                 <y_min>-20</y_min><y_max>20</y_max></element>
               {}
               <sensor class="camera" name="cam"><pose_3d>0 0 1 -90 0 -90</pose_3d>
                 <clip_min>0.3</clip_min><clip_max>30</clip_max>
                 <sensor_period>0.1</sensor_period><ncols>{cols}</ncols><nrows>{rows}</nrows>
                 <cx>{}</cx><cy>{}</cy><fx>{}</fx><fy>{}</fy></sensor>"#,
            walker_and_post(),
            (cols as f64 - 1.0) / 2.0,
            (rows as f64 - 1.0) / 2.0,
            cols / 2,
            cols / 2,
        ))
    };
    let same = |a: &CameraFrame, b: &CameraFrame| {
        a.depth
            .iter()
            .map(|d| d.to_bits())
            .eq(b.depth.iter().map(|d| d.to_bits()))
            && a.instance == b.instance
            && a.rgb == b.rgb
    };
    for (cols, rows, dense) in [(16, 12, true), (160, 120, false)] {
        let world = world_of(cols, rows);
        let auto = camera_with(&world, Visibility::Auto, 1.0);
        let raster = camera_with(&world, Visibility::Raster, 1.0);
        let rays = camera_with(&world, Visibility::Rays, 1.0);
        assert!(
            !same(&raster, &rays),
            "{cols} x {rows}: the two ways agree to the bit"
        );
        assert!(
            auto.class.contains(&5),
            "{cols} x {rows}: the walker is out of view"
        );
        let (chosen, other) = if dense {
            (&rays, &raster)
        } else {
            (&raster, &rays)
        };
        assert!(
            same(&auto, chosen) && !same(&auto, other),
            "{cols} x {rows}"
        );
    }
}

#[test]
fn rasterised_triangles_leave_no_cracks() {
    // Inside a finely tessellated sphere, every pixel sees it.
    let world = load(
        r#"<block name="dome"><init_pose3d>0 0 0 0 0 0</init_pose3d><skip_elevation_adjust/>
             <static>true</static><geometry type="sphere" radius="10" vertex_count="96"/></block>
           <sensor class="camera" name="cam"><pose_3d>0.3 0.2 0.1 -80 10 -95</pose_3d>
             <sensor_period>0.1</sensor_period><ncols>320</ncols><nrows>240</nrows>
             <cx>159.5</cx><cy>119.5</cy><fx>100</fx><fy>100</fy></sensor>"#,
    );
    let f = camera_with(&world, Visibility::Raster, 0.1);
    let holes = f.instance.iter().filter(|&&i| i == 0).count();
    assert_eq!(holes, 0, "pixels seeing through the sphere");
}

/// Writes a `side` x `side` RGB PNG of `pixel(x, y)` to `path`.
fn write_png(path: &Path, side: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) {
    let mut bytes = Vec::new();
    {
        let mut e = png::Encoder::new(&mut bytes, side, side);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        let data: Vec<u8> = (0..side * side)
            .flat_map(|i| pixel(i % side, i / side))
            .collect();
        e.write_header().unwrap().write_image_data(&data).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_sky_box_shows_each_image_where_mvsim_does() {
    // Six faces of distinct colours, but `Front`: dark on its left half, light on its right.
    let dir = scratch("sky_box");
    let faces = [
        ("Up", [200, 0, 0]),
        ("Right", [0, 200, 0]),
        ("Left", [0, 0, 200]),
        ("Down", [200, 200, 0]),
        ("Back", [0, 200, 200]),
    ];
    for (name, colour) in faces {
        write_png(&dir.join(format!("sky{name}.png")), 4, |_, _| colour);
    }
    let (dark, light) = ([20, 20, 20], [230, 230, 230]);
    write_png(&dir.join("skyFront.png"), 4, |x, _| {
        if x < 2 { dark } else { light }
    });
    // Cameras at the origin looking along +X, -Y (upright) and up, with nothing to hit.
    let camera = |name: &str, pose: &str| {
        format!(
            r#"<sensor class="camera" name="{name}"><pose_3d>{pose}</pose_3d>
                 <sensor_period>0.1</sensor_period><ncols>64</ncols><nrows>64</nrows>
                 <cx>31.5</cx><cy>31.5</cy><fx>64</fx><fy>64</fy></sensor>"#
        )
    };
    let world = load(&format!(
        r#"{FLAT_LIGHT}<element class="skybox"><textures>{}/sky%s.png</textures></element>
           {}{}{}"#,
        dir.display(),
        camera("east", "0 0 0 -90 0 -90"),
        camera("south", "0 0 0 -180 0 -90"),
        camera("up", "0 0 0 0 0 0"),
    ));
    let frames: Vec<CameraFrame> = observe(&world, 0.1)
        .into_iter()
        .filter_map(|o| match o {
            Observation::Camera(c) => Some(c),
            _ => None,
        })
        .collect();
    let frame = |name: &str| frames.iter().find(|f| f.sensor.name == name).unwrap();
    // Pixels of the columns `u` of every row.
    let pixels =
        |u: std::ops::Range<usize>| (0..64).flat_map(move |v| u.clone().map(move |u| v * 64 + u));
    let rgb = |f: &CameraFrame, p: usize| [f.rgb[3 * p], f.rgb[3 * p + 1], f.rgb[3 * p + 2]];
    // Towards +X the whole view is on `Right` (within 45 degrees of the axis), and up on `Up`.
    let east = frame("east");
    assert!(pixels(0..64).all(|p| rgb(east, p) == [0, 200, 0]));
    let up = frame("up");
    assert!(pixels(0..64).all(|p| rgb(up, p) == [200, 0, 0]));
    // Towards -Y, `Front` upright and unmirrored: its left half on the image's left. Pixel u
    // sees the face at s = (1 + (u - 31.5) / 64) / 2; between the centres of texels 1 and 2
    // (s 0.375 to 0.625, columns 16 to 47) the halves blend, the light part growing.
    let south = frame("south");
    assert!(pixels(0..16).all(|p| rgb(south, p) == dark));
    assert!(pixels(48..64).all(|p| rgb(south, p) == light));
    let row: Vec<u8> = (16..48).map(|u| rgb(south, 32 * 64 + u)[0]).collect();
    assert!(
        row.windows(2).all(|w| w[0] <= w[1]) && row[0] < row[31],
        "{row:?}"
    );
    // Nothing is hit: depth and labels stay empty.
    assert!(east.depth.iter().all(|&d| d == 0.0));
    assert!(east.instance.iter().all(|&i| i == 0));

    // A missing image: a warning, and the gradient instead.
    std::fs::remove_file(dir.join("skyDown.png")).unwrap();
    let mut library = ModelLibrary::new(Resolver::new(
        std::env::temp_dir().join("passerby-no-cache"),
    ));
    let built = build_scene(&world, &mut library);
    assert!(built.sky.is_none());
    assert!(
        built.warnings.iter().any(|w| w.contains("skyDown.png")),
        "{:?}",
        built.warnings
    );
}
