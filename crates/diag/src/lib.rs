//! Source files, positions and diagnostics shared by every loader.
//!
//! Owns: the text of every file a loader reads ([`SourceMap`]), byte spans into those files
//! ([`Span`]), and the messages a loader emits about them ([`Diagnostic`], collected by
//! [`Diagnostics`]). Every message that concerns a file carries a span, so it prints as
//! `file:line:col` with the offending line and a caret, also inside included files.
//!
//! Must not know any file format: loaders decide what is an error; this crate only records
//! and prints.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the range lies in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte (`start` for an empty span).
    pub end: u32,
}

impl Span {
    /// A span from byte offsets.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// The span of `len` bytes starting `offset` bytes into this one, clamped to this span.
    pub fn sub(self, offset: usize, len: usize) -> Span {
        let start = (self.start as usize + offset).min(self.end as usize);
        let end = (start + len).min(self.end as usize);
        Span::new(self.file, start, end)
    }
}

/// One loaded text file.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as the user (or the including file) named it, made absolute.
    pub path: PathBuf,
    /// The file's text, exactly as read (invalid UTF-8 replaced).
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    fn new(path: PathBuf, text: String) -> SourceFile {
        let mut line_starts = vec![0u32];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        SourceFile {
            path,
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() + 1;
        (line + 1, col)
    }

    /// The text of a 1-based line, without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e as usize);
        self.text[start as usize..end].trim_end_matches(['\n', '\r'])
    }
}

/// Every file read during one load, addressed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file's text and returns its id.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: String) -> FileId {
        self.files.push(SourceFile::new(path.into(), text));
        FileId(self.files.len() as u32 - 1)
    }

    /// Every file loaded, in loading order.
    pub fn files(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.iter()
    }

    /// The file with this id.
    ///
    /// # Panics
    /// If the id did not come from this map (a bug, not bad input).
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The id of an already loaded file, if any.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path == path)
            .map(|i| FileId(i as u32))
    }

    /// `path:line:col` of the start of a span.
    pub fn location(&self, span: Span) -> Location {
        let file = self.file(span.file);
        let (line, column) = file.line_col(span.start);
        Location {
            path: file.path.clone(),
            line,
            column,
        }
    }
}

/// A resolved position: file, 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path.display(), self.line, self.column)
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The input was accepted, but probably not as the author meant.
    Warning,
    /// The input cannot be loaded.
    Error,
}

/// One message about the input.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where, if the message concerns a place in a file.
    pub span: Option<Span>,
    /// What is wrong, and what was expected.
    pub message: String,
    /// Extra lines: how to fix it, where else it matters (e.g. "included from …").
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at a span.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            span: Some(span),
            message: message.into(),
            notes: vec![],
        }
    }

    /// A warning at a span.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            span: Some(span),
            message: message.into(),
            notes: vec![],
        }
    }

    /// A warning that concerns no position (e.g. about an option given on the command line).
    pub fn warning_without_span(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            span: None,
            message: message.into(),
            notes: vec![],
        }
    }

    /// An error that concerns no position (e.g. a file that cannot be opened at all).
    pub fn error_without_span(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            span: None,
            message: message.into(),
            notes: vec![],
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// `path:line:col: error: message` (one line, no source excerpt).
    pub fn headline(&self, sources: &SourceMap) -> String {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.span {
            Some(span) => format!("{}: {kind}: {}", sources.location(span), self.message),
            None => format!("{kind}: {}", self.message),
        }
    }

    /// The headline, the source line with a caret under the span, and the notes.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = self.headline(sources);
        if let Some(span) = self.span {
            let file = sources.file(span.file);
            let (line, col) = file.line_col(span.start);
            let text = file.line_text(line);
            let (end_line, end_col) = file.line_col(span.end);
            let width = if end_line == line {
                end_col.saturating_sub(col).max(1)
            } else {
                1
            };
            let gutter = line.to_string().len();
            let (text, col) = line_window(text, col);
            let pad: String = text
                .chars()
                .take(col - 1)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&format!(
                "\n{:gutter$} |\n{line} | {text}\n{:gutter$} | {pad}{}",
                "",
                "",
                "^".repeat(width.min(80))
            ));
        }
        for note in &self.notes {
            out.push_str(&format!("\n  = note: {note}"));
        }
        out
    }
}

/// Characters of a source line quoted under a diagnostic; longer lines (a minified or
/// generated file can hold megabytes on one line) are cut to a window around the column.
const QUOTED_LINE_CHARS: usize = 160;

