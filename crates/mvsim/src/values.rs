//! Parsing of parameter values in MVSim's formats (`TParamEntry::parse`, mvsim.md §1.5).
//!
//! MVSim reads numbers with `sscanf`, so a value is its leading number and trailing text is
//! ignored ("10abc" is 10). We accept the same, but report the ignored text as a warning.
//! Integers: MVSim's `%i` reads "1808.45" (a `$f{}` result) as 1808; we do the same by
//! truncating the leading real number, which also reads "1.04858e+06" as 1048580 where
//! `%i` would stop at 1 (a deviation, documented in docs/mvsim-compatibility.md).

/// The leading real number of a string (like `strtod`) and how many bytes it used.
pub fn leading_f64(text: &str) -> Option<(f64, usize)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
        i += 1;
    }
    let lower = text[i..].to_ascii_lowercase();
    for word in ["infinity", "inf", "nan"] {
        if lower.starts_with(word) {
            let end = i + word.len();
            return text[..end].parse::<f64>().ok().map(|v| (v, end));
        }
    }
    let digits_start = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - digits_start;
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits == 0 {
        return None;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    text[..i].parse::<f64>().ok().map(|v| (v, i))
}

/// A parsed value, and the text MVSim would have ignored after it (empty if none).
#[derive(Debug)]
pub struct Scanned<T> {
    /// The value.
    pub value: T,
    /// Ignored trailing text.
    pub ignored: String,
}

/// A real number.
pub fn real(text: &str) -> Result<Scanned<f64>, String> {
    let t = text.trim();
    match leading_f64(t) {
        Some((v, used)) if v.is_finite() => Ok(Scanned {
            value: v,
            ignored: t[used..].trim().to_owned(),
        }),
        Some(_) => Err(format!("expected a finite number, found `{t}`")),
        None => Err(format!("expected a number, found `{t}`")),
    }
}

/// An integer (a real number truncated toward zero, as `%i` reads `$f{}` results).
pub fn integer(text: &str) -> Result<Scanned<i64>, String> {
    let t = text.trim();
    let scanned = real(t).map_err(|_| format!("expected an integer, found `{t}`"))?;
    if scanned.value.abs() > 9.0e15 {
        return Err(format!("integer `{t}` is out of range"));
    }
    Ok(Scanned {
        value: scanned.value.trunc() as i64,
        ignored: scanned.ignored,
    })
}

/// A boolean: `true|false|1|0`, any case (MVSim's `%bool`).
pub fn boolean(text: &str) -> Result<bool, String> {
    let t = text.trim();
    match t.to_ascii_lowercase().as_str() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(format!("expected `true`, `false`, `1` or `0`, found `{t}`")),
    }
}

/// A colour `#RRGGBB` or `#RRGGBBAA` (alpha defaults to `ff`).
pub fn color(text: &str) -> Result<passerby_world::Color, String> {
    let t = text.trim();
    let hex = t
        .strip_prefix('#')
        .filter(|h| (h.len() == 6 || h.len() == 8) && h.is_ascii());
    let Some(hex) = hex else {
        return Err(format!(
            "expected a colour `#RRGGBB` or `#RRGGBBAA`, found `{t}`"
        ));
    };
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16);
    let parsed = (|| {
        let a = if hex.len() == 8 { byte(6)? } else { 255 };
        Ok::<_, std::num::ParseIntError>(passerby_world::Color::rgba(
            byte(0)?,
            byte(2)?,
            byte(4)?,
            a,
        ))
    })();
    parsed.map_err(|_| format!("expected hexadecimal digits in colour `{t}`"))
}

/// Whitespace-separated numbers, between `min` and `max` of them.
pub fn numbers(text: &str, min: usize, max: usize, what: &str) -> Result<Vec<f64>, String> {
    let t = text.trim();
    let mut out = Vec::new();
    for word in t
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
    {
        match leading_f64(word) {
            Some((v, used)) if used == word.len() && v.is_finite() => out.push(v),
            _ => return Err(format!("{what}, found `{word}` in `{t}`")),
        }
    }
    if out.len() < min || out.len() > max {
        let count = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(format!(
            "{what} ({count} numbers), found {} in `{t}`",
            out.len()
        ));
    }
    Ok(out)
}

/// A Matlab-style matrix `[a b; c d]` (rows separated by `;` or new lines).
pub fn matrix(text: &str) -> Result<(usize, usize, Vec<f64>), String> {
    let t = text.trim().trim_start_matches('[').trim_end_matches(']');
    let mut rows = Vec::new();
    for row in t
        .split([';', '\n'])
        .map(str::trim)
        .filter(|r| !r.is_empty())
    {
        rows.push(numbers(
            row,
            1,
            usize::MAX,
            "expected a matrix row of numbers",
        )?);
    }
    let cols = rows.first().map_or(0, Vec::len);
    if rows.is_empty() {
        return Err("expected a matrix `[a b; c d]`, found nothing".into());
    }
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != cols) {
        return Err(format!(
            "matrix row {} has {} values, the first row has {cols}",
            i + 1,
            r.len()
        ));
    }
    let n = rows.len();
    Ok((n, cols, rows.into_iter().flatten().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_scan_like_sscanf() {
        assert_eq!(leading_f64("1.5e-3xyz"), Some((1.5e-3, 6)));
        assert_eq!(leading_f64("-.5"), Some((-0.5, 3)));
        assert_eq!(leading_f64("1e"), Some((1.0, 1)));
        assert_eq!(leading_f64("abc"), None);
        assert_eq!(leading_f64("."), None);
        let r = real(" 10abc ").unwrap();
        assert_eq!((r.value, r.ignored.as_str()), (10.0, "abc"));
        assert!(
            real("abc")
                .unwrap_err()
                .contains("expected a number, found `abc`")
        );
        assert!(real("nan").is_err());
        assert_eq!(integer("1808.45").unwrap().value, 1808);
        assert_eq!(integer("1.04858e+06").unwrap().value, 1048580);
        assert!(integer("x").unwrap_err().contains("expected an integer"));
    }

    #[test]
    fn booleans_colours_poses_and_matrices() {
        assert!(boolean("TRUE").unwrap());
        assert!(!boolean(" 0 ").unwrap());
        assert!(boolean("yes").is_err());
        assert_eq!(
            color("#a0e0a0").unwrap(),
            passerby_world::Color::rgb(0xa0, 0xe0, 0xa0)
        );
        assert_eq!(color("#ff000080").unwrap().a, 0x80);
        assert!(color("red").is_err());
        assert!(color("#12345g").is_err());
        assert_eq!(numbers("1 2\t3", 3, 3, "x y yaw").unwrap(), [1.0, 2.0, 3.0]);
        assert!(
            numbers("1 2", 3, 3, "x y yaw")
                .unwrap_err()
                .contains("(3 numbers), found 2")
        );
        assert!(numbers("1 b 2", 3, 3, "x y yaw").is_err());
        assert_eq!(
            matrix("[1 2; 3 4]").unwrap(),
            (2, 2, vec![1.0, 2.0, 3.0, 4.0])
        );
        assert!(matrix("[1 2; 3]").unwrap_err().contains("row 2 has 1"));
    }
}
