//! A frame's shadow rays, all towards the sun: kept as their origins axis by axis (the rays
//! are made whole only where a test needs them so), with the sample each belongs to. Owns the
//! lift of a shadow ray's origin off its surface; what answers the rays is the shader's choice.

use glam::Vec3A;
use passerby_raycast::{ParallelGrid, Ray};

/// How far a shadow ray looks for a blocker, metres.
const RANGE: (f32, f32) = (0.0, 1e4);

/// Rays made whole at once where they are traced as rays (192 KB of them).
const STRETCH: usize = 4096;

/// Shadow rays towards `to_sun`, in the order they were queued.
pub(crate) struct SunRays {
    to_sun: Vec3A,
    /// Whether rays along `to_sun` can be made at all (a finite, non-zero direction).
    usable: bool,
    origins: [Vec<f32>; 3],
    /// The sample each ray belongs to.
    of: Vec<u32>,
}

impl SunRays {
    pub(crate) fn new(to_sun: Vec3A) -> SunRays {
        SunRays {
            to_sun,
            usable: Ray::new(Vec3A::ZERO, to_sun, RANGE.0, RANGE.1).is_ok(),
            origins: Default::default(),
            of: Vec::new(),
        }
    }

    pub(crate) fn reserve(&mut self, rays: usize) {
        self.origins.iter_mut().for_each(|axis| axis.reserve(rays));
        self.of.reserve(rays);
    }

    /// Queues the shadow ray of sample `k`, seen from `origin` along `dir` at distance `t` on
    /// a surface `facing` the camera: from the point, lifted off the surface by more than
    /// the hit's rounding error at its distance. A ray that cannot be made (a point beyond
    /// single precision) is not queued: the sample stays lit.
    #[inline(always)]
    pub(crate) fn push(&mut self, k: usize, (origin, dir, t): (Vec3A, Vec3A, f32), facing: Vec3A) {
        let point = origin + dir * t;
        let lift = 1e-4 + 1e-5 * (point - origin).length();
        let from = point + facing * lift;
        if self.usable && from.is_finite() {
            for (axis, value) in self.origins.iter_mut().zip(from.to_array()) {
                axis.push(value);
            }
            self.of.push(k as u32);
        }
    }

    /// Queues the shadow rays of samples `first..first + depths.len()`, seen from `origin`
    /// along `dirs` (axis by axis) at `depths` on a surface of normal `normal`, whose back
    /// they see where `backs` says, those `wanted` (by the side they see): [`SunRays::push`]
    /// for each, its operations axis by axis in a loop the compiler lays out in vectors
    /// (glam's length sums `(x + y) + z`), so the same origins.
    pub(crate) fn push_run(
        &mut self,
        from: (Vec3A, usize),
        seen: ([&[f32]; 3], &[f32]),
        sides: (Vec3A, &[bool]),
        wanted: [bool; 2],
    ) {
        push_run_widest(self, from, seen, sides, wanted);
    }

    /// [`SunRays::push_run`]'s body (compiled for each vector width).
    #[inline(always)]
    fn push_run_body(
        &mut self,
        (origin, first): (Vec3A, usize),
        ([xs, ys, zs], depths): ([&[f32]; 3], &[f32]),
        (normal, backs): (Vec3A, &[bool]),
        wanted: [bool; 2],
    ) {
        let n = (depths.len().min(backs.len()))
            .min(xs.len())
            .min(ys.len())
            .min(zs.len());
        // (A run mostly sees one side of its triangle: when that side is unlit, none.)
        if !self.usable || !backs[..n].iter().any(|&back| wanted[usize::from(back)]) {
            return;
        }
        let start = self.of.len();
        for axis in &mut self.origins {
            axis.resize(start + n, 0.0);
        }
        let [lx, ly, lz] = &mut self.origins;
        // (All cut to `n`, so that the loop has no bounds checks to keep it from vectors.)
        let (lx, ly, lz) = (&mut lx[start..], &mut ly[start..], &mut lz[start..]);
        let (xs, ys, zs, backs) = (&xs[..n], &ys[..n], &zs[..n], &backs[..n]);
        let o = origin;
        for k in 0..n {
            let t = depths[k];
            let (px, py, pz) = (o.x + xs[k] * t, o.y + ys[k] * t, o.z + zs[k] * t);
            let (vx, vy, vz) = (px - o.x, py - o.y, pz - o.z);
            let lift = 1e-4 + 1e-5 * ((vx * vx + vy * vy) + vz * vz).sqrt();
            let toward_camera = if backs[k] { -1.0 } else { 1.0 };
            lx[k] = px + normal.x * toward_camera * lift;
            ly[k] = py + normal.y * toward_camera * lift;
            lz[k] = pz + normal.z * toward_camera * lift;
        }
        self.of.extend((first..first + n).map(|k| k as u32));
        // Most runs keep every ray: the others are closed up.
        let keep = |back: bool, [x, y, z]: [f32; 3]| {
            wanted[usize::from(back)] && x.is_finite() && y.is_finite() && z.is_finite()
        };
        // (Without early exits: a loop the compiler lays out in vectors.)
        let all_kept = (0..n).fold(true, |all, k| all & keep(backs[k], [lx[k], ly[k], lz[k]]));
        if all_kept {
            return;
        }
        let mut kept = 0;
        for k in 0..n {
            if keep(backs[k], [lx[k], ly[k], lz[k]]) {
                (lx[kept], ly[kept], lz[kept]) = (lx[k], ly[k], lz[k]);
                self.of[start + kept] = self.of[start + k];
                kept += 1;
            }
        }
        for axis in &mut self.origins {
            axis.truncate(start + kept);
        }
        self.of.truncate(start + kept);
    }

