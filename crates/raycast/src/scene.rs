//! A two-level scene: meshes (each with its own BVH, shared by any number of instances) placed
//! by instance transforms, and a top level over the instances (`top.rs`: one tree for those
//! that stay put, one rebuilt at each commit for those that move).
//!
//! Rays are intersected in each instance's own frame (the ray is moved there, the mesh is not),
//! so precision follows the mesh's own coordinates, not its placement. Hits in huge instances
//! (a kilometre and more, such as MAVS's 200 km ground slab, whose coordinates' rounding puts
//! a grazing ray's hit millimetres off) have their distance worked out again in doubles
//! (`scene/huge.rs`): micrometres.
//!
//! Meshes are shared between clones of a scene until one of them changes a mesh (then that
//! clone gets its own copy of it): a second copy of a world for posing the next step while
//! sensors read this one costs only its moving meshes.

use crate::chunks::SharedChunks;
use crate::mesh::{LocalHit, PACKET, PacketHead, RayPacket, TriangleMesh};
use crate::ray::{Hit, Ray, Shear, intersect_box};
use crate::top::TopLevel;
use lanes::{Beam, PacketLanes};

mod huge;
mod instance;
mod lanes;
mod normals;
mod pack_run;
mod shadow;
use glam::{Affine3A, Vec3A, Vec4};
pub use instance::Instance;
use instance::make_instance;
use rayon::prelude::*;
pub(crate) use shadow::share_direction;
use std::sync::Arc;

/// Index of a mesh in a [`Scene`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MeshId(pub u32);

/// Meshes, instances and the top level.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    meshes: Vec<Arc<TriangleMesh>>,
    /// Per mesh, the instances placing it (whose boxes change with it).
    mesh_users: Vec<Vec<u32>>,
    /// Shared chunk by chunk with this scene's clones (the copy posed ahead).
    instances: SharedChunks<Instance>,
    top: TopLevel,
}

impl Scene {
    /// An empty scene.
    pub fn new() -> Scene {
        Scene::default()
    }

    /// Adds a mesh (not yet placed anywhere).
    pub fn add_mesh(&mut self, mesh: TriangleMesh) -> MeshId {
        self.add_shared_mesh(Arc::new(mesh))
    }

    /// Adds a mesh that other scenes may hold as well (see [`Scene::shared_mesh`]).
    pub fn add_shared_mesh(&mut self, mesh: Arc<TriangleMesh>) -> MeshId {
        self.meshes.push(mesh);
        self.mesh_users.push(Vec::new());
        MeshId(self.meshes.len() as u32 - 1)
    }

    /// The mesh with this id, to add to another scene without a copy.
    pub fn shared_mesh(&self, id: MeshId) -> &Arc<TriangleMesh> {
        &self.meshes[id.0 as usize]
    }

    /// The mesh with this id.
    pub fn mesh(&self, id: MeshId) -> &TriangleMesh {
        &self.meshes[id.0 as usize]
    }

    /// The mesh with this id, to update its vertices (call [`Scene::commit`] afterwards).
    pub fn mesh_mut(&mut self, id: MeshId) -> &mut TriangleMesh {
        for &user in &self.mesh_users[id.0 as usize] {
            self.top.moved(user);
        }
        Arc::make_mut(&mut self.meshes[id.0 as usize])
    }

    /// Number of meshes.
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    /// Gives mesh `i` the vertices `vertices[i]` where there are some (see
    /// [`TriangleMesh::update_vertices`]), in parallel; call [`Scene::commit`] afterwards.
    pub fn update_meshes(&mut self, vertices: &[Option<&[glam::Vec3]>]) {
        (self.meshes.par_iter_mut().zip(vertices)).for_each(|(mesh, vertices)| {
            if let Some(v) = vertices {
                Arc::make_mut(mesh).update_vertices(v);
            }
        });
        for (users, _) in (self.mesh_users.iter().zip(vertices)).filter(|(_, v)| v.is_some()) {
            for &user in users {
                self.top.moved(user);
            }
        }
    }

