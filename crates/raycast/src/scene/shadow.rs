//! Shadow rays a run at a time ([`Scene::any_hit_run`]): neighbouring rays are mostly blocked
//! by the same few triangles, so what blocked the last one is tried first, on a whole run of
//! rays of one direction at once where the CPU tests sixteen rays a triangle at a time.
//!
//! Owns: the order in which a run's any-hit questions are tried. Must not touch the answers:
//! each is [`Scene::any_hit`]'s, whichever way it is found (a triangle hit within the ray's
//! range, in a box the walk would enter, blocks it on every way).

use super::Scene;
use crate::mesh::{PACKET, RayPacket};
use crate::ray::{Ray, intersect_box};
use glam::{Vec3A, Vec4};

impl Scene {
    /// Whether each of a run of neighbouring rays hits anything, on this thread; `out[i]`
    /// answers `rays[i]` exactly as [`Scene::any_hit`] would. Neighbouring shadow rays are
    /// mostly blocked by the same object (a ceiling, a shelf, a wall) and the same few
    /// triangles of it, so the instance and pack of triangles that blocked the previous ray
    /// are tried first: a blocked ray then costs a few triangle tests instead of two walks
    /// down trees. The rays this does not settle, [`PACKET`] neighbours at a time, are traced
    /// together as a packet, each stopping at its first hit (under an open sky most shadow
    /// rays meet nothing, and a packet shares the walk that proves it), unless most of the
    /// previous such rays were blocked (in a meadow each by its own blade): then one by one,
    /// each stopping at its first hit. Every way gives the answer of the same triangle tests
    /// within the same range, so the choice changes only the time taken.
    ///
    /// Where the CPU tests sixteen rays a triangle at a time and a run's rays share one
    /// direction (a sun's shadow rays do), the last blocking pack is tried on the whole run
    /// at once: under a roof nearly every ray is settled so, for a few operations a ray. While
    /// it settles fewer than half of a run (a meadow's blades each stop a few rays), the
    /// pack is tried ray by ray instead, until that settles most of a run again.
    pub fn any_hit_run(&self, rays: &[Ray], out: &mut [bool]) {
        // The last blocker and its blocking pack.
        let mut last: Option<(u32, Option<u32>)> = None;
        let mut open: Vec<Ray> = Vec::with_capacity(PACKET);
        let mut open_slots = [0usize; PACKET];
        let mut hits = [None; PACKET];
        let mut packets_pay = true;
        let sixteen_lanes = crate::mesh::sixteen_lanes();
        let mut together_pays = true;
        for (run_out, run) in out.chunks_mut(PACKET).zip(rays.chunks(PACKET)) {
            open.clear();
            // The last blocking pack, tried on the whole run.
            let tried = match last {
                Some((instance, Some(pack))) if sixteen_lanes && together_pays => {
                    Some((instance, Some(pack)))
                }
                _ => None,
            };
            let settled = match tried {
                Some((instance, Some(pack))) => self.pack_blocks_run(instance, pack, run),
                _ => 0,
            };
            // The rays settled by the last blocker, together or one by one.
            let mut hinted = settled.count_ones() as usize;
            for (k, (slot, ray)) in run_out.iter_mut().zip(run).enumerate() {
                if settled >> k & 1 != 0 {
                    *slot = true;
                    continue;
                }
                *slot = match &mut last {
                    // That pack missed this ray: the rest of the mesh is left.
                    Some((instance, pack)) if tried == Some((*instance, *pack)) => {
                        let mut found = None;
                        let blocked = self.instance_blocks(*instance, ray, &mut found);
                        if blocked {
                            *pack = found;
                        }
                        blocked
                    }
                    Some((instance, pack)) => self.instance_blocks(*instance, ray, pack),
                    None => false,
                };
                if *slot {
                    hinted += 1;
                    continue;
                }
                if packets_pay {
                    open_slots[open.len()] = k;
                    open.push(*ray);
                } else {
                    let blocker = self.blocker(ray);
                    *slot = blocker.is_some();
                    if blocker.is_some() {
                        last = blocker;
                    }
                }
            }
            together_pays = 2 * hinted >= run.len();
            if !packets_pay {
                let open_rays = run_out.len();
                packets_pay = 4 * run_out.iter().filter(|&&b| b).count() < 3 * open_rays;
                continue;
            }
            if open.is_empty() {
                continue;
            }
            self.packet_hits(&open, &mut hits[..open.len()], true);
            let mut blocked = 0;
            for (hit, &k) in hits.iter().zip(&open_slots[..open.len()]) {
                run_out[k] = hit.is_some();
                if let Some(h) = hit {
                    last = Some((h.instance, None));
                    blocked += 1;
                }
            }
            packets_pay = 4 * blocked < 3 * open.len();
        }
    }

