//! What `passerby bench` measures: ray casting timed on a world's own scans (every lidar's and
//! laser's rays from where it stands at the start, against the built scene), and the whole loop
//! timed against the wall clock (`--simulate`).

use crate::{Engine, EngineError, StageTimes};
use passerby_scene::BuiltScene;
use passerby_world::World;
use std::collections::BTreeMap;
use std::time::Instant;

/// One sensor's scans timed.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanTiming {
    /// `vehicle/sensor` or `world/sensor`.
    pub sensor: String,
    /// Its class (`lidar3d`, `laser`).
    pub class: &'static str,
    /// Rays in one scan.
    pub rays: usize,
    /// Rays that hit something.
    pub hits: usize,
    /// Wall seconds per scan (after one warm-up scan).
    pub seconds_per_scan: f64,
    /// The same with each hit's normal left raw (unnormalised, in the mesh's frame), as
    /// Embree's packets report a hit: the figure to set beside `embree_anchor`'s. Timed in
    /// turn with the other, scan by scan.
    pub seconds_per_scan_raw: f64,
}

/// Casts every scanning sensor's rays `scans` times (after a warm-up) on the current rayon
/// pool; sensors that cast no rays are left out.
pub fn time_scans(world: &World, built: &BuiltScene, scans: u32) -> Vec<ScanTiming> {
    let mut mounted = Vec::new();
    for vehicle in &world.vehicles {
        let world_from_vehicle = vehicle.common.init_pose.to_affine();
        for s in &vehicle.sensors {
            mounted.push((
                format!("{}/{}", vehicle.name, s.name),
                s,
                world_from_vehicle,
            ));
        }
    }
    for s in &world.standalone_sensors {
        mounted.push((format!("world/{}", s.name), s, glam::Affine3A::IDENTITY));
    }
    let scans = scans.max(1);
    let mut out = Vec::new();
    for (name, sensor, world_from_parent) in mounted {
        let world_from_sensor = world_from_parent * sensor.pose.to_affine();
        let rays = passerby_sensors::scan_rays(sensor, &world_from_sensor);
        if rays.is_empty() {
            continue;
        }
        let mut hits = vec![None; rays.len()];
        built.scene.closest_batch(&rays, &mut hits);
        let (mut unit, mut raw) = (0.0, 0.0);
        for _ in 0..scans {
            let t = Instant::now();
            built.scene.closest_batch(&rays, &mut hits);
            unit += t.elapsed().as_secs_f64();
            let t = Instant::now();
            built.scene.closest_batch_raw(&rays, &mut hits);
            raw += t.elapsed().as_secs_f64();
        }
        out.push(ScanTiming {
            sensor: name,
            class: sensor.class_name(),
            rays: rays.len(),
            hits: hits.iter().filter(|h| h.is_some()).count(),
            seconds_per_scan: unit / f64::from(scans),
            seconds_per_scan_raw: raw / f64::from(scans),
        });
    }
    out
}

/// What [`simulate`] measured.
#[derive(Clone, Debug)]
pub struct SimulationReport {
    /// The world file.
    pub world: String,
    /// Worker threads.
    pub threads: usize,
    /// Simulated seconds.
    pub simulated: f64,
    /// Wall seconds.
    pub wall: f64,
    /// Steps made, of `timestep` seconds.
    pub steps: u64,
    /// Seconds per step.
    pub timestep: f64,
    /// Wall time per stage.
    pub times: StageTimes,
    /// Per sensor (`vehicle/sensor`): observations and samples (points, rays, pixels).
    pub sensors: BTreeMap<String, (u64, u64)>,
    /// The process's peak resident memory so far (loading and building included), where the
    /// system says (Linux: `VmHWM`).
    pub peak_resident_bytes: Option<u64>,
}

