//! glTF 2.0 / GLB import through the `gltf` crate.
//!
//! Buffers are resolved here (GLB binary chunk, files relative to the glTF file, base64 data
//! URIs) rather than by the crate's `import` feature, so that a missing or short buffer is a
//! clear error and images are only located, not decoded (no image codecs in the build).
//! The model keeps glTF's frame: +Y up, +Z forward, metres.

use crate::AssetError;
use crate::model::*;
use glam::{Mat4, Quat, Vec2, Vec3};
use std::path::Path;

/// Imports a `.gltf` or `.glb` file.
pub fn import(path: &Path, bytes: &[u8]) -> Result<Model, AssetError> {
    let invalid = |reason: String| AssetError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    // gltf 1.4 subtracts the header size from a GLB's declared length unchecked (an overflow
    // panic in debug builds for a length under 12, found by fuzzing): check it first, and keep
    // the parse itself behind catch_unwind like the readers below.
    if bytes.starts_with(b"glTF") && bytes.len() >= 12 {
        let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if declared < 12 + 8 || declared > bytes.len() {
            return Err(invalid(format!(
                "GLB header declares {declared} bytes; the file has {}",
                bytes.len()
            )));
        }
    }
    let parsed = std::panic::catch_unwind(|| gltf::Gltf::from_slice(bytes));
    let gltf = match parsed {
        Ok(Ok(gltf)) => gltf,
        Ok(Err(e)) => return Err(invalid(format!("not a valid glTF file: {e}"))),
        Err(_) => {
            return Err(invalid(
                "not a valid glTF file (the glTF parser failed on it)".into(),
            ));
        }
    };
    check_enumerations(gltf.as_json()).map_err(&invalid)?;
    check_accessor_types(&gltf).map_err(invalid)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    for buffer in gltf.buffers() {
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf.blob.clone().ok_or_else(|| {
                invalid("buffer refers to a GLB binary chunk that is missing".into())
            })?,
            gltf::buffer::Source::Uri(uri) => read_uri(dir, uri)
                .map_err(|reason| invalid(format!("buffer {}: {reason}", buffer.index())))?,
        };
        if data.len() < buffer.length() {
            return Err(invalid(format!(
                "buffer {} holds {} bytes but declares {}",
                buffer.index(),
                data.len(),
                buffer.length()
            )));
        }
        buffers.push(data);
    }
    // The gltf crate's readers index slices by the validated accessor ranges; the length check
    // above makes them in range. A panic inside it would still be a bug of ours or the crate's,
    // so it is turned into an error rather than allowed to abort the simulator.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        build(path, &gltf, &buffers, dir)
    }));
    result.unwrap_or_else(|_| {
        Err(invalid(
            "the glTF reader failed on this file (malformed accessors?)".into(),
        ))
    })
}

fn read_uri(dir: &Path, uri: &str) -> Result<Vec<u8>, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (meta, payload) = rest.split_once(',').ok_or("malformed data URI")?;
        if !meta.ends_with(";base64") {
            return Err("only base64 data URIs are supported".into());
        }
        return base64_decode(payload).ok_or_else(|| "invalid base64 in data URI".into());
    }
    let decoded = percent_decode(uri);
    let file = dir.join(&decoded);
    std::fs::read(&file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))
}

fn percent_decode(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let clean: Vec<u8> = s
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
        match chunk.len() {
            4 => out.extend_from_slice(&bytes),
            3 => out.extend_from_slice(&bytes[..2]),
            2 => out.push(bytes[0]),
            _ => return None,
        }
    }
    Some(out)
}

/// Checks that every enumerated JSON value the wrapper methods unwrap is a known one: the
/// `gltf` crate's validation lets some unknown values through (an unknown animation target
/// path, found by fuzzing) and then panics when they are read.
fn check_enumerations(root: &gltf::json::Root) -> Result<(), String> {
    use gltf::json::validation::Checked;
    let valid = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(format!("unknown {what}"))
        }
    };
    for a in &root.accessors {
        valid(
            matches!(a.component_type, Checked::Valid(_)) && matches!(a.type_, Checked::Valid(_)),
            "accessor type",
        )?;
    }
    for v in &root.buffer_views {
        valid(
            !matches!(v.target, Some(Checked::Invalid)),
            "buffer view target",
        )?;
    }
    for m in &root.meshes {
        for p in &m.primitives {
            valid(matches!(p.mode, Checked::Valid(_)), "primitive mode")?;
            valid(
                p.attributes.keys().all(|k| matches!(k, Checked::Valid(_))),
                "vertex attribute",
            )?;
        }
    }
    for anim in &root.animations {
        valid(
            anim.channels
                .iter()
                .all(|c| matches!(c.target.path, Checked::Valid(_))),
            "animation target path",
        )?;
        // gltf-json validates channel samplers but not channel targets (found by fuzzing).
        valid(
            anim.channels
                .iter()
                .all(|c| c.target.node.value() < root.nodes.len()),
            "animation target node",
        )?;
        valid(
            anim.samplers
                .iter()
                .all(|s| matches!(s.interpolation, Checked::Valid(_))),
            "animation interpolation",
        )?;
    }
    Ok(())
}

