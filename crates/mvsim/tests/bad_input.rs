//! Bad input: every mistake is reported with its file, line and column and what was expected;
//! several mistakes of a file are reported together; nothing panics.

use crate::util::*;

// `load` wraps the body in `<mvsim_world version="1.0">\n…`, so the body starts on line 2.

#[test]
fn malformed_xml() {
    let loaded = load("<block name=\"a\">\n<init_pose>0 0 0</init_pose>");
    assert!(loaded.value.is_none());
    assert_diag(
        &loaded,
        "w.xml:1:1: error: element `<mvsim_world>` is never closed",
    );
    let loaded = load("<block name=a/>");
    assert_diag(
        &loaded,
        "w.xml:2:13: error: expected a quoted value for attribute `name`",
    );
}

#[test]
fn wrong_root_and_version() {
    let loaded =
        passerby_mvsim::load_world_str("/v/w.xml".as_ref(), "<world/>".into(), &options(&[]));
    assert_diag(
        &loaded,
        "w.xml:1:1: error: root element is `<world>`: expected `<mvsim_world>`",
    );
    let loaded = passerby_mvsim::load_world_str(
        "/v/w.xml".as_ref(),
        "<mvsim_world version=\"one\"/>".into(),
        &options(&[]),
    );
    assert_diag(
        &loaded,
        "w.xml:1:23: error: version `one`: expected `MAJOR.MINOR`",
    );
}

#[test]
fn unknown_sensor_class() {
    let loaded = load("<sensor class=\"lidar\" name=\"x\"/>");
    assert_diag(
        &loaded,
        "w.xml:2:16: error: unknown sensor class `lidar`: expected one of laser, lidar3d, camera, rgbd_camera, imu, gnss (did you mean `lidar3d`?)",
    );
}

#[test]
fn parameter_that_does_not_parse() {
    let loaded = load("<sensor class=\"laser\" name=\"l\">\n  <nrays>abc</nrays>\n</sensor>");
    assert_diag(
        &loaded,
        "w.xml:3:10: error: <nrays>: expected an integer, found `abc`",
    );
    let loaded =
        load("<sensor class=\"laser\" name=\"l\"><raytrace_3d>maybe</raytrace_3d></sensor>");
    assert_diag(
        &loaded,
        "w.xml:2:45: error: <raytrace_3d>: expected `true`, `false`, `1` or `0`, found `maybe`",
    );
    let loaded = load(
        "<sensor class=\"laser\" name=\"l\"><nrays>0</nrays><sensor_period>-1</sensor_period></sensor>",
    );
    assert_diag(
        &loaded,
        "w.xml:2:39: error: <nrays> is 0: expected an integer of at least 1",
    );
    assert_diag(
        &loaded,
        "w.xml:2:63: error: <sensor_period> is -1: expected a positive number",
    );
    let loaded =
        load("<block name=\"b\"><init_pose>1 2</init_pose><geometry type=\"box\"/></block>");
    assert_diag(
        &loaded,
        "w.xml:2:28: error: <init_pose>: expected `x y yaw` (3 numbers), found 2 in `1 2`",
    );
}

#[test]
fn trailing_garbage_is_a_warning_as_mvsim_ignores_it() {
    let loaded = load("<sensor class=\"laser\" name=\"l\"><nrays>10abc</nrays></sensor>");
    assert_diag(
        &loaded,
        "w.xml:2:39: warning: <nrays>: trailing `abc` ignored",
    );
    assert!(loaded.value.is_some());
}

#[test]
fn undefined_variable_in_main_and_in_included_file() {
    let loaded = load("<element class=\"horizontal_plane\">\n  <z>$f{H} + ${NOPE}</z>\n</element>");
    assert_diag(&loaded, "w.xml:3:14: error: undefined variable `NOPE`");
    let scratch = temp_dir();
    let dir = scratch.path().to_path_buf();
    std::fs::write(
        dir.join("inc.xml"),
        "<block name=\"b\">\n  <mass>${mass}</mass>\n</block>",
    )
    .unwrap();
    let loaded = load_in(
        &dir,
        "<mvsim_world>\n<include file=\"inc.xml\"/>\n</mvsim_world>",
    );
    assert_diag(
        &loaded,
        "inc.xml:2:9: error: undefined variable `mass`; give it as an attribute of the <include>",
    );
}

