//! A world running: the simulation step, the scene following it (skinning, refits), every
//! sensor, then every sink fed the step's [`Snapshot`]. The public API is what every front end
//! uses: build from a world, step, read the step's observations, set inputs (velocity
//! commands, transform sets, poses), reset, finish the sinks.
//!
//! With more than one thread, each step's sensors run side by side with the next step: a second
//! simulation of the same world and seed makes it, and a second copy of the scene is posed for
//! it (the simulation step and the scene update would otherwise leave all but one thread idle
//! between the sensors' parallel passes). At the next step the two simulations trade places,
//! and the copy becomes the scene if the sensors' reach is the one it was posed for. An input
//! set from outside (a command, a transform, a pose) ends this for the run: the second
//! simulation would not know of it. Whether it pays at all is measured in the run's first
//! steps (`trial.rs`).

use crate::trial::{AheadTrial, Verdict};
use passerby_assets::ModelLibrary;
use passerby_record::vehicle_logs::VehicleLogs;
use passerby_record::{Sink, SinkError, Snapshot};
use passerby_scene::{BuiltScene, LiveError, LiveScene, SceneGround};
use passerby_sensors::camera::Visibility;
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::{SimError, SimOptions, Simulation};
use passerby_world::{Pose3, TimedCommand, TimedTransform, Transform, World};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why the engine stopped.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The simulation refused an input or the world.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The scene could not follow the simulation (an unknown part, say).
    #[error(transparent)]
    Scene(#[from] LiveError),
    /// A sink failed (a full disk, a closed connection).
    #[error("{0}")]
    Sink(SinkError),
}

/// Wall time spent in each stage.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageTimes {
    /// Simulation steps made between the sensors' passes (those made ahead run with the
    /// sensors).
    pub simulation: Duration,
    /// Scene updates made between the sensors' passes (and taking up a copy posed ahead).
    pub scene: Duration,
    /// Sensors (and, overlapped with them, posing the next step).
    pub sensors: Duration,
    /// Steps whose scene was posed while the previous step's sensors ran.
    pub posed_ahead: u64,
    /// The measured trial of posing ahead (on more than one thread): mean wall seconds of a
    /// step without it and with it, and whether it was kept, once both halves of the trial ran.
    pub ahead_trial: Option<(f64, f64, bool)>,
}

/// A world running, and the sinks its steps feed.
pub struct Engine {
    world: World,
    seed: u64,
    /// The simulation ([`Engine::sim`]).
    sim: Simulation,
    /// How the simulation finds the ground under objects (the scene's, as built).
    ground: SceneGround,
    /// The scene following it.
    live: LiveScene,
    /// The sensors.
    rig: Rig,
    /// How cameras find what each pixel sees (kept across resets).
    camera_visibility: Option<Visibility>,
    /// Time per stage.
    pub times: StageTimes,
    /// A second simulation of the same world, for posing the next step early (see the module
    /// comment); `None` once the run's simulation was changed from outside, or once posing
    /// ahead was measured to cost more than it saves.
    ahead: Option<Simulation>,
    /// Whether posing ahead pays on this world, measured in its first steps.
    trial: AheadTrial,
    sinks: Vec<Box<dyn Sink>>,
    /// The last step's observations and skeletons.
    last: Arc<Vec<Observation>>,
    skeletons: Vec<Vec<[f64; 3]>>,
}

impl Engine {
    /// Sets `world` in motion over its built scene, its random draws seeded by `seed`.
    pub fn new(mut world: World, built: BuiltScene, seed: u64) -> Result<Engine, EngineError> {
        // Walls read from model files: their segments, as the scene read them, for the
        // simulation's contacts and the 2D lasers.
        for (i, segments) in &built.model_walls {
            if let Some(walls) = world.walls.get_mut(*i) {
                walls.source = passerby_world::WallSource::Segments(segments.clone());
            }
        }
        let ground = SceneGround::new(&built, &world);
        let live = LiveScene::new(built, &world)?;
        let (sim, ahead) = Self::simulations(&world, seed, &ground, &live.built.outlines)?;
        let rig = Rig::new(&world, seed);
        let trial = AheadTrial::new(world.effective_timestep());
        // The placed mesh files (MAVS objects; a meadow places a million, 120 bytes each and
        // a name) are in the scene now, and nothing reads them from the world again.
        world.meshes = Vec::new();
        // The world's own CSV logs (`<auto_start_recording>`), as MVSim writes them.
        let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
        if let Some(logs) = VehicleLogs::create(&world).map_err(EngineError::Sink)? {
            sinks.push(Box::new(logs));
        }
        Ok(Engine {
            world,
            seed,
            sim,
            ground,
            live,
            rig,
            camera_visibility: None,
            times: StageTimes::default(),
            ahead: Some(ahead),
            trial,
            sinks,
            last: Arc::new(Vec::new()),
            skeletons: Vec::new(),
        })
    }

