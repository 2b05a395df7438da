//! `lidar3d`: one exact ray per beam and column against the scene (no depth images, nothing
//! interpolated), with MVSim's beam pattern and ordering.
//!
//! Timing (`<scan_mode>`): **rotating** (default) sweeps columns over the period like a real
//! spinning lidar: sweep `i` starts at `i·period`, column `k` of `N` belongs to `start + k·period/N`
//! and is cast in the simulation step that covers that time (the first step ending at or after
//! it), from where the sensor is in that step,
//! against the scene as it is in that step; the cloud is emitted when the sweep completes, stamped
//! with its start, each point's `time` its column's offset. A moving sensor or target gives the
//! motion distortion real lidars have. **flash** (MVSim's) casts every column at once when the
//! sensor is due and stamps the cloud with that time.
//!
//! Per point: position in the sensor frame, intensity, ring (0 = lowest beam), time, instance id
//! and class id of what was hit. Hits nearer than `min_range` block the beam (no return), as do
//! misses and hits past `max_range`. Range noise is Gaussian (`range_std_noise`) along the beam;
//! a noisy range outside (0, `max_range`] is dropped. Intensity = |cos θ|, θ between the beam and
//! the surface normal (every surface reflects fully until materials carry a reflectance), or 0
//! without `generate_intensity`.

use crate::Observation;
use crate::noise::{SensorRng, Streams};
use crate::unit::{Mount, Pass as UnitPass, Reaching, SensorUnit, StepContext};
use crate::{SceneView, Target};
use glam::{Affine3A, Vec3A};
use passerby_raycast::PACKET;
use passerby_scene::RaysCast;
use passerby_world::SensorRef;
use passerby_world::{Lidar3dParams, ScanMode};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// The order in which to cast a block of `columns` x `rings` beams (indices column-major, rings
/// fastest): tiles of [`PACKET`] beams as square in angle as the pattern allows, since the ray
/// caster traces rays that many at a time and a compact packet shares more of its traversal.
/// `ring_step` and `column_step` are the angular spacings (radians).
pub fn packet_order(columns: usize, rings: usize, ring_step: f64, column_step: f64) -> Vec<usize> {
    // Rings per tile: the power of two r up to a packet that minimises the tile's larger
    // angular side.
    let tile_rings = (0..=PACKET.trailing_zeros())
        .map(|k| 1usize << k)
        .filter(|&r| r <= rings.max(1))
        .min_by(|&a, &b| {
            let side = |r: usize| (r as f64 * ring_step).max((PACKET / r) as f64 * column_step);
            side(a).total_cmp(&side(b)).then(a.cmp(&b))
        })
        .unwrap_or(1);
    let tile_columns = PACKET / tile_rings;
    let mut order = Vec::with_capacity(columns * rings);
    for c0 in (0..columns).step_by(tile_columns) {
        for r0 in (0..rings).step_by(tile_rings) {
            for c in c0..(c0 + tile_columns).min(columns) {
                for r in r0..(r0 + tile_rings).min(rings) {
                    order.push(c * rings + r);
                }
            }
        }
    }
    order
}

/// Every beam of a sweep: directions in the sensor frame, column-major (rings ascending within
/// a column), and which of them fire.
#[derive(Clone, Debug)]
pub struct BeamGrid {
    /// Unit directions, `columns x rings`.
    pub dirs: Vec<Vec3A>,
    /// Beams per column.
    pub rings: usize,
    /// Columns per sweep.
    pub columns: usize,
    /// Angular spacing of rings and of columns, radians (for packet tiles).
    pub steps: (f64, f64),
    /// Per beam, whether it fires (`None`: all do).
    firing: Option<Vec<bool>>,
}

impl BeamGrid {
    /// Whether beam `index` (column-major) fires.
    pub fn fires(&self, index: usize) -> bool {
        self.firing.as_ref().is_none_or(|f| f[index])
    }

    /// Indices of the beams that fire, in scan order.
    pub fn firing(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.dirs.len()).filter(|&i| self.fires(i))
    }
}

