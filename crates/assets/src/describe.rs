//! A model for people: a text report of what it holds (`passerby model inspect`) and a posed
//! mesh written as ASCII PLY or OBJ (`passerby model pose`), in the file's own frame.

use crate::{Model, Pose, Poser};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// The lower and upper corners of `points`' bounding box.
pub fn bounds(points: &[glam::Vec3]) -> (glam::Vec3, glam::Vec3) {
    points.iter().fold(
        (
            glam::Vec3::splat(f32::INFINITY),
            glam::Vec3::splat(f32::NEG_INFINITY),
        ),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
}

/// What a model holds, for a person: its frame, meshes with their counts and rest-pose
/// bounds, skins with their joints, clips, materials with their textures, warnings.
pub fn describe(model: &Model) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "model: {}", model.source.display());
    let _ = writeln!(out, "frame: {}", model.frame.description);
    let rest = Poser::new().posed_vertices(model, &Pose::rest(model));
    let (lo, hi) = bounds(&rest);
    let _ = writeln!(
        out,
        "meshes: {} ({} vertices, {} triangles), rest-pose bounds {:?} .. {:?}",
        model.meshes.len(),
        model.vertex_count(),
        model.triangle_count(),
        lo.to_array(),
        hi.to_array()
    );
    for m in &model.meshes {
        let skin = m
            .skin
            .as_ref()
            .map_or(String::new(), |s| format!(", skinned by skin {}", s.skin));
        let _ = writeln!(
            out,
            "  {}: {} vertices, {} triangles{skin}",
            m.name,
            m.positions.len(),
            m.triangles.len()
        );
    }
    let _ = writeln!(out, "nodes: {}", model.nodes.len());
    let _ = writeln!(out, "skins: {}", model.skins.len());
    for s in &model.skins {
        let names: Vec<&str> = s
            .joints
            .iter()
            .map(|&j| model.nodes[j].name.as_str())
            .collect();
        let _ = writeln!(
            out,
            "  {}: {} joints: {}",
            s.name,
            s.joints.len(),
            names.join(", ")
        );
    }
    let _ = writeln!(out, "clips: {}", model.clips.len());
    for c in &model.clips {
        let _ = writeln!(
            out,
            "  '{}': {:.3} s, {} channels",
            c.name,
            c.duration,
            c.channels.len()
        );
    }
    let _ = writeln!(out, "materials: {}", model.materials.len());
    for m in &model.materials {
        let texture = match &m.texture {
            Some(t) if t.image.is_some() => {
                let image = t.image.as_ref().map_or((0, 0), |i| (i.width, i.height));
                format!(", texture {} ({}x{} px)", t.source, image.0, image.1)
            }
            Some(t) if t.found => format!(", texture {} (found, not decodable)", t.source),
            Some(t) => format!(", texture {} (MISSING)", t.source),
            None => String::new(),
        };
        let _ = writeln!(out, "  {}: base colour {:?}{texture}", m.name, m.base_color);
    }
    for w in &model.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// Writes posed vertices with the model's triangles as ASCII PLY or OBJ (by `path`'s
/// extension).
pub fn write_posed_mesh(path: &Path, model: &Model, vertices: &[glam::Vec3]) -> Result<(), String> {
    let ext = (path.extension().and_then(|e| e.to_str()))
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext != "ply" && ext != "obj" {
        return Err(format!(
            "`{}`: expected a .ply or .obj output file",
            path.display()
        ));
    }
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create `{}`: {e}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    write_mesh(&mut w, &ext, model, vertices)
        .and_then(|()| w.flush())
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

fn write_mesh(
    w: &mut impl std::io::Write,
    ext: &str,
    model: &Model,
    vertices: &[glam::Vec3],
) -> std::io::Result<()> {
    let triangles = crate::merged_triangles(model);
    let frame = &model.frame.description;
    if ext == "ply" {
        writeln!(
            w,
            "ply\nformat ascii 1.0\ncomment posed by passerby, frame: {frame}"
        )?;
        writeln!(
            w,
            "element vertex {}\nproperty float x\nproperty float y\nproperty float z",
            vertices.len()
        )?;
        writeln!(
            w,
            "element face {}\nproperty list uchar uint vertex_indices\nend_header",
            triangles.len()
        )?;
        for v in vertices {
            writeln!(w, "{} {} {}", v.x, v.y, v.z)?;
        }
        for t in &triangles {
            writeln!(w, "3 {} {} {}", t[0], t[1], t[2])?;
        }
    } else {
        writeln!(w, "# posed by passerby, frame: {frame}")?;
        for v in vertices {
            writeln!(w, "v {} {} {}", v.x, v.y, v.z)?;
        }
        for t in &triangles {
            writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1)?;
        }
    }
    Ok(())
}
