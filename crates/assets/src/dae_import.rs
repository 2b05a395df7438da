//! Collada 1.4 import through `dae-parser` (a typed DOM; evaluation is ours).
//!
//! Frame: the file's `<up_axis>` and `<unit meter>` are kept and stated in [`Model::frame`]
//! (Z_UP: right +X, up +Z, front −Y; Y_UP: right +X, up +Y, front +Z; X_UP: right −Y, up +X,
//! front +Z). Matrices are read row-major, as the Collada specification writes them.
//!
//! Nodes: every `<node>` of the instantiated visual scene; the rest transform is the product of
//! its transform elements in document order. Meshes: one per `<instance_geometry>` or
//! `<instance_controller>` and material, with a vertex per `POSITION` entry (control point) and
//! texture coordinate, skin weights read per control point, polygons fan-triangulated. Skins: `bind_shape_matrix` is
//! applied to the vertices at import; joints are resolved by `sid` (then id, then name).
//! Animations: every channel (nested `<animation>`s included) that targets a node's transform
//! element is evaluated at the union of its node's key times, and the node's recomposed
//! transform is decomposed into linear translation/rotation/scale keys. Without
//! `<library_animation_clips>` all animations form one clip named after the top-level
//! `<animation>` (or `animation` when there are several). Meshes: `dae_mesh.rs`; materials:
//! `dae_materials.rs`.

use crate::AssetError;
use crate::dae_materials;
use crate::dae_mesh::{read_lines, read_mesh};
use crate::dae_values::{floats, index_stride, url_id};
use crate::model::*;
use dae_parser::{
    Animation, ArrayElement, ControlElement, Controller, Document, Geometry, Semantic, Source,
    Transform, VisualScene,
};
use glam::{Mat4, Quat, Vec3};
use std::collections::HashMap;
use std::path::Path;

/// A Collada matrix (16 numbers, row-major) as a glam matrix.
fn row_major(m: &[f32]) -> Mat4 {
    let mut a = [0.0f32; 16];
    a.copy_from_slice(&m[..16]);
    Mat4::from_cols_array(&a).transpose()
}

fn names(source: &Source) -> Option<Vec<String>> {
    match source.array.as_ref()? {
        ArrayElement::Name(n) => Some(n.val.to_vec()),
        ArrayElement::IdRef(n) => Some(n.val.to_vec()),
        _ => None,
    }
}

/// Rejects declared element counts that cannot be true: `dae-parser` reserves memory for an
/// array's `count` before reading it, so `count="94221230472"` aborted the process (found by
/// fuzzing). No array has more elements than its file has bytes.
fn check_declared_counts(bytes: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(bytes);
    let mut rest = text.as_ref();
    while let Some(i) = rest.find("count=") {
        let after = &rest[i + 6..];
        let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'');
        let digits: String = after
            .chars()
            .skip(quote.map_or(0, |_| 1))
            .take_while(|c| c.is_ascii_digit() || c.is_whitespace())
            .collect();
        if let Ok(n) = digits.trim().parse::<u128>()
            && n > bytes.len() as u128
        {
            return Err(format!(
                "declares {n} elements in a file of {} bytes",
                bytes.len()
            ));
        }
        rest = after;
    }
    Ok(())
}

/// Imports a `.dae` file.
pub fn import(path: &Path, bytes: &[u8]) -> Result<Model, AssetError> {
    let invalid = |reason: String| AssetError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    check_declared_counts(bytes).map_err(|e| AssetError::Invalid {
        path: path.to_path_buf(),
        reason: e,
    })?;
    let doc = Document::try_from(bytes)
        .map_err(|e| invalid(format!("not a readable Collada 1.4.1 file: {e:?}")))?;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build(path, &doc)));
    result.unwrap_or_else(|_| Err(invalid("the Collada reader failed on this file".into())))
}