/// The beam grid of a lidar pattern.
pub fn beam_grid(params: &Lidar3dParams) -> BeamGrid {
    let elevations = params.beam_elevations();
    let azimuths = params.column_azimuths();
    let mut dirs = Vec::with_capacity(azimuths.len() * elevations.len());
    for &azimuth in &azimuths {
        for &el in &elevations {
            dirs.push(Vec3A::new(
                (el.cos() * azimuth.cos()) as f32,
                (el.cos() * azimuth.sin()) as f32,
                el.sin() as f32,
            ));
        }
    }
    let firing = params.ring_column_stride.as_ref().map(|_| {
        (0..dirs.len())
            .map(|i| params.fires(i % elevations.len(), i / elevations.len()))
            .collect()
    });
    let ring_step = if elevations.len() > 1 {
        (elevations[elevations.len() - 1] - elevations[0]) / (elevations.len() - 1) as f64
    } else {
        1.0
    };
    let column_step = if azimuths.len() > 1 {
        (azimuths[1] - azimuths[0]).abs()
    } else {
        std::f64::consts::TAU
    };
    BeamGrid {
        rings: elevations.len(),
        columns: azimuths.len(),
        steps: (ring_step, column_step.max(1e-9)),
        dirs,
        firing,
    }
}

/// One lidar return.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LidarPoint {
    /// Metres, sensor frame (x forward, y left, z up).
    pub position: [f32; 3],
    /// 0 to 1.
    pub intensity: f32,
    /// Beam index, 0 = lowest.
    pub ring: u16,
    /// Seconds after the cloud's stamp.
    pub time: f32,
    /// Instance id of what was hit (1 and up).
    pub instance: u32,
    /// Class id of what was hit.
    pub label: u16,
}

/// A completed sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct PointCloud {
    /// The sensor.
    pub sensor: SensorRef,
    /// Simulated seconds (the sweep's start).
    pub stamp: f64,
    /// Valid returns, column by column from +180°, rings ascending within a column.
    pub points: Vec<LidarPoint>,
    /// Beams.
    pub rings: u16,
    /// Columns per sweep.
    pub columns: u32,
    /// The organised range image: `rings x columns` ranges (metres, noise included), row `r` for
    /// ring `r`, NaN where there was no return.
    pub range_image: Vec<f32>,
}

#[derive(Debug)]
struct Sweep {
    stamp: f64,
    next_column: u32,
    /// The sweep's noise: column `k` draws from stream `k`.
    noise: Streams,
    points: Vec<LidarPoint>,
    /// The range image's cells as `f32` bits: each column's task writes its own cells (ring
    /// rows are strided in memory, so no task holds a slice of them), NaN where no return.
    range_image: Vec<AtomicU32>,
}

impl Clone for Sweep {
    fn clone(&self) -> Sweep {
        Sweep {
            stamp: self.stamp,
            next_column: self.next_column,
            noise: self.noise,
            points: self.points.clone(),
            range_image: (self.range_image.iter())
                .map(|cell| AtomicU32::new(cell.load(Ordering::Relaxed)))
                .collect(),
        }
    }
}

impl Sweep {
    fn new(stamp: f64, rings: usize, columns: u32, noise: Streams) -> Sweep {
        Sweep {
            stamp,
            next_column: 0,
            noise,
            // Every beam may return: the list never grows (and copies) during the sweep.
            points: Vec::with_capacity(rings * columns as usize),
            range_image: (0..rings * columns as usize)
                .map(|_| AtomicU32::new(f32::NAN.to_bits()))
                .collect(),
        }
    }
}

/// A lidar's pattern and state.
#[derive(Clone, Debug)]
pub struct Lidar {
    sensor: SensorRef,
    params: Lidar3dParams,
    period: f64,
    grid: BeamGrid,
    rings: usize,
    columns: u32,
    rng: SensorRng,
    sweep: Sweep,
    /// Per column, radians.
    azimuths: Arc<[f64]>,
    /// Columns cast by one parallel task: about 256 beams, in whole packet tiles.
    group_columns: u32,
    /// [`packet_order`] of a group of `group_columns` columns.
    group_order: Vec<usize>,
}

