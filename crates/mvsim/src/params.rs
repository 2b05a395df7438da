//! Reading an object's parameters from its child elements.
//!
//! An object's parameters come from several bodies in precedence order (instance, then
//! class); the first body with a tag wins. Every tag read (or asked for) is remembered, so
//! that after an object is read, the tags nobody asked for are reported as unknown (once per
//! file), with a suggestion when one looks like a typo.

use crate::loader::Loader;
use crate::values;
use crate::xml::Element;
use passerby_diag::Span;
use passerby_world::Color;
use std::collections::HashSet;

/// The bodies an object's parameters are read from, and which tags were asked for.
pub(crate) struct Params<'e> {
    bodies: Vec<&'e Element>,
    asked: HashSet<String>,
}

impl<'e> Params<'e> {
    /// Parameters from `bodies`, the first having precedence.
    pub fn new(bodies: Vec<&'e Element>) -> Params<'e> {
        Params {
            bodies,
            asked: HashSet::new(),
        }
    }

    /// The first child called `name`, in precedence order.
    pub fn find(&mut self, name: &str) -> Option<&'e Element> {
        self.asked.insert(name.to_owned());
        self.bodies.iter().find_map(|b| b.child(name))
    }

    /// Every child called `name` in every body, highest precedence first.
    pub fn find_all(&mut self, name: &str) -> Vec<&'e Element> {
        self.asked.insert(name.to_owned());
        self.bodies
            .iter()
            .flat_map(|b| b.elements().filter(move |e| e.name == name))
            .collect()
    }

    /// The children called `name` of the first body that has any.
    pub fn find_first_body(&mut self, name: &str) -> Vec<&'e Element> {
        self.asked.insert(name.to_owned());
        self.bodies
            .iter()
            .map(|b| b.elements().filter(|e| e.name == name).collect::<Vec<_>>())
            .find(|v| !v.is_empty())
            .unwrap_or_default()
    }

    /// Whether a flag tag such as `<shape_from_visual/>` is present.
    pub fn flag(&mut self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Marks tags as known without reading them (e.g. accepted for compatibility only).
    pub fn accept(&mut self, names: &[&str]) {
        self.asked.extend(names.iter().map(|n| (*n).to_owned()));
    }
}