struct Builder<'d> {
    nodes: Vec<Node>,
    /// Per node: its transform elements (for animation) and its Collada id and sid.
    transforms: Vec<&'d [Transform]>,
    ids: Vec<Option<&'d str>>,
    sids: Vec<Option<&'d str>>,
    instances: Vec<(usize, &'d dae_parser::Node)>,
    /// `<library_nodes>` by id, for `<instance_node>`.
    library_nodes: HashMap<&'d str, &'d dae_parser::Node>,
}

fn compose(transforms: &[Transform]) -> Mat4 {
    transforms
        .iter()
        .fold(Mat4::IDENTITY, |m, t| m * transform_matrix(t))
}

fn transform_matrix(t: &Transform) -> Mat4 {
    match t {
        Transform::Matrix(m) => row_major(&m.0[..]),
        Transform::Translate(v) => Mat4::from_translation(Vec3::new(v.0[0], v.0[1], v.0[2])),
        Transform::Scale(v) => Mat4::from_scale(Vec3::new(v.0[0], v.0[1], v.0[2])),
        Transform::Rotate(r) => {
            let axis = Vec3::new(r.0[0], r.0[1], r.0[2]);
            if axis.length_squared() > 0.0 {
                Mat4::from_axis_angle(axis.normalize(), r.0[3].to_radians())
            } else {
                Mat4::IDENTITY
            }
        }
        // LookAt and Skew are rare in models; treated as identity (with a warning upstream).
        _ => Mat4::IDENTITY,
    }
}

fn trs(m: Mat4) -> Trs {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    Trs {
        translation,
        rotation: rotation.normalize(),
        scale,
    }
}

impl<'d> Builder<'d> {
    fn add(&mut self, node: &'d dae_parser::Node, parent: Option<usize>, depth: usize) {
        // `<instance_node>` can refer back to an ancestor; no real model nests this deep.
        if depth > 64 {
            return;
        }
        let index = self.nodes.len();
        let name = node
            .name
            .clone()
            .or_else(|| node.id.clone())
            .or_else(|| node.sid.clone())
            .unwrap_or_else(|| format!("node_{index}"));
        self.nodes.push(Node {
            name,
            parent,
            rest: trs(compose(&node.transforms)),
        });
        self.transforms.push(&node.transforms);
        self.ids.push(node.id.as_deref());
        self.sids.push(node.sid.as_deref());
        self.instances.push((index, node));
        for child in &node.children {
            self.add(child, Some(index), depth + 1);
        }
        for inst in &node.instance_node {
            if let Some(target) =
                url_id(&inst.url.val).and_then(|id| self.library_nodes.get(id).copied())
            {
                self.add(target, Some(index), depth + 1);
            }
        }
    }

    /// `model_from_node` of node `index` at rest: its ancestors' transforms and its own.
    fn rest_world(&self, index: usize) -> Mat4 {
        let mut world = Mat4::IDENTITY;
        let mut at = Some(index);
        // Parents come before children in `nodes`, so the walk ends.
        while let Some(i) = at {
            world = compose(self.transforms[i]) * world;
            at = self.nodes[i].parent;
        }
        world
    }

    /// The node a joint name refers to: by sid, then id, then name.
    fn find_joint(&self, name: &str) -> Option<usize> {
        (0..self.nodes.len())
            .find(|&i| self.sids[i] == Some(name))
            .or_else(|| (0..self.nodes.len()).find(|&i| self.ids[i] == Some(name)))
            .or_else(|| self.nodes.iter().position(|n| n.name == name))
    }
}