impl Lidar {
    /// A lidar of period `period` seconds.
    pub fn new(
        sensor: SensorRef,
        params: &Lidar3dParams,
        period: f64,
        mut rng: SensorRng,
    ) -> Lidar {
        let grid = beam_grid(params);
        let (rings, columns) = (grid.rings, grid.columns as u32);
        let noise = rng.streams();
        let group_columns = 256usize.div_ceil(rings.max(1)).next_multiple_of(4) as u32;
        let (ring_step, column_step) = grid.steps;
        let group_order = packet_order(group_columns as usize, rings, ring_step, column_step);
        Lidar {
            sensor,
            params: params.clone(),
            period,
            grid,
            rings,
            columns,
            rng,
            sweep: Sweep::new(0.0, rings, columns, noise),
            azimuths: params.column_azimuths().into(),
            group_columns,
            group_order,
        }
    }

    /// Metres.
    pub fn max_range(&self) -> f32 {
        self.params.max_range as f32
    }

    /// The sensor.
    pub fn sensor(&self) -> &SensorRef {
        &self.sensor
    }

    /// Runs for the simulation step ending at `t_now`: casts the columns whose times are at or
    /// before its end and were not cast yet (all of them when a flash lidar is `due`), and
    /// returns the sweeps completed.
    pub fn step(
        &mut self,
        view: &SceneView<'_>,
        world_from_sensor: &Affine3A,
        t_now: f64,
        due: bool,
    ) -> Vec<PointCloud> {
        let mut done = Vec::new();
        match self.params.scan_mode {
            ScanMode::Flash => {
                if due {
                    self.sweep = Sweep::new(t_now, self.rings, self.columns, self.rng.streams());
                    self.cast(view, world_from_sensor, 0..self.columns, false);
                    done.push(self.finish(t_now + self.period));
                }
            }
            ScanMode::Rotating => {
                for (columns, finishes) in self.reach_plan().rotating_plan(t_now) {
                    if !columns.is_empty() {
                        self.cast(view, world_from_sensor, columns, true);
                    }
                    if finishes {
                        let next_stamp = self.sweep.stamp + self.period;
                        done.push(self.finish(next_stamp));
                    }
                }
            }
        }
        done
    }

    /// What decides the rays its steps cast, as it stands now.
    pub fn reach_plan(&self) -> LidarReach {
        LidarReach {
            scan_mode: self.params.scan_mode,
            period: self.period,
            columns: self.columns,
            stamp: self.sweep.stamp,
            next_column: self.sweep.next_column,
            azimuths: self.azimuths.clone(),
            max_range: self.max_range(),
        }
    }

    /// The rays `step` at `t_now` will cast (`due`: a flash lidar's frame is due), for
    /// posing only the actors they may meet.
    pub fn rays_cast(&self, world_from_sensor: &Affine3A, t_now: f64, due: bool) -> RaysCast {
        self.reach_plan().rays_cast(world_from_sensor, t_now, due)
    }

    /// Emits the current sweep and starts the next at `next_stamp`.
    fn finish(&mut self, next_stamp: f64) -> PointCloud {
        let noise = self.rng.streams();
        let sweep = std::mem::replace(
            &mut self.sweep,
            Sweep::new(next_stamp, self.rings, self.columns, noise),
        );
        PointCloud {
            sensor: self.sensor.clone(),
            stamp: sweep.stamp,
            points: sweep.points,
            rings: self.rings as u16,
            columns: self.columns,
            range_image: (sweep.range_image.into_iter())
                .map(|cell| f32::from_bits(cell.into_inner()))
                .collect(),
        }
    }

    /// Casts `columns` of the current sweep and adds their returns to it. Groups of whole
    /// columns are cast, noised and turned into points in parallel; each column draws its noise
    /// from its own stream of the sweep's generators, in ring order, so the points do not
    /// depend on the thread count nor on how the sweep's columns fall into steps.
    fn cast(
        &mut self,
        view: &SceneView<'_>,
        world_from_sensor: &Affine3A,
        columns: std::ops::Range<u32>,
        timed: bool,
    ) {
        let per_task = self.group_columns;
        let mut groups: Vec<std::ops::Range<u32>> = (columns.clone())
            .step_by(per_task as usize)
            .map(|c| c..(c + per_task).min(columns.end))
            .collect();
        let this = &*self;
        let parts = crate::tasks::map_spinning(&mut groups, |group| {
            this.cast_columns(view, world_from_sensor, group.clone(), timed)
        });
        for part in parts {
            self.sweep.points.extend_from_slice(&part);
        }
        self.sweep.next_column = columns.end;
    }