/// Checks that every accessor the readers will use has the type glTF prescribes for its role:
/// the `gltf` crate asserts these (a panic) rather than reporting them (found by fuzzing).
fn check_accessor_types(gltf: &gltf::Gltf) -> Result<(), String> {
    use gltf::accessor::{DataType as T, Dimensions as D};
    let check = |a: gltf::Accessor<'_>, what: &str, dims: D, types: &[T]| -> Result<(), String> {
        if a.dimensions() == dims && types.contains(&a.data_type()) {
            Ok(())
        } else {
            Err(format!(
                "{what} accessor {} is {:?} {:?}; expected {dims:?} of {types:?}",
                a.index(),
                a.dimensions(),
                a.data_type()
            ))
        }
    };
    for mesh in gltf.meshes() {
        for prim in mesh.primitives() {
            for (semantic, a) in prim.attributes() {
                match semantic {
                    gltf::Semantic::Positions => check(a, "POSITION", D::Vec3, &[T::F32])?,
                    gltf::Semantic::Normals => check(a, "NORMAL", D::Vec3, &[T::F32])?,
                    gltf::Semantic::TexCoords(_) => {
                        check(a, "TEXCOORD", D::Vec2, &[T::F32, T::U8, T::U16])?
                    }
                    gltf::Semantic::Joints(_) => check(a, "JOINTS", D::Vec4, &[T::U8, T::U16])?,
                    gltf::Semantic::Weights(_) => {
                        check(a, "WEIGHTS", D::Vec4, &[T::F32, T::U8, T::U16])?
                    }
                    _ => {}
                }
            }
            if let Some(a) = prim.indices() {
                check(a, "indices", D::Scalar, &[T::U8, T::U16, T::U32])?;
            }
        }
    }
    for skin in gltf.skins() {
        if let Some(a) = skin.inverse_bind_matrices() {
            check(a, "inverse bind matrices", D::Mat4, &[T::F32])?;
        }
    }
    for anim in gltf.animations() {
        for ch in anim.channels() {
            let sampler = ch.sampler();
            check(sampler.input(), "animation input", D::Scalar, &[T::F32])?;
            let output = sampler.output();
            match ch.target().property() {
                gltf::animation::Property::Translation | gltf::animation::Property::Scale => {
                    check(output, "animation output", D::Vec3, &[T::F32])?
                }
                gltf::animation::Property::Rotation => check(
                    output,
                    "animation output",
                    D::Vec4,
                    &[T::F32, T::I8, T::U8, T::I16, T::U16],
                )?,
                gltf::animation::Property::MorphTargetWeights => {}
            }
        }
    }
    Ok(())
}

/// `buffers`, as the readers of accessors want them.
fn buffer_getter<'a>(
    buffers: &'a [Vec<u8>],
) -> impl Copy + Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> {
    move |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice)
}

/// A glTF document being read into a [`Model`], with the warnings gathered on the way.
struct Reading<'a> {
    path: &'a Path,
    gltf: &'a gltf::Gltf,
    buffers: &'a [Vec<u8>],
    dir: &'a Path,
    warnings: Vec<String>,
}

fn build(
    path: &Path,
    gltf: &gltf::Gltf,
    buffers: &[Vec<u8>],
    dir: &Path,
) -> Result<Model, AssetError> {
    let mut r = Reading {
        path,
        gltf,
        buffers,
        dir,
        warnings: Vec::new(),
    };
    let (nodes, eval_order) = r.nodes()?;
    let materials = r.materials();
    let skins = r.skins()?;
    let meshes = r.meshes(&skins)?;
    let clips = r.clips()?;
    let warnings = r.warnings;
    Ok(Model {
        source: path.to_path_buf(),
        frame: ModelFrame {
            description: "glTF: +Y up, +Z front, right-handed, metres".into(),
            right: Vec3::X,
            up: Vec3::Y,
            front: Vec3::Z,
            metres_per_unit: 1.0,
            assimp_from_file: Mat4::IDENTITY,
        },
        nodes,
        eval_order,
        meshes,
        skins,
        clips,
        materials,
        lines: Vec::new(),
        warnings,
    })
}