    /// Builds `world`'s scene from the models of `library`, then [`Engine::new`].
    pub fn build(
        mut world: World,
        library: &mut ModelLibrary,
        seed: u64,
    ) -> Result<Engine, EngineError> {
        let built = passerby_scene::build_scene_taking_meshes(&mut world, library);
        Engine::new(world, built, seed)
    }

    /// The run's simulation and its twin for posing ahead, standing on `ground`, with the
    /// outlines the scene found for `<shape_from_visual/>` objects.
    fn simulations(
        world: &World,
        seed: u64,
        ground: &SceneGround,
        outlines: &[(String, Vec<[f64; 2]>)],
    ) -> Result<(Simulation, Simulation), SimError> {
        let options = SimOptions {
            timestep: None,
            seed,
        };
        let mut sim = Simulation::with_options(world, &options)?;
        let mut ahead = Simulation::with_options(world, &options)?;
        ahead.set_ground(Box::new(ground.clone()));
        sim.set_ground(Box::new(ground.clone()));
        for (name, outline) in outlines {
            sim.set_outline(name, outline)?;
            ahead.set_outline(name, outline)?;
        }
        for i in VehicleLogs::wanted(world) {
            sim.trace_wheels(i);
            ahead.trace_wheels(i);
        }
        Ok((sim, ahead))
    }

    /// Back to the world's initial state, as a new engine of the same world and seed would be
    /// (replayed inputs are forgotten; sinks stay, fed from the next step).
    pub fn reset(&mut self) -> Result<(), EngineError> {
        let outlines = &self.live.built.outlines;
        let (sim, ahead) = Self::simulations(&self.world, self.seed, &self.ground, outlines)?;
        self.sim = sim;
        // Posing ahead once measured not to pay stays off.
        self.ahead = (self.trial.decided != Some(false)).then_some(ahead);
        self.live.discard_ahead();
        self.live.update(&self.sim)?;
        self.rig = Rig::new(&self.world, self.seed);
        if let Some(v) = self.camera_visibility {
            self.rig.set_camera_visibility(v);
        }
        self.last = Arc::new(Vec::new());
        self.skeletons.clear();
        Ok(())
    }

    /// The world running, without its placed mesh files (`World::meshes`, empty here: the
    /// scene holds them, see [`Engine::scene`]).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The scene as the last step left it (objects, classes, parts).
    pub fn scene(&self) -> &BuiltScene {
        &self.live.built
    }

    /// The scene following the simulation (skeletons of the skinned actors, warnings).
    pub fn live(&self) -> &LiveScene {
        &self.live
    }

    /// The sensors.
    pub fn rig(&self) -> &Rig {
        &self.rig
    }

    /// How every camera finds what its pixels see (rasterising, the default for undistorted
    /// lenses, or casting rays).
    pub fn set_camera_visibility(&mut self, visibility: Visibility) {
        self.camera_visibility = Some(visibility);
        self.rig.set_camera_visibility(visibility);
    }

    /// Simulated seconds so far.
    pub fn time(&self) -> f64 {
        self.sim.time()
    }

    /// The observations the last step completed.
    pub fn observations(&self) -> &Arc<Vec<Observation>> {
        &self.last
    }

    /// Moves the simulation alone on to `t` (the scene, sensors and sinks wait), for a single
    /// [`Engine::capture`] at a given time. Posing ahead stops for the run.
    pub fn skip_to(&mut self, t: f64) {
        let sim = self.sim_mut();
        while sim.time() < t - 1e-9 {
            sim.step();
        }
    }

