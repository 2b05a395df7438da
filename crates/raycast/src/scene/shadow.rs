//! Shadow rays a run at a time ([`Scene::any_hit_run`]): neighbouring rays are mostly blocked
//! by the same few triangles, so what blocked the last one is tried first, on a whole run of
//! rays of one direction at once where the CPU tests sixteen rays a triangle at a time.
//!
//! Owns: the order in which a run's any-hit questions are tried. Must not touch the answers:
//! each is [`Scene::any_hit`]'s, whichever way it is found (a triangle hit within the ray's
//! range, in a box the walk would enter, blocks it on every way).

use super::Scene;
use super::pack_run::{PackOnRuns, RunLanes};
use crate::mesh::{PACKET, RayPacket};
use crate::ray::{Hit, Ray, intersect_box};
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
    /// Where a run's rays share one direction (a sun's shadow rays do), the last blocking
    /// pack is tried on the whole run at once, in vectors (`pack_run.rs`): under a roof
    /// nearly every ray is settled so, for a few operations a ray. While
    /// it settles fewer than half of a run (a meadow's blades each stop a few rays), the
    /// pack is tried ray by ray instead, until that settles most of a run again.
    pub fn any_hit_run(&self, rays: &[Ray], out: &mut [bool]) {
        let mut state = ShadowRuns::new();
        for (run_out, run) in out.chunks_mut(PACKET).zip(rays.chunks(PACKET)) {
            let tried = state.pack_to_try();
            let settled = match tried {
                Some((instance, pack)) => self.pack_blocks_run(instance, pack, run),
                None => 0,
            };
            state.settle(self, run, (tried, settled), run_out);
        }
    }

    /// Whether each ray from `origins` (axis by axis) along `dir` within `range` hits
    /// anything: `out[i]` answers the ray from `(origins[0][i], origins[1][i],
    /// origins[2][i])` exactly as [`Scene::any_hit`] would (`out` is cut to the origins
    /// given). What [`Scene::any_hit_run`] does for such rays, without making the rays a run
    /// of them that the last blocking pack settles whole (under a roof, nearly every run)
    /// needs: its tests read the origins where they lie.
    pub fn any_hit_along(
        &self,
        origins: [&[f32]; 3],
        dir: Vec3A,
        (t_min, t_max): (f32, f32),
        out: &mut [bool],
    ) {
        let n = (out.len().min(origins[0].len()))
            .min(origins[1].len())
            .min(origins[2].len());
        let mut state = ShadowRuns::new();
        let mut pack: Option<PackOnRuns<'_>> = None;
        let (t_mins, t_maxs) = ([t_min; PACKET], [t_max; PACKET]);
        let mut rays = Vec::with_capacity(PACKET);
        for start in (0..n).step_by(PACKET) {
            let end = (start + PACKET).min(n);
            let run_out = &mut out[start..end];
            let tried = state.pack_to_try();
            if let Some((instance, index)) = tried
                && pack.as_ref().is_none_or(|p| p.which != (instance, index))
            {
                pack = self.pack_on_runs(instance, index, dir);
            }
            let settled = match (&pack, tried) {
                (Some(pack), Some(which)) if pack.which == which => {
                    let whole = |a: usize| <&[f32; PACKET]>::try_from(&origins[a][start..end]);
                    let tail: [[f32; PACKET]; 3];
                    let origin = match (whole(0), whole(1), whole(2)) {
                        (Ok(x), Ok(y), Ok(z)) => [x, y, z],
                        _ => {
                            // A short last run is read from a copy padded to a whole one.
                            tail = origins.map(|axis| {
                                let mut copy = [0.0; PACKET];
                                copy[..end - start].copy_from_slice(&axis[start..end]);
                                copy
                            });
                            [&tail[0], &tail[1], &tail[2]]
                        }
                    };
                    let lanes = RunLanes {
                        origin,
                        t_min: &t_mins,
                        t_max: &t_maxs,
                    };
                    pack.blocks(&lanes, end - start)
                }
                _ => 0,
            };
            if settled.count_ones() as usize == run_out.len() {
                run_out.fill(true);
                state.settled_whole();
                continue;
            }
            rays.clear();
            rays.extend((start..end).map(|k| Ray {
                origin: Vec3A::new(origins[0][k], origins[1][k], origins[2][k]),
                dir,
                t_min,
                t_max,
            }));
            state.settle(self, &rays, (tried, settled), run_out);
        }
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
    pub(super) fn run_packet(&self, index: u32, run: &[Ray], open: u32) -> RayPacket {
        let dir = run.first().map_or(Vec3A::X, |ray| ray.dir);
        let world_box = &self.top.boxes[index as usize].get();
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

/// What a stream of shadow rays carries from one run of [`PACKET`] neighbours to the next:
/// the last blocker and its blocking pack, and which ways have been paying.
struct ShadowRuns {
    last: Option<(u32, Option<u32>)>,
    /// Whether the rays the last blocker leaves open go as packets (else one by one).
    packets_pay: bool,
    /// Whether the last blocking pack is tried on a whole run (else ray by ray).
    together_pays: bool,
    open: Vec<Ray>,
    open_slots: [usize; PACKET],
    hits: [Option<Hit>; PACKET],
}

impl ShadowRuns {
    fn new() -> ShadowRuns {
        ShadowRuns {
            last: None,
            packets_pay: true,
            together_pays: true,
            open: Vec::with_capacity(PACKET),
            open_slots: [0; PACKET],
            hits: [None; PACKET],
        }
    }

    /// The instance and pack to try on the next run whole, if any.
    fn pack_to_try(&self) -> Option<(u32, u32)> {
        match self.last {
            Some((instance, Some(pack))) if self.together_pays => Some((instance, pack)),
            _ => None,
        }
    }

    /// A run that the pack tried settled whole: what [`ShadowRuns::settle`] would keep of it.
    fn settled_whole(&mut self) {
        // (Every ray hinted; with packets not paying, all blocked keeps them not paying.)
        self.together_pays = true;
    }

    /// Answers `run` into `run_out`: the rays of `settled` are blocked (by the pack `tried`
    /// on the whole run), the others are tried against the last blocker ray by ray, then
    /// traced as a packet or one by one.
    fn settle(
        &mut self,
        scene: &Scene,
        run: &[Ray],
        (tried, settled): (Option<(u32, u32)>, u32),
        run_out: &mut [bool],
    ) {
        let tried = tried.map(|(instance, pack)| (instance, Some(pack)));
        self.open.clear();
        // The rays settled by the last blocker, together or one by one.
        let mut hinted = settled.count_ones() as usize;
        for (k, (slot, ray)) in run_out.iter_mut().zip(run).enumerate() {
            if settled >> k & 1 != 0 {
                *slot = true;
                continue;
            }
            *slot = match &mut self.last {
                // That pack missed this ray: the rest of the mesh is left.
                Some((instance, pack)) if tried == Some((*instance, *pack)) => {
                    let mut found = None;
                    let blocked = scene.instance_blocks(*instance, ray, &mut found);
                    if blocked {
                        *pack = found;
                    }
                    blocked
                }
                Some((instance, pack)) => scene.instance_blocks(*instance, ray, pack),
                None => false,
            };
            if *slot {
                hinted += 1;
                continue;
            }
            if self.packets_pay {
                self.open_slots[self.open.len()] = k;
                self.open.push(*ray);
            } else {
                let blocker = scene.blocker(ray);
                *slot = blocker.is_some();
                if blocker.is_some() {
                    self.last = blocker;
                }
            }
        }
        self.together_pays = 2 * hinted >= run.len();
        if !self.packets_pay {
            let open_rays = run_out.len();
            self.packets_pay = 4 * run_out.iter().filter(|&&b| b).count() < 3 * open_rays;
            return;
        }
        if self.open.is_empty() {
            return;
        }
        let open = self.open.len();
        scene.packet_hits(&self.open, &mut self.hits[..open], true);
        let mut blocked = 0;
        for (hit, &k) in self.hits.iter().zip(&self.open_slots[..open]) {
            run_out[k] = hit.is_some();
            if let Some(h) = hit {
                self.last = Some((h.instance, None));
                blocked += 1;
            }
        }
        self.packets_pay = 4 * blocked < 3 * open;
    }
}