    /// Places a mesh; returns the instance index reported in hits. Call [`Scene::commit`]
    /// before casting. An instance expected to move is better placed with
    /// [`Scene::add_moving_instance`] (this one works too, at the cost of one rebuild of the
    /// still instances' tree when it first moves).
    pub fn add_instance(&mut self, mesh: MeshId, world_from_mesh: Affine3A) -> u32 {
        self.place(mesh, world_from_mesh, false)
    }

    /// Places a mesh that will move (or change shape), as [`Scene::add_instance`] does.
    pub fn add_moving_instance(&mut self, mesh: MeshId, world_from_mesh: Affine3A) -> u32 {
        self.place(mesh, world_from_mesh, true)
    }

    fn place(&mut self, mesh: MeshId, world_from_mesh: Affine3A, moving: bool) -> u32 {
        let index = self.instances.len() as u32;
        self.instances.push(make_instance(mesh, world_from_mesh));
        self.mesh_users[mesh.0 as usize].push(index);
        self.top.add(moving);
        index
    }

    /// Moves an instance (call [`Scene::commit`] afterwards).
    pub fn set_transform(&mut self, instance: u32, world_from_mesh: Affine3A) {
        let slot = &mut self.instances[instance as usize];
        if slot.world_from_mesh() != world_from_mesh {
            *slot = make_instance(slot.mesh, world_from_mesh);
            self.top.moved(instance);
        }
    }

    /// An instance.
    ///
    /// # Panics
    /// If `index` is not an instance of this scene.
    pub fn instance(&self, index: u32) -> &Instance {
        &self.instances[index as usize]
    }

