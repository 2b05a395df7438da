//! A lenient XML reader with the tolerance of rapidxml, which MVSim uses.
//!
//! Real MVSim files rely on three liberties that strict parsers (roxmltree, quick-xml's
//! defaults) refuse, so this module accepts each with one warning at its position:
//! - tag prefixes that are not declared namespaces (`<block:class>`): a prefix is just part
//!   of the name, so this needs no warning at all;
//! - a raw `<` inside an attribute value (`demo_greenhouse.world.xml`: `condition="$f{iY<=3}"`);
//! - a closing tag whose name differs from its opening tag (`agricobiot2.vehicle.xml` closes
//!   `<model_offset_x>` with `</model_offset_z>`): like rapidxml, it closes the open element.
//!
//! Anything else that is not well-formed (an unclosed element, an unquoted attribute, a stray
//! closing tag) is an error naming the position. Several root elements are allowed, since
//! MVSim includes multi-root fragments. Every element, attribute and text keeps its byte span.

use passerby_diag::{Diagnostic, Diagnostics, FileId, Span};

/// An element with its attributes and children.
#[derive(Clone, Debug)]
pub struct Element {
    /// The tag name, prefix included (`block:class`).
    pub name: String,
    /// The span of the whole opening tag.
    pub span: Span,
    /// Attributes in document order.
    pub attrs: Vec<Attribute>,
    /// Child elements and text in document order (comments dropped).
    pub children: Vec<Node>,
}

/// A child of an element.
#[derive(Clone, Debug)]
pub enum Node {
    /// A nested element.
    Element(Element),
    /// Character data (entities decoded, CDATA included).
    Text(Text),
}

/// An attribute `name="value"`.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// The name.
    pub name: String,
    /// The value with entities decoded.
    pub value: String,
    /// The span of the value between the quotes.
    pub value_span: Span,
}

/// A run of character data.
#[derive(Clone, Debug)]
pub struct Text {
    /// The decoded text.
    pub text: String,
    /// The span it came from.
    pub span: Span,
}

impl Element {
    /// The value of an attribute, if present.
    pub fn attr(&self, name: &str) -> Option<&Attribute> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// Child elements, in order.
    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// The first child element with this name.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.elements().find(|e| e.name == name)
    }

    /// The concatenated text content (direct text children only) and the span of its first
    /// non-blank run, or of the opening tag if there is no text.
    pub fn text(&self) -> (String, Span) {
        let mut out = String::new();
        let mut span = None;
        for node in &self.children {
            if let Node::Text(t) = node {
                out.push_str(&t.text);
                if span.is_none() && !t.text.trim().is_empty() {
                    let lead = t.text.len() - t.text.trim_start().len();
                    span = Some(t.span.sub(lead, t.text.trim().len()));
                }
            }
        }
        (out, span.unwrap_or(self.span))
    }
}

/// Parses a whole file into its root elements.
///
/// Returns `None` (with an error in `diags`) if the file is not well-formed enough to be
/// read; warnings for the tolerated liberties are added to `diags` either way.
pub fn parse(file: FileId, text: &str, diags: &mut Diagnostics) -> Option<Vec<Element>> {
    let mut reader = Reader {
        file,
        src: text,
        pos: 0,
        diags,
        warned_raw_lt: false,
    };
    match reader.document() {
        Ok(roots) => Some(roots),
        Err(diagnostic) => {
            reader.diags.push(diagnostic);
            None
        }
    }
}

struct Reader<'a, 'd> {
    file: FileId,
    src: &'a str,
    pos: usize,
    diags: &'d mut Diagnostics,
    warned_raw_lt: bool,
}

type Result<T> = std::result::Result<T, Diagnostic>;

/// Deeper nesting is refused: no world needs it, and it keeps every recursive walk safe.
pub const MAX_DEPTH: usize = 200;

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

