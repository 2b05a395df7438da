//! The stages of a run wired together: simulation step, scene update (skinning, refits), every
//! sensor. Shared by `run` and `bench --simulate`.
//!
//! With more than one thread, each step's sensors run side by side with the next step: a second
//! simulation of the same world and seed makes it, and a second copy of the scene is posed for
//! it (the simulation step and the scene update would otherwise leave all but one thread idle
//! between the sensors' parallel passes). At the next step the two simulations trade places,
//! and the copy becomes the scene if the sensors' reach is the one it was posed for. A change
//! made from outside to the run's simulation ([`Pipeline::sim_mut`]) ends this for the run.

use passerby_scene::{BuiltScene, LiveScene, SceneGround};
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::{SimOptions, Simulation};
use passerby_world::{TimedCommand, TimedTransform, World};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
}

/// A world running.
pub struct Pipeline {
    /// The simulation ([`Pipeline::sim`]).
    sim: Simulation,
    /// The scene following it.
    pub live: LiveScene,
    /// The sensors.
    pub rig: Rig,
    /// Time per stage.
    pub times: StageTimes,
    /// A second simulation of the same world, for posing the next step early (see the module
    /// comment); `None` once the run's simulation was changed from outside.
    ahead: Option<Simulation>,
}

impl Pipeline {
    /// Sets `world` in motion over its built scene.
    pub fn new(world: &World, built: BuiltScene, seed: u64) -> anyhow::Result<Pipeline> {
        let ground = SceneGround::new(&built, world);
        let live = LiveScene::new(built, world)?;
        let options = SimOptions {
            timestep: None,
            seed,
        };
        let mut sim = Simulation::with_options(world, &options)?;
        let mut ahead = Simulation::with_options(world, &options)?;
        ahead.set_ground(Box::new(ground.clone()));
        sim.set_ground(Box::new(ground));
        let rig = Rig::new(world, seed);
        Ok(Pipeline {
            sim,
            live,
            rig,
            times: StageTimes::default(),
            ahead: Some(ahead),
        })
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
    /// rest of the run: the second simulation would not know of the change. (No command changes
    /// a running simulation yet; the tests do.)
    #[cfg_attr(not(test), allow(dead_code))]
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
    ) -> anyhow::Result<()> {
        if let Some(ahead) = &mut self.ahead {
            ahead.set_replay(transforms.clone(), commands.clone())?;
        }
        self.sim.set_replay(transforms, commands)?;
        Ok(())
    }

    /// One step of every stage; the observations it completed.
    pub fn step(&mut self) -> anyhow::Result<Vec<Observation>> {
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

    /// [`Pipeline::step`] on the thread it is called on (and any workers that help).
    fn step_inner(&mut self) -> anyhow::Result<Vec<Observation>> {
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
        let observations = match &mut self.ahead {
            Some(ahead) if rayon::current_num_threads() > 1 => {
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
            .join("tests")
            .join(name);
        let world = load_world_file(&path, &LoadOptions::default())
            .world
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
        let (world, built) = walker_world();
        let mut pipeline = Pipeline::new(&world, built, 7).unwrap();
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
                    pipeline.sim_mut().set_pose("walker", pose).unwrap();
                }
                all.extend(pipeline.step().unwrap());
            }
        });
        (all, pipeline.times.posed_ahead)
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
    fn skeletons_of_actors_out_of_reach_do_not_depend_on_posing_ahead() {
        // The walker leaves the reach of the lidar (1 m, plus its body) and comes back; its skeleton is recorded each step.
        let skeletons = |threads: usize| {
            let (world, built) = test_world("walker_leaving.world.xml");
            let mut pipeline = Pipeline::new(&world, built, 7).unwrap();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                (0..3000)
                    .map(|_| {
                        pipeline.step().unwrap();
                        pipeline.live.skeletons()
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