impl Loader<'_> {
    /// The substituted text of a parameter tag, and where it is.
    pub fn p_text(&mut self, p: &mut Params<'_>, name: &str) -> Option<(String, Span)> {
        let el = p.find(name)?;
        let (raw, span) = el.text();
        self.value(&raw, span).map(|v| (v, span))
    }

    /// A real parameter.
    pub fn p_opt_f64(&mut self, p: &mut Params<'_>, name: &str) -> Option<f64> {
        let (text, span) = self.p_text(p, name)?;
        self.scan(&text, span, &format!("<{name}>"), values::real)
    }

    /// A real parameter with a default.
    pub fn p_f64(&mut self, p: &mut Params<'_>, name: &str, default: f64) -> f64 {
        self.p_opt_f64(p, name).unwrap_or(default)
    }

    /// A real parameter that must satisfy `ok`, described by `expected` in the error.
    pub fn p_f64_checked(
        &mut self,
        p: &mut Params<'_>,
        name: &str,
        default: f64,
        ok: fn(f64) -> bool,
        expected: &str,
    ) -> f64 {
        let Some((text, span)) = self.p_text(p, name) else {
            return default;
        };
        match self.scan(&text, span, &format!("<{name}>"), values::real) {
            Some(v) if ok(v) => v,
            Some(v) => {
                self.diags
                    .error(span, format!("<{name}> is {v}: expected {expected}"));
                default
            }
            None => default,
        }
    }

    /// A positive real parameter.
    pub fn p_positive(&mut self, p: &mut Params<'_>, name: &str, default: f64) -> f64 {
        self.p_f64_checked(p, name, default, |v| v > 0.0, "a positive number")
    }

    /// A non-negative real parameter.
    pub fn p_non_negative(&mut self, p: &mut Params<'_>, name: &str, default: f64) -> f64 {
        self.p_f64_checked(p, name, default, |v| v >= 0.0, "zero or a positive number")
    }

    /// An angle given in degrees in the file, returned in radians.
    pub fn p_deg(&mut self, p: &mut Params<'_>, name: &str, default_rad: f64) -> f64 {
        self.p_opt_f64(p, name).map_or(default_rad, f64::to_radians)
    }

    /// An integer parameter.
    pub fn p_int(&mut self, p: &mut Params<'_>, name: &str, default: i64) -> i64 {
        let Some((text, span)) = self.p_text(p, name) else {
            return default;
        };
        self.scan(&text, span, &format!("<{name}>"), values::integer)
            .unwrap_or(default)
    }

    /// A count that must be at least `min`.
    pub fn p_count(&mut self, p: &mut Params<'_>, name: &str, default: u32, min: u32) -> u32 {
        let Some((text, span)) = self.p_text(p, name) else {
            return default;
        };
        match self.scan(&text, span, &format!("<{name}>"), values::integer) {
            Some(v) if v >= i64::from(min) && v <= i64::from(u32::MAX) => v as u32,
            Some(v) => {
                self.diags.error(
                    span,
                    if v < i64::from(min) {
                        format!("<{name}> is {v}: expected an integer of at least {min}")
                    } else {
                        format!(
                            "<{name}> is {v}: expected an integer of at most {}",
                            u32::MAX
                        )
                    },
                );
                default
            }
            None => default,
        }
    }

    /// A boolean parameter.
    pub fn p_bool(&mut self, p: &mut Params<'_>, name: &str, default: bool) -> bool {
        let Some((text, span)) = self.p_text(p, name) else {
            return default;
        };
        match values::boolean(&text) {
            Ok(b) => b,
            Err(e) => {
                self.diags.error(span, format!("<{name}>: {e}"));
                default
            }
        }
    }

    /// A string parameter (trimmed).
    pub fn p_string(&mut self, p: &mut Params<'_>, name: &str, default: &str) -> String {
        self.p_text(p, name)
            .map_or_else(|| default.to_owned(), |(t, _)| t.trim().to_owned())
    }

    /// A colour parameter.
    pub fn p_color(&mut self, p: &mut Params<'_>, name: &str, default: Color) -> Color {
        let Some((text, span)) = self.p_text(p, name) else {
            return default;
        };
        match values::color(&text) {
            Ok(c) => c,
            Err(e) => {
                self.diags.error(span, format!("<{name}>: {e}"));
                default
            }
        }
    }

    /// `count` numbers in one tag (e.g. a 6-value pose), or `None` if absent or invalid.
    pub fn p_numbers(
        &mut self,
        p: &mut Params<'_>,
        name: &str,
        min: usize,
        max: usize,
        what: &str,
    ) -> Option<Vec<f64>> {
        let (text, span) = self.p_text(p, name)?;
        self.numbers_at(&text, span, min, max, &format!("<{name}>: {what}"))
    }

    /// Parses numbers from already substituted text, recording errors.
    pub fn numbers_at(
        &mut self,
        text: &str,
        span: Span,
        min: usize,
        max: usize,
        what: &str,
    ) -> Option<Vec<f64>> {
        match values::numbers(text, min, max, what) {
            Ok(v) => Some(v),
            Err(e) => {
                self.diags.error(span, e);
                None
            }
        }
    }

    /// Warns about the children of `p`'s bodies that no reader asked for.
    pub fn finish_params(&mut self, p: Params<'_>, context: &str) {
        let mut known: Vec<&str> = p.asked.iter().map(String::as_str).collect();
        known.sort_unstable();
        for body in &p.bodies {
            for child in body.elements() {
                if !p.asked.contains(&child.name) {
                    self.unknown_tag(child, context, &known);
                }
            }
        }
    }
}

impl Loader<'_> {
    /// An optional real attribute (chassis, wheels, geometry and joints use attributes).
    pub fn attr_opt_f64(&mut self, el: &Element, name: &str) -> Option<f64> {
        let (text, span) = self.optional_attr(el, name)?;
        self.scan(&text, span, &format!("attribute `{name}`"), values::real)
    }

    /// A real attribute with a default.
    pub fn attr_f64(&mut self, el: &Element, name: &str, default: f64) -> f64 {
        self.attr_opt_f64(el, name).unwrap_or(default)
    }

    /// A positive real attribute with a default.
    pub fn attr_positive(&mut self, el: &Element, name: &str, default: f64) -> f64 {
        let Some((text, span)) = self.optional_attr(el, name) else {
            return default;
        };
        match self.scan(&text, span, &format!("attribute `{name}`"), values::real) {
            Some(v) if v > 0.0 => v,
            Some(v) => {
                self.diags.error(
                    span,
                    format!("attribute `{name}` is {v}: expected a positive number"),
                );
                default
            }
            None => default,
        }
    }

    /// A boolean attribute with a default.
    pub fn attr_bool(&mut self, el: &Element, name: &str, default: bool) -> bool {
        let Some((text, span)) = self.optional_attr(el, name) else {
            return default;
        };
        match values::boolean(&text) {
            Ok(b) => b,
            Err(e) => {
                self.diags.error(span, format!("attribute `{name}`: {e}"));
                default
            }
        }
    }
}
