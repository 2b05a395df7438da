//! Trajectories in the TUM format, as the TUM RGB-D benchmark and `evo` write them: a line per
//! pose, `timestamp tx ty tz qx qy qz qw` (whitespace between, `#` comment lines), read as the
//! timed transforms of one object's body, which the simulation replays (interpolated linearly
//! and by SLERP between rows, held after the last).
//!
//! Times count from the file's first row (datasets stamp in Unix seconds); the quaternion (w
//! last) is normalised, then turned into yaw, pitch and roll (`R = Rz·Ry·Rx`). A row of four
//! fields, `t x y yaw` (radians), is planar: the body's height, pitch and roll come from the
//! ground under it, as when it moves on its own.

use passerby_diag::{Diagnostics, Loaded, SourceMap, Span};
use passerby_world::{TimedTransform, Transform};
use std::path::Path;

use crate::{Parsed, RowPlace, Rows};

/// Reads a TUM trajectory file as transforms of `object`'s body.
pub fn read_tum(path: &Path, object: &str) -> Parsed<TimedTransform> {
    crate::read(path, |path, text| parse_tum(path, text, object))
}

/// Parses a TUM trajectory's text (`path` names it) as transforms of `object`'s body.
pub fn parse_tum(path: &Path, text: String, object: &str) -> Parsed<TimedTransform> {
    let mut sources = SourceMap::new();
    let file = sources.add(path, text);
    let text = sources.file(file).text.clone();
    let mut diags = Diagnostics::new();
    let mut rows = Rows {
        rows: Vec::new(),
        places: Vec::new(),
    };
    let mut first: Option<f64> = None;
    let mut previous = f64::NEG_INFINITY;
    let mut start = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let line_span = Span::new(file, start, start + line.len());
        let line_start = start;
        start += raw.len();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        // Each field with where it starts in the file.
        let fields: Vec<(&str, usize)> = line
            .split_whitespace()
            .map(|f| {
                (
                    f,
                    line_start + (f.as_ptr() as usize - line.as_ptr() as usize),
                )
            })
            .collect();
        if fields.len() != 8 && fields.len() != 4 {
            let n = fields.len();
            let message = format!(
                "{n} fields: expected `timestamp tx ty tz qx qy qz qw` (8) or `t x y yaw` (4)"
            );
            diags.error(line_span, message);
            continue;
        }
        let mut values = [0.0; 8];
        let mut ok = true;
        for (value, (field, at)) in values.iter_mut().zip(&fields) {
            match field.parse::<f64>() {
                Ok(v) if v.is_finite() => *value = v,
                _ => {
                    let span = Span::new(file, *at, at + field.len());
                    diags.error(span, format!("`{field}` is not a finite number"));
                    ok = false;
                }
            }
        }
        if !ok {
            continue;
        }
        let planar = fields.len() == 4;
        let [t, x, y, z, qx, qy, qz, qw] = if planar {
            // t x y yaw: a rotation about +Z.
            let [t, x, y, yaw, ..] = values;
            let (s, c) = (0.5 * yaw).sin_cos();
            [t, x, y, 0.0, 0.0, 0.0, s, c]
        } else {
            values
        };
        if t < previous {
            diags.error(
                line_span,
                format!("timestamp {t} comes before the previous row's {previous}"),
            );
            continue;
        }
        previous = t;
        let q = glam::DQuat::from_xyzw(qx, qy, qz, qw);
        let norm = q.length();
        if norm <= 1e-9 {
            diags.error(line_span, "the quaternion (qx qy qz qw) has no length");
            continue;
        }
        let (yaw, pitch, roll) = if planar {
            (values[3], 0.0, 0.0)
        } else {
            (q / norm).to_euler(glam::EulerRot::ZYX)
        };
        let t0 = *first.get_or_insert(t);
        rows.rows.push(TimedTransform {
            time: t - t0,
            object: object.to_owned(),
            part: None,
            transform: Transform {
                translation: [x, y, z],
                yaw_pitch_roll: [yaw, pitch, roll],
                scale: [1.0; 3],
            },
            planar,
        });
        rows.places.push(RowPlace {
            object: line_span,
            part: line_span,
        });
    }
    if rows.rows.is_empty() && !diags.has_errors() {
        diags.error(Span::new(file, 0, 0), "no pose in the trajectory");
    }
    Loaded {
        value: (!diags.has_errors()).then_some(rows),
        sources,
        diagnostics: diags.into_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parsed<TimedTransform> {
        parse_tum(Path::new("gt.tum"), text.to_owned(), "r1")
    }

    #[test]
    fn rows_become_body_transforms_from_the_first_timestamp() {
        let half = std::f64::consts::FRAC_1_SQRT_2;
        let p = parse(&format!(
            "# ground truth\n1305031102.5 1 2 0.5 0 0 0 1\n1305031103.0 2 2 0.5 0 0 {half} {half}\n"
        ));
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let rows = p.value.unwrap().rows;
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].time, rows[1].time), (0.0, 0.5));
        assert_eq!(rows[1].transform.translation, [2.0, 2.0, 0.5]);
        let [yaw, pitch, roll] = rows[1].transform.yaw_pitch_roll;
        assert!(
            (yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-12
                && pitch.abs() < 1e-12
                && roll.abs() < 1e-12
        );
        assert_eq!(rows[1].object, "r1");
    }

    #[test]
    fn bad_rows_are_errors_at_their_places() {
        let p =
            parse("0 1 2 3 0 0 0 1\n0.5 1 x 3 0 0 0 1\n-1 1 2 3 0 0 0 1\n1 0 0\n2 0 0 0 0 0 0 0\n");
        let messages: Vec<String> = (p.diagnostics.iter())
            .map(|d| d.headline(&p.sources))
            .collect();
        assert!(
            messages[0].starts_with("gt.tum:2:7: error: `x` is not a finite number"),
            "{messages:?}"
        );
        assert!(
            messages[1].starts_with("gt.tum:3:1: error: timestamp -1 comes before"),
            "{messages:?}"
        );
        assert!(messages[2].contains("3 fields: expected"), "{messages:?}");
        assert!(messages[3].contains("no length"), "{messages:?}");
        assert_eq!(messages.len(), 4);
    }

    #[test]
    fn two_dimensional_rows_are_planar_turns_about_z() {
        let p = parse("10 1 2 0.5\n10.5 2 2 1.5\n");
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let rows = p.value.unwrap().rows;
        assert!(rows.iter().all(|r| r.planar));
        assert_eq!(rows[1].time, 0.5);
        assert_eq!(rows[1].transform.translation, [2.0, 2.0, 0.0]);
        assert_eq!(rows[1].transform.yaw_pitch_roll, [1.5, 0.0, 0.0]);
    }
}