    /// What sensor `name` (`vehicle/sensor`, or a standalone sensor's name) sees of the world
    /// as it stands now, due or not; `None` for a sensor the world lacks or that cannot be
    /// captured alone (cameras can).
    pub fn capture(&mut self, name: &str) -> Result<Option<Observation>, EngineError> {
        self.live.update(&self.sim)?;
        let view = SceneView {
            built: &self.live.built,
        };
        Ok(self.rig.capture(name, &self.sim, &view))
    }

    /// Records the run to the MCAP file `out` (stamps from `epoch`, nanoseconds since 1970),
    /// with the label tables and the actors' ids as metadata: the sink `passerby run` adds.
    pub fn record_to(
        &mut self,
        out: &std::path::Path,
        epoch: u64,
        compression: passerby_record::ChunkCompression,
    ) -> Result<(), EngineError> {
        let sink = |e: passerby_record::RecordError| EngineError::Sink(Box::new(e));
        let mut recorder = passerby_record::Recorder::create(out, &self.world, epoch, compression)
            .map_err(sink)?;
        recorder.set_actor_labels(&crate::actor_labels(&self.world, self.scene()));
        (recorder.metadata("passerby.labels", crate::label_tables(self.scene()))).map_err(sink)?;
        self.add_sink(Box::new(recorder));
        Ok(())
    }

    /// Writes the ground-truth trajectories of the vehicles and their sensors as TUM files
    /// in `dir` (a line per step), the sink `passerby run --tum` adds.
    pub fn tum_to(&mut self, dir: &std::path::Path) -> Result<(), EngineError> {
        let sink = passerby_record::tum::TumTrajectories::create(&self.world, dir)
            .map_err(EngineError::Sink)?;
        self.add_sink(Box::new(sink));
        Ok(())
    }

    /// The message encoder of this run (stamps from `epoch`, nanoseconds since 1970), with
    /// the actors' ids and classes: what a live publisher encodes with.
    pub fn encoder(&self, epoch: u64) -> passerby_record::Encoder {
        let mut encoder = passerby_record::Encoder::new(&self.world, epoch);
        encoder.set_actor_labels(&crate::actor_labels(&self.world, self.scene()));
        encoder
    }

    /// Also writes the run as plain files into `dir` (`--dump`), with `labels.json`.
    pub fn dump_to(&mut self, dir: &std::path::Path) -> Result<(), EngineError> {
        let labels = crate::label_tables(self.scene());
        let json = format!(
            "{{\"instances\":{},\"classes\":{}}}\n",
            labels["instances"], labels["classes"]
        );
        let dumper = passerby_record::dump::Dumper::create(dir, &json)
            .map_err(|e| EngineError::Sink(Box::new(e)))?;
        self.add_sink(Box::new(dumper));
        Ok(())
    }

    /// Adds a sink, fed from the next step on.
    pub fn add_sink(&mut self, sink: Box<dyn Sink>) {
        self.sinks.push(sink);
    }

    /// Finishes every sink (all of them, whatever happens); their summary lines, or the first
    /// error.
    pub fn finish(&mut self) -> Result<Vec<String>, EngineError> {
        let mut lines = Vec::new();
        let mut first_error = None;
        for sink in self.sinks.drain(..) {
            match sink.finish() {
                Ok(l) => lines.extend(l),
                Err(e) => {
                    first_error.get_or_insert(EngineError::Sink(e));
                }
            }
        }
        first_error.map_or(Ok(lines), Err)
    }

    /// Drives `vehicle` at body-frame velocity `[vx, vy, omega]` (m/s, rad/s) from the next
    /// step on.
    pub fn set_command(&mut self, vehicle: &str, twist: [f64; 3]) -> Result<(), EngineError> {
        Ok(self.sim_mut().set_twist(vehicle, twist)?)
    }

    /// Sets an object's body (`part` = `None`) or one of its parts (a name, or `#K`); an
    /// unknown part is refused by the next step.
    pub fn set_transform(
        &mut self,
        object: &str,
        part: Option<&str>,
        transform: Transform,
    ) -> Result<(), EngineError> {
        Ok(self.sim_mut().set_transform(object, part, transform)?)
    }

    /// Holds an object at `pose` until [`Engine::release`].
    pub fn set_pose(&mut self, object: &str, pose: Pose3) -> Result<(), EngineError> {
        Ok(self.sim_mut().set_pose(object, pose)?)
    }

    /// Lets a held object move on its own again.
    pub fn release(&mut self, object: &str) -> Result<(), EngineError> {
        Ok(self.sim_mut().release(object)?)
    }

