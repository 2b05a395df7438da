//! A JSON reader that remembers where every value came from, so a scene error can name the
//! file, line and column as well as the JSON path (`Objects[2].Random.Polygon`). Strict
//! RFC 8259, as rapidjson (MAVS's parser) reads it by default: no comments, no trailing commas.

use passerby_diag::{FileId, Span};

/// A parsed value and the bytes it spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// What it is.
    pub kind: Kind,
    /// Where it is.
    pub span: Span,
}

/// The kinds of JSON values.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// Any number.
    Number(f64),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object's members in file order (keys may repeat; the first wins, as in rapidjson).
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object (the first one if repeated).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// What the value is, for messages (`a string`, `an array`, …).
    pub fn describe(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Number(_) => "a number",
            Kind::String(_) => "a string",
            Kind::Array(_) => "an array",
            Kind::Object(_) => "an object",
        }
    }
}

/// A syntax error: its byte offset and what was expected there.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    /// Byte offset in the text.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
}

/// Parses a whole JSON document.
pub fn parse(text: &str, file: FileId) -> Result<Value, SyntaxError> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        at: 0,
        file,
        depth: 0,
    };
    p.skip_space();
    let value = p.value()?;
    p.skip_space();
    if p.at < p.bytes.len() {
        return Err(p.error("end of file after the top-level value"));
    }
    Ok(value)
}

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
    file: FileId,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, expected: &str) -> SyntaxError {
        let found = match self.bytes.get(self.at) {
            None => "the end of the file".to_owned(),
            Some(&b) if b.is_ascii_graphic() => format!("`{}`", b as char),
            Some(&b) => format!("byte 0x{b:02x}"),
        };
        SyntaxError {
            offset: self.at,
            message: format!("expected {expected}, found {found}"),
        }
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn span(&self, start: usize) -> Span {
        Span::new(self.file, start, self.at)
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        let start = self.at;
        let kind = match self.bytes.get(self.at) {
            Some(b'{') => self.nested(Self::object)?,
            Some(b'[') => self.nested(Self::array)?,
            Some(b'"') => Kind::String(self.string()?),
            Some(b't') => self.literal("true", Kind::Bool(true))?,
            Some(b'f') => self.literal("false", Kind::Bool(false))?,
            Some(b'n') => self.literal("null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => Kind::Number(self.number()?),
            _ => return Err(self.error("a value")),
        };
        Ok(Value {
            kind,
            span: self.span(start),
        })
    }

    fn nested(
        &mut self,
        inner: fn(&mut Self) -> Result<Kind, SyntaxError>,
    ) -> Result<Kind, SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(SyntaxError {
                offset: self.at,
                message: format!("values nested deeper than {MAX_DEPTH} levels"),
            });
        }
        let kind = inner(self);
        self.depth -= 1;
        kind
    }

    fn literal(&mut self, word: &str, kind: Kind) -> Result<Kind, SyntaxError> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(kind)
        } else {
            Err(self.error("a value"))
        }
    }

    fn object(&mut self) -> Result<Kind, SyntaxError> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Kind::Object(members));
        }
        loop {
            self.skip_space();
            if self.bytes.get(self.at) != Some(&b'"') {
                return Err(self.error("a member name in double quotes"));
            }
            let key = self.string()?;
            self.skip_space();
            if self.bytes.get(self.at) != Some(&b':') {
                return Err(self.error("`:` after the member name"));
            }
            self.at += 1;
            self.skip_space();
            members.push((key, self.value()?));
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Kind::Object(members));
                }
                _ => return Err(self.error("`,` or `}`")),
            }
        }
    }

    fn array(&mut self) -> Result<Kind, SyntaxError> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Kind::Array(items));
        }
        loop {
            self.skip_space();
            items.push(self.value()?);
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Kind::Array(items));
                }
                _ => return Err(self.error("`,` or `]`")),
            }
        }
    }

    fn number(&mut self) -> Result<f64, SyntaxError> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.bytes.get(p.at).is_some_and(u8::is_ascii_digit) {
                p.at += 1;
            }
            p.at > from
        };
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        if self.bytes.get(self.at) == Some(&b'0') {
            self.at += 1;
        } else if !digits(self) {
            return Err(self.error("a digit"));
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(self.error("a digit after the decimal point"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(self.error("a digit in the exponent"));
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or("");
        text.parse::<f64>().map_err(|_| SyntaxError {
            offset: start,
            message: format!("`{text}` is not a number"),
        })
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            match self.bytes.get(self.at) {
                None => return Err(self.error("the closing `\"` of the string")),
                Some(b'"') => {
                    self.at += 1;
                    break;
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = match self.bytes.get(self.at) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.at += 1;
                            let c = self.unicode_escape()?;
                            let mut buf = [0; 4];
                            out.extend(c.encode_utf8(&mut buf).as_bytes());
                            continue;
                        }
                        _ => return Err(self.error("an escape (`\\n`, `\\\"`, `\\u00e9`, …)")),
                    };
                    self.at += 1;
                    let mut buf = [0; 4];
                    out.extend(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(&b) if b < 0x20 => {
                    return Err(self.error("no control characters inside a string"));
                }
                Some(&b) => {
                    out.push(b);
                    self.at += 1;
                }
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// The four hex digits after `\u` (and a low surrogate's after a high one).
    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) && self.bytes[self.at..].starts_with(b"\\u") {
            self.at += 2;
            let low = self.hex4()?;
            let code = 0x10000 + ((first - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
            return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
        }
        Ok(char::from_u32(first).unwrap_or('\u{FFFD}'))
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self.bytes.get(self.at..self.at + 4);
        let value = digits
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok());
        match value {
            Some(v) => {
                self.at += 4;
                Ok(v)
            }
            None => Err(self.error("four hex digits after `\\u`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Value, SyntaxError> {
        parse(text, FileId(0))
    }

    #[test]
    fn values_carry_their_spans_and_members_keep_their_order() {
        let text = r#" {"b": [1, -2.5e1, true, null], "a": "x\u00e9\n"} "#;
        let v = p(text).unwrap();
        let Kind::Object(members) = &v.kind else {
            panic!("{v:?}")
        };
        assert_eq!(members[0].0, "b");
        assert_eq!(members[1].0, "a");
        let b = v.get("b").unwrap();
        assert_eq!(
            &text[b.span.start as usize..b.span.end as usize],
            "[1, -2.5e1, true, null]"
        );
        let Kind::Array(items) = &b.kind else {
            panic!()
        };
        assert_eq!(items[1].kind, Kind::Number(-25.0));
        assert_eq!(v.get("a").unwrap().kind, Kind::String("xé\n".into()));
    }

    #[test]
    fn syntax_errors_point_at_the_offending_byte() {
        for (text, offset, expected) in [
            ("{\"a\": 1,}", 8, "member name"),
            ("[1 2]", 3, "`,` or `]`"),
            ("{\"a\" 1}", 5, "`:`"),
            ("[01]", 2, "`,` or `]`"),
            ("[1.]", 3, "digit after"),
            ("\"abc", 4, "closing"),
            ("[1] x", 4, "end of file"),
            ("// c\n{}", 0, "a value"),
        ] {
            let e = p(text).unwrap_err();
            assert_eq!(e.offset, offset, "{text}: {e:?}");
            assert!(e.message.contains(expected), "{text}: {e:?}");
        }
        let deep = "[".repeat(10_000);
        assert!(p(&deep).unwrap_err().message.contains("nested deeper"));
    }
}
