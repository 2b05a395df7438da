//! The engine driven from its library API alone, as a front end would: load a world, build,
//! step, read a lidar sweep and a camera image, set a velocity command and a transform set,
//! feed an MCAP recording and a sink of our own at once, reset.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_engine::{
    ChunkCompression, Engine, InputOptions, Observation, Recorder, Sink, SinkError, Snapshot,
    load_world, model_library,
};
use passerby_world::{Transform, World};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `examples/sensor_rig.world.xml`: a jackal `r1` with a laser, a VLP-16, a camera, an RGB-D
/// camera, an IMU and a GNSS, in a walled yard with a walking person.
fn world() -> World {
    let loaded = load_world(
        &root().join("examples/sensor_rig.world.xml"),
        &InputOptions::default(),
    );
    loaded.value.unwrap()
}

fn engine() -> Engine {
    let cache = root().join("../shared/assets/mvsim-models");
    Engine::build(world(), &mut model_library(Some(cache), false), 3).unwrap()
}

/// One step as our sink saw it: time, observations, where `r1` stood.
type Logged = (f64, usize, [f64; 2]);

/// A sink of our own: what it was fed, per step.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<Logged>>>);

impl Sink for Log {
    fn step(&mut self, s: &Snapshot<'_>) -> Result<(), SinkError> {
        let r1 = &s.vehicles[0].pose;
        self.0
            .lock()
            .unwrap()
            .push((s.time, s.observations.len(), [r1.x, r1.y]));
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Vec<String>, SinkError> {
        Ok(vec![format!(
            "{} steps logged",
            self.0.lock().unwrap().len()
        )])
    }
}

#[test]
fn a_front_end_drives_the_engine_through_its_api_with_two_sinks() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine();
    let out = dir.path().join("run.mcap");
    let recorder = Recorder::create(&out, engine.world(), 0, ChunkCompression::Auto).unwrap();
    let log = Log::default();
    engine.add_sink(Box::new(recorder));
    engine.add_sink(Box::new(log.clone()));
    // Forward at 1 m/s; the first wheel lifted 1 m (a transform set on a part by index).
    engine.set_command("r1", [1.0, 0.0, 0.0]).unwrap();
    let lifted = Transform {
        translation: [0.0, 0.2, 1.0],
        ..Transform::default()
    };
    engine.set_transform("r1", Some("#1"), lifted).unwrap();
    let (mut sweep, mut image) = (None, None);
    while engine.time() < 0.5 - 1e-9 {
        for o in engine.step().unwrap().iter() {
            // Every observation names its sensor and stamp, whatever its kind.
            assert!(o.stamp() <= engine.time() + 1e-9 && o.samples() > 0);
            assert_eq!(o.sensor().vehicle.as_deref(), Some("r1"));
            match o {
                Observation::PointCloud(c) if sweep.is_none() => sweep = Some(c.clone()),
                Observation::Camera(c) if image.is_none() => image = Some(c.clone()),
                _ => {}
            }
        }
    }
    let sweep = sweep.expect("a VLP-16 sweep");
    assert_eq!((sweep.sensor.name.as_str(), sweep.rings), ("vlp16", 16));
    assert!(sweep.points.len() > 1000, "{}", sweep.points.len());
    let image = image.expect("a camera image");
    assert_eq!(image.rgb.len(), image.depth.len() * 3);
    // The command drove the robot: 0.5 m in 0.5 s.
    let x = engine.sim().vehicles()[0].pose.x;
    assert!((x - 0.5).abs() < 0.02, "x = {x}");
    // Both sinks saw every step; our sink saw the motion; the recording holds the sweeps.
    let steps = engine.sim().steps() as usize;
    let lines = engine.finish().unwrap();
    assert!(
        lines.iter().any(|l| l == &format!("{steps} steps logged")),
        "{lines:?}"
    );
    let logged = log.0.lock().unwrap().clone();
    assert_eq!(logged.len(), steps);
    assert!(logged.last().unwrap().2[0] > 0.45);
    let bytes = std::fs::read(&out).unwrap();
    let sweeps = mcap::MessageStream::new(&bytes)
        .unwrap()
        .map(Result::unwrap)
        .filter(|m| m.channel.topic == "/r1/vlp16_points")
        .count();
    assert_eq!(sweeps, 5, "a 10 Hz lidar over 0.5 s");
}

#[test]
fn a_reset_engine_repeats_a_fresh_engines_steps() {
    let observed = |engine: &mut Engine, steps: usize| {
        (0..steps)
            .map(|_| format!("{:?}", engine.step().unwrap()))
            .collect::<Vec<_>>()
    };
    let mut fresh = engine();
    let first = observed(&mut fresh, 40);
    // Driven elsewhere, then reset: the same steps again.
    let mut engine = engine();
    engine.set_command("r1", [0.5, 0.0, 1.0]).unwrap();
    observed(&mut engine, 25);
    engine.reset().unwrap();
    assert_eq!(engine.time(), 0.0);
    assert!(observed(&mut engine, 40) == first);
}

#[test]
fn the_encoder_declares_every_topic_a_recording_holds() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = engine();
    let out = dir.path().join("run.mcap");
    engine.record_to(&out, 0, ChunkCompression::Auto).unwrap();
    while engine.time() < 1.0 - 1e-9 {
        engine.step().unwrap();
    }
    engine.finish().unwrap();
    let bytes = std::fs::read(&out).unwrap();
    let summary = mcap::Summary::read(&bytes).unwrap().unwrap();
    let recorded: std::collections::BTreeSet<(String, String)> = (summary.channels.values())
        .map(|c| {
            let schema = c.schema.as_ref().map_or(String::new(), |s| s.name.clone());
            (c.topic.clone(), schema)
        })
        .collect();
    let encoder = passerby_engine::Encoder::new(engine.world(), 0);
    let declared: std::collections::BTreeSet<(String, String)> = (encoder.topics(engine.world()))
        .into_iter()
        .map(|(topic, ty)| (topic, ty.name.to_owned()))
        .collect();
    let undeclared: Vec<_> = recorded.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "recorded, not declared: {undeclared:?}"
    );
    // Every sensor of the rig sends within 1 s (the GNSS at 1 Hz last); nothing touched
    // anything.
    let silent: Vec<_> = declared.difference(&recorded).map(|t| &t.0).collect();
    assert_eq!(silent, ["/ground_truth/contacts"]);
}
