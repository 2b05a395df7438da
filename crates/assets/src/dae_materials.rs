//! Collada materials: each `<material>`'s effect (`profile_COMMON`, its first shader) gives the
//! base colour from `<diffuse><color>`; primitives name a material by symbol, bound by the
//! instance's `<bind_material>` (or, as many exporters write, by the material's own id). A
//! mesh whose primitives use several materials becomes one mesh per material, each with only
//! the vertices it uses (skin weights kept), since a [`Mesh`] has one material.
//!
//! Not read: diffuse textures (the importer keeps no texture coordinates yet); such materials
//! are white, with a warning.

use crate::model::{Material, Mesh, SkinBinding};
use dae_parser::{BindMaterial, ColorParam, Document, Effect, Profile, Shader};
use std::collections::HashMap;
use std::ops::Range;

/// Per primitive of a mesh: its material symbol and its triangles.
pub type MaterialGroups = Vec<(Option<String>, Range<usize>)>;

/// Every material of the document, and their indices by id.
pub fn read(doc: &Document, warnings: &mut Vec<String>) -> (Vec<Material>, HashMap<String, usize>) {
    let effects: HashMap<&str, &Effect> =
        doc.iter::<Effect>().map(|e| (e.id.as_str(), e)).collect();
    let mut materials = Vec::new();
    let mut ids = HashMap::new();
    let mut textured = 0;
    for m in doc.iter::<dae_parser::Material>() {
        let effect = url_fragment(&m.instance_effect.url.to_string())
            .and_then(|id| effects.get(id).copied());
        let diffuse = effect.and_then(|e| {
            e.profile.iter().find_map(|p| match p {
                Profile::Common(c) => c.technique.data.shaders.first(),
                _ => None,
            })
        });
        let colour = match diffuse.and_then(diffuse_of) {
            Some(ColorParam::Color(c)) => **c,
            Some(ColorParam::Texture(_)) => {
                textured += 1;
                [1.0; 4]
            }
            _ => [0.8, 0.8, 0.8, 1.0],
        };
        if let Some(id) = &m.id {
            ids.insert(id.clone(), materials.len());
        }
        materials.push(Material {
            name: m.name.clone().or(m.id.clone()).unwrap_or_default(),
            base_color: colour,
            texture: None,
        });
    }
    if textured > 0 {
        warnings.push(format!(
            "{textured} Collada material(s) with a diffuse texture are drawn white (Collada textures are not read yet)"
        ));
    }
    (materials, ids)
}

fn diffuse_of(shader: &Shader) -> Option<&ColorParam> {
    let d = match shader {
        Shader::Blinn(s) => s.diffuse.as_ref(),
        Shader::Lambert(s) => s.diffuse.as_ref(),
        Shader::Phong(s) => s.diffuse.as_ref(),
        Shader::Constant(s) => s.emission.as_ref(),
    };
    d.map(|w| &**w)
}

/// `#id` to `id`.
fn url_fragment(url: &str) -> Option<&str> {
    url.strip_prefix('#')
}

/// Symbol to material id, from an instance's `<bind_material>`.
pub fn bindings(bind: Option<&BindMaterial>) -> HashMap<String, String> {
    bind.map(|b| {
        b.instance_material
            .iter()
            .filter_map(|i| {
                let target = i.target.to_string();
                Some((i.symbol.clone(), url_fragment(&target)?.to_owned()))
            })
            .collect()
    })
    .unwrap_or_default()
}

/// The mesh split by material (one mesh when all its triangles share one).
pub fn split(
    mesh: Mesh,
    groups: &MaterialGroups,
    bound: &HashMap<String, String>,
    ids: &HashMap<String, usize>,
) -> Vec<Mesh> {
    let material_of = |symbol: &Option<String>| {
        let symbol = symbol.as_deref()?;
        let id = bound.get(symbol).map_or(symbol, String::as_str);
        ids.get(id).copied()
    };
    // Triangle ranges per material, in order of first use.
    let mut by_material: Vec<(Option<usize>, Vec<Range<usize>>)> = Vec::new();
    for (symbol, range) in groups {
        let m = material_of(symbol);
        match by_material.iter_mut().find(|(k, _)| *k == m) {
            Some((_, ranges)) => ranges.push(range.clone()),
            None => by_material.push((m, vec![range.clone()])),
        }
    }
    if by_material.len() <= 1 {
        let material = by_material.first().and_then(|(m, _)| *m);
        return vec![Mesh { material, ..mesh }];
    }
    by_material
        .into_iter()
        .map(|(material, ranges)| {
            let triangles: Vec<[u32; 3]> = ranges
                .iter()
                .flat_map(|r| mesh.triangles[r.clone()].iter().copied())
                .collect();
            compact(&mesh, triangles, material)
        })
        .collect()
}

/// A mesh of some of `mesh`'s triangles with only the vertices they use.
fn compact(mesh: &Mesh, triangles: Vec<[u32; 3]>, material: Option<usize>) -> Mesh {
    let mut new_index = vec![u32::MAX; mesh.positions.len()];
    let mut used = Vec::new();
    let triangles = triangles
        .into_iter()
        .map(|t| {
            t.map(|v| {
                let slot = &mut new_index[v as usize];
                if *slot == u32::MAX {
                    *slot = used.len() as u32;
                    used.push(v as usize);
                }
                *slot
            })
        })
        .collect();
    let pick = |all: &[glam::Vec3]| -> Vec<glam::Vec3> {
        if all.len() == mesh.positions.len() {
            used.iter().map(|&v| all[v]).collect()
        } else {
            Vec::new()
        }
    };
    Mesh {
        name: mesh.name.clone(),
        node: mesh.node,
        positions: pick(&mesh.positions),
        normals: pick(&mesh.normals),
        uvs: if mesh.uvs.len() == mesh.positions.len() {
            used.iter().map(|&v| mesh.uvs[v]).collect()
        } else {
            Vec::new()
        },
        triangles,
        material,
        skin: mesh.skin.as_ref().map(|s| SkinBinding {
            skin: s.skin,
            joints: used.iter().map(|&v| s.joints[v]).collect(),
            weights: used.iter().map(|&v| s.weights[v]).collect(),
        }),
    }
}