fn build(path: &Path, doc: &Document) -> Result<Model, AssetError> {
    let invalid = |reason: String| AssetError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    let mut warnings = Vec::new();
    let geometries: HashMap<&str, &Geometry> = doc
        .iter::<Geometry>()
        .filter_map(|g| Some((g.id.as_deref()?, g)))
        .collect();
    let controllers: HashMap<&str, &Controller> = doc
        .iter::<Controller>()
        .filter_map(|c| Some((c.id.as_deref()?, c)))
        .collect();
    let scenes: Vec<&VisualScene> = doc.iter::<VisualScene>().collect();
    let scene = doc
        .scene
        .as_ref()
        .and_then(|s| s.instance_visual_scene.as_ref())
        .and_then(|i| url_id(&i.url.val))
        .and_then(|id| scenes.iter().find(|s| s.id.as_deref() == Some(id)))
        .or(scenes.first())
        .ok_or_else(|| invalid("no visual scene".into()))?;

    let mut b = Builder {
        nodes: Vec::new(),
        transforms: Vec::new(),
        ids: Vec::new(),
        sids: Vec::new(),
        instances: Vec::new(),
        library_nodes: doc
            .iter::<dae_parser::Node>()
            .filter_map(|n| Some((n.id.as_deref()?, n)))
            .collect(),
    };
    for node in &scene.nodes {
        b.add(node, None, 0);
    }
    if b.transforms.iter().any(|ts| {
        ts.iter()
            .any(|t| matches!(t, Transform::LookAt(_) | Transform::Skew(_)))
    }) {
        warnings.push("<lookat> and <skew> transforms are ignored".into());
    }

    let (materials, material_ids) = dae_materials::read(doc, path, &mut warnings);
    let mut meshes = Vec::new();
    let mut skins = Vec::new();
    let mut lines = Vec::new();
    let instances = b.instances.clone();
    for (node_index, node) in instances {
        for inst in &node.instance_geometry {
            let Some(geometry) = url_id(&inst.url.val).and_then(|id| geometries.get(id)) else {
                warnings.push(format!(
                    "node `{}`: geometry {:?} not found",
                    b.nodes[node_index].name, inst.url.val
                ));
                continue;
            };
            if let Some((mesh, groups, _)) = read_mesh(geometry, node_index).map_err(&invalid)? {
                let bound = dae_materials::bindings(inst.data.bind_material.as_ref());
                meshes.extend(dae_materials::split(mesh, &groups, &bound, &material_ids));
            }
            let segments = read_lines(geometry).map_err(&invalid)?;
            if !segments.is_empty() {
                lines.push(LineSet {
                    node: node_index,
                    segments,
                });
            }
        }
        for inst in &node.instance_controller {
            let Some(controller) = url_id(&inst.url.val).and_then(|id| controllers.get(id)) else {
                warnings.push(format!(
                    "node `{}`: controller {:?} not found",
                    b.nodes[node_index].name, inst.url.val
                ));
                continue;
            };
            let ControlElement::Skin(skin) = &controller.element else {
                warnings.push(format!(
                    "controller `{}`: morph targets are not supported",
                    controller.id.as_deref().unwrap_or("?")
                ));
                continue;
            };
            let name = (controller.name.clone())
                .or(controller.id.clone())
                .unwrap_or_default();
            let geometry = (&geometries, node_index, skins.len());
            let Some((mesh, groups, skin)) =
                read_skinned(&b, skin, geometry, name, &mut warnings).map_err(&invalid)?
            else {
                continue;
            };
            skins.push(skin);
            let bound = dae_materials::bindings(inst.data.bind_material.as_ref());
            meshes.extend(dae_materials::split(mesh, &groups, &bound, &material_ids));
        }
    }

    let clips = read_clips(doc, &b, &mut warnings).map_err(&invalid)?;
    let eval_order = crate::gltf_import::parents_first(&b.nodes)
        .ok_or_else(|| invalid("the node hierarchy has a cycle".into()))?;
    let frame = read_frame(doc);
    // The file's normals are per face corner; a mesh of control points gets smooth ones.
    for mesh in &mut meshes {
        mesh.compute_normals();
    }
    Ok(Model {
        source: path.to_path_buf(),
        frame,
        nodes: b.nodes,
        eval_order,
        meshes,
        skins,
        clips,
        materials,
        lines,
        warnings,
    })
}