    /// Number of instances.
    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }

    /// Bytes held by all meshes and the top level (shared meshes counted once).
    pub fn memory_bytes(&self) -> usize {
        let (meshes, placements) = self.memory_bytes_split();
        meshes + placements
    }

    /// [`Scene::memory_bytes`] in two: the meshes (vertices, triangles, trees; shared ones
    /// once), and the placements (the instances, their world boxes, the top level's trees
    /// and each mesh's list of users), which grow with the number of instances.
    pub fn memory_bytes_split(&self) -> (usize, usize) {
        let meshes = (self.meshes.iter()).map(|mesh| mesh.memory_bytes()).sum();
        let users: usize = self.mesh_users.iter().map(|u| u.capacity() * 4).sum();
        let placements = self.instances.memory_bytes() + users + self.top.memory_bytes();
        (meshes, placements)
    }

    /// Total triangles over all instances.
    pub fn triangle_count(&self) -> usize {
        self.instances
            .iter()
            .map(|i| self.meshes[i.mesh.0 as usize].triangle_count())
            .sum()
    }

    /// Brings the top level up to date with the instances placed, moved and reshaped since
    /// the last commit.
    pub fn commit(&mut self) {
        let (instances, meshes) = (&self.instances, &self.meshes);
        self.top.commit(
            |i| instances[i].world_from_mesh(),
            |i| meshes[instances[i].mesh.0 as usize].bounds(),
        );
    }

    /// Calls `f` with every instance whose world box `inside` accepts, walking the top level:
    /// `inside` is asked about the boxes of whole groups of instances first, and a group it
    /// refuses is skipped, so it must accept every box around a box it would accept (a
    /// frustum or region test does). The order of instances is unspecified; `f` stops the
    /// walk by returning `ControlFlow::Break`.
    pub fn visit_boxes(
        &self,
        mut inside: impl FnMut(&crate::bvh::Aabb) -> bool,
        mut f: impl FnMut(u32) -> std::ops::ControlFlow<()>,
    ) {
        let mut stack = Vec::new();
        for tree in self.top.trees().into_iter().filter(|t| !t.nodes.is_empty()) {
            stack.push(0usize);
            while let Some(node) = stack.pop() {
                let n = &tree.nodes[node];
                if !inside(&n.bounds) {
                    continue;
                }
                if n.count == 0 {
                    stack.extend([n.right_or_first as usize, node + 1]);
                    continue;
                }
                let first = n.right_or_first as usize;
                for &p in &tree.prims[first..first + n.count as usize] {
                    let accepted = n.count == 1 || inside(&self.top.boxes[p as usize].get());
                    if accepted && f(p).is_break() {
                        return;
                    }
                }
            }
        }
    }

    /// The closest hit of a ray. Equal distances go to the lower instance, then the lower
    /// triangle, so the answer never depends on traversal order or threads.
    pub fn closest(&self, ray: &Ray) -> Option<Hit> {
        let mut best: Option<Hit> = None;
        self.visit_instances(ray, |inst_index, inst, t_far| {
            let mesh = &self.meshes[inst.mesh.0 as usize];
            let (o, d) = inst.ray_to_mesh(ray.origin, ray.dir);
            // (A huge instance's mesh is walked to the ray's end: see `scene/huge.rs`.)
            let huge = self.top.huge(inst_index);
            let bound = t_far.filter(|_| !huge).map_or(ray.t_max, next_up);
            if let Some(mut h) = mesh.closest(o, d, ray.t_min, bound) {
                if huge {
                    h = self.huge_entry(inst_index).hit(ray, &h);
                }
                keep_closer(&mut best, &h, inst_index, inst, ray.t_max);
            }
            best.map(|b| b.t)
        });
        best
    }

    /// Whether a ray hits anything (shadow rays).
    pub fn any_hit(&self, ray: &Ray) -> bool {
        self.blocker(ray).is_some()
    }

    /// An instance that blocks a ray, if any, with the pack of its triangles that does
    /// (which one, when several do, depends on the traversal).
    fn blocker(&self, ray: &Ray) -> Option<(u32, Option<u32>)> {
        let mut found = None;
        self.visit_instances(ray, |index, _, _| {
            let mut pack = None;
            if found.is_none() && self.instance_blocks(index, ray, &mut pack) {
                found = Some((index, pack));
            }
            found.map(|_| ray.t_min)
        });
        found
    }

    /// Whether instance `index` blocks a ray, trying the pack `hint` first (see
    /// [`TriangleMesh::any_hit_hinted`]). Its world box is tested as the top-level walk tests
    /// it (a ray that reaches a box reaches every box around it: the slab test rounds
    /// monotonically), so a `true` here is one the walk would find too.
    fn instance_blocks(&self, index: u32, ray: &Ray, hint: &mut Option<u32>) -> bool {
        let b = &self.top.boxes[index as usize].get();
        let inv = ray.dir.recip();
        if intersect_box(ray.origin, inv, ray.t_min, ray.t_max, b.min, b.max).is_none() {
            return false;
        }
        let inst = &self.instances[index as usize];
        let (o, d) = inst.ray_to_mesh(ray.origin, ray.dir);
        self.meshes[inst.mesh.0 as usize].any_hit_hinted(o, d, ray.t_min, ray.t_max, hint)
    }

    /// Instance `index`'s world box, as the walks test it.
    pub(crate) fn world_box(&self, index: u32) -> crate::bvh::Aabb {
        self.top.boxes[index as usize].get()
    }

    /// Whether instance `index` blocks a ray with a triangle in one of `leaves` of its mesh's
    /// tree, testing what [`Scene::instance_blocks`] tests on the way (for
    /// [`crate::ParallelGrid`]). `along` is what the ray's direction gives in that test: its
    /// world inverse, and the shear of its direction in the mesh's frame.
    pub(crate) fn leaves_block(
        &self,
        index: u32,
        ray: &Ray,
        along: &(Vec3A, Shear),
        leaves: impl Iterator<Item = u32>,
    ) -> bool {
        let (inv, shear) = along;
        let b = &self.top.boxes[index as usize].get();
        if intersect_box(ray.origin, *inv, ray.t_min, ray.t_max, b.min, b.max).is_none() {
            return false;
        }
        let inst = &self.instances[index as usize];
        let origin = inst.point_to_mesh(ray.origin);
        let mesh = &self.meshes[inst.mesh.0 as usize];
        mesh.any_hit_in_leaves(origin, shear, ray.t_min, ray.t_max, leaves)
    }

    /// Closest hits of many rays, in parallel on the current rayon pool; `out[i]` answers
    /// `rays[i]` exactly as [`Scene::closest`] would. Neighbouring rays are traced [`PACKET`]
    /// at a time, so pass a scan's rays in their natural order. The results do not depend on the
    /// number of threads.
    ///
    /// One exception to "exactly": a triangle so large that its own test is less precise than
    /// the box around it (MAVS's `surface.obj`, a slab 200 km wide, reports hits up to 2 mm
    /// before its top face at a grazing angle) can hide, or be hidden by, a surface within that
    /// error behind it, depending on which a walk meets first: packets go nearest box first,
    /// single rays in tree order. Packets are cut from a batch the same way on any thread
    /// count, so results stay deterministic.
    pub fn closest_batch(&self, rays: &[Ray], out: &mut [Option<Hit>]) {
        self.batch(rays, out, Scene::closest_run);
    }

    /// [`Scene::closest_batch`] with raw normals ([`Scene::closest_run_raw`]).
    pub fn closest_batch_raw(&self, rays: &[Ray], out: &mut [Option<Hit>]) {
        self.batch(rays, out, Scene::closest_run_raw);
    }

    /// `run` over a batch's chunks in parallel.
    fn batch(
        &self,
        rays: &[Ray],
        out: &mut [Option<Hit>],
        run: impl Fn(&Scene, &[Ray], &mut [Option<Hit>]) + Sync,
    ) {
        // About four tasks per thread, whole packets each: small batches (a spinning lidar's
        // columns of one step) still spread over every thread. Each ray's answer does not depend
        // on how rays are grouped, so the chunk size does not change results.
        let per_task = rays.len().div_ceil(4 * rayon::current_num_threads());
        let chunk = per_task.next_multiple_of(PACKET).clamp(8 * PACKET, 256);
        out.par_chunks_mut(chunk)
            .zip(rays.par_chunks(chunk))
            .for_each(|(o, r)| run(self, r, o));
    }

    /// Closest hits of a run of neighbouring rays, on this thread, [`PACKET`] at a time; `out[i]`
    /// answers `rays[i]` exactly as [`Scene::closest`] would.
    pub fn closest_run(&self, rays: &[Ray], out: &mut [Option<Hit>]) {
        for (slots, packet) in out.chunks_mut(PACKET).zip(rays.chunks(PACKET)) {
            let count = slots.len().min(packet.len());
            self.packet_hits(&packet[..count], &mut slots[..count], false);
        }
    }

    /// [`Scene::closest_run`] for callers that read no unit normals (a lidar without
    /// intensities): the same hits, each one's `normal` raw, as the mesh's test made it: its
    /// triangle's cross product in its instance's frame, not unit (what Embree reports as a
    /// hit's `Ng`).
    pub fn closest_run_raw(&self, rays: &[Ray], out: &mut [Option<Hit>]) {
        for (slots, packet) in out.chunks_mut(PACKET).zip(rays.chunks(PACKET)) {
            let count = slots.len().min(packet.len());
            self.walk_packet(&packet[..count], &mut slots[..count], false);
        }
    }

    /// The closest hits of up to [`PACKET`] rays, traced together, into `best` (one slot per
    /// ray: written in place, as the packet's arrays are too large to move cheaply). With
    /// `first_hit`, each ray's first hit met instead: some hit if and only if it has any (its
    /// normal is not made: the triangle's cross product, not unit and in the mesh's frame).
    fn packet_hits(&self, rays: &[Ray], best: &mut [Option<Hit>], first_hit: bool) {
        self.walk_packet(rays, best, first_hit);
        if !first_hit {
            self.make_normals(best);
        }
    }

    /// [`Scene::packet_hits`] but for the hits' normals.
    fn walk_packet(&self, rays: &[Ray], best: &mut [Option<Hit>], first_hit: bool) {
        best.fill(None);
        let all = u32::MAX
            .checked_shr(32 - rays.len().min(PACKET) as u32)
            .unwrap_or(0);
        let trees = self.top.trees();
        if trees.iter().all(|tree| tree.nodes.is_empty()) {
            return;
        }
        let lanes = PacketLanes::new(rays);
        // Every ray's `t_min`, as each instance's packet takes them (made once a packet).
        let t_min = lanes.t_min();
        // Rays of one direction sign per axis (from one origin, or parallel) pass inner nodes as
        // one beam.
        let extremes = Beam::extremes(&lanes, all);
        let beam = extremes.as_ref().map(Beam::new);
        // Each ray's bound (one ulp past its best hit so far; with `first_hit`, none once it has
        // one) and the beam's (the largest), refreshed only when an instance was entered.
        let bounds = |best: &[Option<Hit>]| {
            let mut limits = [0.0f32; PACKET];
            for ((limit, ray), best) in limits.iter_mut().zip(rays).zip(best) {
                *limit = match best {
                    None => ray.t_max,
                    Some(_) if first_hit => f32::NEG_INFINITY,
                    Some(b) => next_up(b.t),
                };
            }
            // The largest, four lanes at a time (a chain of dependent maxima would stall).
            let beam = (limits.chunks_exact(4))
                .map(Vec4::from_slice)
                .fold(Vec4::ZERO, |m, v| Vec4::select(v.cmpgt(m), v, m))
                .max_element();
            (limits, beam)
        };
        let (mut limits, mut beam_limit) = bounds(best);
        // The rays of `candidates` that reach the box `min..max`.
        let reach = |min: Vec3A,
                     max: Vec3A,
                     candidates: u32,
                     (limits, beam_limit): (&[f32; PACKET], f32)|
         -> u32 {
            if let Some(beam) = &beam
                && beam.entry(min, max, beam_limit).is_none()
            {
                return 0;
            }
            lanes.reaching(min, max, candidates, limits).0
        };
        // Whether the packet may reach a box (the beam's test, or else each ray's), and a lower
        // bound of where it enters it.
        let entry = |b: &crate::bvh::Aabb, limits: &[f32; PACKET], beam_limit: f32| match &beam {
            Some(beam) => beam.entry(b.min, b.max, beam_limit),
            None => match lanes.reaching(b.min, b.max, all, limits) {
                (0, _) => None,
                (_, near) => Some(near),
            },
        };
        for tree in trees {
            let nodes = &tree.nodes;
            if nodes.is_empty() || entry(&nodes[0].bounds, &limits, beam_limit).is_none() {
                continue;
            }
            // Nearer child first, the other stacked with its entry: once every ray has a hit
            // nearer than a stacked box's entry, the box is passed over. (The order changes
            // only what is visited, never what is found: ties go to the lower instance.)
            let mut stack = [(0u32, 0f32); crate::bvh::MAX_DEPTH];
            let mut sp = 0;
            let mut node = 0usize;
            'walk: loop {
                let n = &nodes[node];
                if n.count == 0 {
                    let (left, right) = (node + 1, n.right_or_first as usize);
                    let near_left = entry(&nodes[left].bounds, &limits, beam_limit);
                    let near_right = entry(&nodes[right].bounds, &limits, beam_limit);
                    match (near_left, near_right) {
                        (Some(l), Some(r)) => {
                            let (first, (second, second_entry)) = if r < l {
                                (right, (left, l))
                            } else {
                                (left, (right, r))
                            };
                            stack[sp] = (second as u32, second_entry);
                            sp += 1;
                            node = first;
                            continue;
                        }
                        (Some(_), None) => {
                            node = left;
                            continue;
                        }
                        (None, Some(_)) => {
                            node = right;
                            continue;
                        }
                        (None, None) => {}
                    }
                } else {
                    let reached = reach(n.bounds.min, n.bounds.max, all, (&limits, beam_limit));
                    let first = n.right_or_first as usize;
                    let prims = &tree.prims[first..first + n.count as usize];
                    // A leaf's box holds several instances: each is entered only by the rays
                    // that reach its own box (entering costs moving the rays into its frame and
                    // walking its tree), nearest first, so that the nearer ones' hits spare the
                    // rays from the farther ones.
                    let (order, count) = if reached == 0 {
                        ([0; LEAF_ORDER], 0)
                    } else {
                        nearest_first(prims, |p| {
                            entry(&self.top.boxes[p as usize].get(), &limits, beam_limit)
                        })
                    };
                    let rest = prims.get(LEAF_ORDER..).unwrap_or_default();
                    let rest = rest.iter().copied().filter(|_| reached != 0);
                    for p in order[..count].iter().copied().chain(rest) {
                        let active = if prims.len() == 1 {
                            reached
                        } else {
                            let b = &self.top.boxes[p as usize].get();
                            // With a beam, its test alone: each ray's own test of a box in a
                            // leaf let 96 % of the rays through in the meadow, and the mesh's
                            // walk tests each ray against its leaves' boxes all the same.
                            match &beam {
                                Some(beam) => match beam.entry(b.min, b.max, beam_limit) {
                                    Some(_) => reached,
                                    None => 0,
                                },
                                None => reach(b.min, b.max, reached, (&limits, beam_limit)),
                            }
                        };
                        let parts_missed = || {
                            let inst = &self.instances[p as usize];
                            (beam.as_ref())
                                .is_some_and(|beam| beam_misses_parts(beam, inst, self, beam_limit))
                        };
                        if active != 0 && !parts_missed() {
                            let entering = (p, active);
                            let beam = extremes.as_ref().map(|e| (e, active == all));
                            let closer = self.closest_packet_in_instance(
                                (entering, beam),
                                (rays, &lanes, (&t_min, &limits)),
                                best,
                                first_hit,
                            );
                            if closer {
                                if first_hit && best.iter().all(Option::is_some) {
                                    return;
                                }
                                (limits, beam_limit) = bounds(best);
                            }
                        }
                    }
                }
                loop {
                    if sp == 0 {
                        break 'walk;
                    }
                    sp -= 1;
                    let (next, next_entry) = stack[sp];
                    if next_entry <= beam_limit {
                        node = next as usize;
                        break;
                    }
                }
            }
        }
    }

    /// The rays of `active` (of `rays`, four to a vector in `lanes`, each within its limit: its
    /// `t_max`, or one ulp past its best hit) through instance `index`; whether some ray's
    /// best hit moved closer. `beam`: the extremes of all the packet's rays, if they have one,
    /// and whether `active` is all of them.
    fn closest_packet_in_instance(
        &self,
        ((index, active), beam): ((u32, u32), Option<(&crate::beam::Extremes, bool)>),
        (rays, lanes, (t_min, limits)): (&[Ray], &PacketLanes, (&[f32; PACKET], &[f32; PACKET])),
        best: &mut [Option<Hit>],
        first_hit: bool,
    ) -> bool {
        // (First hits are any hits in range: their distances are not compared.)
        if !first_hit && self.top.huge(index) {
            return self.closest_packet_in_huge(
                ((index, active), beam),
                (rays, lanes),
                t_min,
                best,
            );
        }
        let mut closer = false;
        let found = |r: usize, hit: &LocalHit| {
            closer |= keep_closer_unturned(&mut best[r], hit, index, rays[r].t_max);
        };
        self.packet_through_mesh(
            ((index, active), beam),
            (lanes, (t_min, limits)),
            first_hit,
            found,
        );
        closer
    }

    /// The walk of instance `index`'s mesh by the rays of `active` (see
    /// [`Scene::closest_packet_in_instance`]), each within its limit, with `found(ray, hit)`
    /// for each hit closer than the ray's limit and those found before it (the last of a
    /// ray's is the mesh's closest).
    fn packet_through_mesh(
        &self,
        ((index, active), beam): ((u32, u32), Option<(&crate::beam::Extremes, bool)>),
        (lanes, (t_min, limits)): (&PacketLanes, (&[f32; PACKET], &[f32; PACKET])),
        first_hit: bool,
        found: impl FnMut(usize, &LocalHit),
    ) {
        let inst = &self.instances[index as usize];
        let mesh = &self.meshes[inst.mesh.0 as usize];
        if inst.placed_as_is() {
            // The packet's lanes as they are, and its beam when every ray is in.
            let same_beam = beam.filter(|(_, all)| *all).map(|(e, _)| *e);
            let packet = packet_of(lanes, active, (t_min, limits), None, same_beam);
            mesh.closest_packet(&packet, first_hit, found);
            return;
        }
        // (An inverse per entry.) The rays are moved into the mesh's frame only if its walk
        // tests them one by one: in a meadow most instances a camera's packet enters are left
        // after a few nodes that the beam alone answers for.
        let mesh_from_world = inst.mesh_from_world();
        let make = || packet_of(lanes, active, (t_min, limits), Some(&mesh_from_world), None);
        let one_origin = |e: &crate::beam::Extremes| e.origin_lo == e.origin_hi;
        match beam
            .and_then(|(e, _)| lanes.extremes_in_frame(active, &mesh_from_world, one_origin(e)))
        {
            Some(beam) => {
                let head = PacketHead {
                    active,
                    t_min,
                    t_max: limits,
                    beam: Some(&beam),
                };
                mesh.closest_packet_later(&head, &make, first_hit, found);
            }
            None => mesh.closest_packet(&make(), first_hit, found),
        }
    }

    /// Walks the top-level BVH, calling `f(index, instance, current_best_t)` for each instance
    /// whose box the ray reaches; `f` returns the best `t` so far, which prunes the rest.
    fn visit_instances(
        &self,
        ray: &Ray,
        mut f: impl FnMut(u32, &Instance, Option<f32>) -> Option<f32>,
    ) {
        let inv = ray.dir.recip();
        let mut best: Option<f32> = None;
        for tree in self.top.trees() {
            let nodes = &tree.nodes;
            if nodes.is_empty() {
                continue;
            }
            let mut stack = [0u32; crate::bvh::MAX_DEPTH];
            let mut sp = 0;
            let mut node = 0usize;
            loop {
                let limit = best.map_or(ray.t_max, next_up);
                let n = &nodes[node];
                if intersect_box(
                    ray.origin,
                    inv,
                    ray.t_min,
                    limit,
                    n.bounds.min,
                    n.bounds.max,
                )
                .is_some()
                {
                    if n.count > 0 {
                        let first = n.right_or_first as usize;
                        for &p in &tree.prims[first..first + n.count as usize] {
                            best = f(p, &self.instances[p as usize], best);
                        }
                    } else {
                        stack[sp] = n.right_or_first;
                        sp += 1;
                        node += 1;
                        continue;
                    }
                }
                if sp == 0 {
                    break;
                }
                sp -= 1;
                node = stack[sp] as usize;
            }
        }
    }
}

