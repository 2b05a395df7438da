//! The loading pass: files, includes, variables, `<for>`, `<if>`, and the tag dispatcher
//! (MVSim `World_load_xml.cpp`). Object and sensor parameters are read in sibling modules.

use crate::expr::ExprRng;
use crate::subst::{self, Scope, ValueEnv};
use crate::values;
use crate::xml::{self, Element, Node};
use crate::{Environment, LoadOptions};
use passerby_diag::{Diagnostic, Diagnostics, FileId, SourceMap, Span};
use passerby_world::World;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Includes nested deeper than this are reported (a cycle is caught earlier, by path).
const MAX_INCLUDE_DEPTH: usize = 64;
/// Upper bound on the iterations of one `<for>`, so a typo cannot hang the loader.
const MAX_FOR_ITERATIONS: i64 = 1_000_000;
/// Upper bound on all `<for>` iterations of a load (nested loops multiply).
const MAX_TOTAL_FOR_ITERATIONS: u64 = 2_000_000;
/// Include files larger than this are refused (a world is text, not a disk image).
const MAX_INCLUDE_BYTES: u64 = 64 << 20;

/// Whether `bytes` can be an XML file: UTF-8 (a byte-order mark allowed) without NUL bytes
/// whose first non-blank character, if any, opens a tag.
fn looks_like_xml(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let start = text.trim_start();
    !text.contains('\0') && (start.is_empty() || start.starts_with('<'))
}

/// State of one world load.
pub(crate) struct Loader<'o> {
    pub opts: &'o LoadOptions,
    pub sources: SourceMap,
    pub diags: Diagnostics,
    pub rng: ExprRng,
    /// User variables (`<variable>`, `<for>`), visible at value time.
    pub vars: BTreeMap<String, String>,
    /// Extra value-time variables of the object being read (`NAME`, `PARENT_NAME`).
    pub object_vars: BTreeMap<String, String>,
    /// How far includes and loops have expanded, against the load's bounds.
    expansion: Expansion,
    /// Bytes per simulated second the sensors read so far will record.
    pub world_bytes_per_second: f64,
    /// `<block:class>`, `<vehicle:class>` and `<actor:class>` definitions by name.
    classes: Classes,
    pub world: World,
    /// Names taken by blocks, vehicles and actors (one namespace, as joints refer to any body).
    pub body_names: HashSet<String>,
}

/// How far a load has expanded its includes and loops (each bounded by the load's limits, so
/// that files including each other twice cannot fan out exponentially).
#[derive(Default)]
struct Expansion {
    /// Files being included, outermost first, to detect cycles.
    stack: Vec<PathBuf>,
    /// `<for>` iterations so far.
    for_iterations: u64,
    /// Includes expanded so far, and the bytes they read.
    includes: u64,
    included_bytes: u64,
}

/// Class definitions by kind and name.
#[derive(Default)]
struct Classes {
    block: HashMap<String, Rc<Element>>,
    vehicle: HashMap<String, Rc<Element>>,
    actor: HashMap<String, Rc<Element>>,
}

/// Tags the world dispatcher understands besides global scalar parameters.
const WORLD_TAGS: &[&str] = &[
    "variable",
    "include",
    "for",
    "if",
    "element",
    "block",
    "block:class",
    "vehicle",
    "vehicle:class",
    "actor",
    "actor:class",
    "sensor",
    "walls",
    "marker",
    "joint",
    "gui",
    "lights",
    "georeference",
];