/// A `<skin>` controller's mesh (geometry `geometries`, node `node_index`, its skin to be
/// the model's `skin_index`-th): posed in the frame its node gives it, with its influences;
/// `None` for a geometry without a mesh.
fn read_skinned(
    b: &Builder<'_>,
    skin: &dae_parser::Skin,
    (geometries, node_index, skin_index): (&HashMap<&str, &Geometry>, usize, usize),
    name: String,
    warnings: &mut Vec<String>,
) -> Result<Option<(Mesh, crate::dae_materials::MaterialGroups, Skin)>, String> {
    let Some(geometry) = url_id(&skin.source.val).and_then(|id| geometries.get(id)) else {
        return Err(format!("skin source {:?} not found", skin.source.val));
    };
    let Some((mut mesh, groups, control_points)) = read_mesh(geometry, node_index)? else {
        return Ok(None);
    };
    let sources: HashMap<&str, &Source> = skin
        .sources
        .iter()
        .filter_map(|s| Some((s.id.as_deref()?, s)))
        .collect();
    let source_of = |input: &dae_parser::Input| {
        url_id(&input.source)
            .and_then(|id| sources.get(id))
            .copied()
    };
    let joint_input = skin
        .joints
        .inputs
        .get(skin.joints.joint)
        .ok_or_else(|| String::from("skin without JOINT input"))?;
    let joint_names = source_of(joint_input)
        .and_then(names)
        .ok_or_else(|| String::from("skin joints are not a Name_array"))?;
    let inv_bind = skin
        .joints
        .inputs
        .iter()
        .find(|i| i.semantic == Semantic::InvBindMatrix)
        .and_then(source_of)
        .and_then(floats)
        .ok_or_else(|| String::from("skin without INV_BIND_MATRIX"))?;
    if inv_bind.len() < 16 * joint_names.len() {
        return Err(String::from("fewer inverse bind matrices than joints"));
    }
    let mut joints = Vec::new();
    for name in &joint_names {
        joints.push(
            b.find_joint(name)
                .ok_or_else(|| format!("skin joint `{name}` is not a node of the scene"))?,
        );
    }
    let inverse_bind: Vec<Mat4> = (0..joint_names.len())
        .map(|j| row_major(&inv_bind[16 * j..16 * j + 16]))
        .collect();
    let bind_shape = skin
        .bind_shape_matrix
        .as_ref()
        .map_or(Mat4::IDENTITY, |m| row_major(&m[..]));
    // The skinned vertices are in the frame of the node holding the controller, at
    // rest, then the bind shape: Blender writes a rig object's own transform as the
    // armature node's <matrix> and puts the body's node under it with an identity
    // matrix and an identity bind shape, while its inverse bind matrices include that
    // transform. Without the node's frame such a character posed as if the rig had
    // not moved (hundreds of millimetres off); where the node is at the origin, as in
    // most files, this changes nothing.
    let bind = b.rest_world(node_index) * bind_shape;
    let normal_bind = bind.inverse().transpose();
    for p in &mut mesh.positions {
        *p = bind.transform_point3(*p);
    }
    for n in &mut mesh.normals {
        *n = normal_bind.transform_vector3(*n).normalize_or_zero();
    }
    // Influences: (joint, weight) index pairs per vertex, offsets from the input list.
    let vw = &skin.weights;
    let stride = index_stride(&vw.inputs);
    let joint_offset = vw
        .inputs
        .inputs
        .get(vw.joint)
        .map_or(0, |i| i.offset as usize);
    let weight_input = vw
        .inputs
        .inputs
        .iter()
        .find(|i| i.input.semantic == Semantic::Weight)
        .ok_or_else(|| String::from("skin without WEIGHT"))?;
    let weight_values = source_of(&weight_input.input)
        .and_then(floats)
        .ok_or_else(|| String::from("skin weights are not a float_array"))?;
    let weight_offset = weight_input.offset as usize;
    // Weights are per control point, then copied to each vertex made from it.
    let control_count = control_points.iter().max().map_or(0, |&c| c as usize + 1);
    let mut influences: Vec<Vec<(u16, f32)>> = vec![Vec::new(); control_count];
    let mut at = 0usize;
    for (v, &n) in vw.vcount.iter().enumerate() {
        for _ in 0..n {
            let joint = vw.prim.get(at + joint_offset).copied().unwrap_or(-1);
            let weight = vw
                .prim
                .get(at + weight_offset)
                .and_then(|&w| weight_values.get(w as usize))
                .copied()
                .unwrap_or(0.0);
            at += stride;
            if joint >= 0 && (joint as usize) < joints.len() && weight > 0.0 && v < influences.len()
            {
                influences[v].push((joint as u16, weight));
            }
        }
    }
    let influences = control_points
        .iter()
        .map(|&c| influences[c as usize].clone())
        .collect();
    let (vj, vw_, fixed) = crate::gltf_import::top_four(influences);
    if fixed > 0 {
        warnings.push(format!("mesh `{}`: {fixed} vertices had weights not summing to 1 or more than 4 influences; renormalized", mesh.name));
    }
    mesh.skin = Some(SkinBinding {
        skin: skin_index,
        joints: vj,
        weights: vw_,
    });
    let skin = Skin {
        name,
        joints,
        inverse_bind,
    };
    Ok(Some((mesh, groups, skin)))
}