/// Instances of a top-level leaf ordered by entry before a packet enters them (leaves hold up
/// to four, or up to sixteen instances with one centre).
const LEAF_ORDER: usize = 16;

/// A leaf's instances that `entry` says the packet may reach, nearest entry first, and how
/// many; a leaf of one, or of more than [`LEAF_ORDER`], keeps its order (the first
/// [`LEAF_ORDER`]; the caller takes the rest after them), unsorted and untested.
fn nearest_first(prims: &[u32], entry: impl Fn(u32) -> Option<f32>) -> ([u32; LEAF_ORDER], usize) {
    let mut order = [(0f32, 0u32); LEAF_ORDER];
    let mut count = 0;
    if prims.len() > 1 && prims.len() <= LEAF_ORDER {
        for &p in prims {
            if let Some(near) = entry(p) {
                let mut i = count;
                while i > 0 && order[i - 1].0 > near {
                    order[i] = order[i - 1];
                    i -= 1;
                }
                order[i] = (near, p);
                count += 1;
            }
        }
    } else {
        for (slot, &p) in order.iter_mut().zip(prims) {
            *slot = (0.0, p);
        }
        count = prims.len().min(LEAF_ORDER);
    }
    (order.map(|(_, p)| p), count)
}

/// Whether `beam` misses every part of `inst`'s mesh: the boxes of its root's children, and
/// of their children where the beam reaches theirs (each moved to the world: the box around
/// the moved box, widened as instance boxes are for the rounding between frames; the box
/// around a smaller turned box is the tighter).
/// Most grass tufts a packet's box test lets in are turned away here, before the rays are
/// moved into their frame; the second level turned away more of the meadow's than it cost
/// (0.57 -> 0.59x real time on one thread), a third was no faster.
fn beam_misses_parts(beam: &Beam, inst: &Instance, scene: &Scene, limit: f32) -> bool {
    let mesh = &scene.meshes[inst.mesh.0 as usize];
    let m = &inst.world_from_mesh();
    let abs = glam::Mat3A::from_cols(
        m.matrix3.x_axis.abs(),
        m.matrix3.y_axis.abs(),
        m.matrix3.z_axis.abs(),
    );
    let reached = |(min, max): (Vec3A, Vec3A)| {
        let centre = m.transform_point3a((min + max) * 0.5);
        let half = abs * ((max - min) * 0.5);
        let (min, max) = crate::top::widened_for_frames(centre - half, centre + half);
        beam.entry(min, max, limit).is_some()
    };
    let mut any = false;
    for (part, inner) in mesh.child_boxes(0) {
        any = true;
        if !reached(part) {
            continue;
        }
        match inner {
            Some(node) if !mesh.child_boxes(node).any(|(sub, _)| reached(sub)) => {}
            _ => return false,
        }
    }
    any
}