impl<'o> Loader<'o> {
    pub fn new(opts: &'o LoadOptions) -> Loader<'o> {
        Loader {
            opts,
            sources: SourceMap::new(),
            diags: Diagnostics::new(),
            rng: ExprRng::new(opts.seed),
            vars: opts.variables.clone(),
            object_vars: BTreeMap::new(),
            expansion: Expansion::default(),
            world_bytes_per_second: 0.0,
            classes: Classes::default(),
            world: World::default(),
            body_names: HashSet::new(),
        }
    }

    pub fn env_var(&self, name: &str) -> Option<String> {
        match &self.opts.environment {
            Environment::Process => std::env::var(name).ok(),
            Environment::Fixed(map) => map.get(name).cloned(),
        }
    }

    /// Directory of the file a span lies in.
    pub fn dir_of(&self, span: Span) -> PathBuf {
        self.sources
            .file(span.file)
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Loads the top-level world file given as text.
    pub fn load_root(&mut self, path: &Path, text: String) {
        let file = self.sources.add(path, text);
        self.expansion.stack.push(path.to_path_buf());
        self.world.source = path.to_path_buf();
        let text = self.sources.file(file).text.clone();
        let Some(roots) = xml::parse(file, &text, &mut self.diags) else {
            return;
        };
        let mut roots = roots.into_iter();
        let Some(root) = roots.next() else {
            self.diags.push(Diagnostic::error(
                Span::new(file, 0, 0),
                "empty file: expected a `<mvsim_world>` element",
            ));
            return;
        };
        if let Some(extra) = roots.next() {
            self.diags.error(extra.span, format!("second root element `<{}>` after `<mvsim_world>`: a world file has exactly one root", extra.name));
        }
        if root.name != "mvsim_world" {
            self.diags.error(
                root.span,
                format!(
                    "root element is `<{}>`: expected `<mvsim_world>`",
                    root.name
                ),
            );
            return;
        }
        self.world.version = (1, 0);
        if let Some(v) = root.attr("version") {
            match v
                .value
                .trim()
                .split_once('.')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            {
                Some(version) => self.world.version = version,
                None => self.diags.error(
                    v.value_span,
                    format!("version `{}`: expected `MAJOR.MINOR`, e.g. `1.0`", v.value),
                ),
            }
        }
        self.world_nodes(&root.children);
        self.world.variables = self.vars.clone();
        self.unused_outside_variables();
    }

    /// Warns of each variable set from outside that no loaded file mentions (`${NAME`, or a
    /// `<variable>` of that name): most likely a misspelt name.
    fn unused_outside_variables(&mut self) {
        for name in self.opts.variables.keys() {
            let mentioned = self.sources.files().any(|f| {
                f.text.contains(&format!("${{{name}}}"))
                    || f.text.contains(&format!("${{{name}|"))
                    || f.text.contains(&format!("\"{name}\""))
            });
            if !mentioned {
                self.diags.push(Diagnostic::warning_without_span(format!(
                    "variable `{name}` (set with --var) is not used by the world's files"
                )));
            }
        }
    }

    /// Dispatches the children of `<mvsim_world>` (or of a `<for>`, `<if>`, included file).
    pub fn world_nodes(&mut self, nodes: &[Node]) {
        for node in nodes {
            match node {
                Node::Element(el) => self.world_element(el),
                Node::Text(t) if !t.text.trim().is_empty() => {
                    self.diags.warning_once_per_file(
                        "text",
                        t.span,
                        "text directly inside a world is ignored",
                    );
                }
                Node::Text(_) => {}
            }
        }
    }

    fn world_element(&mut self, el: &Element) {
        match el.name.as_str() {
            "variable" => self.variable(el),
            "include" => {
                if let Some(roots) = self.include(el) {
                    let nodes: Vec<Node> = roots.into_iter().map(Node::Element).collect();
                    self.world_nodes(&nodes);
                    self.expansion.stack.pop();
                }
            }
            "for" => self.for_loop(el, &mut |l, children| l.world_nodes(children)),
            "if" => {
                if self.condition(el) {
                    self.world_nodes(&el.children);
                }
            }
            "element" => self.world_element_tag(el),
            "block:class" => self.register_class(el, ClassKind::Block),
            "vehicle:class" => self.register_class(el, ClassKind::Vehicle),
            "actor:class" => self.register_class(el, ClassKind::Actor),
            "block" => self.block(el),
            "vehicle" => self.vehicle(el),
            "actor" => self.actor(el),
            "sensor" => {
                let taken: Vec<String> = self
                    .world
                    .standalone_sensors
                    .iter()
                    .map(|s| s.name.clone())
                    .collect();
                if let Some(sensor) = self.sensor(el, "world", &taken) {
                    self.world.standalone_sensors.push(sensor);
                }
            }
            "walls" => self.walls(el),
            "marker" => self.marker(el),
            "joint" => self.joint(el),
            "gui" => self.gui(el),
            "lights" => self.lights(el),
            "georeference" => self.georeference(el),
            name => {
                if !self.global_param(el) {
                    self.unknown_tag(el, "a world", WORLD_TAGS);
                    let _ = name;
                }
            }
        }
    }

    /// Warns once per file about a tag nobody reads, suggesting a close known one.
    pub fn unknown_tag(&mut self, el: &Element, context: &str, known: &[&str]) {
        let suggestion = closest(&el.name, known)
            .map(|s| format!(" (did you mean `<{s}>`?)"))
            .unwrap_or_default();
        self.diags.warning_once_per_file(
            &format!("tag:{}", el.name),
            el.span,
            format!(
                "unknown tag `<{}>` in {context} is ignored{suggestion}",
                el.name
            ),
        );
    }

    /// Value-time substitution of a raw value found at `span`; errors are recorded.
    pub fn value(&mut self, raw: &str, span: Span) -> Option<String> {
        if !raw.contains('$') {
            return Some(raw.to_owned());
        }
        let mut file_vars = BTreeMap::new();
        file_vars.insert(
            "MVSIM_CURRENT_FILE_DIRECTORY".to_owned(),
            self.dir_of(span).display().to_string(),
        );
        let scope = Scope {
            layers: vec![&self.object_vars, &self.vars, &file_vars],
        };
        let env = |n: &str| self.env_var(n);
        let prefix = self.opts.mvsim_data.clone();
        let venv = ValueEnv {
            env: &env,
            allow_shell: self.opts.allow_shell,
            mvsim_prefix: &prefix,
        };
        let mut rng = self.rng.clone();
        let result = subst::substitute_value(raw, &scope, &venv, &mut rng);
        self.rng = rng;
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                // Leading whitespace of element text is not part of the span.
                let lead = raw.len() - raw.trim_start().len();
                let offset = e.offset.saturating_sub(lead);
                self.diags.error(span.sub(offset, 1), e.message);
                None
            }
        }
    }

