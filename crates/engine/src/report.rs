//! What a world holds, for a person checking it: its models loaded once each (what is
//! missing, which clips actors have), the clips actors name that their models lack, and a
//! summary of its objects, sensors (with their rates and the bytes they will record) and
//! settings. Text only; `passerby check` prints it.

use passerby_assets::ModelLibrary;
use passerby_world::budget::SensorBudget;
use passerby_world::{SensorKind, World};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The clips actors name that their models lack (`run` plays the model's first clip instead).
pub fn missing_clips(world: &World, models: &ModelReport) -> Vec<String> {
    let mut out = Vec::new();
    for actor in &world.actors {
        let Some(clips) = models.actor_clips.get(&actor.name) else {
            continue;
        };
        if clips.is_empty() {
            continue;
        }
        let names: Vec<&str> = clips.iter().map(|(n, _)| n.as_str()).collect();
        for (tag, clip) in actor.missing_clips(&names) {
            out.push(format!(
                "actor `{}`: clip `{clip}` (from <{tag}>) is not in its model; its clips: {}; `run` plays '{}' instead",
                actor.name,
                names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", "),
                names[0]
            ));
        }
    }
    out
}

/// What loading a world's models gave.
#[derive(Default)]
pub struct ModelReport {
    /// Distinct model files parsed.
    pub files: usize,
    /// URIs that gave no model, with the reason (each once).
    pub missing: Vec<(String, String)>,
    /// Per actor name: its clips (name, seconds) from its first loaded visual.
    pub actor_clips: BTreeMap<String, Vec<(String, f32)>>,
}

/// Loads every visual's model once per file, through the asset cache.
pub fn load_models(world: &World, library: &mut ModelLibrary) -> ModelReport {
    let mut report = ModelReport::default();
    let base = world
        .source
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let mut visit = |visual: &passerby_world::Visual, report: &mut ModelReport| {
        if visual.model_uri.is_empty() {
            return None;
        }
        let (result, first) = library.get(&visual.model_uri, &base);
        match result {
            Ok(model) => Some(model),
            Err(e) => {
                if first {
                    report
                        .missing
                        .push((visual.model_uri.clone(), e.to_string()));
                }
                None
            }
        }
    };
    let mut all_static = Vec::new();
    for b in &world.blocks {
        all_static.extend(&b.visuals);
    }
    for v in &world.vehicles {
        all_static.extend(&v.visuals);
        all_static.extend(v.dynamics.wheels.iter().flat_map(|w| &w.visuals));
        all_static.extend(v.sensors.iter().flat_map(|s| &s.visuals));
    }
    all_static.extend(world.standalone_sensors.iter().flat_map(|s| &s.visuals));
    for v in all_static {
        let _ = visit(v, &mut report);
    }
    for a in &world.actors {
        for v in &a.visuals {
            if let Some(model) = visit(v, &mut report) {
                let clips = model
                    .clips
                    .iter()
                    .map(|c| (c.name.clone(), c.duration))
                    .collect();
                report.actor_clips.entry(a.name.clone()).or_insert(clips);
            }
        }
    }
    report.files = library.files_loaded();
    report
}

/// A human-readable summary of a world.
pub fn summary(world: &World, models: &ModelReport) -> String {
    let mut out = String::new();
    world_summary(&mut out, world);
    objects_summary(&mut out, world, models);
    sensors_summary(&mut out, world);
    let _ = writeln!(
        out,
        "models: {} files loaded, {} not available",
        models.files,
        models.missing.len()
    );
    if let Some(g) = &world.georeference {
        let _ = writeln!(
            out,
            "georeference: lat {} lon {} h {} m",
            g.latitude_deg, g.longitude_deg, g.height
        );
    }
    out
}

/// The world's file, step, elements, walls, blocks, placed meshes and label classes.
fn world_summary(out: &mut String, world: &World) {
    let _ = writeln!(out, "world: {}", world.source.display());
    let dt = world.effective_timestep();
    let auto = matches!(world.params.simul_timestep, passerby_world::Timestep::Auto);
    let _ = writeln!(
        out,
        "timestep: {} s{}",
        dt,
        if auto { " (auto)" } else { "" }
    );
    let mut elements: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &world.elements {
        *elements.entry(e.element.class_name()).or_default() += 1;
    }
    let elements: Vec<String> = elements.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let _ = writeln!(
        out,
        "elements: {}",
        if elements.is_empty() {
            "none".into()
        } else {
            elements.join(", ")
        }
    );
    let _ = writeln!(out, "walls: {}", world.walls.len());
    let static_blocks = world.blocks.iter().filter(|b| b.is_static).count();
    let _ = writeln!(
        out,
        "blocks: {} ({static_blocks} static)",
        world.blocks.len()
    );
    if !world.meshes.is_empty() || !world.surfaces.is_empty() {
        let mut files: BTreeMap<&str, usize> = BTreeMap::new();
        for m in &world.meshes {
            *files.entry(&*m.file.model_uri).or_default() += 1;
        }
        let _ = writeln!(
            out,
            "placed meshes: {} ({} files); height surfaces: {}",
            world.meshes.len(),
            files.len(),
            world.surfaces.len()
        );
        for (file, n) in &files {
            let _ = writeln!(out, "  {n} x {file}");
        }
    }
    if !world.label_classes.is_empty() {
        let _ = writeln!(out, "label classes: {}", world.label_classes.len());
    }
}