    /// What the world asks for that is done otherwise (a clip its model lacks plays its first).
    pub fn warnings(&self) -> &[String] {
        &self.live.warnings
    }

    /// What the world asks for that is not simulated or measured.
    pub fn notices(&self) -> Vec<String> {
        self.sim
            .notices()
            .iter()
            .chain(self.rig.notices())
            .cloned()
            .collect()
    }

    /// The run's simulation, as the last step left it.
    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    /// The run's simulation, to change from outside between steps. Posing ahead stops for the
    /// rest of the run: the second simulation would not know of the change.
    pub fn sim_mut(&mut self) -> &mut Simulation {
        self.ahead = None;
        self.live.discard_ahead();
        &mut self.sim
    }

    /// Replays recorded poses and commands (see [`Simulation::set_replay`]), in both
    /// simulations.
    pub fn set_replay(
        &mut self,
        transforms: Vec<TimedTransform>,
        commands: Vec<TimedCommand>,
    ) -> Result<(), EngineError> {
        if let Some(ahead) = &mut self.ahead {
            ahead.set_replay(transforms.clone(), commands.clone())?;
        }
        self.sim.set_replay(transforms, commands)?;
        Ok(())
    }

    /// Replays the timed inputs given (files read with [`crate::inputs`]): `None` keeps what
    /// the world itself replays (a MAVS simulation's poses) or, for commands, none.
    pub fn replay_inputs(
        &mut self,
        transforms: Option<Vec<TimedTransform>>,
        commands: Option<Vec<TimedCommand>>,
    ) -> Result<(), EngineError> {
        if transforms.is_none() && commands.is_none() {
            return Ok(());
        }
        let transforms = transforms.unwrap_or_else(|| self.world.replay.clone());
        self.set_replay(transforms, commands.unwrap_or_default())
    }

    /// One step of every stage, then every sink fed; the observations it completed (also
    /// [`Engine::observations`] until the next step).
    pub fn step(&mut self) -> Result<Arc<Vec<Observation>>, EngineError> {
        let observations = Arc::new(self.step_stages()?);
        self.last = observations.clone();
        if self.sinks.is_empty() {
            return Ok(observations);
        }
        self.skeletons = vec![Vec::new(); self.sim.actors().len()];
        for s in self.live.skeletons() {
            if let Some(lines) = self.skeletons.get_mut(s.actor) {
                *lines = (s.bones.iter())
                    .flat_map(|&(a, b)| [s.joints[a], s.joints[b]])
                    .collect();
            }
        }
        // MVSim's collision flag: the vehicle touches a wall, block or vehicle; here also an
        // actor touching it.
        let touched: Vec<bool> = (self.sim.vehicles().iter())
            .map(|v| v.in_collision || self.sim.is_touched(&v.name))
            .collect();
        let encodings = Arc::new(passerby_record::StepEncodings::new(
            self.last.clone(),
            self.sim.time(),
        ));
        let snapshot = Snapshot {
            time: self.sim.time(),
            step: self.sim.steps(),
            vehicles: self.sim.vehicles(),
            touched: &touched,
            actors: self.sim.actors(),
            contacts: self.sim.contacts(),
            observations: &self.last,
            encodings: &encodings,
            skeletons: &self.skeletons,
        };
        for sink in &mut self.sinks {
            sink.step(&snapshot).map_err(EngineError::Sink)?;
        }
        Ok(observations)
    }

    /// The simulation, scene and sensors of one step; the observations it completed.
    fn step_stages(&mut self) -> Result<Vec<Observation>, EngineError> {
        let helpers = rayon::current_num_threads().saturating_sub(1);
        if helpers == 0 {
            return self.step_inner();
        }
        // A step's parallel passes are short (a rotating lidar's columns of 5 ms): between them
        // an idle worker would go to sleep, and take tens of microseconds to wake for the next
        // one. The other workers spin through the step instead, taking work as it comes and
        // yielding their core to other threads (the recording's writer) when there is none. A
        // spinner that lands on this thread (while it waits in a join) returns at once: only
        // this thread ends the step.
        let this_thread = rayon::current_thread_index();
        let done = AtomicBool::new(false);
        rayon::scope(|s| {
            for _ in 0..helpers {
                s.spawn(|_| {
                    if rayon::current_thread_index() == this_thread {
                        return;
                    }
                    while !done.load(Ordering::Acquire) {
                        if rayon::yield_now() != Some(rayon::Yield::Executed) {
                            std::thread::yield_now();
                        }
                    }
                });
            }
            let result = self.step_inner();
            done.store(true, Ordering::Release);
            result
        })
    }

