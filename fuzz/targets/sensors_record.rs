//! Any bytes as a world file (beside the bundled definitions, so their includes resolve): if
//! it loads, its scene is built, its sensors are made from their parameters, and a few steps
//! are simulated, measured and recorded to MCAP. Nothing may panic. Limits are tighter than a
//! run's (a frame of 100,000 rays at most) so that one input stays fast.

use super::{render_all, scratch};
use passerby_world::budget::Limits;

/// Most simulation steps per input.
const STEPS: usize = 12;

/// One input.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let defs = passerby_mvsim::bundled_mvsim_data().join("share/mvsim/definitions");
    let opts = passerby_mvsim::LoadOptions {
        environment: passerby_mvsim::Environment::Fixed(Default::default()),
        limits: Limits {
            max_rays_per_frame: 100_000,
            max_image_side: 512,
            max_samples_per_frame: 100_000,
            max_rate_hz: 1000.0,
            max_includes: 200,
            ..Limits::default()
        },
        ..passerby_mvsim::LoadOptions::default()
    };
    let loaded = passerby_mvsim::load_world_str(&defs.join("fuzz.world.xml"), text, &opts);
    render_all(&loaded.diagnostics, &loaded.sources);
    let Some(world) = loaded.value else {
        return;
    };
    if world.blocks.len() + world.vehicles.len() + world.actors.len() > 200 {
        return;
    }
    let dir = scratch("sensors_record");
    let mut library =
        passerby_assets::ModelLibrary::new(passerby_assets::Resolver::new(dir.join("no-cache")));
    let out = dir.join("fuzz.mcap");
    let Ok(recorder) =
        passerby_record::Recorder::create(&out, &world, 0, passerby_record::ChunkCompression::Auto)
    else {
        return;
    };
    let Ok(mut engine) = passerby_engine::Engine::build(world, &mut library, 1) else {
        return;
    };
    engine.add_sink(Box::new(recorder));
    for _ in 0..STEPS {
        if engine.step().is_err() {
            break;
        }
    }
    let _ = engine.finish();
    let _ = std::fs::remove_file(&out);
}