impl Reading<'_> {
    fn invalid(&self, reason: String) -> AssetError {
        AssetError::Invalid {
            path: self.path.to_path_buf(),
            reason,
        }
    }

    /// Nodes and the hierarchy: each node's parent, and an order with parents first.
    fn nodes(&mut self) -> Result<(Vec<Node>, Vec<usize>), AssetError> {
        // Nodes and the hierarchy.
        let mut nodes: Vec<Node> = self
            .gltf
            .nodes()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                Node {
                    name: n
                        .name()
                        .map_or_else(|| format!("node_{}", n.index()), str::to_owned),
                    parent: None,
                    rest: Trs {
                        translation: Vec3::from(t),
                        rotation: Quat::from_array(r).normalize(),
                        scale: Vec3::from(s),
                    },
                }
            })
            .collect();
        for n in self.gltf.nodes() {
            for c in n.children() {
                if nodes[c.index()].parent.is_some() {
                    return Err(self.invalid(format!("node {} has two parents", c.index())));
                }
                nodes[c.index()].parent = Some(n.index());
            }
        }
        let eval_order = parents_first(&nodes)
            .ok_or_else(|| self.invalid("the node hierarchy has a cycle".into()))?;
        Ok((nodes, eval_order))
    }

    fn materials(&mut self) -> Vec<Material> {
        // Materials, with their base colour textures decoded.
        let mut materials = Vec::new();
        for m in self.gltf.materials() {
            let pbr = m.pbr_metallic_roughness();
            let texture = pbr.base_color_texture().map(|info| {
                let image = info.texture().source();
                match image.source() {
                    gltf::image::Source::View { view, .. } => {
                        let bytes = self
                            .buffers
                            .get(view.buffer().index())
                            .and_then(|b| b.get(view.offset()..view.offset() + view.length()))
                            .map(<[u8]>::to_vec)
                            .ok_or_else(|| "its buffer view is out of range".to_owned());
                        Texture::from_bytes(
                            format!("embedded #{}", image.index()),
                            bytes,
                            &mut self.warnings,
                        )
                    }
                    gltf::image::Source::Uri { uri, .. } => {
                        let source = if uri.starts_with("data:") {
                            "data URI".to_owned()
                        } else {
                            self.dir.join(percent_decode(uri)).display().to_string()
                        };
                        Texture::from_bytes(source, read_uri(self.dir, uri), &mut self.warnings)
                    }
                }
            });
            materials.push(Material {
                name: m.name().map_or_else(
                    || format!("material_{}", m.index().unwrap_or(0)),
                    str::to_owned,
                ),
                base_color: pbr.base_color_factor(),
                texture,
            });
        }
        materials
    }

    fn skins(&mut self) -> Result<Vec<Skin>, AssetError> {
        let get = buffer_getter(self.buffers);
        // Skins.
        let mut skins = Vec::new();
        for skin in self.gltf.skins() {
            let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
            let reader = skin.reader(get);
            let inverse_bind: Vec<Mat4> = match reader.read_inverse_bind_matrices() {
                Some(m) => m.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
                None => vec![Mat4::IDENTITY; joints.len()],
            };
            if inverse_bind.len() < joints.len() {
                return Err(self.invalid(format!(
                    "skin {} has {} joints but {} inverse bind matrices",
                    skin.index(),
                    joints.len(),
                    inverse_bind.len()
                )));
            }
            skins.push(Skin {
                name: skin
                    .name()
                    .map_or_else(|| format!("skin_{}", skin.index()), str::to_owned),
                joints,
                inverse_bind,
            });
        }
        Ok(skins)
    }

    fn meshes(&mut self, skins: &[Skin]) -> Result<Vec<Mesh>, AssetError> {
        let get = buffer_getter(self.buffers);
        // Meshes: one per primitive, placed by every node that instantiates the glTF mesh.
        let mut meshes = Vec::new();
        let mut renormalized = 0usize;
        for node in self.gltf.nodes() {
            let Some(mesh) = node.mesh() else { continue };
            for (pi, prim) in mesh.primitives().enumerate() {
                if prim.mode() != gltf::mesh::Mode::Triangles {
                    self.warnings.push(format!(
                        "mesh {} primitive {pi}: mode {:?} skipped (only triangles are used)",
                        mesh.index(),
                        prim.mode()
                    ));
                    continue;
                }
                let reader = prim.reader(get);
                let positions: Vec<Vec3> = reader
                    .read_positions()
                    .map(|p| p.map(Vec3::from).collect())
                    .unwrap_or_default();
                let count = positions.len();
                let normals: Vec<Vec3> = reader
                    .read_normals()
                    .map(|p| p.map(Vec3::from).collect())
                    .unwrap_or_default();
                let uvs: Vec<Vec2> = reader
                    .read_tex_coords(0)
                    .map(|t| t.into_f32().map(Vec2::from).collect())
                    .unwrap_or_default();
                let indices: Vec<u32> = match reader.read_indices() {
                    Some(i) => i.into_u32().collect(),
                    None => (0..count as u32).collect(),
                };
                if let Some(&bad) = indices.iter().find(|&&i| i as usize >= count) {
                    return Err(self.invalid(format!(
                        "mesh {} uses vertex {bad} of {count}",
                        mesh.index()
                    )));
                }
                let triangles: Vec<[u32; 3]> = indices
                    .chunks_exact(3)
                    .map(|t| [t[0], t[1], t[2]])
                    .collect();
                let skin = match node.skin() {
                    Some(skin) => {
                        let n_joints = skins[skin.index()].joints.len();
                        let (joints, weights, fixed) = read_influences(&reader, count, n_joints)
                            .map_err(|reason| {
                                self.invalid(format!("mesh {}: {reason}", mesh.index()))
                            })?;
                        renormalized += fixed;
                        Some(SkinBinding {
                            skin: skin.index(),
                            joints,
                            weights,
                        })
                    }
                    None => None,
                };
                let name = match mesh.name() {
                    Some(n) if mesh.primitives().len() > 1 => format!("{n}.{pi}"),
                    Some(n) => n.to_owned(),
                    None => format!("mesh_{}.{pi}", mesh.index()),
                };
                meshes.push(Mesh {
                    name,
                    node: node.index(),
                    positions,
                    normals,
                    uvs,
                    triangles,
                    material: prim.material().index(),
                    skin,
                });
            }
        }
        if renormalized > 0 {
            self.warnings.push(format!("{renormalized} vertices had skin weights not summing to 1 (or more than 4 influences); renormalized"));
        }
        Ok(meshes)
    }

    fn clips(&mut self) -> Result<Vec<Clip>, AssetError> {
        let get = buffer_getter(self.buffers);
        // Clips.
        let mut clips = Vec::new();
        for anim in self.gltf.animations() {
            let mut channels = Vec::new();
            for ch in anim.channels() {
                let reader = ch.reader(get);
                let property = match ch.target().property() {
                    gltf::animation::Property::Translation => Property::Translation,
                    gltf::animation::Property::Rotation => Property::Rotation,
                    gltf::animation::Property::Scale => Property::Scale,
                    gltf::animation::Property::MorphTargetWeights => {
                        self.warnings.push(format!(
                            "animation {}: morph target weights are not supported; channel skipped",
                            anim.index()
                        ));
                        continue;
                    }
                };
                let interpolation = match ch.sampler().interpolation() {
                    gltf::animation::Interpolation::Step => Interpolation::Step,
                    gltf::animation::Interpolation::Linear => Interpolation::Linear,
                    gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
                };
                let times: Vec<f32> = reader
                    .read_inputs()
                    .map(|i| i.collect())
                    .unwrap_or_default();
                let values: Vec<f32> = match reader.read_outputs() {
                    Some(gltf::animation::util::ReadOutputs::Translations(v)) => {
                        v.flatten().collect()
                    }
                    Some(gltf::animation::util::ReadOutputs::Scales(v)) => v.flatten().collect(),
                    Some(gltf::animation::util::ReadOutputs::Rotations(v)) => {
                        v.into_f32().flatten().collect()
                    }
                    _ => Vec::new(),
                };
                let width = if property == Property::Rotation { 4 } else { 3 };
                let per_key = if interpolation == Interpolation::CubicSpline {
                    3 * width
                } else {
                    width
                };
                if times.is_empty() || values.len() != times.len() * per_key {
                    return Err(self.invalid(format!(
                        "animation {} channel: {} keys but {} values",
                        anim.index(),
                        times.len(),
                        values.len()
                    )));
                }
                if times.windows(2).any(|w| w[1] <= w[0]) || times.iter().any(|t| !t.is_finite()) {
                    return Err(self.invalid(format!(
                        "animation {} channel: key times must increase",
                        anim.index()
                    )));
                }
                channels.push(Channel {
                    node: ch.target().node().index(),
                    property,
                    interpolation,
                    times,
                    values,
                });
            }
            let duration = channels
                .iter()
                .filter_map(|c| c.times.last().copied())
                .fold(0.0f32, f32::max);
            let name = anim
                .name()
                .map_or_else(|| format!("animation_{}", anim.index()), str::to_owned);
            clips.push((
                anim.name().is_none(),
                Clip {
                    name,
                    duration,
                    channels,
                },
            ));
        }
        // Files that split one clip into one unnamed animation per joint can play them together.
        let unnamed: Vec<&Clip> = clips.iter().filter(|(u, _)| *u).map(|(_, c)| c).collect();
        let combined = (unnamed.len() > 1).then(|| Clip {
            name: ALL_UNNAMED.to_owned(),
            duration: unnamed.iter().map(|c| c.duration).fold(0.0, f32::max),
            channels: unnamed
                .iter()
                .flat_map(|c| c.channels.iter().cloned())
                .collect(),
        });
        let mut clips: Vec<Clip> = clips.into_iter().map(|(_, c)| c).collect();
        clips.extend(combined);
        Ok(clips)
    }
}