    /// [`Engine::step_stages`] on the thread it is called on (and any workers that help).
    fn step_inner(&mut self) -> Result<Vec<Observation>, EngineError> {
        let t0 = Instant::now();
        // When the last step posed ahead, the second simulation has made the very step this
        // one would make: it becomes the run's, and the run's becomes the second (moved two
        // steps on while this step's sensors run).
        match &mut self.ahead {
            Some(ahead) if ahead.steps() == self.sim.steps() + 1 => {
                std::mem::swap(&mut self.sim, ahead);
            }
            _ => self.sim.step(),
        }
        let t1 = Instant::now();
        let reach = self.rig.reach(&self.sim);
        if self.live.catch_up(self.sim.steps(), &reach) {
            self.times.posed_ahead += 1;
        } else {
            self.live.update_within(&self.sim, Some(&reach))?;
        }
        let t2 = Instant::now();
        let overlapping = rayon::current_num_threads() > 1 && self.trial.poses_ahead();
        let observations = match &mut self.ahead {
            Some(ahead) if overlapping => {
                let plan = self.rig.next_reach_plan(&self.sim);
                let (rig, sim) = (&mut self.rig, &self.sim);
                let (observations, posed) = self.live.overlap(
                    |built| rig.step(sim, &SceneView { built }),
                    ahead,
                    sim.steps(),
                    |next| plan.reach(next),
                );
                posed?;
                observations
            }
            _ => {
                let view = SceneView {
                    built: &self.live.built,
                };
                self.rig.step(&self.sim, &view)
            }
        };
        let t3 = Instant::now();
        self.times.simulation += t1 - t0;
        self.times.scene += t2 - t1;
        self.times.sensors += t3 - t2;
        if self.ahead.is_some() && rayon::current_num_threads() > 1 {
            let verdict = self.trial.record(t3 - t0);
            self.times.ahead_trial = self.trial.means;
            match verdict {
                Verdict::Measuring => {}
                // The copy posed before the trial's other half is stale: pose it anew.
                Verdict::Resume => self.live.discard_ahead(),
                Verdict::Keep => {}
                Verdict::Drop => {
                    self.ahead = None;
                    self.live.discard_ahead();
                }
            }
        }
        Ok(observations)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test setup failures should panic
    use super::*;
    use passerby_assets::{ModelLibrary, Resolver};
    use passerby_mvsim::{LoadOptions, load_world_file};

    /// A skinned walker crossing in front of a rotating lidar (`tests/walker.world.xml`), or
    /// another test world of that folder.
    fn walker_world() -> (World, BuiltScene) {
        test_world("walker.world.xml")
    }

    fn test_world(name: &str) -> (World, BuiltScene) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/worlds")
            .join(name);
        let world = load_world_file(&path, &LoadOptions::default())
            .value
            .unwrap();
        let mut library = ModelLibrary::new(Resolver::new(std::env::temp_dir()));
        let built = passerby_scene::build_scene(&world, &mut library);
        assert!(!built.skinned.is_empty(), "{:?}", built.warnings);
        (world, built)
    }

    /// Observations compared bit for bit (a range image's NaN cells are unequal to themselves).
    fn same(a: &[Observation], b: &[Observation]) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    /// Every observation of `steps` steps on `threads` threads, and the steps posed ahead;
    /// at step `held_at`, the walker is moved from outside the simulation (in the run's
    /// simulation only, as a caller would).
    fn run(threads: usize, steps: usize, held_at: Option<usize>) -> (Vec<Observation>, u64) {
        run_with(threads, steps, held_at, AheadTrial::decided(true))
    }

    /// [`run`] with the trial of posing ahead given.
    fn run_with(
        threads: usize,
        steps: usize,
        held_at: Option<usize>,
        trial: AheadTrial,
    ) -> (Vec<Observation>, u64) {
        let (world, built) = walker_world();
        let mut engine = Engine::new(world, built, 7).unwrap();
        engine.trial = trial;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut all = Vec::new();
        pool.install(|| {
            for step in 0..steps {
                if held_at == Some(step) {
                    let pose = passerby_world::Pose3 {
                        x: 2.0,
                        y: 0.5,
                        ..Default::default()
                    };
                    engine.set_pose("walker", pose).unwrap();
                }
                all.extend(engine.step().unwrap().iter().cloned());
            }
        });
        (all, engine.times.posed_ahead)
    }