/// Vehicles and actors, a line each.
fn objects_summary(out: &mut String, world: &World, models: &ModelReport) {
    let _ = writeln!(out, "vehicles: {}", world.vehicles.len());
    for v in &world.vehicles {
        let _ = writeln!(
            out,
            "  {} (class {}, {}, {} sensors)",
            v.name,
            v.class.as_deref().unwrap_or("-"),
            v.dynamics.class.xml_name(),
            v.sensors.len()
        );
    }
    let _ = writeln!(out, "actors: {}", world.actors.len());
    for a in &world.actors {
        let motion = match (&a.path, &a.behavior) {
            (Some(path), _) => {
                let mut length = 0.0;
                let mut prev = a.common.init_pose;
                for w in &path.waypoints {
                    length += ((w.pose.x - prev.x).powi(2) + (w.pose.y - prev.y).powi(2)).sqrt();
                    prev = w.pose;
                }
                if path.looped
                    && let Some(first) = path.waypoints.first()
                {
                    length +=
                        ((first.pose.x - prev.x).powi(2) + (first.pose.y - prev.y).powi(2)).sqrt();
                }
                format!(
                    "path of {} waypoints, {:.2} m{}",
                    path.waypoints.len(),
                    length,
                    if path.looped { " per loop" } else { "" }
                )
            }
            (None, Some(b)) => format!("behavior {b:?}"),
            (None, None) => "standing".into(),
        };
        let model = match (a.visuals.first(), models.actor_clips.get(&a.name)) {
            _ if a.keyframe_meshes.is_some() => {
                let k = a
                    .keyframe_meshes
                    .as_ref()
                    .map_or((0, 0.0), |k| (k.frames.len(), k.frame_rate));
                format!("keyframe meshes: {} frame(s) at {} Hz", k.0, k.1)
            }
            (Some(v), Some(clips)) => {
                let clips: Vec<String> = clips
                    .iter()
                    .map(|(n, d)| format!("'{n}' {d:.2} s"))
                    .collect();
                format!("model {} with clips {}", v.model_uri, clips.join(", "))
            }
            (Some(v), None) => format!("placeholder body (model {} not available)", v.model_uri),
            (None, _) => "placeholder body (no visual)".to_owned(),
        };
        let _ = writeln!(
            out,
            "  {} (class {}): {motion}; clips idle '{}', walk '{}', run '{}'; {model}",
            a.name,
            a.class.as_deref().unwrap_or("-"),
            a.animation_idle,
            a.animation_walk,
            a.animation_run
        );
    }
}

/// Sensors by class, then a line each with its rate and what it will record.
fn sensors_summary(out: &mut String, world: &World) {
    let mut by_class: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, s) in world.sensors() {
        *by_class.entry(s.class_name()).or_default() += 1;
    }
    let classes: Vec<String> = by_class.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let _ = writeln!(
        out,
        "sensors: {}{}",
        world.sensors().count(),
        if classes.is_empty() {
            String::new()
        } else {
            format!(" ({})", classes.join(", "))
        }
    );
    let mut output = 0.0;
    for (parent, s) in world.sensors() {
        let detail = match &s.kind {
            SensorKind::Lidar3d(l) => format!(
                "{} rings x {} columns = {} rays",
                l.vert_nrays,
                l.horz_nrays,
                s.samples_per_frame()
            ),
            SensorKind::Laser(l) => format!(
                "{} rays over {:.1} deg{}",
                l.nrays,
                l.fov.to_degrees(),
                if l.raytrace_3d { ", 3D raytrace" } else { "" }
            ),
            SensorKind::Camera(c) => format!("{}x{} px", c.intrinsics.ncols, c.intrinsics.nrows),
            SensorKind::RgbdCamera(c) => format!(
                "depth {}x{} px, rgb {}x{} px",
                c.depth.ncols, c.depth.nrows, c.rgb.ncols, c.rgb.nrows
            ),
            SensorKind::Imu(_) | SensorKind::Gnss(_) => "1 sample".into(),
        };
        let budget = SensorBudget::of(s);
        output += budget.bytes_per_second;
        let _ = writeln!(
            out,
            "  {}/{} {}: period {} s ({:.4} Hz), {detail}; {} {}/s, {}/s to record",
            parent.unwrap_or("world"),
            s.name,
            s.class_name(),
            s.period,
            1.0 / s.period,
            si(budget.samples_per_second()),
            match s.kind {
                SensorKind::Imu(_) | SensorKind::Gnss(_) => "samples",
                SensorKind::Camera(_) | SensorKind::RgbdCamera(_) => "pixel samples",
                _ => "rays",
            },
            bytes(budget.bytes_per_second),
        );
    }
    let _ = writeln!(
        out,
        "expected output: {} of sensor data per simulated second, before compression",
        bytes(output)
    );
}

/// A count with an SI prefix (`12.3 M`).
fn si(v: f64) -> String {
    match v {
        v if v >= 1e9 => format!("{:.2} G", v / 1e9),
        v if v >= 1e6 => format!("{:.2} M", v / 1e6),
        v if v >= 1e3 => format!("{:.1} k", v / 1e3),
        v => format!("{v:.0}"),
    }
}

/// A byte count in B, kB, MB or GB.
fn bytes(v: f64) -> String {
    // `si` ends in a prefix (`12.3 M`) from a thousand on, in a bare number below.
    if v < 1e3 {
        format!("{} B", si(v))
    } else {
        format!("{}B", si(v))
    }
}
