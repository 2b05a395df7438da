//! Collada `<geometry>` meshes: control-point vertices (split by texture coordinate) and
//! fan-triangulated primitives, with each primitive's material symbol.

use crate::dae_materials::MaterialGroups;
use crate::dae_values::{floats, index_stride, url_id};
use crate::model::Mesh;
use dae_parser::{Geometry, GeometryElement, Primitive, Semantic, Source};
use glam::Vec3;
use std::collections::HashMap;

/// A mesh's `POSITION` entries.
fn positions(mesh: &dae_parser::Mesh) -> Result<Vec<Vec3>, String> {
    let sources: HashMap<&str, &Source> = mesh
        .sources
        .iter()
        .filter_map(|s| Some((s.id.as_deref()?, s)))
        .collect();
    let vertices = mesh.vertices.as_ref().ok_or("mesh without <vertices>")?;
    let position_input = vertices
        .inputs
        .get(vertices.position)
        .ok_or("<vertices> without POSITION")?;
    let position_source = url_id(&position_input.source)
        .and_then(|id| sources.get(id))
        .ok_or("POSITION source not found")?;
    let data = floats(position_source).ok_or("POSITION is not a float_array")?;
    let stride = position_source.accessor.stride.max(3);
    let offset = position_source.accessor.offset;
    let count = position_source.accessor.count;
    if offset + count.saturating_sub(1) * stride + 3 > data.len() && count > 0 {
        return Err(format!(
            "POSITION accessor reads past its array ({count} x {stride})"
        ));
    }
    Ok((0..count)
        .map(|i| Vec3::from_slice(&data[offset + i * stride..offset + i * stride + 3]))
        .collect())
}

/// The line segments of a `<geometry>`'s `<lines>` (what MVSim reads walls from), in the
/// geometry's frame. Triangles and polygons are not lines; `<linestrips>` never get here
/// (`dae-parser` 0.11 spells them `line_strips` and rejects every strip of two or more points).
pub fn read_lines(geometry: &Geometry) -> Result<Vec<[Vec3; 2]>, String> {
    let GeometryElement::Mesh(mesh) = &geometry.element else {
        return Ok(Vec::new());
    };
    let lines: Vec<(&dae_parser::InputList, &[u32])> = (mesh.elements.iter())
        .filter_map(|prim| match prim {
            Primitive::Lines(l) => Some((&l.inputs, l.data.prim.as_deref()?)),
            _ => None,
        })
        .collect();
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let positions = positions(mesh)?;
    let mut segments = Vec::new();
    for (inputs, list) in lines {
        let stride = index_stride(inputs);
        let vertex_offset = (inputs.inputs.iter())
            .find(|i| i.input.semantic == Semantic::Vertex)
            .map_or(0, |i| i.offset as usize);
        let points = (0..list.len() / stride)
            .map(|k| {
                let v = list[k * stride + vertex_offset] as usize;
                positions.get(v).copied().ok_or_else(|| {
                    format!("line vertex index {v} out of {} positions", positions.len())
                })
            })
            .collect::<Result<Vec<Vec3>, String>>()?;
        segments.extend(points.chunks_exact(2).map(|w| [w[0], w[1]]));
    }
    Ok(segments)
}

