//! The bundled viewer, loaded in headless Chromium (Debian's package, driven by
//! `playwright-core` from npm): it draws the lidar clouds, the actors and a camera image of a
//! bundled example, and its Step button steps the world.
#![allow(clippy::unwrap_used)] // test setup failures should panic

mod common;

use common::live::{check_viewer, serve};

#[test]
fn the_viewer_draws_clouds_actors_and_an_image_and_steps_the_world() {
    let served = serve(
        "examples/sensor_rig.world.xml",
        &["--duration", "300", "--realtime-factor", "1"],
    );
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("viewer.png");
    let url = format!("http://127.0.0.1:{}/", served.web_port);
    let seen = check_viewer(&url, &shot);
    let (status, stdout) = served.stop();
    assert_eq!(status.code(), Some(143), "{stdout}");
    assert_eq!(seen["errors"].as_array().unwrap().len(), 0, "{seen}");
    let stats = &seen["stats"];
    assert!(stats["clouds"].as_u64().unwrap() > 3, "{seen}");
    assert!(stats["markers"].as_u64().unwrap() >= 1, "{seen}");
    // The 3D canvas is not blank (tens of thousands of points and lines drawn), and the camera
    // canvas shows the image (a 640 x 480 frame: every pixel lit).
    assert!(seen["pixels"]["scene"].as_u64().unwrap() > 5_000, "{seen}");
    assert!(
        seen["pixels"]["image"].as_u64().unwrap() > 100_000,
        "{seen}"
    );
    // Pause then Step moved the server's clock by one 5 ms step (or a few, if a step was
    // already running when Pause arrived).
    let step = seen["step"].as_f64().unwrap();
    assert!(step > 0.004 && step < 0.05, "{seen}");
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
}