    /// The returns of `columns` (a task's share of a step's), in scan order; their ranges go
    /// into the sweep's range image.
    fn cast_columns(
        &self,
        view: &SceneView<'_>,
        world_from_sensor: &Affine3A,
        columns: std::ops::Range<u32>,
        timed: bool,
    ) -> Vec<LidarPoint> {
        let rings = self.rings;
        let range = columns.start as usize * rings..columns.end as usize * rings;
        // Cast in compact tiles of a packet, then read the results in scan order (a full group's
        // order is made once).
        let count = (columns.end - columns.start) as usize;
        let mut order = if count == self.group_columns as usize {
            self.group_order.clone()
        } else {
            packet_order(count, rings, self.grid.steps.0, self.grid.steps.1)
        };
        order.retain(|&i| self.grid.fires(range.start + i));
        let beams = &self.grid.dirs[range.clone()];
        // Where each beam's answer is in the tiles (beams that do not fire have none).
        let mut cast_index = vec![u32::MAX; beams.len()];
        for (j, &i) in order.iter().enumerate() {
            cast_index[i] = j as u32;
        }
        // The beams read in their order and written in the tiles' (the sweep's directions
        // are megabytes, read once a sweep: in tile order each read waited for memory).
        let mut tiled = vec![Vec3A::ZERO; order.len()];
        for (beam, &j) in beams.iter().zip(&cast_index) {
            if let Some(slot) = tiled.get_mut(j as usize) {
                *slot = world_from_sensor.transform_vector3a(*beam);
            }
        }
        let ignore = (self.params.ignore_parent_body)
            .then_some(self.sensor.vehicle.as_deref())
            .flatten();
        let mut cast = vec![None; tiled.len()];
        // Normals only for intensities.
        let normals = match self.params.generate_intensity {
            true => crate::Normals::Made,
            false => crate::Normals::Skipped,
        };
        view.cast_run_with(
            world_from_sensor.translation,
            &tiled,
            (0.0, self.params.max_range as f32),
            (ignore, normals),
            &mut cast,
        );
        let per_column = (self.period / f64::from(self.columns)) as f32;
        let mut points = Vec::with_capacity(tiled.len());
        for (column, in_column) in columns.clone().zip(cast_index.chunks(rings)) {
            let mut rng = self.sweep.noise.stream(u64::from(column));
            for (ring, &j) in (0..rings as u16).zip(in_column) {
                // Beams that do not fire draw nothing; every beam that does draws its noise,
                // hit or not, so one beam's outcome never shifts another's draw.
                if j == u32::MAX {
                    continue;
                }
                let noise = rng.gaussian(self.params.range_std_noise);
                let Some(Target {
                    t,
                    normal,
                    instance,
                    label,
                    ..
                }) = cast[j as usize]
                else {
                    continue;
                };
                if f64::from(t) < self.params.min_range {
                    continue;
                }
                let range = f64::from(t) + noise;
                if range <= 0.0 || range > self.params.max_range {
                    continue;
                }
                let cell = usize::from(ring) * self.columns as usize + column as usize;
                if let Some(slot) = self.sweep.range_image.get(cell) {
                    slot.store((range as f32).to_bits(), Ordering::Relaxed);
                }
                let dir = beams[(column - columns.start) as usize * rings + usize::from(ring)];
                let intensity = if self.params.generate_intensity {
                    normal.dot(tiled[j as usize]).abs().min(1.0)
                } else {
                    0.0
                };
                let p = dir * range as f32;
                points.push(LidarPoint {
                    position: [p.x, p.y, p.z],
                    intensity,
                    ring,
                    time: if timed {
                        column as f32 * per_column
                    } else {
                        0.0
                    },
                    instance,
                    label,
                });
            }
        }
        points
    }
}