/// The file's axes and unit as it states them, and how assimp turns them.
fn read_frame(doc: &Document) -> ModelFrame {
    let (right, up, front, axis_name) = match doc.asset.up_axis {
        dae_parser::UpAxis::XUp => (Vec3::NEG_Y, Vec3::X, Vec3::Z, "X_UP"),
        dae_parser::UpAxis::YUp => (Vec3::X, Vec3::Y, Vec3::Z, "Y_UP"),
        dae_parser::UpAxis::ZUp => (Vec3::X, Vec3::Z, Vec3::NEG_Y, "Z_UP"),
    };
    let metres_per_unit = if doc.asset.unit.meter > 0.0 {
        doc.asset.unit.meter
    } else {
        1.0
    };
    // assimp's Collada importer turns the up axis to +Y (Z_UP: (x, y, z) -> (x, z, -y);
    // X_UP: (x, y, z) -> (-y, x, z)) and scales the root by the unit.
    let to_y_up = match doc.asset.up_axis {
        dae_parser::UpAxis::XUp => Mat4::from_cols_array(&[
            0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]),
        dae_parser::UpAxis::YUp => Mat4::IDENTITY,
        dae_parser::UpAxis::ZUp => Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2),
    };
    let assimp_from_file = to_y_up * Mat4::from_scale(Vec3::splat(metres_per_unit));
    ModelFrame {
        description: format!("Collada as stored: {axis_name}, {metres_per_unit} m per unit"),
        right,
        up,
        front,
        metres_per_unit,
        assimp_from_file,
    }
}

/// An animated transform element: key times and values (16 for a matrix, 1 for an angle, …).
struct Track {
    node: usize,
    element: usize,
    /// Which component: `None` for the whole element, `Some(i)` for one value of it.
    component: Option<usize>,
    times: Vec<f32>,
    values: Vec<f32>,
    width: usize,
}

impl Track {
    fn value_at(&self, t: f32) -> Vec<f32> {
        let n = self.times.len();
        let w = self.width;
        let at = |k: usize| &self.values[k * w..k * w + w];
        if n == 0 {
            return vec![0.0; w];
        }
        if t <= self.times[0] {
            return at(0).to_vec();
        }
        if t >= self.times[n - 1] {
            return at(n - 1).to_vec();
        }
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let s = (t - self.times[k]) / (self.times[k + 1] - self.times[k]);
        at(k)
            .iter()
            .zip(at(k + 1))
            .map(|(a, b)| a + (b - a) * s)
            .collect()
    }
}

