//! The `passerby` binary as a user runs it: exit statuses, summaries, diagnostics on stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn passerby(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_passerby"))
        // Tests never reach the network: remote models not in the cache get placeholders.
        .env("PASSERBY_OFFLINE", "1")
        .args(args)
        .current_dir(root())
        .output()
        .expect("run passerby")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_prints_a_summary_of_a_valid_world() {
    let out = passerby(&[
        "check",
        "../shared/worlds/mvsim/mvsim_tutorial/demo_many_robots.world.xml",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("vehicles: 25\n"), "{stdout}");
    assert!(stdout.contains("sensors: 25 (25 laser)\n"), "{stdout}");
    assert!(
        stdout.contains(
            "  veh25/laser1 laser: period 0.05 s (20.0000 Hz), 100 rays over 360.0 deg; 2.0 k rays/s, 56.0 kB/s to record\n"
        ),
        "{stdout}"
    );
    // 25 lasers of 100 rays at 20 Hz, 28 bytes a point.
    assert!(
        stdout.contains(
            "expected output: 1.40 MB of sensor data per simulated second, before compression\n"
        ),
        "{stdout}"
    );

    let out = passerby(&[
        "check",
        "../shared/worlds/mvsim/mvsim_tutorial/demo_warehouse.world.xml",
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  person1 (class pedestrian): path of 5 waypoints"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "r1/lidar1 lidar3d: period 0.1 s (10.0000 Hz), 32 rings x 1808 columns = 57856 rays"
        ),
        "{stdout}"
    );
}

#[test]
fn check_fails_with_positioned_errors() {
    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).expect("temp dir");
    let world = dir.join("bad.world.xml");
    std::fs::write(&world, "<mvsim_world>\n  <sensor class=\"laser\" name=\"l\"><nrays>abc</nrays></sensor>\n</mvsim_world>\n")
        .expect("write world");
    let out = passerby(&["check", world.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("bad.world.xml:2:41: error: <nrays>: expected an integer, found `abc`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("2 |   <sensor class=\"laser\" name=\"l\"><nrays>abc</nrays></sensor>"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 error(s); the world is not valid"),
        "{stderr}"
    );
    assert!(text(&out.stdout).is_empty());

    let out = passerby(&["check", "does/not/exist.world.xml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot read world file"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn quiet_hides_the_summary_and_warnings() {
    let out = passerby(&[
        "-q",
        "check",
        "../shared/worlds/mvsim/mvsim_tutorial/demo_greenhouse.world.xml",
    ]);
    assert!(out.status.success());
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn run_refuses_bad_arguments_with_clear_errors() {
    let out = passerby(&[
        "run",
        "examples/actors.world.xml",
        "--start-time",
        "yesterday",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--start-time `yesterday`"),
        "{}",
        text(&out.stderr)
    );
    let out = passerby(&["run", "examples/actors.world.xml", "--duration", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--duration must be a positive number"));
    let out = passerby(&["run", "examples/missing.world.xml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("missing.world.xml"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn serve_refuses_bad_arguments_and_a_taken_port_with_clear_errors() {
    let world = "examples/actors.world.xml";
    let cases: [(&[&str], &str); 4] = [
        (
            &["--foxglove", "http"],
            "`http`: expected PORT or ADDR:PORT",
        ),
        (&["--duration=-1"], "--duration must be a positive number"),
        (
            &["--realtime-factor", "nan"],
            "--realtime-factor must be zero or a positive",
        ),
        (
            &["--web", "1.2.3.4:x"],
            "`1.2.3.4:x`: expected PORT or ADDR:PORT",
        ),
    ];
    for (args, message) in cases {
        // Refused before anything is loaded or served.
        let mut all = vec!["serve", world];
        all.extend(args);
        let out = passerby(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(message),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // A port another program holds is an error naming it, not a hang or a panic.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = passerby(&["serve", world, "--duration", "1", "--foxglove", &port]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("cannot serve on 127.0.0.1:{port}")),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn help_and_version() {
    let out = passerby(&["--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for flag in [
        "--seed",
        "--mvsim-data",
        "--asset-cache",
        "--allow-shell",
        "--verbose",
        "--quiet",
        "check",
        "run",
        "bench",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    let out = passerby(&["--version"]);
    assert!(text(&out.stdout).starts_with("passerby "));
    let out = passerby(&["check", "--help"]);
    assert!(text(&out.stdout).contains("WORLD"));
}

#[test]
fn model_inspect_and_pose() {
    let out = passerby(&["model", "inspect", "../shared/assets/characters/Walker.glb"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("meshes: 1 (1180 vertices, 1040 triangles)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  'Walk': 1.000 s, 33 channels"),
        "{stdout}"
    );
    assert!(stdout.contains("11 joints: Hips, Spine, Head"), "{stdout}");

    let ply_scratch = tempfile::tempdir().unwrap();
    let ply = ply_scratch.path().join("posed.ply");
    let out = passerby(&[
        "model",
        "pose",
        "../shared/assets/characters/Walker.glb",
        "--clip",
        "Run",
        "--time",
        "0.3",
        "--out",
        ply.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&ply).expect("ply written");
    assert!(written.starts_with("ply\nformat ascii 1.0\n"));
    assert_eq!(written.lines().count(), 10 + 1180 + 1040);

    let out = passerby(&[
        "model",
        "pose",
        "../shared/assets/characters/Walker.glb",
        "--clip",
        "Jog",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("has no clip 'Jog'; its clips are: 'Idle', 'Run', 'Walk'"));
}

#[test]
fn check_loads_models_once_and_lists_actor_clips() {
    let out = passerby(&[
        "check",
        "../shared/worlds/mvsim/mvsim_tutorial/demo_warehouse.world.xml",
        "--asset-cache",
        "../shared/assets/mvsim-models",
    ]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(
        stdout.contains("models: 11 files loaded, 2 not available"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "placeholder body (model https://mrpt.github.io/mvsim-models/AnimatedMenCharacters.zip"
        ),
        "{stdout}"
    );
    assert_eq!(
        stderr
            .matches("AnimatedMenCharacters.zip/FBX/Male_Shirt.fbx` is not available")
            .count(),
        1,
        "{stderr}"
    );

    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).expect("temp dir");
    let walker = root().join("../shared/assets/characters/Walker.glb");
    let world = format!(
        "<mvsim_world><actor:class name=\"p\"><visual><model_uri>{}</model_uri></visual></actor:class>\
         <actor name=\"a\" class=\"p\"><init_pose>0 0 0</init_pose></actor><actor name=\"b\" class=\"p\"><init_pose>1 0 0</init_pose></actor></mvsim_world>",
        walker.display()
    );
    std::fs::write(dir.join("w.world.xml"), world).expect("write world");
    let out = passerby(&["check", dir.join("w.world.xml").to_str().expect("utf-8")]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("with clips 'Idle' 2.00 s, 'Run' 0.67 s, 'Walk' 1.00 s"),
        "{stdout}"
    );
    assert!(
        stdout.contains("models: 1 files loaded, 0 not available"),
        "two actors share one parsed file: {stdout}"
    );
}

#[test]
fn model_inspect_reads_archive_members_and_cached_urls() {
    let out = passerby(&[
        "model",
        "inspect",
        "../shared/assets/mvsim-models/pallet.zip/pallet/pallet.dae",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Split by its two materials, which keep the colours their effects give; vertices split
    // by texture coordinate; the wood is textured.
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("meshes: 2 (7060 vertices, 4572 triangles)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("M_0136_Charcoal: base colour [0.137255, 0.137255, 0.137255, 1.0]"),
        "{stdout}"
    );
    assert!(stdout.contains("Bois_palette.jpg (256x286 px)"), "{stdout}");
    let url = "https://mrpt.github.io/mvsim-models/greenhouse.zip/greenhouse/pole_009.stl";
    let out = passerby(&[
        "--asset-cache",
        "../shared/assets/mvsim-models",
        "model",
        "inspect",
        url,
    ]);
    assert!(
        text(&out.stdout).contains("frame: STL as stored"),
        "{}",
        text(&out.stderr)
    );
    let out = passerby(&[
        "--asset-cache",
        "/nonexistent-cache",
        "model",
        "inspect",
        url,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not in the asset cache"));
}

#[test]
fn bench_casts_every_scan_and_reports_json() {
    let out = passerby(&[
        "bench",
        "../shared/perf/refscene.world.xml",
        "--scans",
        "1",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = text(&out.stdout);
    assert!(json.contains("\"triangles\":197160"), "{json}");
    // The same hit count as Embree on these rays (../shared/perf/README.md).
    assert!(
        json.contains(
            "\"sensor\":\"world/os1\",\"class\":\"lidar3d\",\"rays\":131072,\"hits\":91355"
        ),
        "{json}"
    );
}

/// `bench --simulate` runs the loop for the simulated time asked and reports it as JSON, with
/// every sensor's output and the process's peak resident memory where the system tells it.
#[test]
fn bench_simulates_and_reports_json_with_peak_memory() {
    let out = passerby(&[
        "--quiet",
        "bench",
        "examples/sensor_rig.world.xml",
        "--simulate",
        "0.2",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["steps"], 40, "{json}");
    assert!((json["simulated_seconds"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    let sensors = json["sensors"].as_array().unwrap();
    assert!(sensors.iter().any(|s| s["sensor"] == "r1/vlp16"), "{json}");
    let peak = &json["peak_resident_bytes"];
    if cfg!(target_os = "linux") {
        // More than the binary and the world's scene; less than the machine.
        let bytes = peak.as_u64().unwrap();
        assert!((10 << 20..16 << 30).contains(&bytes), "{json}");
    } else {
        assert!(peak.is_null() || peak.as_u64().is_some(), "{json}");
    }
}

#[test]
fn render_writes_one_instant_of_a_camera_and_names_the_cameras_on_a_typo() {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render");
    let _ = std::fs::remove_dir_all(&out_dir);
    let dir = out_dir.display().to_string();
    let out = passerby(&[
        "render",
        "examples/sensor_rig.world.xml",
        "--sensor",
        "r1/rgbd",
        "--time",
        "7",
        "--out",
        &dir,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for name in [
        "colour.png",
        "depth.png",
        "labels_instance.png",
        "labels_class.png",
        "boxes.json",
        "labels.json",
    ] {
        assert!(out_dir.join(name).is_file(), "{name}");
    }
    // At 7 s the walker is in view of the RGB-D camera (colour grid).
    let boxes = std::fs::read_to_string(out_dir.join("boxes.json")).unwrap();
    assert!(boxes.contains("\"name\": \"passerby1\""), "{boxes}");
    // The depth image is 16-bit grey of the depth camera's size.
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(out_dir.join("depth.png")).unwrap(),
    ));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!(
        (info.width, info.height, info.bit_depth),
        (640, 480, png::BitDepth::Sixteen)
    );

    let out = passerby(&[
        "render",
        "examples/sensor_rig.world.xml",
        "--sensor",
        "cam",
        "--out",
        &dir,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("no camera `cam` in examples/sensor_rig.world.xml; cameras: r1/cam, r1/rgbd"),
        "{}",
        text(&out.stderr)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_a_clear_error_not_a_panic() {
    // Every write to /dev/full fails as on a full disk.
    let out = passerby(&[
        "run",
        "examples/sensor_rig.world.xml",
        "--duration",
        "0.5",
        "--out",
        "/dev/full",
        "-q",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: cannot write /dev/full: ")
            && stderr.contains("No space left on device"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_lidar_that_sees_nothing_records_empty_sweeps() {
    // The MAVS rig alone: a lidar and a camera in a world with no geometry at all.
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("empty.mcap");
    let out = passerby(&[
        "run",
        "examples/mavs_rig.world.xml",
        "--duration",
        "0.3",
        "--out",
        out_file.to_str().unwrap(),
        "-q",
    ]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(std::fs::metadata(&out_file).unwrap().len() > 1000);
}

#[test]
fn mavs_scenes_load_with_a_rig_and_report_errors_with_their_json_path() {
    let out = passerby(&[
        "check",
        "../shared/scenes/mavs/scenes/cube_scene.json",
        "--mavs-data",
        "../shared/scenes/mavs",
        "--rig",
        "examples/mavs_rig.world.xml",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("placed meshes: 3001 (2 files); height surfaces: 1\n"),
        "{stdout}"
    );
    assert!(stdout.contains("label classes: 17\n"), "{stdout}");
    assert!(stdout.contains("r1/vlp16 lidar3d"), "{stdout}");

    let dir_scratch = tempfile::tempdir().unwrap();
    let dir = dir_scratch.path().to_path_buf();
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scene = dir.join("bad.json");
    std::fs::write(
        &scene,
        "{\"Objects\": [{\"Mesh\": \"misc/cube.obj\",\n  \"Instances\": [{\"Scale\": [1, 2]}]}]}\n",
    )
    .expect("write scene");
    let out = passerby(&[
        "check",
        scene.to_str().expect("utf-8 path"),
        "--mavs-data",
        "../shared/scenes/mavs",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "bad.json:2:27: error: `Objects[0].Instances[0].Scale`: expected 3 numbers, found 2"
        ),
        "{stderr}"
    );
}

#[test]
fn a_clip_the_model_lacks_is_a_warning_of_check_and_run_plays_the_first() {
    // `run` aborted on it before; MVSim keeps running.
    let dir = tempfile::tempdir().unwrap();
    let walker = std::fs::read_to_string("../engine/tests/worlds/walker.world.xml").unwrap();
    let model = std::fs::canonicalize("../../../shared/assets/characters/Walker.glb").unwrap();
    let world = walker
        .replace(
            "<animation_run>Run</animation_run>",
            "<animation_run>Sprint</animation_run>",
        )
        .replace(
            "../../../../../shared/assets/characters/Walker.glb",
            &model.display().to_string(),
        );
    let path = dir.path().join("sprint.world.xml");
    std::fs::write(&path, world).unwrap();
    let path = path.display().to_string();
    let out = passerby(&["check", &path]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: actor `walker`: clip `Sprint` (from <animation_run>) is not in its model; its clips: 'Idle', 'Run', 'Walk'; `run` plays 'Idle' instead"),
        "{stderr}"
    );
    let mcap = dir.path().join("sprint.mcap").display().to_string();
    let out = passerby(&["run", &path, "--duration", "0.3", "--out", &mcap]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr
            .matches("clip `Sprint` (from <animation_run>)")
            .count(),
        1,
        "warned once: {stderr}"
    );
}

/// Issue 24, item 6: remote models are downloaded by default (from a loopback server of the
/// test's own here), `--offline` / `PASSERBY_OFFLINE=1` forbids it.
#[test]
fn remote_models_are_downloaded_by_default_and_not_offline() {
    use std::io::{Read, Write};
    let body = std::fs::read(root().join("../shared/assets/mvsim-models/chair_x3.dae")).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let header = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(header.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("remote.world.xml");
    std::fs::write(
        &world,
        format!(
            r#"<mvsim_world version="1.0"><block name="chair"><init_pose>0 0 0</init_pose>
                 <visual><model_uri>http://127.0.0.1:{port}/models/chair_x3.dae</model_uri></visual>
               </block></mvsim_world>"#
        ),
    )
    .unwrap();
    let check = |offline: bool| {
        let cache = dir
            .path()
            .join(if offline { "cache-offline" } else { "cache" });
        Command::new(env!("CARGO_BIN_EXE_passerby"))
            .env("PASSERBY_OFFLINE", if offline { "1" } else { "0" })
            .arg("--asset-cache")
            .arg(&cache)
            .arg("check")
            .arg(&world)
            .output()
            .unwrap()
    };
    let offline = check(true);
    let stderr = text(&offline.stderr);
    assert!(stderr.contains("downloading is off"), "{stderr}");
    assert!(text(&offline.stdout).contains("models: 0 files loaded, 1 not available"));
    let online = check(false);
    let stderr = text(&online.stderr);
    assert!(online.status.success(), "{stderr}");
    assert!(stderr.contains("downloading http://127.0.0.1"), "{stderr}");
    assert!(
        text(&online.stdout).contains("models: 1 files loaded, 0 not available"),
        "{}",
        text(&online.stdout)
    );
    assert!(
        dir.path()
            .join(format!("cache/127.0.0.1:{port}/models/chair_x3.dae"))
            .is_file()
    );
}

#[test]
fn transform_sets_address_wheels_by_name_or_index_and_refuse_unknown_parts() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("robot.world.xml");
    std::fs::write(
        &world,
        r#"<mvsim_world version="1.0">
  <vehicle name="robot"><init_pose>0 0 0</init_pose>
    <dynamics class="differential"><controller class="twist_ideal"/></dynamics></vehicle>
  <block name="crate"><init_pose>3 0 0</init_pose><geometry type="box" lx="1" ly="1" lz="1"/></block>
</mvsim_world>"#,
    )
    .unwrap();
    let run = |rows: &str| {
        let csv = dir.path().join("t.csv");
        std::fs::write(
            &csv,
            format!("time,object,part,x,y,z,roll,pitch,yaw\n{rows}"),
        )
        .unwrap();
        let out_file = dir.path().join("out.mcap");
        passerby(&[
            "run",
            world.to_str().unwrap(),
            "--duration",
            "0.1",
            "--transforms",
            csv.to_str().unwrap(),
            "--out",
            out_file.to_str().unwrap(),
        ])
    };
    let out = run("0,robot,l_wheel,0,0.5,0.2,0,1,0\n0,robot,#2,0,-0.5,0.2,0,1,0\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A wheel the robot lacks, a third wheel by index, parts of a block, an unknown object:
    // each an error at its place in the file.
    let out = run(
        "0,robot,tail,0,0,0,0,0,0\n0,robot,#3,0,0,0,0,0,0\n0,crate,lid,0,0,0,0,0,0\n0,ghost,,0,0,0,0,0,0\n",
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for expected in [
        "t.csv:2:9: error: `robot` has no part `tail` (its 2 parts, also addressed as #1 to #2: l_wheel, r_wheel)",
        "t.csv:3:9: error: `robot` has no part `#3`",
        "t.csv:4:9: error: `crate` has no parts",
        "t.csv:5:3: error: no actor, vehicle or block `ghost` in the world",
    ] {
        assert!(stderr.contains(expected), "{expected}\n{stderr}");
    }
}

#[test]
fn var_sets_world_variables_and_refuses_bad_names() {
    let world = "../shared/worlds/mvsim/mvsim_tutorial/demo_many_robots.world.xml";
    // The world's <variable name="ROBOTS_SPREAD_X"> is overridden: a value that is not a
    // number now fails where an expression uses it (as MVSim's ExprTk does); a name the world
    // never uses is warned of.
    let out = passerby(&["check", world, "--var", "ROBOTS_SPREAD_X=wide"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("unknown variable `ROBOTS_SPREAD_X`"),
        "{stderr}"
    );
    let out = passerby(&[
        "check",
        world,
        "--var",
        "ROBOTS_SPREAD_X=4",
        "--var",
        "SPRAED=1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("variable `SPRAED` (set with --var) is not used"),
        "{}",
        text(&out.stderr)
    );
    let out = passerby(&["check", world, "--var", "two words=1"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("a variable name is letters, digits and `_`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_tum_trajectory_written_by_one_run_drives_another() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("w.world.xml"),
        r#"<mvsim_world version="1.0">
  <vehicle name="r1">
    <dynamics class="differential"><controller class="twist_ideal"/></dynamics>
    <init_pose>0 0 0</init_pose>
  </vehicle>
</mvsim_world>"#,
    )
    .unwrap();
    std::fs::write(d.join("commands.csv"), "0,r1,1.0,0,0.5\n").unwrap();
    let run = |extra: &[&str], tum: &str| {
        let world = d.join("w.world.xml");
        let out = d.join(format!("{tum}.mcap"));
        let tum_dir = d.join(tum);
        let mut args = vec!["run", world.to_str().unwrap(), "--duration", "1"];
        args.extend([
            "--out",
            out.to_str().unwrap(),
            "--tum",
            tum_dir.to_str().unwrap(),
        ]);
        args.extend(extra);
        let result = passerby(&args);
        assert!(result.status.success(), "{}", text(&result.stderr));
        let rows: Vec<Vec<f64>> = std::fs::read_to_string(tum_dir.join("r1.tum"))
            .unwrap()
            .lines()
            .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
            .collect();
        rows
    };
    let commands = d.join("commands.csv");
    let driven = run(&["--commands", commands.to_str().unwrap()], "a");
    let trajectory = format!("r1={}", d.join("a/r1.tum").display());
    let replayed = run(&["--trajectory", &trajectory], "b");
    // Times count from the file's first row (one step in): the replay runs a step ahead.
    assert_eq!(driven.len(), replayed.len());
    assert!(
        driven.last().unwrap()[1] > 0.5,
        "it drove: {:?}",
        driven.last()
    );
    for (a, b) in driven[1..].iter().zip(&replayed) {
        for k in 1..8 {
            assert!((a[k] - b[k]).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }
    // A bad row is refused at its place.
    std::fs::write(d.join("bad.tum"), "0 0 0 0 0 0 0 1\n1 0 0 oops 0 0 0 1\n").unwrap();
    let bad = format!("r1={}", d.join("bad.tum").display());
    let world = d.join("w.world.xml");
    let out = passerby(&[
        "run",
        world.to_str().unwrap(),
        "--duration",
        "1",
        "--trajectory",
        &bad,
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("bad.tum:2:7: error: `oops` is not a finite number"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_planar_trajectory_follows_the_terrain_as_the_driven_vehicle_did() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // MVSim's drift test world (test_drift_on_elevation): slopes in x and y.
    let drift = root().join("crates/sim/tests/worlds/drift_on_elevation.world.xml");
    std::fs::copy(drift, d.join("w.world.xml")).unwrap();
    std::fs::write(d.join("commands.csv"), "0,test_veh,1.0,0,0.4\n").unwrap();
    let run = |extra: &[&str], tum: &str| -> Vec<Vec<f64>> {
        let world = d.join("w.world.xml");
        let (out, tum_dir) = (d.join(format!("{tum}.mcap")), d.join(tum));
        let mut args = vec!["run", world.to_str().unwrap(), "--duration", "3"];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(["--tum", tum_dir.to_str().unwrap()]);
        args.extend(extra);
        let result = passerby(&args);
        assert!(result.status.success(), "{}", text(&result.stderr));
        (std::fs::read_to_string(tum_dir.join("test_veh.tum"))
            .unwrap()
            .lines())
        .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
        .collect()
    };
    let commands = d.join("commands.csv");
    let driven = run(&["--commands", commands.to_str().unwrap()], "a");
    // The drive as t x y yaw only.
    let planar: String = (driven.iter())
        .map(|r| {
            let (qx, qy, qz, qw) = (r[4], r[5], r[6], r[7]);
            let yaw = (2.0 * (qw * qz + qx * qy)).atan2(1.0 - 2.0 * (qy * qy + qz * qz));
            format!("{} {} {} {yaw}\n", r[0], r[1], r[2])
        })
        .collect();
    std::fs::write(d.join("planar.tum"), planar).unwrap();
    let trajectory = format!("test_veh={}", d.join("planar.tum").display());
    let replayed = run(&["--trajectory", &trajectory], "b");
    let (last, first) = (driven.last().unwrap(), &driven[0]);
    assert!(
        (last[3] - first[3]).abs() > 0.2,
        "it climbed or descended: {first:?} {last:?}"
    );
    assert!(
        last[4].abs() + last[5].abs() > 0.05,
        "it is tilted: {last:?}"
    );
    // Times count from the file's first row (one step in): the replay runs a step ahead. x
    // and y are the file's; height, pitch and roll the ground's, found in single precision
    // (the elevation mesh's), so to 1e-7 whatever height the ground was probed from.
    let mut worst = 0.0f64;
    for (a, b) in driven[1..].iter().zip(&replayed) {
        assert!((a[1] - b[1]).abs() < 1e-12 && (a[2] - b[2]).abs() < 1e-12);
        for k in 3..8 {
            worst = worst.max((a[k] - b[k]).abs());
        }
    }
    assert!(worst < 1e-6, "{worst}");
    eprintln!("planar replay: worst height/angle difference {worst:e}");
    assert_eq!(driven.len(), replayed.len());
}