/// The `active` rays of `lanes` as a mesh's walk takes them, moved by `mesh_from_world` if
/// given, within `(t_min, t_max)`, with their extremes `beam` if known.
fn packet_of(
    lanes: &PacketLanes,
    active: u32,
    (t_min, t_max): (&[f32; PACKET], &[f32; PACKET]),
    mesh_from_world: Option<&Affine3A>,
    beam: Option<crate::beam::Extremes>,
) -> RayPacket {
    let mut packet = RayPacket {
        origin: [[Vec4::ZERO; PACKET / 4]; 3],
        dir: [[Vec4::ZERO; PACKET / 4]; 3],
        inv_dir: [[Vec4::ONE; PACKET / 4]; 3],
        t_min: *t_min,
        t_max: *t_max,
        active,
        beam,
    };
    for g in 0..PACKET / 4 {
        if (active >> (4 * g)) & 0xF == 0 {
            continue;
        }
        let (origin, dir, inv_dir) = match mesh_from_world {
            None => {
                let (origin, dir) = lanes.group(g);
                (origin, dir, lanes.inverse(g))
            }
            Some(m) => {
                let (origin, dir) = lanes.in_frame(g, m);
                (origin, dir, dir.map(|d| Vec4::ONE / d))
            }
        };
        for a in 0..3 {
            packet.origin[a][g] = origin[a];
            packet.dir[a][g] = dir[a];
            packet.inv_dir[a][g] = inv_dir[a];
        }
    }
    packet
}