#[test]
fn include_cycle_is_detected() {
    let scratch = temp_dir();
    let dir = scratch.path().to_path_buf();
    std::fs::write(dir.join("a.xml"), "<include file=\"b.xml\"/>").unwrap();
    std::fs::write(
        dir.join("b.xml"),
        "<variable name=\"x\" value=\"1\"/>\n<include file=\"a.xml\"/>",
    )
    .unwrap();
    let loaded = load_in(&dir, "<mvsim_world><include file=\"a.xml\"/></mvsim_world>");
    assert_diag(&loaded, "b.xml:2:16: error: include cycle: `");
    let self_include = "<mvsim_world><include file=\"main.world.xml\"/></mvsim_world>";
    std::fs::write(dir.join("main.world.xml"), self_include).unwrap();
    let loaded = load_file(&dir.join("main.world.xml"));
    assert_diag(&loaded, "main.world.xml:1:29: error: include cycle");
}

#[test]
fn include_file_missing() {
    let loaded = load("<include file=\"nowhere/defs.xml\" a=\"1\"/>");
    assert_diag(
        &loaded,
        "w.xml:2:16: error: include file `nowhere/defs.xml` not found (looked for `/virtual/nowhere/defs.xml`)",
    );
}

#[test]
fn for_with_a_non_integer_bound() {
    let loaded =
        load("<for var=\"i\" from=\"0\" to=\"2.5\"><variable name=\"a\" value=\"1\"/></for>");
    assert_diag(
        &loaded,
        "w.xml:2:27: error: `<for to=…>` is `2.5`: expected an integer",
    );
    let loaded =
        load("<for var=\"i\" from=\"x\" to=\"2\"><variable name=\"a\" value=\"1\"/></for>");
    assert_diag(
        &loaded,
        "w.xml:2:20: error: `<for from=…>` is `x`: expected an integer",
    );
    let loaded =
        load("<for var=\"i\" from=\"0\" to=\"1e12\"><variable name=\"a\" value=\"1\"/></for>");
    assert_diag(
        &loaded,
        "w.xml:2:27: error: `<for to=…>` is `1e12`: expected an integer",
    );
    let loaded = load("<for from=\"0\" to=\"1\"></for>");
    assert_diag(
        &loaded,
        "w.xml:2:1: error: `<for>` needs the attribute `var`",
    );
}

#[test]
fn expressions_that_do_not_parse_or_divide_by_zero() {
    let loaded = load("<element class=\"horizontal_plane\"><z>$f{1 +* 2}</z></element>");
    assert_diag(
        &loaded,
        "w.xml:2:44: error: in `$f{1 +* 2}`: expected a number, a variable",
    );
    let loaded = load(
        "<variable name=\"N\" value=\"0\"/>\n<element class=\"horizontal_plane\"><z>$f{10/N}</z></element>",
    );
    assert_diag(
        &loaded,
        "w.xml:3:43: error: in `$f{10/N}`: division by zero",
    );
    let loaded = load("<element class=\"horizontal_plane\"><z>$f{sqrt(</z></element>");
    assert_diag(
        &loaded,
        "w.xml:2:38: error: `$f{` without its closing bracket",
    );
}

#[test]
fn duplicate_names() {
    let loaded = load(
        "<block name=\"a\"><init_pose>0 0 0</init_pose><geometry type=\"box\"/></block>\n<actor name=\"a\"><init_pose>0 0 0</init_pose></actor>",
    );
    assert_diag(
        &loaded,
        "w.xml:3:14: error: name `a` is already used by another block, vehicle or actor",
    );
    let loaded = load(
        "<vehicle name=\"v\"><init_pose>0 0 0</init_pose><dynamics class=\"differential\"><controller class=\"raw\"/></dynamics>\n<sensor class=\"imu\" name=\"s\"/>\n<sensor class=\"gnss\" name=\"s\"/></vehicle>",
    );
    assert_diag(
        &loaded,
        "w.xml:4:28: error: sensor name `s` is used twice in `v`",
    );
}