/// Name of the clip that plays every unnamed animation of a file together.
pub const ALL_UNNAMED: &str = "all_unnamed";

type Influences = (Vec<[u16; 4]>, Vec<[f32; 4]>, usize);

/// Reads JOINTS_n/WEIGHTS_n, keeps the 4 largest influences and makes weights sum to 1.
fn read_influences<'a, 's, F>(
    reader: &gltf::mesh::Reader<'a, 's, F>,
    count: usize,
    n_joints: usize,
) -> Result<Influences, String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let mut all: Vec<Vec<(u16, f32)>> = vec![Vec::new(); count];
    let mut set = 0;
    while let (Some(j), Some(w)) = (reader.read_joints(set), reader.read_weights(set)) {
        let joints: Vec<[u16; 4]> = j.into_u16().collect();
        let weights: Vec<[f32; 4]> = w.into_f32().collect();
        if joints.len() != count || weights.len() != count {
            return Err(format!(
                "JOINTS_{set}/WEIGHTS_{set} do not have one entry per vertex"
            ));
        }
        for (v, (js, ws)) in joints.iter().zip(&weights).enumerate() {
            for k in 0..4 {
                if ws[k] > 0.0 {
                    if js[k] as usize >= n_joints {
                        return Err(format!(
                            "vertex {v} refers to joint {} of {n_joints}",
                            js[k]
                        ));
                    }
                    all[v].push((js[k], ws[k]));
                }
            }
        }
        set += 1;
    }
    if set == 0 {
        return Err("a skinned mesh without JOINTS_0/WEIGHTS_0".into());
    }
    Ok(top_four(all))
}

