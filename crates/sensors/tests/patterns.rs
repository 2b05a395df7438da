//! The shipped lidar definitions give the beam patterns their files specify, ring 0 lowest.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_world::SensorKind;
use std::path::Path;

fn beams(definition: &str) -> (Vec<f64>, u32) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/mvsim");
    let xml = format!(
        r#"<mvsim_world version="1.0"><include file="{}/share/mvsim/definitions/{definition}"/></mvsim_world>"#,
        data.display()
    );
    let loaded = passerby_mvsim::load_world_str(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("inline.world.xml"),
        xml,
        &passerby_mvsim::LoadOptions {
            mvsim_data: data,
            ..Default::default()
        },
    );
    let world = loaded.value.unwrap();
    let SensorKind::Lidar3d(l) = &world.standalone_sensors[0].kind else {
        panic!()
    };
    (
        l.beam_elevations().iter().map(|e| e.to_degrees()).collect(),
        l.horz_nrays,
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn shipped_lidar_definitions_give_their_documented_beam_patterns() {
    let (vlp16, columns) = beams("velodyne-vlp16.sensor.xml");
    assert_eq!(vlp16.len(), 16);
    assert!(
        vlp16
            .iter()
            .enumerate()
            .all(|(i, e)| close(*e, -15.0 + 2.0 * i as f64)),
        "{vlp16:?}"
    );
    // 600 rpm at 55.296 us per firing: 1808 columns (MVSim's %g rounding of 1808.45).
    assert_eq!(columns, 1808);
    let (os1, columns) = beams("ouster-os1.sensor.xml");
    // The file's default is 22.5 degrees, really the OS2's (docs/sensors.md).
    assert_eq!((os1.len(), columns), (128, 1024));
    assert!(close(os1[0], -11.25) && close(os1[127], 11.25));
    for (file, lowest, highest) in [
        ("helios-32-FOV-26.sensor.xml", -16.0, 10.0),
        ("helios-32-FOV-31.sensor.xml", -16.0, 15.0),
        ("helios-32-FOV-70.sensor.xml", -55.02, 15.0),
    ] {
        let (helios, _) = beams(file);
        assert_eq!(helios.len(), 32, "{file}");
        assert!(
            helios.windows(2).all(|w| w[0] < w[1]),
            "{file}: ring 0 lowest, ascending"
        );
        assert!(
            close(helios[0], lowest) && close(helios[31], highest),
            "{file}: {helios:?}"
        );
    }
}
