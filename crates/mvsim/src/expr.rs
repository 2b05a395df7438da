//! The `$f{…}` math expressions of MVSim worlds, evaluated as ExprTk does.
//!
//! MVSim compiles `$f{}` bodies with ExprTk (string functions off). Worlds use a small subset:
//! arithmetic, `^`, comparisons, `and`/`or`/`not`, `if(c, a, b)`, the usual functions, the
//! constants `M_PI`, `pi`, `epsilon`, `inf`, user variables, and MVSim's random functions
//! `rand()`, `randn()`, `unifrnd(a, b)`, `randomize(seed)`. This module implements that subset
//! with ExprTk's names and precedence (lowest first: `? :`, `or`/`||`/`xor`/`nor`,
//! `and`/`&&`/`nand`, comparisons, `+ -`, `* / %`, `^` (right-associative), unary).
//! Identifiers are case-insensitive, as in ExprTk.
//!
//! Deviation: ExprTk returns `inf`/`nan` for a division by zero or `sqrt(-1)`; we report an
//! error instead, since no world means to place an object at infinity.
//!
//! Random draws come from the [`ExprRng`] the caller owns, seeded by `--seed`, so a world
//! loads identically every time.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An error in an expression, at a byte offset into the expression text.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    /// Byte offset into the expression.
    pub offset: usize,
    /// What went wrong and what was expected.
    pub message: String,
}

/// The random generator behind `rand()`, `randn()` and `unifrnd()`.
#[derive(Clone, Debug)]
pub struct ExprRng {
    rng: ChaCha8Rng,
}

impl ExprRng {
    /// A generator seeded from the run's seed.
    pub fn new(seed: u64) -> ExprRng {
        ExprRng {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        // 53 random mantissa bits: exactly representable, never 1.0.
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal, by Box–Muller (our own, so the stream never changes with a crate update).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// Evaluates an expression. `var` resolves a variable name to its numeric value.
pub fn evaluate(
    text: &str,
    var: &dyn Fn(&str) -> Option<f64>,
    rng: &mut ExprRng,
) -> Result<f64, ExprError> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens: &tokens,
        pos: 0,
        depth: 0,
        var,
        rng,
        end: text.len(),
    };
    let value = parser.ternary()?;
    // ExprTk allows a trailing `;`.
    if parser.peek() == Some(&Tok::Semicolon) {
        parser.pos += 1;
    }
    if let Some((_, offset)) = parser.tokens.get(parser.pos) {
        return Err(ExprError {
            offset: *offset,
            message: "unexpected text after the expression".into(),
        });
    }
    if !value.is_finite() {
        return Err(ExprError {
            offset: 0,
            message: format!("expression evaluates to {value}"),
        });
    }
    Ok(value)
}

/// Formats a number as C's `printf("%g")`: 6 significant digits, trailing zeros removed,
/// exponent form below 1e-4 or from 1e6 on. MVSim formats every `$f{}` result this way, so
/// `$f{0.1/55.296e-6}` becomes `1808.45`, and worlds depend on it.
pub fn format_g(value: f64) -> String {
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if !value.is_finite() {
        return if value.is_nan() {
            "nan".into()
        } else if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    const PRECISION: i32 = 6;
    // The exponent after rounding to 6 significant digits decides the style.
    let sci = format!("{:.*e}", (PRECISION - 1) as usize, value);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..PRECISION).contains(&exp) {
        let mantissa = trim_fraction_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (PRECISION - 1 - exp).max(0) as usize;
        trim_fraction_zeros(&format!("{value:.decimals$}")).to_owned()
    }
}

fn trim_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    Question,
    Colon,
    Semicolon,
}

fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    const OPS: [&str; 17] = [
        "<=", ">=", "==", "!=", "<>", "&&", "||", "+", "-", "*", "/", "%", "^", "<", ">", "=", "!",
    ];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                let mut j = i + 1;
                if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j].is_ascii_digit() {
                    i = j;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let s = &text[start..i];
            let n = s.parse::<f64>().map_err(|_| ExprError {
                offset: start,
                message: format!("`{s}` is not a number"),
            })?;
            out.push((Tok::Num(n), start));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
            {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_owned()), start));
            continue;
        }
        let single = match c {
            b'(' | b'[' | b'{' => Some(Tok::LParen),
            b')' | b']' | b'}' => Some(Tok::RParen),
            b',' => Some(Tok::Comma),
            b'?' => Some(Tok::Question),
            b';' => Some(Tok::Semicolon),
            b':' if bytes.get(i + 1) != Some(&b'=') => Some(Tok::Colon),
            _ => None,
        };
        if let Some(tok) = single {
            out.push((tok, start));
            i += 1;
            continue;
        }
        match OPS.iter().find(|op| text[i..].starts_with(**op)) {
            Some(op) => {
                out.push((Tok::Op(op), start));
                i += op.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(ExprError {
                    offset: start,
                    message: format!("unexpected character `{ch}`"),
                });
            }
        }
    }
    Ok(out)
}

/// How deeply an expression may nest (parentheses, unary operators, `^` and `? :` chains,
/// function arguments). The parser recurses once per level, so without this bound an input
/// of a few kilobytes (9,000 parentheses) overflowed the stack. ExprTk's own default is 400;
/// no world comes near either.
pub const MAX_NESTING: usize = 256;

struct Parser<'a> {
    tokens: &'a [(Tok, usize)],
    pos: usize,
    /// Levels of recursion entered so far (see [`MAX_NESTING`]).
    depth: usize,
    var: &'a dyn Fn(&str) -> Option<f64>,
    rng: &'a mut ExprRng,
    end: usize,
}

fn truth(v: f64) -> bool {
    v != 0.0
}