fn collect_tracks(
    anim: &Animation,
    b: &Builder<'_>,
    sources: &mut HashMap<String, Source>,
    tracks: &mut Vec<Track>,
    warnings: &mut Vec<String>,
) {
    for s in &anim.source {
        if let Some(id) = &s.id {
            sources.insert(id.clone(), s.clone());
        }
    }
    for child in &anim.children {
        collect_tracks(child, b, sources, tracks, warnings);
    }
    for channel in &anim.channel {
        let Some(sampler) = url_id(&channel.source.val)
            .and_then(|id| anim.sampler.iter().find(|s| s.id.as_deref() == Some(id)))
        else {
            continue;
        };
        let input = |sem: Semantic| {
            sampler
                .inputs
                .iter()
                .find(|i| i.semantic == sem)
                .and_then(|i| url_id(&i.source))
                .and_then(|id| sources.get(id))
        };
        let (Some(times), Some(values)) = (input(Semantic::Input), input(Semantic::Output)) else {
            continue;
        };
        let (Some(times), Some(values)) = (floats(times), floats(values)) else {
            continue;
        };
        if times.is_empty() {
            continue; // exporters write empty animations for static objects (chair_x3.dae)
        }
        // Target: "nodeId/sid", "nodeId/sid.ANGLE", "nodeId/sid.X", "nodeId/sid(3)(1)".
        let target = channel.target.0.as_str();
        let Some((node_id, rest)) = target.split_once('/') else {
            continue;
        };
        let Some(node) = (0..b.nodes.len()).find(|&i| b.ids[i] == Some(node_id)) else {
            warnings.push(format!("animation targets unknown node `{node_id}`"));
            continue;
        };
        let (sid, member) = match rest.find(['.', '(']) {
            Some(i) => (&rest[..i], Some(&rest[i..])),
            None => (rest, None),
        };
        let Some(element) = find_element(b.transforms[node], sid) else {
            warnings.push(format!(
                "animation target `{target}` does not name a transform of its node"
            ));
            continue;
        };
        let component = match (member, &b.transforms[node][element]) {
            (None, _) => None,
            (Some(".ANGLE"), Transform::Rotate(_)) => Some(3),
            (Some(".X"), _) => Some(0),
            (Some(".Y"), _) => Some(1),
            (Some(".Z"), _) => Some(2),
            (Some(m), _) => {
                warnings.push(format!("animation target member `{m}` is not supported"));
                continue;
            }
        };
        let width = if times.is_empty() {
            0
        } else {
            values.len() / times.len()
        };
        let expected = match (component, &b.transforms[node][element]) {
            (Some(_), _) => 1,
            (None, Transform::Matrix(_)) => 16,
            (None, Transform::Rotate(_)) => 4,
            (None, _) => 3,
        };
        if width != expected || times.windows(2).any(|w| w[1] <= w[0]) {
            warnings.push(format!(
                "animation of `{target}` has malformed keys; ignored"
            ));
            continue;
        }
        tracks.push(Track {
            node,
            element,
            component,
            times: times.to_vec(),
            values: values.to_vec(),
            width,
        });
    }
}

/// The transform element an animation `sid` names. `dae-parser` does not keep transform sids,
/// so the element is found by the sid conventions of the exporters (Blender, Maya, 3ds Max):
/// `transform`/`matrix`, `location`/`translate`, `rotationX`/`rotateZ`…, `scale`; a node with a
/// single transform element is its own answer.
fn find_element(transforms: &[Transform], sid: &str) -> Option<usize> {
    if transforms.len() == 1 {
        return Some(0);
    }
    let sid = sid.to_ascii_lowercase();
    let first = |f: &dyn Fn(&Transform) -> bool| transforms.iter().position(f);
    if sid.contains("transform") || sid.contains("matrix") {
        return first(&|t| matches!(t, Transform::Matrix(_)));
    }
    if sid.contains("locat") || sid.contains("translat") {
        return first(&|t| matches!(t, Transform::Translate(_)));
    }
    if sid.contains("scale") {
        return first(&|t| matches!(t, Transform::Scale(_)));
    }
    if sid.contains("rotat") {
        let axis = match sid.chars().last() {
            Some('x') => Some(Vec3::X),
            Some('y') => Some(Vec3::Y),
            Some('z') => Some(Vec3::Z),
            _ => None,
        };
        return first(&|t| match (t, axis) {
            (Transform::Rotate(r), Some(a)) => Vec3::new(r.0[0], r.0[1], r.0[2])
                .normalize_or_zero()
                .abs_diff_eq(a, 1e-6),
            (Transform::Rotate(_), None) => true,
            _ => false,
        });
    }
    None
}

