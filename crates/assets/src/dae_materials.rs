//! Collada materials: each `<material>`'s effect (`profile_COMMON`, its first shader) gives the
//! base colour from `<diffuse><color>`; primitives name a material by symbol, bound by the
//! instance's `<bind_material>` (or, as many exporters write, by the material's own id). A
//! mesh whose primitives use several materials becomes one mesh per material, each with only
//! the vertices it uses (skin weights kept), since a [`Mesh`] has one material.
//!
//! A diffuse `<texture>` names a `sampler2D` parameter (whose `<source>` names a `surface`
//! parameter initialised from an `<image>`), or directly an `<image>` id as many exporters
//! write; the image file is read relative to the model file and decoded (PNG or JPEG).

use crate::model::{Material, Mesh, SkinBinding, Texture};
use dae_parser::{
    BindMaterial, ColorParam, Document, Effect, Image, ImageParam, ImageSource, NewParam,
    ParamType, Profile, Shader, SurfaceInit,
};
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

/// Per primitive of a mesh: its material symbol and its triangles.
pub type MaterialGroups = Vec<(Option<String>, Range<usize>)>;

/// Every material of the document (textures read relative to `model_path`), and their
/// indices by id.
pub fn read(
    doc: &Document,
    model_path: &Path,
    warnings: &mut Vec<String>,
) -> (Vec<Material>, HashMap<String, usize>) {
    let images: HashMap<&str, &Image> = doc
        .iter::<Image>()
        .filter_map(|i| Some((i.id.as_deref()?, i)))
        .collect();
    let dir = model_path.parent().unwrap_or(Path::new(""));
    let effects: HashMap<&str, &Effect> =
        doc.iter::<Effect>().map(|e| (e.id.as_str(), e)).collect();
    let mut materials = Vec::new();
    let mut ids = HashMap::new();
    let mut missing = 0;
    for m in doc.iter::<dae_parser::Material>() {
        let effect = url_fragment(&m.instance_effect.url.to_string())
            .and_then(|id| effects.get(id).copied());
        let common = effect.and_then(|e| {
            e.profile.iter().find_map(|p| match p {
                Profile::Common(c) => Some(c),
                _ => None,
            })
        });
        let diffuse = common.and_then(|c| c.technique.data.shaders.first());
        let mut texture = None;
        let colour = match diffuse.and_then(diffuse_of) {
            Some(ColorParam::Color(c)) => **c,
            Some(ColorParam::Texture(t)) => {
                // Parameters of the technique, the profile and the effect, nearest first.
                let params: Vec<&NewParam> = common
                    .map(|c| {
                        let technique =
                            c.technique.data.image_param.iter().filter_map(|p| match p {
                                ImageParam::NewParam(n) => Some(n),
                                ImageParam::Image(_) => None,
                            });
                        technique.chain(c.new_param.iter()).collect()
                    })
                    .unwrap_or_default();
                let params: Vec<&NewParam> = params
                    .into_iter()
                    .chain(effect.into_iter().flat_map(|e| e.new_param.iter()))
                    .collect();
                let file = image_of(&t.texture, &params, &images).and_then(|i| match &i.source {
                    ImageSource::InitFrom(url) => Some(url.to_string()),
                    ImageSource::Data(_) => None,
                });
                match file {
                    Some(file) => {
                        let file = file.strip_prefix("file://").unwrap_or(&file).to_owned();
                        let full = dir.join(&file);
                        let bytes = std::fs::read(&full).map_err(|e| e.to_string());
                        let found =
                            Texture::from_bytes(full.display().to_string(), bytes, warnings);
                        texture = Some(found);
                    }
                    None => missing += 1,
                }
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
            texture,
        });
    }
    if missing > 0 {
        warnings.push(format!(
            "{missing} Collada material(s) name a diffuse texture whose image file was not found in the file; drawn white"
        ));
    }
    (materials, ids)
}

/// The image a `<texture texture="…">` means: through a `sampler2D` and its `surface`
/// parameters, or an image id directly.
fn image_of<'d>(
    name: &str,
    params: &[&'d NewParam],
    images: &HashMap<&str, &'d Image>,
) -> Option<&'d Image> {
    let param = |sid: &str| params.iter().find(|p| p.sid == sid);
    if let Some(p) = param(name)
        && let ParamType::Sampler2D(sampler) = &p.ty
        && let Some(surface) = param(&sampler.source.val)
        && let ParamType::Surface(surface) = &surface.ty
        && let SurfaceInit::From { image, .. } = &surface.init
    {
        return images.get(image.val.as_str()).copied();
    }
    images.get(name).copied()
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
