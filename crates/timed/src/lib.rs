//! Timed inputs replayed during a run (`--transforms FILE`, `--commands FILE`): rows of CSV or
//! JSON lines (`.jsonl`, `.ndjson`) into the world's plain types.
//!
//! Owns: these two file formats, their conventions and their error messages (each names the
//! file, line and column). Must not touch: the simulation (it only receives the rows), worlds.
//!
//! Transforms, CSV: `time,object,part,x,y,z,roll,pitch,yaw[,sx,sy,sz]`, an empty `part` for the
//! whole body, angles in radians, a header row allowed, `#` comment lines. JSON lines:
//! `{"time": 1.5, "object": "person1", "part": "mixamorig:Head", "translation": [x, y, z],
//! "rotation": [roll, pitch, yaw], "scale": [sx, sy, sz]}` (`part` and `scale` optional).
//! Conventions: by default ROS's (REP 103: x forward, y left, z up, right-handed angles). A
//! `# convention: sim3d` comment (CSV) or a `{"convention": "sim3d"}` line (JSON) before the
//! rows switches to the MATLAB/Simulink Sim3D one of the transform-set block: y to the right,
//! yaw left-handed about z, rotation columns ordered pitch, roll, yaw. It converts exactly: y
//! and the pitch and yaw angles change sign (mirroring y turns a right-handed rotation about y
//! and a left-handed one about z into right-handed ones of opposite angle), roll and scale stay.
//!
//! Commands, CSV: `time,vehicle,vx,vy,omega` (m/s, rad/s, body frame). JSON lines:
//! `{"time": 0, "vehicle": "r1", "twist": [vx, vy, omega]}`.
//!
//! Trajectories (`--trajectory OBJECT=FILE`): TUM files, `tum.rs`.

mod tum;
pub use tum::{parse_tum, read_tum};

use passerby_diag::{Diagnostics, FileId, Loaded, SourceMap, Span};
use passerby_world::{TimedCommand, TimedTransform, Transform};
use serde_json::Value;
use std::path::Path;

/// A timed file's rows, in file order.
#[derive(Debug, Default)]
pub struct Rows<T> {
    /// The rows.
    pub rows: Vec<T>,
    /// Per row, where it names its object and part, for errors found once the world is known.
    pub places: Vec<RowPlace>,
}

/// A timed file read: its rows when it has no error, with the file's text and what was wrong
/// with it (the loaders' one result type).
pub type Parsed<T> = Loaded<Rows<T>>;

/// Where a row names what it addresses (a JSON row's whole line for both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowPlace {
    /// The object (or vehicle) name.
    pub object: Span,
    /// The part name (the object's when the row has no part column).
    pub part: Span,
}

/// Axis and angle conventions of a transforms file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// REP 103 (the default).
    Ros,
    /// MATLAB Sim3D's transform-set block.
    Sim3d,
}

impl Convention {
    /// A transform given in this convention, in ROS's. `rotation` is in the file's column
    /// order: roll, pitch, yaw (ROS) or pitch, roll, yaw (Sim3D).
    pub fn to_ros(self, translation: [f64; 3], rotation: [f64; 3], scale: [f64; 3]) -> Transform {
        match self {
            Convention::Ros => Transform {
                translation,
                yaw_pitch_roll: [rotation[2], rotation[1], rotation[0]],
                scale,
            },
            Convention::Sim3d => {
                let [pitch, roll, yaw] = rotation;
                Transform {
                    translation: [translation[0], -translation[1], translation[2]],
                    yaw_pitch_roll: [-yaw, -pitch, roll],
                    scale,
                }
            }
        }
    }
}

/// Reads a transforms file.
pub fn read_transforms(path: &Path) -> Parsed<TimedTransform> {
    read(path, parse_transforms)
}

/// Reads a commands file.
pub fn read_commands(path: &Path) -> Parsed<TimedCommand> {
    read(path, parse_commands)
}

/// Reads `path` and parses its text with `parse`; a file that cannot be read is an error.
fn read<T>(path: &Path, parse: impl FnOnce(&Path, String) -> Parsed<T>) -> Parsed<T> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(path, text),
        Err(e) => Parsed {
            value: None,
            sources: SourceMap::new(),
            diagnostics: vec![passerby_diag::Diagnostic::error_without_span(format!(
                "cannot read {}: {e}",
                path.display()
            ))],
        },
    }
}

