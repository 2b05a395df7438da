//! Transform and command files: both formats, both conventions, and errors that point at the
//! offending field.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_timed::{parse_commands, parse_transforms};
use std::path::Path;

fn messages<T>(p: &passerby_timed::Parsed<T>) -> Vec<String> {
    p.diagnostics
        .iter()
        .map(|d| d.headline(&p.sources))
        .collect()
}

#[test]
fn csv_rows_give_bodies_and_parts_in_ros_convention() {
    let p = parse_transforms(
        Path::new("t.csv"),
        "# a comment\ntime,object,part,x,y,z,roll,pitch,yaw,sx,sy,sz\n\
         0.5, person1, ,1,2,0,0,0,1.5,1,1,1\n\
         1.0,person1,mixamorig:Head,0,0,0.1,0.2,0,0,1,1,2\n\
         2,r1,,3,4,5,0,0,0\n"
            .into(),
    );
    assert!(p.errors().next().is_none(), "{:?}", messages(&p));
    assert_eq!(p.value.as_ref().unwrap().rows.len(), 3);
    let body = &p.value.as_ref().unwrap().rows[0];
    assert_eq!(
        (body.time, body.object.as_str(), body.part.as_deref()),
        (0.5, "person1", None)
    );
    assert_eq!(body.transform.translation, [1.0, 2.0, 0.0]);
    assert_eq!(body.transform.yaw_pitch_roll, [1.5, 0.0, 0.0]);
    let head = &p.value.as_ref().unwrap().rows[1];
    assert_eq!(head.part.as_deref(), Some("mixamorig:Head"));
    assert_eq!(
        head.transform.yaw_pitch_roll,
        [0.0, 0.0, 0.2],
        "roll column"
    );
    assert_eq!(head.transform.scale, [1.0, 1.0, 2.0]);
    assert_eq!(
        p.value.as_ref().unwrap().rows[2].transform.scale,
        [1.0; 3],
        "scale defaults to 1"
    );
}

#[test]
fn the_sim3d_convention_mirrors_y_and_flips_pitch_and_yaw() {
    // Sim3D: y to the right, yaw left-handed (positive = a right turn), columns pitch, roll, yaw.
    let p = parse_transforms(
        Path::new("t.csv"),
        "# convention: sim3d\n0,car,,1,2,3,0.1,0.2,0.3\n".into(),
    );
    assert!(p.errors().next().is_none(), "{:?}", messages(&p));
    let t = p.value.as_ref().unwrap().rows[0].transform;
    assert_eq!(t.translation, [1.0, -2.0, 3.0]);
    assert_eq!(t.yaw_pitch_roll, [-0.3, -0.1, 0.2]);
    // The same in JSON lines.
    let j = parse_transforms(
        Path::new("t.jsonl"),
        r#"{"convention": "sim3d"}
{"time": 0, "object": "car", "translation": [1, 2, 3], "rotation": [0.1, 0.2, 0.3]}
"#
        .into(),
    );
    assert!(j.errors().next().is_none(), "{:?}", messages(&j));
    assert_eq!(j.value.as_ref().unwrap().rows[0].transform, t);
}

#[test]
fn errors_name_the_file_line_and_column_of_the_bad_field() {
    let p = parse_transforms(
        Path::new("bad.csv"),
        "0,a,,1,2,3,0,0,0\n1,a,,1,x,3,0,0,0\n2,a,,1\n-1,a,,0,0,0,0,0,0\n# convention: sim3d\n"
            .into(),
    );
    let m = messages(&p);
    assert_eq!(m.len(), 4, "{m:?}");
    assert!(
        m[0].starts_with("bad.csv:2:8: error") && m[0].contains("`x`"),
        "{m:?}"
    );
    assert!(
        m[1].starts_with("bad.csv:3:1") && m[1].contains("4 columns"),
        "{m:?}"
    );
    assert!(
        m[2].starts_with("bad.csv:4:1") && m[2].contains("negative"),
        "{m:?}"
    );
    assert!(
        m[3].starts_with("bad.csv:5:1") && m[3].contains("before the first row"),
        "{m:?}"
    );
    let j = parse_transforms(
        Path::new("bad.jsonl"),
        "{\"time\": 0, \"object\": \"a\", \"translation\": [0, 0], \"rotation\": [0, 0, 0]}\n{\"time\": 1,, }\n{\"time\": 2, \"object\": \"a\", \"translation\": [0,0,0], \"rotation\": [0,0,0], \"colour\": 1}\n".into(),
    );
    let m = messages(&j);
    assert!(
        m[0].starts_with("bad.jsonl:1:1") && m[0].contains("`translation`"),
        "{m:?}"
    );
    assert!(m[1].starts_with("bad.jsonl:2:"), "{m:?}");
    assert!(
        m[2].contains("warning") && m[2].contains("`colour`"),
        "{m:?}"
    );
    assert!(j.value.is_none(), "rows only from a file without errors");
}

#[test]
fn commands_read_from_csv_and_json_lines() {
    let c = parse_commands(
        Path::new("c.csv"),
        "time,vehicle,vx,vy,omega\n0,r1,1,0,0.5\n2.5,r1,0,0,0\n".into(),
    );
    assert!(c.errors().next().is_none(), "{:?}", messages(&c));
    assert_eq!(c.value.as_ref().unwrap().rows[1].time, 2.5);
    assert_eq!(c.value.as_ref().unwrap().rows[0].twist, [1.0, 0.0, 0.5]);
    let j = parse_commands(
        Path::new("c.jsonl"),
        "{\"time\": 1, \"vehicle\": \"r1\", \"twist\": [0.5, 0, 0]}\n".into(),
    );
    assert_eq!(j.value.as_ref().unwrap().rows[0].vehicle, "r1");
    let bad = parse_commands(Path::new("c.csv"), "0,r1,1,0\n".into());
    assert!(messages(&bad)[0].contains("expected 5"));
}