fn bool_value(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|(t, _)| t)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.end, |(_, o)| *o)
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, ExprError> {
        Err(ExprError {
            offset: self.offset(),
            message: message.into(),
        })
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<(), ExprError> {
        if self.peek() == Some(&tok) {
            self.pos += 1;
            Ok(())
        } else {
            self.error(format!("expected {what}"))
        }
    }

    /// Whether the next token is the keyword or operator `word` (keywords case-insensitive).
    fn eat_word(&mut self, words: &[&str]) -> Option<String> {
        let found = match self.peek() {
            Some(Tok::Ident(name)) => words.iter().find(|w| name.eq_ignore_ascii_case(w)),
            Some(Tok::Op(op)) => words.iter().find(|w| *op == **w),
            _ => None,
        };
        let found = found.map(|w| (*w).to_owned());
        if found.is_some() {
            self.pos += 1;
        }
        found
    }

    /// Runs `parse` one nesting level deeper, or fails once [`MAX_NESTING`] is reached.
    fn nested(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<f64, ExprError>,
    ) -> Result<f64, ExprError> {
        if self.depth >= MAX_NESTING {
            return self.error(format!(
                "expression nested more than {MAX_NESTING} levels deep"
            ));
        }
        self.depth += 1;
        let value = parse(self);
        self.depth -= 1;
        value
    }

    fn ternary(&mut self) -> Result<f64, ExprError> {
        self.nested(Self::ternary_level)
    }

    fn ternary_level(&mut self) -> Result<f64, ExprError> {
        let cond = self.or()?;
        if self.peek() == Some(&Tok::Question) {
            self.pos += 1;
            let a = self.ternary()?;
            self.expect(Tok::Colon, "`:` of a `? :` conditional")?;
            let b = self.ternary()?;
            return Ok(if truth(cond) { a } else { b });
        }
        Ok(cond)
    }

    fn or(&mut self) -> Result<f64, ExprError> {
        let mut left = self.and()?;
        while let Some(op) = self.eat_word(&["or", "||", "xor", "nor"]) {
            let right = self.and()?;
            left = bool_value(match op.to_ascii_lowercase().as_str() {
                "xor" => truth(left) != truth(right),
                "nor" => !(truth(left) || truth(right)),
                _ => truth(left) || truth(right),
            });
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<f64, ExprError> {
        let mut left = self.comparison()?;
        while let Some(op) = self.eat_word(&["and", "&&", "nand"]) {
            let right = self.comparison()?;
            let both = truth(left) && truth(right);
            left = bool_value(if op.eq_ignore_ascii_case("nand") {
                !both
            } else {
                both
            });
        }
        Ok(left)
    }

    fn comparison(&mut self) -> Result<f64, ExprError> {
        let mut left = self.additive()?;
        while let Some(op) = self.eat_word(&["<=", ">=", "==", "!=", "<>", "<", ">", "="]) {
            let right = self.additive()?;
            left = bool_value(match op.as_str() {
                "<=" => left <= right,
                ">=" => left >= right,
                "<" => left < right,
                ">" => left > right,
                "!=" | "<>" => left != right,
                _ => left == right,
            });
        }
        Ok(left)
    }

    fn additive(&mut self) -> Result<f64, ExprError> {
        let mut left = self.multiplicative()?;
        while let Some(op) = self.eat_word(&["+", "-"]) {
            let right = self.multiplicative()?;
            left = if op == "+" {
                left + right
            } else {
                left - right
            };
        }
        Ok(left)
    }

    fn multiplicative(&mut self) -> Result<f64, ExprError> {
        let mut left = self.unary()?;
        loop {
            let at = self.offset();
            let Some(op) = self.eat_word(&["*", "/", "%"]) else {
                return Ok(left);
            };
            let right = self.unary()?;
            if op != "*" && right == 0.0 {
                return Err(ExprError {
                    offset: at,
                    message: "division by zero".into(),
                });
            }
            left = match op.as_str() {
                "*" => left * right,
                "/" => left / right,
                _ => left % right,
            };
        }
    }

    fn unary(&mut self) -> Result<f64, ExprError> {
        if let Some(op) = self.eat_word(&["-", "+", "!"]) {
            let v = self.nested(Self::unary)?;
            return Ok(match op.as_str() {
                "-" => -v,
                "!" => bool_value(!truth(v)),
                _ => v,
            });
        }
        self.power()
    }

    fn power(&mut self) -> Result<f64, ExprError> {
        let base = self.primary()?;
        if self.eat_word(&["^"]).is_some() {
            let exponent = self.nested(Self::unary)?;
            return Ok(base.powf(exponent));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<f64, ExprError> {
        let start = self.offset();
        match self.tokens.get(self.pos).map(|(t, _)| t.clone()) {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(n)
            }
            Some(Tok::LParen) => {
                self.pos += 1;
                let v = self.ternary()?;
                self.expect(Tok::RParen, "`)`")?;
                Ok(v)
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if self.peek() == Some(&Tok::LParen) {
                    self.pos += 1;
                    let mut args = Vec::new();
                    if self.peek() != Some(&Tok::RParen) {
                        loop {
                            args.push(self.ternary()?);
                            if self.peek() == Some(&Tok::Comma) {
                                self.pos += 1;
                            } else {
                                break;
                            }
                        }
                    }
                    self.expect(Tok::RParen, "`)` or `,` in the argument list")?;
                    return self.call(&name, &args, start);
                }
                self.variable(&name, start)
            }
            Some(_) => self.error("expected a number, a variable, a function call or `(`"),
            None => self.error("expression ends early: expected a number, a variable or `(`"),
        }
    }

    fn variable(&mut self, name: &str, offset: usize) -> Result<f64, ExprError> {
        if let Some(v) = (self.var)(name) {
            return Ok(v);
        }
        let constant = match name.to_ascii_lowercase().as_str() {
            "m_pi" | "pi" => Some(std::f64::consts::PI),
            "epsilon" => Some(f64::EPSILON),
            "inf" => Some(f64::INFINITY),
            "true" => Some(1.0),
            "false" => Some(0.0),
            _ => None,
        };
        constant.ok_or_else(|| ExprError {
            offset,
            message: format!(
                "unknown variable `{name}` (expected a `<variable>` with a numeric value, or a constant such as M_PI)"
            ),
        })
    }

    fn call(&mut self, name: &str, args: &[f64], offset: usize) -> Result<f64, ExprError> {
        let lower = name.to_ascii_lowercase();
        let arity = |n: usize| -> Result<(), ExprError> {
            if args.len() == n {
                Ok(())
            } else {
                Err(ExprError {
                    offset,
                    message: format!("`{name}` takes {n} argument(s), {} given", args.len()),
                })
            }
        };
        let unary = |f: fn(f64) -> f64| -> Result<f64, ExprError> {
            arity(1)?;
            Ok(f(args[0]))
        };
        let domain = |ok: bool, v: f64| -> Result<f64, ExprError> {
            if ok {
                Ok(v)
            } else {
                Err(ExprError {
                    offset,
                    message: format!("`{name}` argument out of its domain"),
                })
            }
        };
        match lower.as_str() {
            "rand" => {
                arity(0)?;
                Ok(self.rng.uniform())
            }
            "randn" => {
                arity(0)?;
                Ok(self.rng.normal())
            }
            "unifrnd" => {
                arity(2)?;
                Ok(args[0] + (args[1] - args[0]) * self.rng.uniform())
            }
            "randomize" => {
                arity(1)?;
                *self.rng = ExprRng::new(args[0] as i64 as u64);
                Ok(0.0)
            }
            "if" => {
                arity(3)?;
                Ok(if truth(args[0]) { args[1] } else { args[2] })
            }
            "not" => unary(|x| bool_value(!truth(x))),
            "abs" => unary(f64::abs),
            "sin" => unary(f64::sin),
            "cos" => unary(f64::cos),
            "tan" => unary(f64::tan),
            "asin" => {
                arity(1)?;
                domain((-1.0..=1.0).contains(&args[0]), args[0].asin())
            }
            "acos" => {
                arity(1)?;
                domain((-1.0..=1.0).contains(&args[0]), args[0].acos())
            }
            "atan" => unary(f64::atan),
            "sinh" => unary(f64::sinh),
            "cosh" => unary(f64::cosh),
            "tanh" => unary(f64::tanh),
            "asinh" => unary(f64::asinh),
            "acosh" => unary(f64::acosh),
            "atanh" => unary(f64::atanh),
            "sqrt" => {
                arity(1)?;
                domain(args[0] >= 0.0, args[0].sqrt())
            }
            "exp" => unary(f64::exp),
            "expm1" => unary(f64::exp_m1),
            "log" | "ln" => {
                arity(1)?;
                domain(args[0] > 0.0, args[0].ln())
            }
            "log10" => {
                arity(1)?;
                domain(args[0] > 0.0, args[0].log10())
            }
            "log2" => {
                arity(1)?;
                domain(args[0] > 0.0, args[0].log2())
            }
            "log1p" => unary(f64::ln_1p),
            "ceil" => unary(f64::ceil),
            "floor" => unary(f64::floor),
            "round" => unary(f64::round),
            "trunc" => unary(f64::trunc),
            "frac" => unary(f64::fract),
            "sgn" => unary(|x| {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }),
            "deg2rad" => unary(f64::to_radians),
            "rad2deg" => unary(f64::to_degrees),
            "atan2" => {
                arity(2)?;
                Ok(args[0].atan2(args[1]))
            }
            "pow" => {
                arity(2)?;
                Ok(args[0].powf(args[1]))
            }
            "hypot" => {
                arity(2)?;
                Ok(args[0].hypot(args[1]))
            }
            "roundn" => {
                arity(2)?;
                let scale = 10f64.powi(args[1] as i32);
                Ok((args[0] * scale).round() / scale)
            }
            "clamp" => {
                // ExprTk: clamp(lower, x, upper).
                arity(3)?;
                Ok(args[1].max(args[0]).min(args[2]))
            }
            "inrange" => {
                arity(3)?;
                Ok(bool_value(args[0] <= args[1] && args[1] <= args[2]))
            }
            "min" | "max" | "sum" | "avg" | "mul" if !args.is_empty() => Ok(match lower.as_str() {
                "min" => args.iter().copied().fold(f64::INFINITY, f64::min),
                "max" => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                "sum" => args.iter().sum(),
                "avg" => args.iter().sum::<f64>() / args.len() as f64,
                _ => args.iter().product(),
            }),
            _ => Err(ExprError {
                offset,
                message: format!(
                    "unknown function `{name}` (ExprTk's math functions and rand, randn, unifrnd are available)"
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Result<f64, ExprError> {
        let vars = |name: &str| match name {
            "iY" => Some(4.0),
            "R" => Some(2.0),
            "POS_X" => Some(10.0),
            _ => None,
        };
        evaluate(text, &vars, &mut ExprRng::new(0))
    }

    #[test]
    fn arithmetic_and_precedence_follow_exprtk() {
        assert_eq!(eval("1+2*3").unwrap(), 7.0);
        assert_eq!(eval("-2^2").unwrap(), -4.0);
        assert_eq!(eval("2^3^2").unwrap(), 512.0);
        assert_eq!(eval("7 % 4").unwrap(), 3.0);
        assert_eq!(eval("(60.0/600)/55.296e-6").unwrap(), 0.1 / 55.296e-6);
        assert!((eval("POS_X + R*cos(45*M_PI/180)").unwrap() - (10.0 + 2f64.sqrt())).abs() < 1e-12);
        assert_eq!(eval("if(iY<=3 or iY>=6, 1, 0)").unwrap(), 0.0);
        assert_eq!(eval("if(iY<=3 or iY>=4, 1, 0)").unwrap(), 1.0);
        assert_eq!(eval("iY > 3 and not(iY == 5)").unwrap(), 1.0);
        assert_eq!(eval("iY == 4 ? 10 : 20").unwrap(), 10.0);
        assert_eq!(eval("clamp(0, 5, 3)").unwrap(), 3.0);
        assert_eq!(eval("max(1, 7, 3)").unwrap(), 7.0);
        assert_eq!(eval("SQRT(16) + Pi*0").unwrap(), 4.0);
    }

    #[test]
    fn random_functions_are_seeded_and_in_range() {
        let none = |_: &str| None;
        let mut a = ExprRng::new(7);
        let mut b = ExprRng::new(7);
        for _ in 0..100 {
            let x = evaluate("rand()", &none, &mut a).unwrap();
            assert_eq!(x, evaluate("rand()", &none, &mut b).unwrap());
            assert!((0.0..1.0).contains(&x));
            let y = evaluate("unifrnd(-2, 3)", &none, &mut a).unwrap();
            evaluate("unifrnd(-2, 3)", &none, &mut b).unwrap();
            assert!((-2.0..3.0).contains(&y));
        }
        let n = 20_000;
        let mut rng = ExprRng::new(1);
        let samples: Vec<f64> = (0..n)
            .map(|_| evaluate("randn()", &none, &mut rng).unwrap())
            .collect();
        let mean = samples.iter().sum::<f64>() / n as f64;
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 4.0 / (n as f64).sqrt(), "mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "var {var}");
    }

    #[test]
    fn errors_name_the_offset() {
        let e = eval("1 + ").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.message.contains("ends early"));
        let e = eval("3 / (iY - 4)").unwrap_err();
        assert_eq!((e.offset, e.message.as_str()), (2, "division by zero"));
        let e = eval("foo + 1").unwrap_err();
        assert!(e.message.contains("unknown variable `foo`"));
        let e = eval("bar(1)").unwrap_err();
        assert!(e.message.contains("unknown function `bar`"));
        assert!(eval("sqrt(-1)").unwrap_err().message.contains("domain"));
        assert!(eval("1 2").unwrap_err().message.contains("unexpected text"));
        assert!(eval("atan2(1)").unwrap_err().message.contains("takes 2"));
        assert!(eval("1 # 2").is_err());
        assert!(eval("10^400").unwrap_err().message.contains("inf"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        // Each of these aborted the process with a stack overflow before the bound.
        let deep = MAX_NESTING + 1;
        let cases = [
            format!("{}1{}", "(".repeat(9_000), ")".repeat(9_000)),
            format!("{}1", "-".repeat(100_000)),
            format!("{}1", "2^".repeat(100_000)),
            format!("{}1", "1?".repeat(50_000)) + &":1".repeat(50_000),
            format!("{}1{}", "sin(".repeat(9_000), ")".repeat(9_000)),
            format!("{}1{}", "(".repeat(deep), ")".repeat(deep)),
        ];
        for text in cases {
            let e = eval(&text).unwrap_err();
            assert!(e.message.contains("nested more than"), "{}", e.message);
        }
        // Deep but within the bound still evaluates, on a test thread's small stack.
        let fine = MAX_NESTING - 2;
        assert_eq!(
            eval(&format!("{}1{}", "(".repeat(fine), ")".repeat(fine))).unwrap(),
            1.0
        );
        assert_eq!(eval(&format!("{}1", "-".repeat(fine))).unwrap(), 1.0);
    }

    #[test]
    fn format_g_matches_printf() {
        for (v, s) in [
            (1808.4490740740741, "1808.45"),
            (123456789.0, "1.23457e+08"),
            (0.1, "0.1"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (3.0, "3"),
            (999999.5, "1e+06"),
            (0.35, "0.35"),
            (1.0 / 3.0, "0.333333"),
        ] {
            assert_eq!(format_g(v), s, "{v}");
        }
    }
}