#[test]
fn class_not_defined() {
    let loaded = load(
        "<block:class name=\"crate\"/>\n<block class=\"crates\"><init_pose>0 0 0</init_pose></block>",
    );
    assert_diag(
        &loaded,
        "w.xml:3:15: error: `<block:class name=\"crates\">` is not defined before this point (defined: crate)",
    );
    let loaded = load("<vehicle class=\"robot\"><init_pose>0 0 0</init_pose></vehicle>");
    assert_diag(
        &loaded,
        "w.xml:2:17: error: `<vehicle:class name=\"robot\">` is not defined before this point (none is defined)",
    );
}

#[test]
fn unknown_tags_warn_once_per_file_with_a_suggestion() {
    let loaded = load(
        "<sensor class=\"laser\" name=\"a\"><nray>5</nray></sensor>\n<sensor class=\"laser\" name=\"b\"><nray>5</nray></sensor>\n<teleporter/>",
    );
    let warnings: Vec<String> = headlines(&loaded)
        .into_iter()
        .filter(|h| h.contains("warning"))
        .collect();
    assert_eq!(
        warnings,
        [
            "w.xml:2:32: warning: unknown tag `<nray>` in a `laser` sensor is ignored (did you mean `<nrays>`?)",
            "w.xml:4:1: warning: unknown tag `<teleporter>` in a world is ignored",
        ]
    );
    assert!(loaded.value.is_some(), "unknown tags are not errors");
}

#[test]
fn several_errors_of_a_file_are_reported_together() {
    let loaded = load(
        "<sensor class=\"lidar3d\" name=\"l\">\n<vert_nrays>x</vert_nrays>\n<horz_nrays>y</horz_nrays>\n<max_range>-3</max_range>\n</sensor>\n<block name=\"b\"/>",
    );
    let errors: Vec<String> = headlines(&loaded)
        .into_iter()
        .filter(|h| h.contains("error"))
        .collect();
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert!(
        errors[3].starts_with("w.xml:7:1: error: `<block>` `b` has no `<init_pose>"),
        "{errors:#?}"
    );
}

#[test]
fn shell_commands_are_off_by_default() {
    let loaded = load("<variable name=\"x\" value=\"$(touch /tmp/passerby-should-not-exist)\"/>");
    assert_diag(
        &loaded,
        "w.xml:2:27: error: shell substitution `$(touch /tmp/passerby-should-not-exist)` is disabled",
    );
    assert!(!std::path::Path::new("/tmp/passerby-should-not-exist").exists());
}