/// Keeps each vertex's four largest influences and makes its weights sum to 1; returns the
/// per-vertex joints and weights and how many vertices needed fixing.
pub(crate) fn top_four(all: Vec<Vec<(u16, f32)>>) -> Influences {
    let mut joints = Vec::with_capacity(all.len());
    let mut weights = Vec::with_capacity(all.len());
    let mut fixed = 0;
    for mut infl in all {
        infl.sort_by(|a, b| b.1.total_cmp(&a.1));
        let too_many = infl.len() > 4;
        infl.truncate(4);
        let sum: f32 = infl.iter().map(|i| i.1).sum();
        let (mut js, mut ws) = ([0u16; 4], [0f32; 4]);
        for (k, (j, w)) in infl.iter().enumerate() {
            js[k] = *j;
            ws[k] = if sum > 0.0 { w / sum } else { 0.0 };
        }
        if too_many || (sum - 1.0).abs() > 1e-3 {
            fixed += 1;
        }
        joints.push(js);
        weights.push(ws);
    }
    (joints, weights, fixed)
}

/// Node indices ordered parents first; `None` if the parent links form a cycle.
pub(crate) fn parents_first(nodes: &[Node]) -> Option<Vec<usize>> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            children.get_mut(p)?.push(i);
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].parent.is_none())
        .rev()
        .collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    (order.len() == nodes.len()).then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_percent_decoding() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8gd29ybGQ").unwrap(), b"hello world");
        assert!(base64_decode("a$==").is_none());
        assert_eq!(percent_decode("my%20file.bin"), "my file.bin");
        assert_eq!(percent_decode("bad%zz"), "bad%zz");
        assert_eq!(percent_decode("end%2"), "end%2");
    }
}
