//! 2D boxes of actors in a camera image, with how much of each is visible.
//!
//! The box is the extent of the actor's triangles as posed for the frame, projected through
//! the lens after clipping them to the near plane, then clipped to the image: it holds every
//! pixel labelled with the actor (exactly, for lenses without distortion; with distortion the
//! box spans the projected vertices). The visible fraction is the actor's labelled pixels over
//! the pixels where it would show if nothing stood in front of it: those labelled with it, and
//! those whose centre ray meets its own geometry cast alone (same rays and clip range).

use crate::SceneView;
use crate::camera::{Lens, Pixels};
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
    // Extent of the projected, near-clipped triangles.
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    for &(instance, _) in &body.instances {
        let inst = built.scene.instance(instance);
        let mesh = built.scene.mesh(inst.mesh);
        let to_optical = optical_from_world * inst.world_from_mesh;
        let vertices: Vec<Vec3A> = mesh
            .vertices()
            .iter()
            .map(|v| to_optical.transform_point3a(*v))
            .collect();
        for t in mesh.triangles() {
            let corners = t.map(|i| vertices[i as usize]);
            for p in clip_to_near(&corners, near) {
                if let Some([u, v]) = lens.project(p) {
                    lo = [lo[0].min(u), lo[1].min(v)];
                    hi = [hi[0].max(u), hi[1].max(v)];
                }
            }
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
                inst.world_from_mesh.inverse() * *world_from_optical,
                built.scene.mesh(inst.mesh),
            )
        })
        .collect();
    let (mut visible, mut unoccluded) = (0u32, 0u32);
    for row in r0..=r1.min(h - 1) {
        for col in c0..=c1.min(w - 1) {
            // Where the image shows the actor, nothing stands in front: no ray needed.
            if pixels.instance[row * w + col] == object.id as i32 {
                visible += 1;
                unoccluded += 1;
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

/// The polygon of a triangle's part at depth `>= near` (Sutherland-Hodgman against one
/// plane): up to four points, none if it is all nearer.
fn clip_to_near(corners: &[Vec3A; 3], near: f32) -> Vec<Vec3A> {
    let mut out = Vec::with_capacity(4);
    for k in 0..3 {
        let (a, b) = (corners[k], corners[(k + 1) % 3]);
        let (a_in, b_in) = (a.z >= near, b.z >= near);
        if a_in {
            out.push(a);
        }
        if a_in != b_in {
            let s = (near - a.z) / (b.z - a.z);
            let mut p = a + (b - a) * s;
            p.z = near;
            out.push(p);
        }
    }
    out
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
        let poly = clip_to_near(&tri, 1.0);
        assert_eq!(poly.len(), 4);
        assert!(poly.iter().all(|p| p.z >= 1.0 - 1e-6));
        assert!(poly.contains(&Vec3A::new(0.5, 0.0, 1.0)));
        assert!(clip_to_near(&tri.map(|p| p * 0.1), 1.0).is_empty());
    }
}