impl Reader<'_, '_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn error(&self, at: usize, message: impl Into<String>) -> Diagnostic {
        let end = (at + 1).min(self.src.len());
        Diagnostic::error(self.span(at, end), message)
    }

    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }

    fn skip_whitespace(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.src.len() - trimmed.len();
    }

    /// Skips `<!-- … -->`, `<? … ?>` and `<!DOCTYPE …>` if one starts here.
    fn skip_markup(&mut self) -> Result<bool> {
        let (open, close) = if self.rest().starts_with("<!--") {
            ("<!--", "-->")
        } else if self.rest().starts_with("<?") {
            ("<?", "?>")
        } else if self.rest().starts_with("<!") && !self.rest().starts_with("<![CDATA[") {
            ("<!", ">")
        } else {
            return Ok(false);
        };
        let start = self.pos;
        match self.rest()[open.len()..].find(close) {
            Some(i) => {
                self.pos += open.len() + i + close.len();
                Ok(true)
            }
            None => Err(self.error(start, format!("unterminated `{open}`: expected `{close}`"))),
        }
    }

    fn document(&mut self) -> Result<Vec<Element>> {
        let mut roots = Vec::new();
        loop {
            self.skip_whitespace();
            if self.pos >= self.src.len() {
                return Ok(roots);
            }
            if self.skip_markup()? {
                continue;
            }
            if self.rest().starts_with("</") {
                return Err(self.error(self.pos, "closing tag without a matching opening tag"));
            }
            if self.rest().starts_with('<') {
                roots.push(self.element()?);
            } else {
                let end = self
                    .rest()
                    .find('<')
                    .map_or(self.src.len(), |i| self.pos + i);
                return Err(Diagnostic::error(
                    self.span(self.pos, end),
                    "text outside any element: expected `<`",
                ));
            }
        }
    }

    fn name(&mut self) -> Result<String> {
        let len: usize = self
            .rest()
            .chars()
            .take_while(|&c| is_name_char(c))
            .map(char::len_utf8)
            .sum();
        if len == 0 {
            return Err(self.error(self.pos, "expected a tag or attribute name"));
        }
        let name = self.rest()[..len].to_owned();
        self.pos += len;
        Ok(name)
    }

    /// Parses an element starting at `<`, iteratively, so deep nesting cannot overflow the stack.
    fn element(&mut self) -> Result<Element> {
        let mut stack: Vec<Element> = Vec::new();
        loop {
            // Here we are at `<name`.
            let (element, self_closing) = self.open_tag()?;
            if self_closing {
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(Node::Element(element));
                } else {
                    return Ok(element);
                }
            } else {
                stack.push(element);
            }
            if stack.len() > MAX_DEPTH {
                return Err(self.error(
                    self.pos,
                    format!("elements nested more than {MAX_DEPTH} deep: not a world file"),
                ));
            }
            // Content until the next opening tag, or until the stack empties.
            loop {
                let text_start = self.pos;
                let text_len = self.rest().find('<').unwrap_or(self.rest().len());
                if text_len > 0 {
                    let raw = &self.src[text_start..text_start + text_len];
                    let text = self.decode(raw, text_start);
                    let span = self.span(text_start, text_start + text_len);
                    self.pos += text_len;
                    if let Some(current) = stack.last_mut() {
                        current.children.push(Node::Text(Text { text, span }));
                    }
                    continue;
                }
                if self.pos >= self.src.len() {
                    let (name, span) = match stack.last() {
                        Some(e) => (e.name.as_str(), e.span),
                        None => ("", self.span(0, 0)),
                    };
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "element `<{name}>` is never closed: expected `</{name}>` before the end of the file"
                        ),
                    ));
                }
                if self.skip_markup()? {
                    continue;
                }
                if self.rest().starts_with("<![CDATA[") {
                    let start = self.pos;
                    let body = &self.rest()["<![CDATA[".len()..];
                    let Some(end) = body.find("]]>") else {
                        return Err(self.error(start, "unterminated CDATA section: expected `]]>`"));
                    };
                    let text = body[..end].to_owned();
                    let span = self.span(start + 9, start + 9 + end);
                    self.pos = start + 9 + end + 3;
                    if let Some(current) = stack.last_mut() {
                        current.children.push(Node::Text(Text { text, span }));
                    }
                    continue;
                }
                if self.rest().starts_with("</") {
                    let close_start = self.pos;
                    self.pos += 2;
                    let name = self.name()?;
                    self.skip_whitespace();
                    if !self.rest().starts_with('>') {
                        return Err(self.error(self.pos, format!("expected `>` to end `</{name}`")));
                    }
                    self.pos += 1;
                    let Some(finished) = stack.pop() else {
                        return Err(
                            self.error(close_start, "closing tag without a matching opening tag")
                        );
                    };
                    if finished.name != name {
                        // rapidxml does not compare closing names; real files depend on it.
                        self.diags.warning(
                            self.span(close_start, self.pos),
                            format!(
                                "closing tag `</{name}>` does not match `<{}>`; treated as `</{}>` (as MVSim's parser does)",
                                finished.name, finished.name
                            ),
                        );
                    }
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(Node::Element(finished)),
                        None => return Ok(finished),
                    }
                    continue;
                }
                // An opening tag: descend.
                break;
            }
        }
    }

    /// Parses `<name attr="v" …>` or `<name …/>`; returns the element and whether it closed itself.
    fn open_tag(&mut self) -> Result<(Element, bool)> {
        let start = self.pos;
        self.pos += 1; // '<'
        let name = self.name()?;
        let mut attrs: Vec<Attribute> = Vec::new();
        loop {
            let before_ws = self.pos;
            self.skip_whitespace();
            if self.rest().starts_with("/>") {
                self.pos += 2;
                let span = self.span(start, self.pos);
                return Ok((
                    Element {
                        name,
                        span,
                        attrs,
                        children: vec![],
                    },
                    true,
                ));
            }
            if self.rest().starts_with('>') {
                self.pos += 1;
                let span = self.span(start, self.pos);
                return Ok((
                    Element {
                        name,
                        span,
                        attrs,
                        children: vec![],
                    },
                    false,
                ));
            }
            if self.pos >= self.src.len() {
                return Err(self.error(start, format!("unterminated tag `<{name}`: expected `>`")));
            }
            if self.pos == before_ws {
                return Err(self.error(
                    self.pos,
                    format!("expected whitespace, `>` or `/>` in tag `<{name}>`"),
                ));
            }
            let attr_start = self.pos;
            let attr_name = self.name()?;
            self.skip_whitespace();
            if !self.rest().starts_with('=') {
                return Err(self.error(
                    self.pos,
                    format!("expected `=` after attribute `{attr_name}`"),
                ));
            }
            self.pos += 1;
            self.skip_whitespace();
            let quote = match self.rest().chars().next() {
                Some(q @ ('"' | '\'')) => q,
                _ => {
                    return Err(self.error(
                        self.pos,
                        format!("expected a quoted value for attribute `{attr_name}`"),
                    ));
                }
            };
            self.pos += 1;
            let value_start = self.pos;
            let Some(len) = self.rest().find(quote) else {
                return Err(self.error(
                    value_start - 1,
                    format!("unterminated value of attribute `{attr_name}`"),
                ));
            };
            let raw = &self.src[value_start..value_start + len];
            if let Some(lt) = raw.find('<')
                && !self.warned_raw_lt
            {
                self.warned_raw_lt = true;
                self.diags.warning(
                    self.span(value_start + lt, value_start + lt + 1),
                    "raw `<` inside an attribute value (not well-formed XML; write `&lt;`); accepted as MVSim's parser does",
                );
            }
            let value = self.decode(raw, value_start);
            self.pos = value_start + len + 1;
            if attrs.iter().any(|a| a.name == attr_name) {
                self.diags.warning(
                    self.span(attr_start, self.pos),
                    format!("attribute `{attr_name}` given twice; the first one is used"),
                );
                continue;
            }
            attrs.push(Attribute {
                name: attr_name,
                value,
                value_span: self.span(value_start, value_start + len),
            });
        }
    }

    /// Decodes the five predefined entities and numeric character references.
    fn decode(&mut self, raw: &str, offset: usize) -> String {
        if !raw.contains('&') {
            return raw.to_owned();
        }
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(amp) = rest.find('&') {
            out.push_str(&rest[..amp]);
            let after = &rest[amp..];
            let decoded = after.find(';').filter(|&semi| semi <= 10).and_then(|semi| {
                let entity = &after[1..semi];
                let c = match entity {
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "amp" => Some('&'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    _ => entity
                        .strip_prefix("#x")
                        .map(|h| u32::from_str_radix(h, 16))
                        .or_else(|| entity.strip_prefix('#').map(|d| d.parse::<u32>()))
                        .and_then(|r| r.ok())
                        .and_then(char::from_u32),
                };
                c.map(|c| (c, semi + 1))
            });
            match decoded {
                Some((c, len)) => {
                    out.push(c);
                    rest = &after[len..];
                }
                None => {
                    let at = offset + (raw.len() - after.len());
                    self.diags.warning_once_per_file(
                        "xml:entity",
                        self.span(at, at + 1),
                        "`&` that does not start a known entity (`&amp;`, `&lt;`, …); kept as written",
                    );
                    out.push('&');
                    rest = &after[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use passerby_diag::SourceMap;

    fn parse_str(text: &str) -> (Option<Vec<Element>>, Vec<String>, SourceMap) {
        let mut map = SourceMap::new();
        let id = map.add("/t.xml", text.to_owned());
        let mut diags = Diagnostics::new();
        let roots = parse(id, text, &mut diags);
        let msgs = diags.iter().map(|d| d.headline(&map)).collect();
        (roots, msgs, map)
    }

    #[test]
    fn prefixed_names_attributes_and_text() {
        let (roots, msgs, _) =
            parse_str("<?xml version='1.0'?><!-- c --><a:b name=\"x &amp; y\">t<c/>u</a:b>");
        let roots = roots.unwrap();
        assert!(msgs.is_empty(), "{msgs:?}");
        assert_eq!(roots[0].name, "a:b");
        assert_eq!(roots[0].attr("name").unwrap().value, "x & y");
        assert_eq!(roots[0].text().0, "tu");
        assert_eq!(roots[0].elements().count(), 1);
    }

    #[test]
    fn multi_root_fragments() {
        let (roots, _, _) = parse_str("<a/>\n<b>1</b>\n<!-- x -->\n<c></c>");
        let names: Vec<_> = roots.unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn raw_less_than_in_attribute_is_accepted_with_a_warning() {
        let (roots, msgs, _) = parse_str("<if condition=\"$f{i<=3}\"><x/></if>");
        assert_eq!(
            roots.unwrap()[0].attr("condition").unwrap().value,
            "$f{i<=3}"
        );
        assert_eq!(msgs.len(), 1);
        assert!(
            msgs[0].starts_with("/t.xml:1:20: warning: raw `<`"),
            "{msgs:?}"
        );
    }

    #[test]
    fn mismatched_closing_tag_closes_the_open_element_with_a_warning() {
        let (roots, msgs, _) = parse_str("<v>\n  <x>1</y>\n  <z>2</z>\n</v>");
        let root = &roots.unwrap()[0];
        assert_eq!(
            root.elements().map(|e| e.name.as_str()).collect::<Vec<_>>(),
            ["x", "z"]
        );
        assert_eq!(msgs.len(), 1);
        assert!(
            msgs[0].starts_with("/t.xml:2:7: warning: closing tag `</y>`"),
            "{msgs:?}"
        );
    }

    #[test]
    fn malformed_input_gives_positioned_errors() {
        for (text, expected) in [
            ("<a>", "/t.xml:1:1: error: element `<a>` is never closed"),
            ("<a b=c/>", "/t.xml:1:6: error: expected a quoted value"),
            ("</a>", "/t.xml:1:1: error: closing tag without"),
            ("<a>\n<!-- x", "/t.xml:2:1: error: unterminated `<!--`"),
            ("<a b=\"1/>", "/t.xml:1:6: error: unterminated value"),
            ("hello", "/t.xml:1:1: error: text outside any element"),
            (
                "<a><",
                "/t.xml:1:5: error: expected a tag or attribute name",
            ),
        ] {
            let (roots, msgs, _) = parse_str(text);
            assert!(roots.is_none(), "{text}");
            assert!(
                msgs.iter().any(|m| m.starts_with(expected)),
                "{text}: {msgs:?}"
            );
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = "<a>".repeat(100_000) + &"</a>".repeat(100_000);
        let (roots, msgs, _) = parse_str(&text);
        assert!(roots.is_none());
        assert!(msgs[0].contains("nested more than"), "{msgs:?}");
    }

    #[test]
    fn text_span_points_at_trimmed_content() {
        let (roots, _, map) = parse_str("<a>\n   abc  </a>");
        let (text, span) = roots.unwrap()[0].text();
        assert_eq!(text.trim(), "abc");
        assert_eq!(map.location(span).to_string(), "/t.xml:2:4");
    }
}