    /// Traces the queued rays (from `grid` if there is one, else `scene`'s trees) and calls
    /// `shadowed(k)` for the sample of each that is blocked; then forgets them.
    pub(crate) fn trace(
        &mut self,
        scene: &passerby_raycast::Scene,
        grid: Option<&ParallelGrid>,
        mut shadowed: impl FnMut(usize),
    ) {
        let n = self.of.len();
        if n == 0 {
            return;
        }
        let mut blocked = vec![false; n];
        let [xs, ys, zs] = &self.origins;
        let bits = |v: Vec3A| v.to_array().map(f32::to_bits);
        match grid {
            // The same answers (`ParallelGrid::any_hit`), from the leaves under each origin.
            Some(grid) if bits(grid.dir()) == bits(self.to_sun) => {
                grid.any_hit_from(scene, [xs, ys, zs], RANGE, &mut blocked)
            }
            // Straight from the origins.
            None => scene.any_hit_along([xs, ys, zs], self.to_sun, RANGE, &mut blocked),
            // Made whole a stretch at a time (each ray's answer does not depend on the
            // stretches), so that they are still in cache when traced.
            Some(grid) => {
                let mut rays = Vec::with_capacity(STRETCH.min(n));
                for (start, blocked) in (0..n).step_by(STRETCH).zip(blocked.chunks_mut(STRETCH)) {
                    rays.clear();
                    rays.extend((start..start + blocked.len()).map(|k| Ray {
                        origin: Vec3A::new(xs[k], ys[k], zs[k]),
                        dir: self.to_sun,
                        t_min: RANGE.0,
                        t_max: RANGE.1,
                    }));
                    grid.any_hit_run(scene, &rays, blocked);
                }
            }
        }
        for (&blocked, &k) in blocked.iter().zip(&self.of) {
            if blocked {
                shadowed(k as usize);
            }
        }
        self.origins.iter_mut().for_each(Vec::clear);
        self.of.clear();
    }
}

passerby_raycast::widest_vectors! {
    up to avx2;
    /// [`SunRays::push_run`] in AVX2 where the CPU has it: a run's origins and lifts (a
    /// square root each) eight lanes at a time.
    fn push_run_widest(
        rays: &mut SunRays,
        from: (Vec3A, usize),
        seen: ([&[f32]; 3], &[f32]),
        sides: (Vec3A, &[bool]),
        wanted: [bool; 2],
    ) => SunRays::push_run_body
}

#[cfg(test)]
mod tests {
    use super::SunRays;
    use glam::Vec3A;

    /// A run's rays queued together are the very rays queued one sample at a time: the same
    /// origins bit for bit, the same samples, the unlit side's and the unmakeable ones left
    /// out.
    #[test]
    fn a_run_queues_what_its_samples_would_one_by_one() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let to_sun = Vec3A::new(0.3, -0.2, 0.93).normalize();
        let camera = Vec3A::new(1.5, -2.0, 0.7);
        for case in 0..200 {
            let n = 1 + case % 70;
            let normal = Vec3A::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
            let dirs: [Vec<f32>; 3] =
                std::array::from_fn(|_| (0..n).map(|_| 2.0 * next() - 1.0).collect());
            let depths: Vec<f32> = (0..n)
                .map(|k| match (case + k) % 29 {
                    0 => f32::INFINITY,
                    1 => f32::NAN,
                    2 => 3e38,
                    _ => 50.0 * next(),
                })
                .collect();
            let backs: Vec<bool> = (0..n).map(|k| (case / 3 + k / 5) % 4 == 0).collect();
            let wanted = [case % 3 != 1, case % 3 != 2];
            let first = 100 * case;
            let mut together = SunRays::new(to_sun);
            together.push(7, (camera, Vec3A::X, 1.0), normal);
            let [xs, ys, zs] = &dirs;
            together.push_run(
                (camera, first),
                ([xs, ys, zs], &depths),
                (normal, &backs),
                wanted,
            );
            let mut alone = SunRays::new(to_sun);
            alone.push(7, (camera, Vec3A::X, 1.0), normal);
            for k in 0..n {
                if wanted[usize::from(backs[k])] {
                    let dir = Vec3A::new(xs[k], ys[k], zs[k]);
                    let facing = normal * if backs[k] { -1.0 } else { 1.0 };
                    alone.push(first + k, (camera, dir, depths[k]), facing);
                }
            }
            let bits = |r: &SunRays| {
                r.origins
                    .clone()
                    .map(|a| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
            };
            assert_eq!(bits(&together), bits(&alone), "case {case}");
            assert_eq!(together.of, alone.of, "case {case}");
        }
    }
}