fn is_json_lines(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson")
    )
}

/// One line of a file: its text and where it starts.
struct Line<'a> {
    text: &'a str,
    start: usize,
}

fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    let mut start = 0;
    text.split_inclusive('\n').map(move |raw| {
        let line = Line {
            text: raw.trim_end_matches(['\n', '\r']),
            start,
        };
        start += raw.len();
        line
    })
}

/// A reader's state over one file.
struct Reader {
    file: FileId,
    diags: Diagnostics,
    convention: Convention,
    seen_rows: bool,
}

impl Reader {
    fn span(&self, start: usize, len: usize) -> Span {
        Span::new(self.file, start, start + len)
    }

    /// Handles a convention setting; an error once rows have begun.
    fn set_convention(&mut self, value: &str, span: Span) {
        if self.seen_rows {
            self.diags
                .error(span, "the convention must be set before the first row");
            return;
        }
        match value.trim() {
            "ros" => self.convention = Convention::Ros,
            "sim3d" => self.convention = Convention::Sim3d,
            other => self.diags.error(
                span,
                format!("convention `{other}`: expected `ros` or `sim3d`"),
            ),
        }
    }

    /// The span of a CSV field without its surrounding blanks.
    fn trimmed_span(&self, field: &str, start: usize) -> Span {
        let offset = start + field.len() - field.trim_start().len();
        self.span(offset, field.trim().len())
    }

    fn number(&mut self, field: &str, start: usize, what: &str) -> Option<f64> {
        let trimmed = field.trim();
        let offset = start + field.len() - field.trim_start().len();
        match trimmed.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                self.diags.error(
                    self.span(offset, trimmed.len()),
                    format!("expected {what} (a finite number), found `{trimmed}`"),
                );
                None
            }
        }
    }

    fn time(&mut self, value: Option<f64>, span: Span) -> Option<f64> {
        match value {
            Some(t) if t < 0.0 => {
                self.diags
                    .error(span, format!("time {t} s is negative: times start at 0"));
                None
            }
            other => other,
        }
    }
}

/// Splits a CSV line into trimmed-later fields with their byte offsets.
fn fields<'a>(line: &Line<'a>) -> Vec<(&'a str, usize)> {
    let mut out = Vec::new();
    let mut start = line.start;
    for field in line.text.split(',') {
        out.push((field, start));
        start += field.len() + 1;
    }
    out
}

/// Parses a transforms file's text (`path` names it and picks CSV or JSON lines).
pub fn parse_transforms(path: &Path, text: String) -> Parsed<TimedTransform> {
    parse(
        path,
        text,
        "time,object,part,x,y,z,roll,pitch,yaw[,sx,sy,sz]",
        |r, row| match row {
            Row::Csv(line) => transform_csv(r, line),
            Row::Json(map, span) => transform_json(r, map, span),
        },
    )
}

/// Parses a commands file's text.
pub fn parse_commands(path: &Path, text: String) -> Parsed<TimedCommand> {
    parse(path, text, "time,vehicle,vx,vy,omega", |r, row| match row {
        Row::Csv(line) => command_csv(r, line),
        Row::Json(map, span) => command_json(r, map, span),
    })
}

enum Row<'a> {
    Csv(&'a Line<'a>),
    Json(&'a serde_json::Map<String, Value>, Span),
}