    /// A required attribute, value-time substituted.
    pub fn required_attr(&mut self, el: &Element, name: &str) -> Option<(String, Span)> {
        match el.attr(name) {
            Some(a) => {
                let (raw, span) = (a.value.clone(), a.value_span);
                self.value(&raw, span).map(|v| (v, span))
            }
            None => {
                self.diags.error(
                    el.span,
                    format!("`<{}>` needs the attribute `{name}`", el.name),
                );
                None
            }
        }
    }

    /// An optional attribute, value-time substituted.
    pub fn optional_attr(&mut self, el: &Element, name: &str) -> Option<(String, Span)> {
        let a = el.attr(name)?;
        let (raw, span) = (a.value.clone(), a.value_span);
        self.value(&raw, span).map(|v| (v, span))
    }

    fn variable(&mut self, el: &Element) {
        let name = self.required_attr(el, "name");
        let value = self.required_attr(el, "value");
        if let (Some((name, span)), Some((value, _))) = (name, value) {
            let name = name.trim().to_owned();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                self.diags.error(
                    span,
                    format!("variable name `{name}`: expected letters, digits and `_`"),
                );
                return;
            }
            // A value set from outside (`--var`) wins over the world's own.
            if !self.opts.variables.contains_key(&name) {
                self.vars.insert(name, value);
            }
        }
    }

    /// `<for var from to>`: for each child, the variable runs from..=to (MVSim's child-major order).
    pub fn for_loop(&mut self, el: &Element, body: &mut dyn FnMut(&mut Self, &[Node])) {
        let var = self.required_attr(el, "var");
        let from = self.for_bound(el, "from");
        let to = self.for_bound(el, "to");
        let (Some((var, _)), Some(from), Some(to)) = (var, from, to) else {
            return;
        };
        if to.saturating_sub(from) >= MAX_FOR_ITERATIONS {
            self.diags.error(
                el.span,
                format!("`<for>` from {from} to {to} runs more than {MAX_FOR_ITERATIONS} times"),
            );
            return;
        }
        let children: Vec<&Node> = el
            .children
            .iter()
            .filter(|n| matches!(n, Node::Element(_)))
            .collect();
        if children.is_empty() {
            self.diags.warning(el.span, "`<for>` with an empty body");
            return;
        }
        for child in children {
            for i in from..=to {
                self.expansion.for_iterations += 1;
                if self.expansion.for_iterations > MAX_TOTAL_FOR_ITERATIONS {
                    self.diags.error(el.span, format!("`<for>` loops run more than {MAX_TOTAL_FOR_ITERATIONS} iterations in all"));
                    return;
                }
                self.vars.insert(var.trim().to_owned(), i.to_string());
                body(self, std::slice::from_ref(child));
            }
        }
    }

    fn for_bound(&mut self, el: &Element, name: &str) -> Option<i64> {
        let (text, span) = self.required_attr(el, name)?;
        match text.trim().parse::<i64>() {
            Ok(v) => Some(v),
            Err(_) => {
                self.diags.error(
                    span,
                    format!("`<for {name}=…>` is `{}`: expected an integer", text.trim()),
                );
                None
            }
        }
    }

    /// `<if condition>`: true for `y yes true on` (any MVSim casing) or a leading non-zero integer.
    pub fn condition(&mut self, el: &Element) -> bool {
        let Some((text, _)) = self.required_attr(el, "condition") else {
            return false;
        };
        truthy(&text)
    }

    /// Reads, parses and include-time substitutes an included file; returns its root elements.
    /// On success the file is on the include stack; the caller pops it when done.
    pub fn include(&mut self, el: &Element) -> Option<Vec<Element>> {
        let (file_attr, span) = self.required_attr(el, "file")?;
        let mut path = self.dir_of(span).join(file_attr.trim());
        if !path.is_file() {
            let mut with_xml = path.clone().into_os_string();
            with_xml.push(".xml");
            let with_xml = PathBuf::from(with_xml);
            if with_xml.is_file() {
                self.diags.warning(
                    span,
                    format!(
                        "include file `{}` does not exist; using `{}`",
                        file_attr.trim(),
                        with_xml.display()
                    ),
                );
                path = with_xml;
            } else {
                self.diags.error(
                    span,
                    format!(
                        "include file `{}` not found (looked for `{}`)",
                        file_attr.trim(),
                        path.display()
                    ),
                );
                return None;
            }
        }
        let path = normalize(&path);
        if self.expansion.stack.contains(&path) {
            let chain: Vec<String> = self
                .expansion
                .stack
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            self.diags.push(
                Diagnostic::error(
                    span,
                    format!(
                        "include cycle: `{}` is already being included",
                        path.display()
                    ),
                )
                .with_note(format!(
                    "include chain: {} -> {}",
                    chain.join(" -> "),
                    path.display()
                )),
            );
            return None;
        }
        if self.expansion.stack.len() >= MAX_INCLUDE_DEPTH {
            self.diags.error(
                span,
                format!("includes nested more than {MAX_INCLUDE_DEPTH} deep"),
            );
            return None;
        }
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_INCLUDE_BYTES) {
            self.diags.error(
                span,
                format!(
                    "include file `{}` is larger than {MAX_INCLUDE_BYTES} bytes",
                    path.display()
                ),
            );
            return None;
        }
        let limits = &self.opts.limits;
        if self.expansion.includes >= limits.max_includes {
            // Said once: the includes past the limit are many, and each would say it again.
            if self.expansion.includes == limits.max_includes {
                self.diags.error(
                    span,
                    format!(
                        "more than {} includes in all (do files include each other more than once?); --limits-scale raises the limit",
                        limits.max_includes
                    ),
                );
                self.expansion.includes += 1;
            }
            return None;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                self.diags.error(
                    span,
                    format!("cannot read include file `{}`: {e}", path.display()),
                );
                return None;
            }
        };
        self.expansion.includes += 1;
        self.expansion.included_bytes += bytes.len() as u64;
        if self.expansion.included_bytes > limits.max_included_bytes {
            if self.expansion.included_bytes - (bytes.len() as u64) <= limits.max_included_bytes {
                self.diags.error(
                    span,
                    format!(
                        "includes read more than {} bytes in all; --limits-scale raises the limit",
                        limits.max_included_bytes
                    ),
                );
            }
            return None;
        }
        // A file that is not XML text is named, never quoted: a world from someone else must
        // not print lines of any file it names (`<include file="/etc/shadow"/>`).
        if !looks_like_xml(&bytes) {
            self.diags.error(
                span,
                format!("include file `{}` is not an XML file", path.display()),
            );
            return None;
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        tracing::debug!(file = %path.display(), depth = self.expansion.stack.len(), "including");
        let file = self.sources.add(&path, text);
        let text = self.sources.file(file).text.clone();
        let roots = xml::parse(file, &text, &mut self.diags)?;
        // Include-time variables: the tag's attributes (raw, as MVSim passes them), user
        // variables, and the included file's directory.
        let mut attrs: BTreeMap<String, String> = el
            .attrs
            .iter()
            .filter(|a| a.name != "file")
            .map(|a| (a.name.clone(), a.value.clone()))
            .collect();
        attrs.insert(
            "MVSIM_CURRENT_FILE_DIRECTORY".to_owned(),
            path.parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        );
        let mut roots = roots;
        for root in &mut roots {
            self.substitute_tree(root, &attrs, file);
        }
        self.expansion.stack.push(path);
        Some(roots)
    }

    /// Include-time substitution over every attribute value and text of a tree.
    fn substitute_tree(
        &mut self,
        el: &mut Element,
        attrs: &BTreeMap<String, String>,
        file: FileId,
    ) {
        let vars = self.vars.clone();
        let scope = Scope {
            layers: vec![attrs, &vars],
        };
        let mut pending: Vec<&mut Element> = vec![el];
        while let Some(e) = pending.pop() {
            for a in &mut e.attrs {
                match subst::substitute_include(&a.value, &scope, &|n| self.env_var(n)) {
                    Ok(v) => a.value = v,
                    Err(err) => self
                        .diags
                        .error(a.value_span.sub(err.offset, 2), err.message),
                }
            }
            for child in &mut e.children {
                match child {
                    Node::Element(c) => pending.push(c),
                    Node::Text(t) => {
                        match subst::substitute_include(&t.text, &scope, &|n| self.env_var(n)) {
                            Ok(v) => t.text = v,
                            Err(err) => self.diags.error(t.span.sub(err.offset, 2), err.message),
                        }
                    }
                }
            }
        }
        let _ = file;
    }

    /// Replaces `<include>` and `<if>` children of an object body by what they stand for
    /// (MVSim `xml_to_str_solving_includes`), recursively.
    pub fn expand_body(&mut self, el: &Element) -> Element {
        let mut out = Element {
            name: el.name.clone(),
            span: el.span,
            attrs: el.attrs.clone(),
            children: Vec::new(),
        };
        self.expand_into(&el.children, &mut out.children);
        out
    }

    fn expand_into(&mut self, nodes: &[Node], out: &mut Vec<Node>) {
        for node in nodes {
            match node {
                Node::Element(c) if c.name == "include" => {
                    if let Some(roots) = self.include(c) {
                        let nodes: Vec<Node> = roots.into_iter().map(Node::Element).collect();
                        self.expand_into(&nodes, out);
                        self.expansion.stack.pop();
                    }
                }
                Node::Element(c) if c.name == "if" => {
                    if self.condition(c) {
                        self.expand_into(&c.children, out);
                    }
                }
                other => out.push(other.clone()),
            }
        }
    }

    fn register_class(&mut self, el: &Element, kind: ClassKind) {
        let Some((name, span)) = self.required_attr(el, "name") else {
            return;
        };
        let body = Rc::new(self.expand_body(el));
        let registry = match kind {
            ClassKind::Block => &mut self.classes.block,
            ClassKind::Vehicle => &mut self.classes.vehicle,
            ClassKind::Actor => &mut self.classes.actor,
        };
        if registry.insert(name.trim().to_owned(), body).is_some() {
            self.diags.warning(
                span,
                format!(
                    "class `{}` is defined again; the new definition replaces the old one",
                    name.trim()
                ),
            );
        }
    }

    /// Looks up the class named by an instance's `class` attribute.
    pub fn class_of(&mut self, el: &Element, kind: ClassKind) -> Option<(String, Rc<Element>)> {
        let (name, span) = self.optional_attr(el, "class")?;
        let name = name.trim().to_owned();
        let registry = match kind {
            ClassKind::Block => &self.classes.block,
            ClassKind::Vehicle => &self.classes.vehicle,
            ClassKind::Actor => &self.classes.actor,
        };
        if let Some(class) = registry.get(&name) {
            return Some((name, class.clone()));
        }
        let mut known: Vec<&str> = registry.keys().map(String::as_str).collect();
        known.sort_unstable();
        let tag = kind.tag();
        let list = if known.is_empty() {
            "none is defined".to_owned()
        } else {
            format!("defined: {}", known.join(", "))
        };
        self.diags.error(
            span,
            format!("`<{tag}:class name=\"{name}\">` is not defined before this point ({list})"),
        );
        None
    }

    /// Reserves a unique body name: the given one, or `prefix` + the first free number.
    pub fn body_name(
        &mut self,
        el: &Element,
        auto: impl Fn(usize) -> String,
        start: usize,
    ) -> String {
        if let Some((name, span)) = self.optional_attr(el, "name") {
            let name = name.trim().to_owned();
            if !self.body_names.insert(name.clone()) {
                self.diags.error(
                    span,
                    format!("name `{name}` is already used by another block, vehicle or actor"),
                );
            }
            return name;
        }
        let mut n = start;
        loop {
            let name = auto(n);
            if self.body_names.insert(name.clone()) {
                return name;
            }
            n += 1;
        }
    }

    /// Parses a value read from the file, recording a positioned error on failure and a
    /// warning for trailing text that MVSim would silently ignore.
    pub fn scan<T>(
        &mut self,
        text: &str,
        span: Span,
        what: &str,
        parse: impl Fn(&str) -> Result<values::Scanned<T>, String>,
    ) -> Option<T> {
        match parse(text) {
            Ok(s) => {
                if !s.ignored.is_empty() {
                    self.diags
                        .warning(span, format!("{what}: trailing `{}` ignored", s.ignored));
                }
                Some(s.value)
            }
            Err(e) => {
                self.diags.error(span, format!("{what}: {e}"));
                None
            }
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum ClassKind {
    Block,
    Vehicle,
    Actor,
}

impl ClassKind {
    fn tag(self) -> &'static str {
        match self {
            ClassKind::Block => "block",
            ClassKind::Vehicle => "vehicle",
            ClassKind::Actor => "actor",
        }
    }
}

/// MVSim's `<if>` truthiness: `y Y yes Yes YES true True TRUE on ON On`, or `strtoll` (base 0)
/// reading a leading non-zero integer ("1.5" is true, "0.5" false, "0x10" true).
pub(crate) fn truthy(text: &str) -> bool {
    let t = text.trim();
    if [
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "ON", "On",
    ]
    .contains(&t)
    {
        return true;
    }
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let _ = neg;
    let (radix, body) = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, h)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    body.chars()
        .take_while(|c| c.is_digit(radix))
        .any(|c| c != '0')
}

pub(crate) use passerby_diag::normalize_path as normalize;

/// The known word closest to `word` by edit distance, if it is close enough to be a typo.
pub(crate) fn closest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(word, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != *cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_truthiness_follows_mvsim() {
        for t in ["y", "Yes", "TRUE", "on", "1", "1.5", "0x10", "-3", " 2 "] {
            assert!(truthy(t), "{t}");
        }
        for t in ["0", "0.5", "false", "no", "", "abc", "off", "0x0", "00"] {
            assert!(!truthy(t), "{t}");
        }
    }

    #[test]
    fn typo_suggestions() {
        assert_eq!(
            closest("vert_nray", &["vert_nrays", "horz_nrays"]),
            Some("vert_nrays")
        );
        assert_eq!(closest("zzzzzz", &["vert_nrays"]), None);
    }
}