    /// The rays of `run` (at most [`PACKET`]) that pack `pack` of instance `index`'s mesh
    /// blocks, as [`Scene::instance_blocks`] with that hint finds them on its first try (the
    /// instance's world box, then the pack's triangles), tested together: a mask. None when
    /// the rays do not all share one direction.
    fn pack_blocks_run(&self, index: u32, pack: u32, run: &[Ray]) -> u32 {
        let Some(first) = run.first() else {
            return 0;
        };
        if run.len() > PACKET || !share_direction(first.dir, run) {
            return 0;
        }
        let packet = self.run_packet(index, run, u32::MAX);
        let inst = &self.instances[index as usize];
        self.meshes[inst.mesh.0 as usize].pack_blocks(pack, &packet)
    }

    /// The rays of `run` (at most [`PACKET`], sharing one direction: [`share_direction`]) among
    /// `open` that a triangle of `leaves` of instance `index`'s mesh blocks, as
    /// [`Scene::leaves_block`] answers each (the instance's world box, then the leaves'
    /// boxes and triangles), tested together: a mask.
    pub(crate) fn leaves_block_run(
        &self,
        index: u32,
        run: &[Ray],
        open: u32,
        leaves: impl Iterator<Item = u32>,
    ) -> u32 {
        let packet = self.run_packet(index, run, open);
        let inst = &self.instances[index as usize];
        self.meshes[inst.mesh.0 as usize].leaves_block_packet(leaves, &packet)
    }

    /// The rays of `run` (at most [`PACKET`], sharing one direction) among `open` that reach
    /// instance `index`'s world box, as a packet in its mesh's frame, made as
    /// [`Scene::instance_blocks`] makes each ray.
    fn run_packet(&self, index: u32, run: &[Ray], open: u32) -> RayPacket {
        let dir = run.first().map_or(Vec3A::X, |ray| ray.dir);
        let world_box = &self.top.boxes[index as usize];
        let inst = &self.instances[index as usize];
        // What `instance_blocks` makes for each ray, once.
        let inv = dir.recip();
        let dir = inst.dir_to_mesh(dir);
        let splat = |v: Vec3A| v.to_array().map(|c| [Vec4::splat(c); PACKET / 4]);
        let mut origin = [[0.0f32; PACKET]; 3];
        let mut packet = RayPacket {
            origin: [[Vec4::ZERO; PACKET / 4]; 3],
            dir: splat(dir),
            inv_dir: splat(dir.recip()),
            t_min: [0.0; PACKET],
            t_max: [0.0; PACKET],
            active: 0,
            beam: None,
        };
        for (r, ray) in run.iter().enumerate() {
            if open >> r & 1 == 0 {
                continue;
            }
            let (t_min, t_max) = (ray.t_min, ray.t_max);
            if intersect_box(ray.origin, inv, t_min, t_max, world_box.min, world_box.max).is_none()
            {
                continue;
            }
            let o = inst.point_to_mesh(ray.origin).to_array();
            for a in 0..3 {
                origin[a][r] = o[a];
            }
            (packet.t_min[r], packet.t_max[r]) = (t_min, t_max);
            packet.active |= 1 << r;
        }
        packet.origin =
            origin.map(|axis| std::array::from_fn(|g| Vec4::from_slice(&axis[4 * g..])));
        packet
    }
}

/// Whether every ray of `run` goes along `dir` bit for bit: equal, and of equal signs (a
/// zero's sign changes an inverse; rays have no NaN).
pub(crate) fn share_direction(dir: Vec3A, run: &[Ray]) -> bool {
    let signs = dir.is_negative_bitmask();
    run.iter()
        .all(|r| r.dir.cmpeq(dir).all() && r.dir.is_negative_bitmask() == signs)
}
