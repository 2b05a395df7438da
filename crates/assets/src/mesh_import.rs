//! Static meshes: Wavefront OBJ + MTL (through `tobj`) and STL (ASCII and binary, ours).
//!
//! Neither format defines axes or units; the model keeps the coordinates as stored, which is
//! also how assimp (and so MVSim) presents them.

use crate::AssetError;
use crate::model::*;
use glam::{Mat4, Vec2, Vec3};
use std::collections::HashMap;
use std::path::Path;

fn as_stored(format: &str) -> ModelFrame {
    ModelFrame {
        description: format!(
            "{format} as stored (the format defines no axes or units; read as is)"
        ),
        right: Vec3::X,
        up: Vec3::Y,
        front: Vec3::Z,
        metres_per_unit: 1.0,
        assimp_from_file: Mat4::IDENTITY,
    }
}

fn single_node_model(
    path: &Path,
    frame: ModelFrame,
    meshes: Vec<Mesh>,
    materials: Vec<Material>,
    warnings: Vec<String>,
) -> Model {
    Model {
        source: path.to_path_buf(),
        frame,
        nodes: vec![Node {
            name: "root".into(),
            parent: None,
            rest: Trs::default(),
        }],
        eval_order: vec![0],
        meshes,
        skins: Vec::new(),
        clips: Vec::new(),
        materials,
        lines: Vec::new(),
        warnings,
    }
}

/// The MTL text without `Ka`/`Kd`/`Ks`/`Ke`/`Tf` lines naming a spectral reflectance file
/// (`Kd spectral olive.spec`, which MAVS writes next to the RGB line and tobj cannot parse);
/// whether any were dropped.
fn without_spectral_colours(mtl: &str) -> (String, bool) {
    let mut dropped = false;
    let kept: Vec<&str> = mtl
        .lines()
        .filter(|line| {
            let mut words = line.split_whitespace();
            let spectral = matches!(words.next(), Some("Ka" | "Kd" | "Ks" | "Ke" | "Tf"))
                && words.next() == Some("spectral");
            dropped |= spectral;
            !spectral
        })
        .collect();
    (kept.join("\n"), dropped)
}

/// Imports an OBJ file and the MTL files it names.
pub fn import_obj(path: &Path, bytes: &[u8]) -> Result<Model, AssetError> {
    let invalid = |reason: String| AssetError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ..Default::default()
    };
    let mut reader = std::io::BufReader::new(bytes);
    let spectral = std::cell::Cell::new(false);
    let (models, materials) = tobj::load_obj_buf(&mut reader, &options, |mtl| {
        let text =
            std::fs::read_to_string(dir.join(mtl)).map_err(|_| tobj::LoadError::OpenFileFailed)?;
        let (text, dropped) = without_spectral_colours(&text);
        spectral.set(spectral.get() || dropped);
        tobj::load_mtl_buf(&mut text.as_bytes())
    })
    .map_err(|e| invalid(format!("not a readable OBJ file: {e}")))?;
    let mut warnings = Vec::new();
    if spectral.get() {
        warnings.push(
            "spectral colours (`Kd spectral file`, a MAVS extension) ignored; the RGB ones are used".into(),
        );
    }
    let materials = match materials {
        Ok(m) => m,
        Err(e) => {
            warnings.push(format!("materials not loaded: {e}"));
            Vec::new()
        }
    };
    let materials: Vec<Material> = materials
        .iter()
        .map(|m| {
            let [r, g, b] = m.diffuse.unwrap_or([0.8, 0.8, 0.8]);
            let texture = m.diffuse_texture.as_ref().map(|t| {
                let file = dir.join(t);
                let bytes = std::fs::read(&file).map_err(|e| e.to_string());
                Texture::from_bytes(file.display().to_string(), bytes, &mut warnings)
            });
            Material {
                name: m.name.clone(),
                base_color: [r, g, b, m.dissolve.unwrap_or(1.0)],
                texture,
            }
        })
        .collect();
    let mut meshes = Vec::new();
    for m in models {
        let positions: Vec<Vec3> = m
            .mesh
            .positions
            .chunks_exact(3)
            .map(Vec3::from_slice)
            .collect();
        let normals: Vec<Vec3> = m
            .mesh
            .normals
            .chunks_exact(3)
            .map(Vec3::from_slice)
            .collect();
        let uvs: Vec<Vec2> = m
            .mesh
            .texcoords
            .chunks_exact(2)
            // OBJ's v grows upwards from the image's bottom; the model's from its top (glTF).
            .map(|t| Vec2::new(t[0], 1.0 - t[1]))
            .collect();
        if let Some(&bad) = m
            .mesh
            .indices
            .iter()
            .find(|&&i| i as usize >= positions.len())
        {
            return Err(invalid(format!(
                "object `{}` uses vertex {bad} of {}",
                m.name,
                positions.len()
            )));
        }
        let triangles = m
            .mesh
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect();
        let material = m.mesh.material_id.filter(|&i| i < materials.len());
        let normals = if normals.len() == positions.len() {
            normals
        } else {
            Vec::new()
        };
        let uvs = if uvs.len() == positions.len() {
            uvs
        } else {
            Vec::new()
        };
        meshes.push(Mesh {
            name: m.name,
            node: 0,
            positions,
            normals,
            uvs,
            triangles,
            material,
            skin: None,
        });
    }
    Ok(single_node_model(
        path,
        as_stored("OBJ"),
        meshes,
        materials,
        warnings,
    ))
}

