//! The stages of a run wired together: simulation step, scene update (skinning, refits), every
//! sensor. Shared by `run` and `bench --simulate`.

use passerby_scene::{BuiltScene, LiveScene, SceneGround};
use passerby_sensors::{Observation, Rig, SceneView};
use passerby_sim::{SimOptions, Simulation};
use passerby_world::World;
use std::time::{Duration, Instant};

/// Wall time spent in each stage.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageTimes {
    /// Simulation steps.
    pub simulation: Duration,
    /// Scene updates.
    pub scene: Duration,
    /// Sensors.
    pub sensors: Duration,
}

/// A world running.
pub struct Pipeline {
    /// The simulation.
    pub sim: Simulation,
    /// The scene following it.
    pub live: LiveScene,
    /// The sensors.
    pub rig: Rig,
    /// Time per stage.
    pub times: StageTimes,
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
        sim.set_ground(Box::new(ground));
        let rig = Rig::new(world, seed);
        Ok(Pipeline {
            sim,
            live,
            rig,
            times: StageTimes::default(),
        })
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

    /// One step of every stage; the observations it completed.
    pub fn step(&mut self) -> anyhow::Result<Vec<Observation>> {
        let t0 = Instant::now();
        self.sim.step();
        let t1 = Instant::now();
        let reach = self.rig.reach(&self.sim);
        self.live.update_within(&self.sim, Some(&reach))?;
        let t2 = Instant::now();
        let view = SceneView {
            built: &self.live.built,
        };
        let observations = self.rig.step(&self.sim, &view);
        let t3 = Instant::now();
        self.times.simulation += t1 - t0;
        self.times.scene += t2 - t1;
        self.times.sensors += t3 - t2;
        Ok(observations)
    }
}
