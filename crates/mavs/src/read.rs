//! Typed reads of JSON values with diagnostics that name the JSON path and the position.
//!
//! MAVS reads with rapidjson's `Get*()` and crashes on a wrong type or a short array; here every
//! read says what was expected and where, and the load goes on to find further errors.

use crate::json::{self, Kind, Value};
use passerby_diag::{Diagnostic, SourceMap, Span};
use std::collections::HashSet;
use std::path::Path;

/// The diagnostics of one load.
#[derive(Default)]
pub(crate) struct Report {
    pub diagnostics: Vec<Diagnostic>,
    warned: HashSet<String>,
}

impl Report {
    pub fn error(&mut self, span: Span, path: &str, message: impl std::fmt::Display) {
        self.diagnostics
            .push(Diagnostic::error(span, format!("`{path}`: {message}")));
    }

    pub fn warn(&mut self, span: Span, path: &str, message: impl std::fmt::Display) {
        self.diagnostics
            .push(Diagnostic::warning(span, format!("`{path}`: {message}")));
    }

    /// Warns once per `key` about a thing MAVS ignores too.
    pub fn warn_once(&mut self, key: &str, span: Span, message: impl std::fmt::Display) {
        if self.warned.insert(key.to_owned()) {
            self.diagnostics
                .push(Diagnostic::warning(span, message.to_string()));
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == passerby_diag::Severity::Error)
    }

    fn expected(&mut self, v: &Value, path: &str, what: &str) {
        self.error(v.span, path, format!("expected {what}, found {}", found(v)));
    }

    /// The members of an object.
    pub fn object<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v [(String, Value)]> {
        match &v.kind {
            Kind::Object(m) => Some(m),
            _ => {
                self.expected(v, path, "an object");
                None
            }
        }
    }

    /// Warns (once per kind of place) about members not in `known`.
    pub fn unknown_members(&mut self, v: &Value, path: &str, place: &str, known: &[&str]) {
        if let Kind::Object(members) = &v.kind {
            for (key, value) in members {
                if !known.contains(&key.as_str()) {
                    self.warn_once(
                        &format!("{place}/{key}"),
                        value.span,
                        format!("`{path}.{key}`: unknown key, ignored (as MAVS does)"),
                    );
                }
            }
        }
    }

    pub fn array<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v [Value]> {
        match &v.kind {
            Kind::Array(items) => Some(items),
            _ => {
                self.expected(v, path, "an array");
                None
            }
        }
    }

    pub fn number(&mut self, v: &Value, path: &str) -> Option<f64> {
        match v.kind {
            Kind::Number(x) if x.is_finite() => Some(x),
            _ => {
                self.expected(v, path, "a number");
                None
            }
        }
    }

    pub fn boolean(&mut self, v: &Value, path: &str) -> Option<bool> {
        match v.kind {
            Kind::Bool(b) => Some(b),
            _ => {
                self.expected(v, path, "`true` or `false`");
                None
            }
        }
    }

    pub fn string<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v str> {
        match &v.kind {
            Kind::String(s) => Some(s),
            _ => {
                self.expected(v, path, "a string");
                None
            }
        }
    }

    /// Exactly `N` numbers.
    pub fn numbers<const N: usize>(&mut self, v: &Value, path: &str) -> Option<[f64; N]> {
        let Kind::Array(items) = &v.kind else {
            self.expected(v, path, &format!("an array of {N} numbers"));
            return None;
        };
        if items.len() != N {
            self.error(
                v.span,
                path,
                format!("expected {N} numbers, found {}", items.len()),
            );
            return None;
        }
        let mut out = [0.0; N];
        for (i, item) in items.iter().enumerate() {
            out[i] = self.number(item, &format!("{path}[{i}]"))?;
        }
        Some(out)
    }

    /// Member `key` of `obj` read by `read`, or `default` when absent.
    pub fn optional<T>(
        &mut self,
        obj: &Value,
        path: &str,
        key: &str,
        default: T,
        read: impl FnOnce(&mut Self, &Value, &str) -> Option<T>,
    ) -> Option<T> {
        match obj.get(key) {
            Some(v) => read(self, v, &format!("{path}.{key}")),
            None => Some(default),
        }
    }

    /// Member `key` of `obj`, which must be there.
    pub fn required<'v>(&mut self, obj: &'v Value, path: &str, key: &str) -> Option<&'v Value> {
        let v = obj.get(key);
        if v.is_none() {
            self.error(obj.span, path, format!("`{key}` is missing"));
        }
        v
    }
}

/// Reads and parses a side file (labels, animations, waypoints, actors) into `sources`. A file
/// that cannot be read is reported where it is named (`named_at`: span and JSON path), or
/// without a position; a syntax error at its own place.
/// Whether `bytes` can be a JSON file: UTF-8 (a byte-order mark allowed) without NUL bytes,
/// whose first non-blank character opens an object or an array.
fn looks_like_json(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let start = body.trim_start();
    !body.contains('\0') && (start.starts_with('{') || start.starts_with('['))
}

pub(crate) fn json_file(
    path: &Path,
    what: &str,
    named_at: Option<(Span, &str)>,
    report: &mut Report,
    sources: &mut SourceMap,
) -> Option<Value> {
    let mut fail = |message: String| match named_at {
        Some((span, key)) => report.error(span, key, message),
        None => report
            .diagnostics
            .push(Diagnostic::error_without_span(message)),
    };
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            fail(format!("cannot read the {what} `{}`: {e}", path.display()));
            return None;
        }
    };
    // A file another file names that is not JSON text is named, never quoted: a scene from
    // someone else must not print lines of any file it names (`"Object Labels":
    // "../../../etc/shadow"`). A file given on the command line is the user's own: its syntax
    // errors are shown at their place.
    if named_at.is_some() && !looks_like_json(&text) {
        fail(format!(
            "the {what} `{}` is not a JSON file",
            path.display()
        ));
        return None;
    }
    let text = String::from_utf8_lossy(&text).into_owned();
    let file = sources.add(path, text);
    match json::parse(&sources.file(file).text, file) {
        Ok(root) => Some(root),
        Err(e) => {
            let span = Span::new(file, e.offset, e.offset);
            report.diagnostics.push(Diagnostic::error(span, e.message));
            None
        }
    }
}

/// A value as a message names it: `an array of 4`, `the string "x"`, `the number 3`.
pub(crate) fn found(v: &Value) -> String {
    match &v.kind {
        Kind::Array(items) => format!("an array of {}", items.len()),
        Kind::String(s) => format!("the string \"{s}\""),
        Kind::Number(x) => format!("the number {x}"),
        _ => v.describe().to_owned(),
    }
}