/// The part of `text` to quote for 1-based character column `col`, and the column within it.
fn line_window(text: &str, col: usize) -> (String, usize) {
    let len = text.chars().count();
    if len <= QUOTED_LINE_CHARS {
        return (text.to_owned(), col);
    }
    let start = col
        .saturating_sub(1 + QUOTED_LINE_CHARS / 3)
        .min(len - QUOTED_LINE_CHARS);
    let mut window: String = text.chars().skip(start).take(QUOTED_LINE_CHARS).collect();
    let mut col = col - start;
    if start > 0 {
        window.insert(0, '…');
        col += 1;
    }
    if start + QUOTED_LINE_CHARS < len {
        window.push('…');
    }
    (window, col)
}

/// Collects diagnostics during a load; deduplicates "once per file" warnings.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
    once_keys: HashSet<(FileId, String)>,
}

impl Diagnostics {
    /// An empty collection.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Records a diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }

    /// Records an error at a span.
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::error(span, message));
    }

    /// Records a warning at a span.
    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::warning(span, message));
    }

    /// Records a warning only the first time `key` is seen in the span's file.
    pub fn warning_once_per_file(&mut self, key: &str, span: Span, message: impl Into<String>) {
        if self.once_keys.insert((span.file, key.to_owned())) {
            self.warning(span, message);
        }
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// Number of errors recorded.
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// All diagnostics in the order they were recorded.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    /// Takes the recorded diagnostics out.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.items
    }
}

/// What a loader gives back: its result when the input was valid, every diagnostic in the
/// order found, and the text of every file read (to render the diagnostics with their lines).
/// Every loader returns one: MVSim worlds, MAVS scenes, timed input files.
#[derive(Debug)]
pub struct Loaded<T> {
    /// The result, present only when no error was found.
    pub value: Option<T>,
    /// The text of every file read.
    pub sources: SourceMap,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Loaded<T> {
    /// The errors among the diagnostics.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        (self.diagnostics.iter()).filter(|d| d.severity == Severity::Error)
    }
}

/// `path` made absolute (from the working directory) with `.` and `..` resolved lexically,
/// so files are named the same however they were reached.
pub fn normalize_path(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let mut map = SourceMap::new();
        let id = map.add("/w.xml", "ab\n\u{e9}cd\nx".to_owned());
        let file = map.file(id);
        assert_eq!(file.line_col(0), (1, 1));
        assert_eq!(file.line_col(3), (2, 1));
        assert_eq!(file.line_col(5), (2, 2), "é is two bytes but one column");
        assert_eq!(file.line_col(8), (3, 1));
        assert_eq!(file.line_text(2), "\u{e9}cd");
    }

    #[test]
    fn render_points_a_caret_at_the_span() {
        let mut map = SourceMap::new();
        let id = map.add("/w.xml", "<a>\n  <nrays>abc</nrays>\n".to_owned());
        let d = Diagnostic::error(Span::new(id, 13, 16), "expected an integer");
        let text = d.render(&map);
        assert!(
            text.starts_with("/w.xml:2:10: error: expected an integer"),
            "{text}"
        );
        assert!(text.ends_with("|          ^^^"), "{text}");
    }

    #[test]
    fn a_long_line_is_quoted_around_the_column_only() {
        let mut map = SourceMap::new();
        let line = format!("{}XY{}", "a".repeat(100_000), "b".repeat(100_000));
        let id = map.add("/w.xml", line);
        let d = Diagnostic::error(Span::new(id, 100_000, 100_002), "here");
        let text = d.render(&map);
        assert!(text.len() < 1_000, "{} bytes", text.len());
        let lines: Vec<&str> = text.lines().collect();
        let (quoted, caret) = (lines[2], lines[3]);
        assert!(
            quoted.contains("…aaa") && quoted.ends_with("bbb…"),
            "{quoted}"
        );
        // The caret still sits under `XY`.
        let at = caret.find('^').unwrap();
        let under: String = quoted.chars().skip(at).take(2).collect();
        assert_eq!(under, "XY", "{quoted}\n{caret}");
        // Near a line's start or end the window keeps that end.
        let d = Diagnostic::error(Span::new(id, 0, 1), "start");
        assert!(d.render(&map).lines().nth(2).unwrap().ends_with("aaa…"));
    }

    #[test]
    fn once_per_file_warnings_are_deduplicated_per_file() {
        let mut map = SourceMap::new();
        let a = map.add("/a", String::new());
        let b = map.add("/b", String::new());
        let mut diags = Diagnostics::new();
        diags.warning_once_per_file("tag:foo", Span::new(a, 0, 0), "unknown");
        diags.warning_once_per_file("tag:foo", Span::new(a, 0, 0), "unknown");
        diags.warning_once_per_file("tag:foo", Span::new(b, 0, 0), "unknown");
        assert_eq!(diags.warnings().count(), 2);
    }
}
