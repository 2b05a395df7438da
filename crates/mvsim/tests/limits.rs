//! Limits (issue 23): sensor sizes and rates, include fan-out, deep expressions and files that
//! are not XML are refused at a position, quickly and without allocating what they ask for.

use crate::util::*;
use passerby_mvsim::LoadOptions;
use std::time::{Duration, Instant};

/// Loads `body` and asserts it is refused with `prefix`, well within a second.
#[track_caller]
fn refused(body: &str, prefix: &str) {
    let started = Instant::now();
    let loaded = load(body);
    assert!(loaded.value.is_none(), "{body} was accepted");
    assert_diag(&loaded, prefix);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn sensor_sizes_and_rates_beyond_any_real_sensor_are_refused_at_their_tag() {
    // Each of these made `run` hang, abort or take gigabytes (`check` alone reached 8 GB on
    // the first, listing a billion beam elevations).
    refused(
        "<sensor class=\"lidar3d\" name=\"v\">\n<vert_nrays>1e9</vert_nrays></sensor>",
        "w.xml:3:1: error: lidar3d `world/v` (1000000000 rings x 180 columns): a frame of 1.800e11 rays is over the limit of 10000000 rays",
    );
    refused(
        "<sensor class=\"lidar3d\" name=\"h\">\n<horz_nrays>1e9</horz_nrays></sensor>",
        "w.xml:3:1: error: lidar3d `world/h` (16 rings x 1000000000 columns): a frame of 1.600e10 rays",
    );
    refused(
        "<sensor class=\"laser\" name=\"l\">\n<nrays>1e9</nrays></sensor>",
        "w.xml:3:1: error: laser `world/l`: a frame of 1.000e9 rays",
    );
    refused(
        "<sensor class=\"camera\" name=\"c\">\n<ncols>1000000</ncols></sensor>",
        "w.xml:3:1: error: camera `world/c`: an image side of 1000000 pixels is over the limit of 16384",
    );
    refused(
        "<sensor class=\"camera\" name=\"c\">\n<ncols>8000</ncols><nrows>8000</nrows></sensor>",
        "w.xml:3:1: error: camera `world/c`: a frame of 64000000 pixel samples",
    );
    refused(
        "<sensor class=\"camera\" name=\"c\">\n<antialias>64</antialias></sensor>",
        "w.xml:3:1: error: camera `world/c`: a frame of 1.258e9 pixel samples",
    );
    refused(
        "<sensor class=\"rgbd_camera\" name=\"d\">\n<depth_nrows>100000</depth_nrows></sensor>",
        "w.xml:3:1: error: rgbd_camera `world/d`: an image side of 100000 pixels",
    );
    refused(
        "<sensor class=\"laser\" name=\"l\">\n<sensor_period>1e-9</sensor_period></sensor>",
        "w.xml:3:1: error: laser `world/l`: a rate of 1.000e9 Hz is over the limit of 10000 Hz",
    );
    // Each within its own limit, too much together: blamed on the size at a usual rate.
    refused(
        "<sensor class=\"laser\" name=\"l\"><nrays>5000000</nrays>\n<sensor_period>0.001</sensor_period></sensor>",
        "w.xml:2:32: error: laser `world/l`: 5.000e9 rays or pixel samples per second",
    );
}

#[test]
fn the_worlds_total_output_rate_is_bounded_too() {
    // 4K cameras at 30 Hz record ~2.2 GB/s each: three are allowed, the fourth is not.
    let camera = |i| {
        format!(
            "<sensor class=\"camera\" name=\"c{i}\"><ncols>3840</ncols><nrows>2160</nrows><sensor_period>0.0333</sensor_period></sensor>\n"
        )
    };
    let three: String = (0..3).map(camera).collect();
    assert!(load(&three).value.is_some());
    let four: String = (0..4).map(camera).collect();
    refused(
        &four,
        "w.xml:5:1: error: with camera `world/c3` the world's sensors record",
    );
}

#[test]
fn limits_can_be_raised_by_who_means_it() {
    let body = "<sensor class=\"laser\" name=\"l\"><sensor_period>1e-5</sensor_period></sensor>";
    assert!(load(body).value.is_none());
    let text = format!("<mvsim_world version=\"1.0\">\n{body}\n</mvsim_world>\n");
    let opts = LoadOptions {
        limits: passerby_world::budget::Limits::scaled(10.0),
        ..options(&[])
    };
    let loaded = passerby_mvsim::load_world_str("/virtual/w.xml".as_ref(), text, &opts);
    assert!(loaded.value.is_some(), "{:?}", headlines(&loaded));
}

#[test]
fn includes_that_fan_out_are_stopped_by_a_total() {
    // 26 tiny files each including the next one twice: 2^26 includes, which never finished.
    let dir = temp_dir();
    for i in 0..26 {
        let body = if i < 25 {
            format!(
                "<include file=\"f{}.xml\"/><include file=\"f{}.xml\"/>",
                i + 1,
                i + 1
            )
        } else {
            "<variable name=\"X\" value=\"1\"/>".to_owned()
        };
        std::fs::write(dir.path().join(format!("f{i}.xml")), body).unwrap();
    }
    let started = Instant::now();
    let loaded = load_in(
        dir.path(),
        "<mvsim_world version=\"1.0\"><include file=\"f0.xml\"/></mvsim_world>",
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(loaded.value.is_none());
    let all = headlines(&loaded);
    let over: Vec<&String> = all
        .iter()
        .filter(|h| h.contains("includes in all"))
        .collect();
    assert_eq!(over.len(), 1, "said once: {all:?}");
    assert!(over[0].starts_with("f24.xml:1:"), "{}", over[0]);
}

#[test]
fn a_file_included_that_is_not_xml_is_named_never_quoted() {
    let dir = temp_dir();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "root:SECRET-HASH:19000:0:99999:7:::\n").unwrap();
    let binary = dir.path().join("blob.bin");
    std::fs::write(&binary, b"<\0\x01\x02").unwrap();
    for file in [&secret, &binary] {
        let loaded = load_in(
            dir.path(),
            &format!(
                "<mvsim_world version=\"1.0\"><include file=\"{}\"/></mvsim_world>",
                file.display()
            ),
        );
        assert!(loaded.value.is_none());
        let rendered: Vec<String> = loaded
            .diagnostics
            .iter()
            .map(|d| d.render(&loaded.sources))
            .collect();
        let all = rendered.join("\n");
        assert!(all.contains("is not an XML file"), "{all}");
        assert!(!all.contains("SECRET"), "{all}");
    }
}

#[test]
fn deep_expressions_are_an_error_with_a_position() {
    // ~9,000 parentheses and 100,000 unary minuses overflowed the stack.
    for expr in [
        format!("{}1{}", "(".repeat(9_000), ")".repeat(9_000)),
        "-".repeat(100_000) + "1",
    ] {
        let loaded = load(&format!("<variable name=\"A\" value=\"$f{{{expr}}}\"/>"));
        assert!(loaded.value.is_none());
        let all = headlines(&loaded);
        assert!(
            all.iter()
                .any(|h| h.starts_with("w.xml:2:") && h.contains("nested more than")),
            "{all:?}"
        );
        // The message quotes the start of the expression, not all of it.
        assert!(all.iter().all(|h| h.len() < 400), "{all:?}");
    }
}