/// What decides which rays a lidar casts in a step (see [`Lidar::reach_plan`]): owned, so the
/// next step's can be found while the lidar runs this one.
#[derive(Clone, Debug)]
pub struct LidarReach {
    scan_mode: ScanMode,
    period: f64,
    columns: u32,
    /// Start of the sweep under way, and its next column to cast.
    stamp: f64,
    next_column: u32,
    azimuths: Arc<[f64]>,
    max_range: f32,
}

impl LidarReach {
    /// Metres.
    pub fn max_range(&self) -> f32 {
        self.max_range
    }

    /// As it will stand once the lidar has run the step ending at `t_now`.
    pub fn after(mut self, t_now: f64) -> LidarReach {
        if self.scan_mode == ScanMode::Rotating {
            for (columns, finishes) in self.rotating_plan(t_now) {
                self.next_column = columns.end;
                if finishes {
                    (self.stamp, self.next_column) = (self.stamp + self.period, 0);
                }
            }
        }
        self
    }

    /// What a rotating lidar's `step` at `t_now` does: the columns whose times are at or
    /// before the end of the step and were not cast yet (the scene is posed at the step's end;
    /// a column exactly there belongs to this step), and whether that ends the sweep (then the
    /// next sweep's columns follow).
    fn rotating_plan(&self, t_now: f64) -> Vec<(std::ops::Range<u32>, bool)> {
        let slack = 1e-9;
        let per_column = self.period / f64::from(self.columns);
        let (mut stamp, mut first) = (self.stamp, self.next_column);
        let mut plan = Vec::new();
        loop {
            let mut last = first;
            while last < self.columns && stamp + f64::from(last) * per_column <= t_now + slack {
                last += 1;
            }
            let finishes = last == self.columns;
            plan.push((first..last, finishes));
            if !finishes {
                return plan;
            }
            stamp += self.period;
            first = 0;
        }
    }

    /// The rays the lidar's `step` at `t_now` will cast (`due`: a flash lidar's frame is
    /// due).
    pub fn rays_cast(&self, world_from_sensor: &Affine3A, t_now: f64, due: bool) -> RaysCast {
        let columns: Vec<_> = match self.scan_mode {
            ScanMode::Flash => return if due { RaysCast::All } else { RaysCast::None },
            ScanMode::Rotating => (self.rotating_plan(t_now).into_iter())
                .map(|(c, _)| c)
                .filter(|c| !c.is_empty())
                .collect(),
        };
        let [only] = &columns[..] else {
            // None, or a sweep's end and the next's start: rare enough to pose everyone.
            return if columns.is_empty() {
                RaysCast::None
            } else {
                RaysCast::All
            };
        };
        // A column's rays lie in the half-plane of its azimuth; azimuths are monotonic along
        // the sweep.
        let (a, b) = (
            self.azimuths[only.start as usize],
            self.azimuths[only.end as usize - 1],
        );
        let half_width = ((a - b).abs() / 2.0) as f32;
        if half_width >= std::f32::consts::FRAC_PI_2 {
            return RaysCast::All;
        }
        let axis = |k: usize| world_from_sensor.matrix3.col(k).to_array();
        RaysCast::Arc {
            x_axis: axis(0),
            y_axis: axis(1),
            mid: ((a + b) / 2.0) as f32,
            half_width,
        }
    }
}

impl SensorUnit for Lidar {
    fn pass(&self) -> UnitPass {
        UnitPass::Spinning
    }

    fn rank(&self) -> u8 {
        0
    }

    fn reaching(&self) -> Option<Reaching> {
        Some(Reaching::Lidar(self.reach_plan()))
    }

    fn measure(&mut self, cx: &StepContext<'_>, mount: &Mount, due: bool) -> Vec<Observation> {
        let pose = mount.world_from_sensor(cx.sim);
        let sweeps = self.step(cx.view, &pose, cx.now, due);
        sweeps.into_iter().map(Observation::PointCloud).collect()
    }
}