fn read_clips(
    doc: &Document,
    b: &Builder<'_>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Clip>, String> {
    let top: Vec<&Animation> = doc.iter::<Animation>().collect();
    if top.is_empty() {
        return Ok(Vec::new());
    }
    let mut sources = HashMap::new();
    let mut tracks = Vec::new();
    for anim in &top {
        collect_tracks(anim, b, &mut sources, &mut tracks, warnings);
    }
    if tracks.is_empty() {
        return Ok(Vec::new());
    }
    // Per animated node: evaluate its whole transform list at the union of its key times.
    let mut by_node: HashMap<usize, Vec<&Track>> = HashMap::new();
    for t in &tracks {
        by_node.entry(t.node).or_default().push(t);
    }
    let mut nodes: Vec<usize> = by_node.keys().copied().collect();
    nodes.sort_unstable();
    let mut channels = Vec::new();
    let mut duration = 0.0f32;
    for node in nodes {
        let node_tracks = &by_node[&node];
        let mut times: Vec<f32> = node_tracks
            .iter()
            .flat_map(|t| t.times.iter().copied())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
        duration = duration.max(times.last().copied().unwrap_or(0.0));
        let mut ts = Vec::new();
        let mut rs = Vec::new();
        let mut ss = Vec::new();
        let mut previous: Option<Quat> = None;
        for &t in &times {
            let mut elements: Vec<Transform> = b.transforms[node].to_vec();
            for track in node_tracks {
                let v = track.value_at(t);
                apply(&mut elements[track.element], track.component, &v);
            }
            let trs = trs(compose(&elements));
            let mut r = trs.rotation;
            if let Some(p) = previous
                && p.dot(r) < 0.0
            {
                r = -r;
            }
            previous = Some(r);
            ts.extend(trs.translation.to_array());
            rs.extend(r.to_array());
            ss.extend(trs.scale.to_array());
        }
        for (property, values) in [
            (Property::Translation, ts),
            (Property::Rotation, rs),
            (Property::Scale, ss),
        ] {
            channels.push(Channel {
                node,
                property,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values,
            });
        }
    }
    let name = match top.as_slice() {
        [one] => one
            .name
            .clone()
            .or(one.id.clone())
            .unwrap_or_else(|| "animation".into()),
        _ => "animation".into(),
    };
    Ok(vec![Clip {
        name,
        duration,
        channels,
    }])
}

fn apply(element: &mut Transform, component: Option<usize>, v: &[f32]) {
    match (element, component) {
        (Transform::Matrix(m), None) => m.0.copy_from_slice(&v[..16]),
        (Transform::Rotate(r), None) => r.0.copy_from_slice(&v[..4]),
        (Transform::Rotate(r), Some(i)) => r.0[i] = v[0],
        (Transform::Translate(t), None) => t.0.copy_from_slice(&v[..3]),
        (Transform::Translate(t), Some(i)) if i < 3 => t.0[i] = v[0],
        (Transform::Scale(s), None) => s.0.copy_from_slice(&v[..3]),
        (Transform::Scale(s), Some(i)) if i < 3 => s.0[i] = v[0],
        _ => {}
    }
}