/// The process's peak resident memory so far: `VmHWM` of `/proc/self/status` (Linux; `None`
/// elsewhere or if it cannot be read).
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// Runs `engine` for `seconds` of simulated time (on the current rayon pool), counting what
/// each sensor produced.
pub fn simulate(engine: &mut Engine, seconds: f64) -> Result<SimulationReport, EngineError> {
    let mut sensors: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let started = Instant::now();
    while engine.time() < seconds - 1e-9 {
        for o in engine.step()?.iter() {
            let entry = sensors.entry(full_name(o.sensor())).or_default();
            entry.0 += 1;
            entry.1 += o.samples() as u64;
        }
    }
    Ok(SimulationReport {
        world: engine.world().source.display().to_string(),
        threads: rayon::current_num_threads(),
        simulated: engine.time(),
        wall: started.elapsed().as_secs_f64(),
        steps: engine.sim().steps(),
        timestep: engine.sim().timestep(),
        times: engine.times,
        sensors,
        peak_resident_bytes: peak_resident_bytes(),
    })
}

impl SimulationReport {
    /// Simulated seconds per wall second.
    pub fn real_time_factor(&self) -> f64 {
        self.simulated / self.wall.max(1e-9)
    }

    /// One JSON object.
    pub fn json(&self) -> String {
        let sensors: Vec<String> = (self.sensors.iter())
            .map(|(n, (o, p))| {
                format!("{{\"sensor\":\"{n}\",\"observations\":{o},\"points\":{p}}}")
            })
            .collect();
        let t = &self.times;
        let peak = self
            .peak_resident_bytes
            .map_or("null".to_owned(), |b| b.to_string());
        format!(
            "{{\"world\":{:?},\"threads\":{},\"simulated_seconds\":{:.3},\"wall_seconds\":{:.3},\"real_time_factor\":{:.3},\"steps\":{},\"seconds_in\":{{\"simulation\":{:.3},\"scene_update\":{:.3},\"sensors\":{:.3}}},\"steps_posed_ahead\":{},\"peak_resident_bytes\":{peak},\"sensors\":[{}]}}",
            self.world,
            self.threads,
            self.simulated,
            self.wall,
            self.real_time_factor(),
            self.steps,
            t.simulation.as_secs_f64(),
            t.scene.as_secs_f64(),
            t.sensors.as_secs_f64(),
            t.posed_ahead,
            sensors.join(",")
        )
    }

    /// Lines for a person.
    pub fn text(&self) -> String {
        let t = &self.times;
        let mut out = format!(
            "simulated {:.2} s in {:.2} s wall on {} thread(s): {:.2}x real time ({} steps of {:.4} s; simulation {:.2} s, scene updates {:.2} s, sensors and posing ahead {:.2} s; {} steps posed ahead)\n",
            self.simulated,
            self.wall,
            self.threads,
            self.real_time_factor(),
            self.steps,
            self.timestep,
            t.simulation.as_secs_f64(),
            t.scene.as_secs_f64(),
            t.sensors.as_secs_f64(),
            t.posed_ahead
        );
        if let Some((without, with, kept)) = t.ahead_trial {
            let kept = if kept { "kept" } else { "dropped" };
            out += &format!(
                "  posing ahead measured: {:.1} us a step without, {:.1} us with: {kept}\n",
                without * 1e6,
                with * 1e6
            );
        }
        if let Some(bytes) = self.peak_resident_bytes {
            out += &format!(
                "  peak resident memory: {:.0} MiB (loading and building included)\n",
                bytes as f64 / (1024.0 * 1024.0)
            );
        }
        for (n, (o, p)) in &self.sensors {
            out += &format!("  {n}: {o} observations, {p} points\n");
        }
        out
    }
}

fn full_name(s: &passerby_world::SensorRef) -> String {
    passerby_record::full_name(s)
}