fn parse<T>(
    path: &Path,
    text: String,
    columns: &str,
    mut row: impl FnMut(&mut Reader, Row<'_>) -> Option<(T, RowPlace)>,
) -> Parsed<T> {
    let mut sources = SourceMap::new();
    let file = sources.add(path, text);
    let text = sources.file(file).text.clone();
    let mut r = Reader {
        file,
        diags: Diagnostics::new(),
        convention: Convention::Ros,
        seen_rows: false,
    };
    let json = is_json_lines(path);
    let mut rows = Vec::new();
    let mut places = Vec::new();
    for line in lines(&text) {
        let trimmed = line.text.trim();
        let line_span = r.span(line.start, line.text.len());
        if trimmed.is_empty() {
            continue;
        }
        if json {
            let map = match serde_json::from_str::<Value>(line.text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    r.diags
                        .error(line_span, "expected a JSON object on each line");
                    continue;
                }
                Err(e) => {
                    let at = line.start + e.column().saturating_sub(1);
                    r.diags.error(
                        r.span(at.min(line.start + line.text.len()), 1),
                        e.to_string(),
                    );
                    continue;
                }
            };
            if let Some(c) = map.get("convention") {
                let value = c.as_str().unwrap_or("");
                r.set_convention(value, line_span);
                continue;
            }
            r.seen_rows = true;
            if let Some((t, place)) = row(&mut r, Row::Json(&map, line_span)) {
                rows.push(t);
                places.push(place);
            }
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix('#') {
            if let Some(value) = comment.trim().strip_prefix("convention:") {
                r.set_convention(value, line_span);
            }
            continue;
        }
        if !r.seen_rows && trimmed.starts_with("time") {
            let names: Vec<&str> = trimmed.split(',').map(str::trim).collect();
            let expected: Vec<&str> = columns
                .split(['[', ']', ','])
                .filter(|c| !c.is_empty())
                .collect();
            if !expected.starts_with(&names) && !names.starts_with(&expected) {
                r.diags.error(
                    line_span,
                    format!("header `{trimmed}`: expected the columns {columns}"),
                );
            }
            continue;
        }
        r.seen_rows = true;
        if let Some((t, place)) = row(&mut r, Row::Csv(&line)) {
            rows.push(t);
            places.push(place);
        }
    }
    let value = (!r.diags.has_errors()).then_some(Rows { rows, places });
    Parsed {
        value,
        sources,
        diagnostics: r.diags.into_vec(),
    }
}

fn transform_csv(r: &mut Reader, line: &Line<'_>) -> Option<(TimedTransform, RowPlace)> {
    let f = fields(line);
    let span = r.span(line.start, line.text.len());
    if f.len() != 9 && f.len() != 12 {
        r.diags.error(
            span,
            format!(
                "{} columns: expected 9 (time,object,part,x,y,z,roll,pitch,yaw) or 12 (with sx,sy,sz)",
                f.len()
            ),
        );
        return None;
    }
    let time = r.number(f[0].0, f[0].1, "a time in seconds");
    let time = r.time(time, r.span(f[0].1, f[0].0.len()));
    let object = f[1].0.trim();
    if object.is_empty() {
        r.diags
            .error(r.span(f[1].1, 0), "expected an object name, found nothing");
    }
    let part = Some(f[2].0.trim()).filter(|p| !p.is_empty());
    let mut numbers = [1.0; 9];
    let mut ok = time.is_some() && !object.is_empty();
    for (k, (field, start)) in f[3..].iter().enumerate() {
        match r.number(field, *start, "a coordinate") {
            Some(v) => numbers[k] = v,
            None => ok = false,
        }
    }
    let transform = r.convention.to_ros(
        [numbers[0], numbers[1], numbers[2]],
        [numbers[3], numbers[4], numbers[5]],
        [numbers[6], numbers[7], numbers[8]],
    );
    let place = RowPlace {
        object: r.trimmed_span(f[1].0, f[1].1),
        part: r.trimmed_span(f[2].0, f[2].1),
    };
    ok.then(|| {
        let row = TimedTransform {
            time: time.unwrap_or_default(),
            object: object.to_owned(),
            part: part.map(str::to_owned),
            transform,
            planar: false,
        };
        (row, place)
    })
}

fn command_csv(r: &mut Reader, line: &Line<'_>) -> Option<(TimedCommand, RowPlace)> {
    let f = fields(line);
    if f.len() != 5 {
        r.diags.error(
            r.span(line.start, line.text.len()),
            format!("{} columns: expected 5 (time,vehicle,vx,vy,omega)", f.len()),
        );
        return None;
    }
    let time = r.number(f[0].0, f[0].1, "a time in seconds");
    let time = r.time(time, r.span(f[0].1, f[0].0.len()));
    let vehicle = f[1].0.trim();
    if vehicle.is_empty() {
        r.diags
            .error(r.span(f[1].1, 0), "expected a vehicle name, found nothing");
    }
    let twist: Vec<Option<f64>> = f[2..]
        .iter()
        .map(|(field, start)| r.number(field, *start, "a velocity"))
        .collect();
    match (time, twist.as_slice()) {
        (Some(time), [Some(vx), Some(vy), Some(omega)]) if !vehicle.is_empty() => {
            let place = r.trimmed_span(f[1].0, f[1].1);
            let row = TimedCommand {
                time,
                vehicle: vehicle.to_owned(),
                twist: [*vx, *vy, *omega],
            };
            Some((
                row,
                RowPlace {
                    object: place,
                    part: place,
                },
            ))
        }
        _ => None,
    }
}

/// Reads `key` of a JSON row as three finite numbers.
fn triple(
    r: &mut Reader,
    map: &serde_json::Map<String, Value>,
    key: &str,
    span: Span,
) -> Option<[f64; 3]> {
    let values = map.get(key)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_f64)
            .filter(|v| v.is_finite())
            .collect::<Vec<f64>>()
    });
    match values.as_deref() {
        Some(&[a, b, c]) => Some([a, b, c]),
        _ => {
            r.diags.error(
                span,
                format!("`{key}`: expected an array of three finite numbers"),
            );
            None
        }
    }
}