/// Imports an STL file, binary or ASCII; identical corner positions share one vertex.
pub fn import_stl(path: &Path, bytes: &[u8]) -> Result<Model, AssetError> {
    let invalid = |reason: String| AssetError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    let corners = if is_binary_stl(bytes) {
        binary_corners(bytes)
    } else {
        ascii_corners(bytes)
    }
    .map_err(invalid)?;
    let mut index: HashMap<[u32; 3], u32> = HashMap::new();
    let mut positions = Vec::new();
    let mut triangles = Vec::with_capacity(corners.len() / 3);
    for tri in corners.chunks_exact(3) {
        let mut t = [0u32; 3];
        for (k, p) in tri.iter().enumerate() {
            let key = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
            t[k] = *index.entry(key).or_insert_with(|| {
                positions.push(*p);
                positions.len() as u32 - 1
            });
        }
        triangles.push(t);
    }
    let name = path
        .file_stem()
        .map_or("stl".into(), |s| s.to_string_lossy().into_owned());
    let mesh = Mesh {
        name,
        node: 0,
        positions,
        normals: Vec::new(),
        uvs: Vec::new(),
        triangles,
        material: None,
        skin: None,
    };
    Ok(single_node_model(
        path,
        as_stored("STL"),
        vec![mesh],
        Vec::new(),
        Vec::new(),
    ))
}

/// Binary STL has an exact size (84 + 50 per triangle); many binary files also begin with
/// "solid", so the size decides.
fn is_binary_stl(bytes: &[u8]) -> bool {
    if bytes.len() < 84 {
        return false;
    }
    let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64;
    84 + 50 * n == bytes.len() as u64 || !bytes.trim_ascii_start().starts_with(b"solid")
}

fn binary_corners(bytes: &[u8]) -> Result<Vec<Vec3>, String> {
    let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
    if bytes.len() < 84 + 50 * n {
        return Err(format!(
            "binary STL declares {n} triangles but has room for {}",
            (bytes.len() - 84) / 50
        ));
    }
    let f = |o: usize| f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let mut out = Vec::with_capacity(3 * n);
    for t in 0..n {
        let base = 84 + 50 * t + 12; // skip the facet normal
        for k in 0..3 {
            let o = base + 12 * k;
            out.push(Vec3::new(f(o), f(o + 4), f(o + 8)));
        }
    }
    if out.iter().any(|p| !p.is_finite()) {
        return Err("binary STL has non-finite coordinates".into());
    }
    Ok(out)
}

fn ascii_corners(bytes: &[u8]) -> Result<Vec<Vec3>, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| "neither a binary STL (wrong size) nor ASCII text".to_owned())?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() != Some("vertex") {
            continue;
        }
        let v: Vec<f32> = words
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| format!("line {}: expected `vertex x y z`", n + 1))?;
        if v.len() != 3 || v.iter().any(|c| !c.is_finite()) {
            return Err(format!("line {}: expected `vertex x y z`", n + 1));
        }
        out.push(Vec3::new(v[0], v[1], v[2]));
    }
    if out.len() % 3 != 0 {
        return Err(format!(
            "{} vertices is not a whole number of triangles",
            out.len()
        ));
    }
    if out.is_empty() {
        return Err("no `vertex` lines: not an STL file".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(triangles: &[[f32; 9]]) -> Vec<u8> {
        let mut b = b"solid but actually binary".to_vec();
        b.resize(80, 0);
        b.extend((triangles.len() as u32).to_le_bytes());
        for t in triangles {
            b.extend([0u8; 12]);
            for c in t {
                b.extend(c.to_le_bytes());
            }
            b.extend([0u8; 2]);
        }
        b
    }

    #[test]
    fn binary_and_ascii_stl_give_the_same_mesh() {
        let tris = [
            [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        ];
        let b = import_stl(Path::new("b.stl"), &binary(&tris)).unwrap();
        let ascii = "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n endfacet\n facet normal 0 0 1\n  outer loop\n   vertex 1 0 0\n   vertex 1 1 0\n   vertex 0 1 0\n  endloop\n endfacet\nendsolid x\n";
        let a = import_stl(Path::new("a.stl"), ascii.as_bytes()).unwrap();
        for m in [&a, &b] {
            assert_eq!(
                (m.vertex_count(), m.triangle_count()),
                (4, 2),
                "shared corners are one vertex"
            );
        }
        assert_eq!(a.meshes[0].positions, b.meshes[0].positions);
        assert_eq!(a.meshes[0].triangles, b.meshes[0].triangles);
    }

    #[test]
    fn broken_stl_files_are_errors() {
        let mut truncated = binary(&[[0.0; 9]; 4]);
        truncated.truncate(150);
        truncated[0] = b'x';
        assert!(import_stl(Path::new("t.stl"), &truncated).is_err());
        assert!(import_stl(Path::new("e.stl"), b"solid x\nendsolid\n").is_err());
        assert!(import_stl(Path::new("v.stl"), b"solid x\nvertex 1 2\n").is_err());
        assert!(import_stl(Path::new("n.stl"), b"solid x\nvertex 1 2 3\nvertex 1 2 3\n").is_err());
    }

    #[test]
    fn mavs_spectral_colour_lines_do_not_lose_the_material() {
        let (text, dropped) = without_spectral_colours(
            "newmtl c\n  Kd spectral spectra/paint.spec\n  Kd 1.0 0.5 0.0\n",
        );
        assert!(dropped);
        assert_eq!(text, "newmtl c\n  Kd 1.0 0.5 0.0");
        let cylinder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/scenes/mavs/scenes/meshes/misc/cylinder.obj");
        let model = crate::load_model(&cylinder).unwrap();
        let colour = model.materials[0].base_color;
        assert_eq!(colour, [1.0, 0.4745, 0.0, 1.0]);
        assert!(model.warnings.iter().any(|w| w.contains("spectral")));
    }
}
