//! 2D boxes of actors in a camera image, with how much of each is visible.
//!
//! The box is the extent of the actor's triangles as posed for the frame, projected through
//! the lens after clipping them to the near plane, then clipped to the image: it holds every
//! pixel labelled with the actor (exactly, for lenses without distortion; with distortion the
//! box spans the projected vertices). The visible fraction is the actor's labelled pixels over
//! the pixels where it would show if nothing stood in front of it: those labelled with it, and
//! those whose centre ray meets its own geometry cast alone (same rays and clip range).

use crate::SceneView;
use crate::lens::{Lens, Pixels};
use glam::{Affine3A, Vec3A};
use rayon::prelude::*;

/// An actor's box in one image.
#[derive(Clone, Debug, PartialEq)]
pub struct ActorBox {
    /// The actor's name.
    pub name: String,
    /// Its instance id (as in the label images).
    pub instance: u32,
    /// Its class id.
    pub class: u16,
    /// Top-left corner, pixel coordinates (pixel centres on integers, so the image spans
    /// `-0.5 .. width - 0.5`).
    pub min: [f64; 2],
    /// Bottom-right corner, pixel coordinates.
    pub max: [f64; 2],
    /// Pixels labelled with the actor.
    pub visible_pixels: u32,
    /// Pixels the actor would cover with nothing in front of it.
    pub unoccluded_pixels: u32,
}

impl ActorBox {
    /// Visible share of the actor's image, 0..1.
    pub fn visible_fraction(&self) -> f32 {
        if self.unoccluded_pixels == 0 {
            0.0
        } else {
            (self.visible_pixels as f32 / self.unoccluded_pixels as f32).min(1.0)
        }
    }
}

/// The boxes of the actors that `pixels` (rendered through `lens` from `world_from_optical`)
/// could show: those with at least one pixel they would cover unoccluded, in scene order.
pub fn actor_boxes(
    view: &SceneView<'_>,
    lens: &Lens,
    world_from_optical: &Affine3A,
    pixels: &Pixels,
) -> Vec<ActorBox> {
    let built = view.built;
    // Actors in parallel (each is cast alone), collected in scene order.
    let actors: Vec<_> = built.bodies.iter().filter(|b| b.is_actor).collect();
    actors
        .into_par_iter()
        .filter_map(|body| actor_box(view, lens, world_from_optical, pixels, body))
        .collect()
}

/// One actor's box, if it could show.
fn actor_box(
    view: &SceneView<'_>,
    lens: &Lens,
    world_from_optical: &Affine3A,
    pixels: &Pixels,
    body: &passerby_scene::Body,
) -> Option<ActorBox> {
    let built = view.built;
    let optical_from_world = world_from_optical.inverse();
    let (w, h) = lens.size();
    let near = lens.intrinsics().clip_min as f32;
    let far = lens.intrinsics().clip_max as f32;
    let &(first, _) = body.instances.first()?;
    let object = built.objects.get(first as usize)?;
    if out_of_view(built, lens, &optical_from_world, body) {
        return None;
    }
    // Extent of the projected, near-clipped triangles.
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    // The depth of the actor's farthest vertex.
    let mut deepest = f32::NEG_INFINITY;
    let mut extend = |p: Vec3A| {
        if let Some([u, v]) = lens.project(p) {
            lo = [lo[0].min(u), lo[1].min(v)];
            hi = [hi[0].max(u), hi[1].max(v)];
        }
    };
    for &(instance, _) in &body.instances {
        let inst = built.scene.instance(instance);
        let mesh = built.scene.mesh(inst.mesh);
        let to_optical = optical_from_world * inst.world_from_mesh();
        let vertices: Vec<Vec3A> = mesh
            .vertices()
            .iter()
            .map(|v| to_optical.transform_point3a(*v))
            .collect();
        deepest = vertices.iter().fold(deepest, |d, v| d.max(v.z));
        // A triangle wholly in front is its corners: each vertex of such triangles is
        // projected once (the extent does not depend on the order); the others are clipped.
        let mut corner_in_front = vec![false; vertices.len()];
        for t in mesh.triangles() {
            let corners = t.map(|i| vertices[i as usize]);
            if corners.iter().all(|c| c.z >= near) {
                for &i in t {
                    corner_in_front[i as usize] = true;
                }
                continue;
            }
            let (polygon, n) = clip_to_near(&corners, near);
            polygon[..n].iter().for_each(|&p| extend(p));
        }
        for (&p, _) in vertices.iter().zip(&corner_in_front).filter(|(_, f)| **f) {
            extend(p);
        }
    }
    let (x_end, y_end) = (w as f64 - 0.5, h as f64 - 0.5);
    let min = [lo[0].max(-0.5), lo[1].max(-0.5)];
    let max = [hi[0].min(x_end), hi[1].min(y_end)];
    if !(min[0] <= max[0] && min[1] <= max[1]) {
        return None;
    }
    // The pixels whose centres lie in the box: cast them at the actor alone.
    let (c0, c1) = (min[0].ceil().max(0.0) as usize, max[0].floor() as usize);
    let (r0, r1) = (min[1].ceil().max(0.0) as usize, max[1].floor() as usize);
    let instances: Vec<(Affine3A, &passerby_raycast::TriangleMesh)> = body
        .instances
        .iter()
        .map(|&(i, _)| {
            let inst = built.scene.instance(i);
            (
                inst.world_from_mesh().inverse() * *world_from_optical,
                built.scene.mesh(inst.mesh),
            )
        })
        .collect();
    let beyond = deepest * (1.0 + 1e-4) + 1e-4;
    let (mut visible, mut unoccluded) = (0u32, 0u32);
    for row in r0..=r1.min(h - 1) {
        for col in c0..=c1.min(w - 1) {
            // Where the image shows the actor, nothing stands in front: no ray needed.
            if pixels.instance[row * w + col] == object.id as i32 {
                visible += 1;
                unoccluded += 1;
                continue;
            }
            // Where the image shows nothing, or a surface beyond the actor's farthest point,
            // the actor is not (it would show there, being nearer): no ray needed either. (A
            // margin for the rounding of depths.)
            let shown = pixels.depth[row * w + col];
            if shown == 0.0 || shown > beyond {
                continue;
            }
            let dir = lens.direction(col as f64, row as f64);
            let meets = instances.iter().any(|(mesh_from_optical, mesh)| {
                let o = mesh_from_optical.translation;
                let d = mesh_from_optical.transform_vector3a(dir);
                mesh.any_hit(o, d, near, far)
            });
            if meets {
                unoccluded += 1;
            }
        }
    }
    if unoccluded == 0 && visible == 0 {
        return None;
    }
    Some(ActorBox {
        name: body.object.clone(),
        instance: object.id,
        class: object.class_id,
        min,
        max,
        visible_pixels: visible,
        unoccluded_pixels: unoccluded.max(visible),
    })
}