fn json_time(r: &mut Reader, map: &serde_json::Map<String, Value>, span: Span) -> Option<f64> {
    let time = map.get("time").and_then(Value::as_f64);
    if time.is_none() {
        r.diags.error(span, "`time`: expected a number of seconds");
    }
    r.time(time, span)
}

fn json_name<'m>(
    r: &mut Reader,
    map: &'m serde_json::Map<String, Value>,
    key: &str,
    span: Span,
) -> Option<&'m str> {
    let name = map
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    if name.is_none() {
        r.diags.error(span, format!("`{key}`: expected a name"));
    }
    name
}

fn warn_unknown_keys(
    r: &mut Reader,
    map: &serde_json::Map<String, Value>,
    known: &[&str],
    span: Span,
) {
    for key in map.keys().filter(|k| !known.contains(&k.as_str())) {
        r.diags.warning_once_per_file(
            key,
            span,
            format!("unknown key `{key}` ignored (known: {})", known.join(", ")),
        );
    }
}

fn transform_json(
    r: &mut Reader,
    map: &serde_json::Map<String, Value>,
    span: Span,
) -> Option<(TimedTransform, RowPlace)> {
    warn_unknown_keys(
        r,
        map,
        &["time", "object", "part", "translation", "rotation", "scale"],
        span,
    );
    let time = json_time(r, map, span);
    let object = json_name(r, map, "object", span);
    let part = match map.get("part") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(p)) if !p.is_empty() => Ok(Some(p.clone())),
        Some(_) => Err(()),
    };
    if part.is_err() {
        r.diags.error(
            span,
            "`part`: expected a part name or null for the whole body",
        );
    }
    let mut require = |key: &str| {
        let v = triple(r, map, key, span);
        if v.is_none() && !map.contains_key(key) {
            r.diags.error(span, format!("`{key}`: missing"));
        }
        v
    };
    let translation = require("translation");
    let rotation = require("rotation");
    let scale = if map.contains_key("scale") {
        triple(r, map, "scale", span)
    } else {
        Some([1.0; 3])
    };
    let (time, object, part, translation, rotation, scale) =
        (time?, object?, part.ok()?, translation?, rotation?, scale?);
    let row = TimedTransform {
        time,
        object: object.to_owned(),
        part,
        transform: r.convention.to_ros(translation, rotation, scale),
        planar: false,
    };
    Some((
        row,
        RowPlace {
            object: span,
            part: span,
        },
    ))
}

fn command_json(
    r: &mut Reader,
    map: &serde_json::Map<String, Value>,
    span: Span,
) -> Option<(TimedCommand, RowPlace)> {
    warn_unknown_keys(r, map, &["time", "vehicle", "twist"], span);
    let time = json_time(r, map, span);
    let vehicle = json_name(r, map, "vehicle", span);
    let twist = triple(r, map, "twist", span);
    if twist.is_none() && !map.contains_key("twist") {
        r.diags.error(span, "`twist`: missing");
    }
    let row = TimedCommand {
        time: time?,
        vehicle: vehicle?.to_owned(),
        twist: twist?,
    };
    Some((
        row,
        RowPlace {
            object: span,
            part: span,
        },
    ))
}