/// One mesh from a `<geometry>`: control-point vertices and fan-triangulated polygons.
/// With the mesh, its primitives' material symbols and triangle ranges, and per vertex its
/// control point (`POSITION` entry). Without texture coordinates each control point is one
/// vertex; with them, each distinct (control point, texture coordinate) pair is.
pub fn read_mesh(
    geometry: &Geometry,
    node: usize,
) -> Result<Option<(Mesh, MaterialGroups, Vec<u32>)>, String> {
    let GeometryElement::Mesh(mesh) = &geometry.element else {
        return Ok(None);
    };
    let positions = positions(mesh)?;
    let sources: HashMap<&str, &Source> = mesh
        .sources
        .iter()
        .filter_map(|s| Some((s.id.as_deref()?, s)))
        .collect();
    let mut triangles = Vec::new();
    let mut groups: MaterialGroups = Vec::new();
    // Vertices by (control point, texture coordinate index); u32::MAX: no coordinate.
    let mut corners = Corners::new(positions.len());
    for prim in &mesh.elements {
        let first = triangles.len();
        let (inputs, polygons, material): (&dae_parser::InputList, Vec<&[u32]>, _) = match prim {
            Primitive::Triangles(t) => (
                &t.inputs,
                t.data.prim.as_deref().map(|p| vec![p]).unwrap_or_default(),
                &t.material,
            ),
            Primitive::PolyList(p) => (&p.inputs, vec![&p.data.prim[..]], &p.material),
            Primitive::Polygons(p) => (
                &p.inputs,
                p.data.0.iter().map(|h| &h.verts[..]).collect(),
                &p.material,
            ),
            _ => continue,
        };
        let stride = index_stride(inputs);
        let vertex_offset = inputs
            .inputs
            .iter()
            .find(|i| i.input.semantic == Semantic::Vertex)
            .map_or(0, |i| i.offset as usize);
        // The first texture coordinate set (the lowest `set`).
        let texcoord = inputs
            .inputs
            .iter()
            .filter(|i| i.input.semantic == Semantic::TexCoord)
            .min_by_key(|i| i.set.unwrap_or(0))
            .and_then(|i| {
                let source = url_id(&i.input.source).and_then(|id| sources.get(id))?;
                let data = floats(source)?;
                let a = &source.accessor;
                Some((i.offset as usize, data, a.offset, a.stride.max(2), a.count))
            });
        let mut vertex = |p: &[u32], k: usize| -> Result<u32, String> {
            let v = *p
                .get(k * stride + vertex_offset)
                .ok_or("primitive index list too short")?;
            if v as usize >= positions.len() {
                return Err(format!(
                    "vertex index {v} out of {} positions",
                    positions.len()
                ));
            }
            let uv = match texcoord {
                Some((offset, data, first, step, count)) => {
                    let t = *p
                        .get(k * stride + offset)
                        .ok_or("primitive index list too short")?;
                    let at = first + t as usize * step;
                    if t as usize >= count || at + 2 > data.len() {
                        return Err(format!("texture coordinate index {t} out of {count}"));
                    }
                    // Collada's t grows upwards from the image's bottom; ours from its top.
                    Some((t, glam::Vec2::new(data[at], 1.0 - data[at + 1])))
                }
                None => None,
            };
            Ok(corners.vertex(v, uv))
        };
        match prim {
            Primitive::Triangles(_) => {
                for p in polygons {
                    for t in 0..p.len() / (3 * stride) {
                        triangles.push([
                            vertex(p, 3 * t)?,
                            vertex(p, 3 * t + 1)?,
                            vertex(p, 3 * t + 2)?,
                        ]);
                    }
                }
            }
            Primitive::PolyList(pl) => {
                let p = polygons[0];
                let mut first = 0usize;
                for &n in pl.data.vcount.iter() {
                    let n = n as usize;
                    for k in 1..n.saturating_sub(1) {
                        triangles.push([
                            vertex(p, first)?,
                            vertex(p, first + k)?,
                            vertex(p, first + k + 1)?,
                        ]);
                    }
                    first += n;
                }
            }
            _ => {
                for p in polygons {
                    let n = p.len() / stride;
                    for k in 1..n.saturating_sub(1) {
                        triangles.push([vertex(p, 0)?, vertex(p, k)?, vertex(p, k + 1)?]);
                    }
                }
            }
        }
        groups.push((material.clone(), first..triangles.len()));
    }
    let name = geometry
        .name
        .clone()
        .or(geometry.id.clone())
        .unwrap_or_else(|| "mesh".into());
    let (control_points, uvs) = corners.finish();
    let mesh = Mesh {
        name,
        node,
        positions: control_points
            .iter()
            .map(|&c| positions[c as usize])
            .collect(),
        normals: Vec::new(),
        uvs,
        triangles,
        material: None,
        skin: None,
    };
    Ok(Some((mesh, groups, control_points)))
}

/// Mesh vertices as distinct (control point, texture coordinate) pairs, in order of first use
/// after the control points themselves (so a mesh without texture coordinates keeps them as
/// they are).
struct Corners {
    /// Per vertex: its control point and texture coordinate.
    vertices: Vec<(u32, glam::Vec2)>,
    /// The texture coordinate vertex `c` (control point `c`) took first, as bits.
    claimed: Vec<Option<[u32; 2]>>,
    /// Further vertices by control point and texture coordinate (equal values share one).
    by_pair: HashMap<(u32, [u32; 2]), u32>,
    any_uv: bool,
}

impl Corners {
    fn new(control_points: usize) -> Corners {
        Corners {
            vertices: (0..control_points as u32)
                .map(|c| (c, glam::Vec2::ZERO))
                .collect(),
            claimed: vec![None; control_points],
            by_pair: HashMap::new(),
            any_uv: false,
        }
    }

    /// The vertex of control point `c` with texture coordinate `uv` (its index and value).
    fn vertex(&mut self, c: u32, uv: Option<(u32, glam::Vec2)>) -> u32 {
        let Some((_, value)) = uv else {
            return c;
        };
        let t = [value.x.to_bits(), value.y.to_bits()];
        self.any_uv = true;
        match self.claimed[c as usize] {
            None => {
                self.claimed[c as usize] = Some(t);
                self.vertices[c as usize].1 = value;
                c
            }
            Some(first) if first == t => c,
            Some(_) => *self.by_pair.entry((c, t)).or_insert_with(|| {
                self.vertices.push((c, value));
                (self.vertices.len() - 1) as u32
            }),
        }
    }

    /// Per vertex its control point, and the texture coordinates (empty without any).
    fn finish(self) -> (Vec<u32>, Vec<glam::Vec2>) {
        let uvs = if self.any_uv {
            self.vertices.iter().map(|v| v.1).collect()
        } else {
            Vec::new()
        };
        (self.vertices.into_iter().map(|v| v.0).collect(), uvs)
    }
}