/// Keeps `h` (on instance `index`) in `best` if it is closer, or as close with a lower
/// (instance, triangle): the tie-break that makes results independent of traversal order.
/// Whether it was.
fn keep_closer(
    best: &mut Option<Hit>,
    h: &LocalHit,
    index: u32,
    inst: &Instance,
    t_max: f32,
) -> bool {
    let closer = keep_closer_unturned(best, h, index, t_max);
    if closer && let Some(b) = best {
        b.normal = world_normal(inst, h.normal).into();
    }
    closer
}

/// [`keep_closer`], with the hit's normal as `h` has it (a packet's hits get theirs once the
/// walk has chosen them: [`Scene::make_normals`]).
fn keep_closer_unturned(best: &mut Option<Hit>, h: &LocalHit, index: u32, t_max: f32) -> bool {
    let closer = match best {
        None => h.t < t_max,
        Some(b) => h.t < b.t || (h.t == b.t && (index, h.triangle) < (b.instance, b.triangle)),
    };
    if closer {
        *best = Some(Hit {
            t: h.t,
            u: h.u,
            v: h.v,
            triangle: h.triangle,
            instance: index,
            normal: h.normal.into(),
        });
    }
    closer
}

/// A mesh-frame unit normal of `inst`'s mesh carried to the world.
fn world_normal(inst: &Instance, normal: Vec3A) -> Vec3A {
    (inst.normal_to_world() * normal).normalize_or_zero()
}

fn next_up(t: f32) -> f32 {
    if t.is_finite() && t >= 0.0 {
        f32::from_bits(t.to_bits() + 1)
    } else {
        t
    }
}