#[test]
fn semantic_mistakes() {
    let loaded = load(
        "<sensor class=\"lidar3d\" name=\"l\"><vert_nrays>2</vert_nrays><vertical_ray_angles>1 2 3</vertical_ray_angles></sensor>",
    );
    assert_diag(
        &loaded,
        "w.xml:2:81: error: <vertical_ray_angles> lists 3 angles but <vert_nrays> is 2",
    );
    let loaded = load("<sensor class=\"camera\" name=\"c\"><fx>0</fx><ncols>0</ncols></sensor>");
    assert_diag(
        &loaded,
        "w.xml:2:37: error: <fx> is 0: expected a positive number",
    );
    assert_diag(
        &loaded,
        "w.xml:2:50: error: <ncols> is 0: expected an integer of at least 1",
    );
    let loaded = load(
        "<sensor class=\"camera\" name=\"c\"><distortion>0.1 0.2</distortion><antialias>0</antialias></sensor>",
    );
    assert_diag(
        &loaded,
        "w.xml:2:45: error: <distortion>: expected k1 k2 p1 p2 k3 (5 numbers), found 2",
    );
    assert_diag(
        &loaded,
        "w.xml:2:76: error: <antialias> is 0: expected an integer of at least 1",
    );
    let loaded = load(
        "<actor name=\"a\"><init_pose>0 0 0</init_pose><walking_speed>-1</walking_speed><path/></actor>",
    );
    assert_diag(
        &loaded,
        "w.xml:2:60: error: <walking_speed> is -1: expected a positive number",
    );
    assert_diag(
        &loaded,
        "w.xml:2:78: error: `<path>` without any `<waypoint>`",
    );
    let loaded = load(
        "<actor name=\"a\"><init_pose>0 0 0</init_pose><path><waypoint>1 0 0</waypoint></path></actor>",
    );
    assert_diag(
        &loaded,
        "w.xml:2:45: warning: a looping `<path>` with a single `<waypoint>`: the actor walks there and stays (give two or more waypoints to walk back and forth)",
    );
    let loaded = load("<element class=\"terrain\"/>");
    assert_diag(
        &loaded,
        "w.xml:2:17: error: unknown element class `terrain`",
    );
    let loaded = load("<element class=\"occupancy_grid\"><file>missing.png</file></element>");
    assert_diag(
        &loaded,
        "w.xml:2:39: error: <file>: file `missing.png` not found",
    );
    let loaded = load(
        "<vehicle name=\"v\"><init_pose>0 0 0</init_pose><dynamics class=\"tank\"/></vehicle>",
    );
    assert_diag(
        &loaded,
        "w.xml:2:64: error: dynamics class `tank`: expected differential",
    );
    let loaded = load(
        "<vehicle name=\"v\"><init_pose>0 0 0</init_pose><dynamics class=\"ackermann\"><controller class=\"twist_pid\"/></dynamics></vehicle>",
    );
    assert_diag(
        &loaded,
        "w.xml:2:94: error: controller class `twist_pid` does not exist for `ackermann` dynamics",
    );
}

#[test]
fn an_unknown_tag_warns_once_per_file_whatever_its_context() {
    let loaded = load(
        "<block name=\"a\"><init_pose>0 0 0</init_pose><sparkle/></block>\n<sensor class=\"imu\" name=\"i\"><sparkle/></sensor>\n<sparkle/>",
    );
    let warnings: Vec<String> = headlines(&loaded)
        .into_iter()
        .filter(|h| h.contains("sparkle"))
        .collect();
    assert_eq!(
        warnings,
        ["w.xml:2:45: warning: unknown tag `<sparkle>` in a <block> is ignored"]
    );
}

#[test]
fn an_elevation_maps_texture_turns_by_right_angles_only() {
    let loaded = load(
        "<element class=\"elevation_map\"><elevation_data_matrix>[0 0; 0 0]</elevation_data_matrix>\n\
         <texture_image_rotate>45</texture_image_rotate></element>",
    );
    assert_diag(
        &loaded,
        "w.xml:3:1: error: <texture_image_rotate> is 45: MVSim takes only 0, 90, -90 and 180",
    );
}

#[test]
fn a_time_step_over_a_second_is_refused() {
    // A step of 1e308 s made an actor's looped path, and the run, endless (mutation campaign).
    let loaded = load("<simul_timestep>1e308</simul_timestep>");
    assert_diag(
        &loaded,
        "w.xml:2:1: error: <simul_timestep> is 1e308 s: at most 1 s a step",
    );
}

#[test]
fn a_chassis_parameter_written_as_a_tag_is_ignored_as_mvsim_ignores_it() {
    // scania_truck.vehicle.xml writes `<linear_damping>` inside `<chassis>`; MVSim reads the
    // chassis's parameters from its attributes only.
    let loaded = load(
        "<vehicle name=\"t\"><init_pose>0 0 0</init_pose><dynamics class=\"differential\"><chassis mass=\"5\">\n\
         <linear_damping>10</linear_damping></chassis><controller class=\"twist_ideal\"/></dynamics></vehicle>",
    );
    assert_diag(
        &loaded,
        "w.xml:3:1: warning: `<linear_damping>` in a <chassis> is ignored, by MVSim too: it reads this parameter only as an attribute (write `linear_damping=\"…\"`)",
    );
    let chassis = &loaded.value.as_ref().unwrap().vehicles[0].dynamics.chassis;
    assert_eq!((chassis.mass, chassis.linear_damping), (5.0, 0.1));
}