/// Whether no part of the body can show through an undistorted `lens`: the corners of each of
/// its meshes' boxes all lie nearer than the near plane or all beyond one side of the image,
/// with a pixel of margin against rounding (each such region is convex, so the whole box, and
/// every triangle in it, lies there too). Distorted lenses are only culled by the near plane.
fn out_of_view(
    built: &passerby_scene::BuiltScene,
    lens: &Lens,
    optical_from_world: &Affine3A,
    body: &passerby_scene::Body,
) -> bool {
    let i = lens.intrinsics();
    let (fx, fy, cx, cy) = (i.fx, i.fy, i.cx, i.cy);
    let (w, h) = lens.size();
    let (w, h) = (w as f64, h as f64);
    let near = i.clip_min;
    let sides = !lens.has_distortion();
    let mut corners = Vec::with_capacity(8 * body.instances.len());
    for &(instance, _) in &body.instances {
        let inst = built.scene.instance(instance);
        let b = built.scene.mesh(inst.mesh).bounds();
        if !b.min.cmple(b.max).all() {
            continue; // an empty mesh: nothing to show
        }
        let to_optical = *optical_from_world * inst.world_from_mesh();
        corners.extend((0..8).map(|k| {
            let p = Vec3A::select(
                glam::BVec3A::new(k & 1 != 0, k & 2 != 0, k & 4 != 0),
                b.max,
                b.min,
            );
            let q = to_optical.transform_point3a(p);
            [f64::from(q.x), f64::from(q.y), f64::from(q.z)]
        }));
    }
    let all = |beyond: &dyn Fn(&[f64; 3]) -> bool| corners.iter().all(beyond);
    all(&|p| p[2] < near - 1e-3 * (1.0 + near.abs()))
        || (sides
            && (all(&|p| fx * p[0] + (cx + 1.5) * p[2] < 0.0)
                || all(&|p| -fx * p[0] + (w + 0.5 - cx) * p[2] < 0.0)
                || all(&|p| fy * p[1] + (cy + 1.5) * p[2] < 0.0)
                || all(&|p| -fy * p[1] + (h + 0.5 - cy) * p[2] < 0.0)))
}

/// The polygon of a triangle's part at depth `>= near` (Sutherland-Hodgman against one
/// plane): its first `n` of up to four points, none if it is all nearer.
fn clip_to_near(corners: &[Vec3A; 3], near: f32) -> ([Vec3A; 4], usize) {
    let (mut out, mut n) = ([Vec3A::ZERO; 4], 0);
    for k in 0..3 {
        let (a, b) = (corners[k], corners[(k + 1) % 3]);
        let (a_in, b_in) = (a.z >= near, b.z >= near);
        if a_in {
            out[n] = a;
            n += 1;
        }
        if a_in != b_in {
            let s = (near - a.z) / (b.z - a.z);
            let mut p = a + (b - a) * s;
            p.z = near;
            out[n] = p;
            n += 1;
        }
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_clipping_keeps_the_part_in_front() {
        let tri = [
            Vec3A::new(0.0, 0.0, 2.0),
            Vec3A::new(1.0, 0.0, 0.0),
            Vec3A::new(0.0, 1.0, 2.0),
        ];
        let (poly, n) = clip_to_near(&tri, 1.0);
        assert_eq!(n, 4);
        assert!(poly.iter().all(|p| p.z >= 1.0 - 1e-6));
        assert!(poly.contains(&Vec3A::new(0.5, 0.0, 1.0)));
        assert_eq!(clip_to_near(&tri.map(|p| p * 0.1), 1.0).1, 0);
    }
}