/// What [`time_scans`] measured, with the scene it cast on.
#[derive(Clone, Debug)]
pub struct ScanReport {
    /// The world file.
    pub world: String,
    /// Worker threads.
    pub threads: usize,
    /// Triangles and instances of the scene.
    pub triangles: usize,
    /// Instances of the scene.
    pub instances: usize,
    /// Seconds to load the world, to build its scene, and the BVHs' share of the build.
    pub load_seconds: f64,
    /// Seconds to build the scene.
    pub build_seconds: f64,
    /// Seconds spent building model BVHs.
    pub bvh_seconds: f64,
    /// The scene's bytes per triangle.
    pub bytes_per_triangle: f64,
    /// The bytes that grow with each instance (its transform, world box, place in the top
    /// level), per instance.
    pub bytes_per_instance: f64,
    /// Scans timed per sensor.
    pub scans: u32,
    /// Per sensor.
    pub timings: Vec<ScanTiming>,
}

impl ScanReport {
    /// Times `scans` scans of every scanning sensor of `world` on `built`, loaded and built in
    /// the seconds given.
    pub fn measure(
        world: &World,
        built: &BuiltScene,
        scans: u32,
        (load, build): (f64, f64),
    ) -> ScanReport {
        let triangles = built.scene.triangle_count();
        let instances = built.scene.instance_count();
        let (_, placements) = built.scene.memory_bytes_split();
        ScanReport {
            world: world.source.display().to_string(),
            threads: rayon::current_num_threads(),
            triangles,
            instances,
            load_seconds: load,
            build_seconds: build,
            bvh_seconds: built.model_bvh_seconds,
            bytes_per_triangle: built.scene.memory_bytes() as f64 / triangles.max(1) as f64,
            bytes_per_instance: placements as f64 / instances.max(1) as f64,
            scans,
            timings: time_scans(world, built, scans),
        }
    }

    /// One JSON object.
    pub fn json(&self) -> String {
        let sensors: Vec<String> = (self.timings.iter())
            .map(|t| {
                let (n, c, r, h, s) = (&t.sensor, t.class, t.rays, t.hits, t.seconds_per_scan);
                let raw = t.seconds_per_scan_raw;
                format!(
                    "{{\"sensor\":\"{n}\",\"class\":\"{c}\",\"rays\":{r},\"hits\":{h},\"seconds_per_scan\":{s:.6},\"mrays_per_second\":{:.3},\"seconds_per_scan_raw_normals\":{raw:.6},\"mrays_per_second_raw_normals\":{:.3}}}",
                    r as f64 / s / 1e6,
                    r as f64 / raw / 1e6
                )
            })
            .collect();
        format!(
            "{{\"world\":{:?},\"threads\":{},\"triangles\":{},\"instances\":{},\"load_seconds\":{:.4},\"build_seconds\":{:.4},\"bvh_build_seconds\":{:.4},\"bytes_per_triangle\":{:.1},\"bytes_per_instance\":{:.1},\"scans\":{},\"sensors\":[{}]}}",
            self.world,
            self.threads,
            self.triangles,
            self.instances,
            self.load_seconds,
            self.build_seconds,
            self.bvh_seconds,
            self.bytes_per_triangle,
            self.bytes_per_instance,
            self.scans,
            sensors.join(",")
        )
    }

    /// Lines for a person.
    pub fn text(&self) -> String {
        let mut out = format!(
            "world loaded in {:.3} s; scene: {} triangles in {} instances, built in {:.3} s (BVHs {:.3} s, the rest loading files), {:.0} bytes per triangle, {:.0} per instance (its transform, box and place in the top level); {} thread(s), {} scans per sensor\n",
            self.load_seconds,
            self.triangles,
            self.instances,
            self.build_seconds,
            self.bvh_seconds,
            self.bytes_per_triangle,
            self.bytes_per_instance,
            self.threads,
            self.scans
        );
        for t in &self.timings {
            let (n, c, r, h, s) = (&t.sensor, t.class, t.rays, t.hits, t.seconds_per_scan);
            out += &format!(
                "  {n} {c}: {r} rays, {h} hits, {s:.5} s per scan, {:.2} Mrays/s; {:.2} Mrays/s with raw normals (as Embree's packets return hits)\n",
                r as f64 / s / 1e6,
                r as f64 / t.seconds_per_scan_raw / 1e6
            );
        }
        out
    }
}