    #[test]
    fn posing_ahead_gives_the_observations_of_posing_each_step_in_turn() {
        let steps = 120;
        let (serial, none_ahead) = run(1, steps, None);
        let (overlapped, ahead) = run(2, steps, None);
        assert_eq!(none_ahead, 0);
        assert_eq!(
            ahead,
            steps as u64 - 1,
            "every step after the first posed ahead"
        );
        let points: usize = (serial.iter())
            .map(|o| match o {
                Observation::PointCloud(c) => c.points.len(),
                _ => 0,
            })
            .sum();
        assert!(points > 1000, "{points}");
        assert!(same(&serial, &overlapped));
    }

    #[test]
    fn the_trial_of_posing_ahead_changes_no_observation() {
        let steps = 120;
        let (serial, _) = run(1, steps, None);
        for keep in [true, false] {
            let mut trial = AheadTrial::with_window(20);
            trial.forced = Some(keep);
            let (observations, ahead) = run_with(2, steps, None, trial);
            // Steps 21..40 pose ahead (the first catching the second simulation up), and
            // every step from 41 on when it is kept.
            let expected = if keep { steps as u64 - 21 } else { 19 };
            assert_eq!(ahead, expected, "keep {keep}");
            assert!(same(&serial, &observations), "keep {keep}");
        }
    }

    #[test]
    fn the_trial_keeps_posing_ahead_unless_doing_without_is_clearly_faster() {
        let verdicts = |without: u64, with: u64| {
            let mut trial = AheadTrial::with_window(10);
            let mut last = Vec::new();
            for step in 0..20 {
                let wall = if step < 10 { without } else { with };
                last.push(trial.record(Duration::from_micros(wall)));
            }
            (last, trial.decided, trial.means)
        };
        let (steps, decided, means) = verdicts(100, 98);
        assert_eq!(steps[9], Verdict::Resume);
        assert_eq!(steps[19], Verdict::Keep);
        assert_eq!(decided, Some(true));
        assert_eq!(means.map(|m| m.2), Some(true));
        let (steps, decided, _) = verdicts(100, 104);
        assert_eq!(
            (steps[19].clone(), decided),
            (Verdict::Keep, Some(true)),
            "within 5 %"
        );
        let (steps, decided, _) = verdicts(100, 120);
        assert_eq!((steps[19].clone(), decided), (Verdict::Drop, Some(false)));
        assert!(!AheadTrial::with_window(10).poses_ahead());
    }

    #[test]
    fn skeletons_of_actors_out_of_reach_do_not_depend_on_posing_ahead() {
        // The walker leaves the reach of the lidar (1 m, plus its body) and comes back; its skeleton is recorded each step.
        let skeletons = |threads: usize| {
            let (world, built) = test_world("walker_leaving.world.xml");
            let mut engine = Engine::new(world, built, 7).unwrap();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                (0..3000)
                    .map(|_| {
                        engine.step().unwrap();
                        engine.live().skeletons()
                    })
                    .collect::<Vec<_>>()
            })
        };
        let (serial, overlapped) = (skeletons(1), skeletons(2));
        // (The walker did leave: some steps repeat the last skeleton.)
        assert!(serial.windows(2).any(|w| w[0] == w[1]));
        assert!(serial == overlapped);
    }

    #[test]
    fn a_simulation_changed_from_outside_is_posed_as_it_stands() {
        let steps = 120;
        let (serial, _) = run(1, steps, Some(60));
        let (overlapped, ahead) = run(2, steps, Some(60));
        // Posing ahead stops at the move (the second simulation would not know of it).
        assert_eq!(ahead, 59);
        assert!(same(&serial, &overlapped));
        // The move is seen: the sweeps after it differ from those of an undisturbed run.
        let (undisturbed, _) = run(1, steps, None);
        let before = serial.len() / 2;
        assert!(same(&serial[..before], &undisturbed[..before]));
        assert!(!same(&serial, &undisturbed));
    }
}
