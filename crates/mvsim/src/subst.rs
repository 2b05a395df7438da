//! MVSim's two substitution layers (`shared/reference/mvsim.md` §1.3).
//!
//! **Include time** ([`substitute_include`]): when a file is included, every `${VAR}` and
//! `${VAR|default}` in it is replaced, looking up the include tag's attributes and the user
//! variables, then the environment, then the default. MVSim does this on the raw text; we do
//! it on the parsed tree's attribute values and texts, which gives the same result for every
//! real file and keeps positions exact (comments are no longer substituted, so an undefined
//! variable in a comment is not an error). `${NAME}` and `${PARENT_NAME}` are left for value
//! time, where sensors resolve them.
//!
//! **Value time** ([`substitute_value`]): when a parameter is read, repeated passes of
//! `${VAR}` (user variables; we also accept `${VAR|default}`, which MVSim rejects in the main
//! file), `$env{VAR}`, `$(cmd)` (only with `--allow-shell`; `$(ros2 pkg prefix mvsim)` always
//! resolves to the data root) and `$f{expr}` (formatted with `%g`), until nothing changes.
//! MVSim evaluates only the first `$f{}` per pass and at most 10 passes; we evaluate all of
//! them, which differs only for values with more than ten `$f{}`.

use crate::expr::{self, ExprRng};
use std::collections::BTreeMap;
use std::path::Path;

/// A substitution failure at a byte offset into the value.
#[derive(Clone, Debug, PartialEq)]
pub struct SubstError {
    /// Byte offset into the value where the problem starts.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

/// Variables visible to a substitution, innermost scope first.
pub struct Scope<'a> {
    /// Scopes searched in order (e.g. include attributes, then user variables).
    pub layers: Vec<&'a BTreeMap<String, String>>,
}

impl Scope<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.layers
            .iter()
            .find_map(|l| l.get(name).map(String::as_str))
    }
}

/// Variables left untouched at include time, so sensors can resolve them later.
pub const RETAINED_AT_INCLUDE: [&str; 2] = ["NAME", "PARENT_NAME"];

/// Finds the `}` that closes a `{` opened just before `from`, counting nested braces.
fn matching_brace(text: &str, from: usize) -> Option<usize> {
    let mut depth = 1usize;
    for (i, b) in text.as_bytes()[from..].iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + i);
                }
            }
            _ => {}
        }
    }
    None
}

const MAX_REPLACEMENTS: usize = 10_000;

/// No value may grow beyond this by substitution (`${a}${a}` defined repeatedly doubles).
pub const MAX_VALUE_LEN: usize = 1 << 20;

fn check_len(text: &str) -> Result<(), SubstError> {
    if text.len() > MAX_VALUE_LEN {
        return Err(SubstError {
            offset: 0,
            message: format!("substitution makes the value longer than {MAX_VALUE_LEN} bytes"),
        });
    }
    Ok(())
}

/// Include-time substitution of `${VAR}` / `${VAR|default}` in one value.
pub fn substitute_include(
    text: &str,
    scope: &Scope<'_>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, SubstError> {
    let mut out = text.to_owned();
    let mut search_from = 0;
    let mut replacements = 0;
    // Offsets are reported against the original text until the first replacement.
    let mut original_offsets = true;
    while let Some(rel) = out[search_from..].find("${") {
        let start = search_from + rel;
        let report_at = if original_offsets { start } else { 0 };
        let Some(end) = matching_brace(&out, start + 2) else {
            return Err(SubstError {
                offset: report_at,
                message: "`${` without a closing `}`".into(),
            });
        };
        let body = out[start + 2..end].to_owned();
        let (name, default) = match body.split_once('|') {
            Some((n, d)) => (n.trim(), Some(d)),
            None => (body.trim(), None),
        };
        let value = scope
            .get(name)
            .map(str::to_owned)
            .or_else(|| env(name))
            .or_else(|| default.filter(|d| !d.is_empty()).map(str::to_owned));
        match value {
            Some(value) => {
                out.replace_range(start..=end, &value);
                check_len(&out)?;
                // Rescan from the same place: a value may itself contain `${…}`.
                search_from = start;
                original_offsets = false;
                replacements += 1;
                if replacements > MAX_REPLACEMENTS {
                    return Err(SubstError {
                        offset: 0,
                        message: format!(
                            "substituting `${{{name}}}` never ends (a variable refers to itself?)"
                        ),
                    });
                }
            }
            None if RETAINED_AT_INCLUDE.contains(&name) => search_from = end + 1,
            None => {
                let hint = if default.is_some() {
                    " (its default is empty)"
                } else {
                    "; give it as an attribute of the <include>, a <variable>, an environment variable, or write `${NAME|default}`"
                };
                return Err(SubstError {
                    offset: report_at,
                    message: format!("undefined variable `{name}`{hint}"),
                });
            }
        }
    }
    Ok(out)
}

/// What value-time substitution may use besides the variables.
pub struct ValueEnv<'a> {
    /// Environment lookup (`$env{}`).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Whether `$(cmd)` may run a shell command.
    pub allow_shell: bool,
    /// What `$(ros2 pkg prefix mvsim)` resolves to.
    pub mvsim_prefix: &'a Path,
}

/// Value-time substitution of one parameter value.
pub fn substitute_value(
    text: &str,
    scope: &Scope<'_>,
    venv: &ValueEnv<'_>,
    rng: &mut ExprRng,
) -> Result<String, SubstError> {
    if !text.contains('$') {
        return Ok(text.to_owned());
    }
    let mut current = text.to_owned();
    for pass in 0..64 {
        // As MVSim: first `${}`, `$env{}`, `$()` everywhere (also inside `$f{}` bodies),
        // then the `$f{}` expressions.
        let next = substitute_pass(&current, pass == 0, false, scope, venv, rng)?;
        check_len(&next)?;
        let next = substitute_pass(&next, pass == 0 && next == current, true, scope, venv, rng)?;
        check_len(&next)?;
        if next == current || !next.contains('$') {
            return Ok(next);
        }
        current = next;
    }
    Err(SubstError {
        offset: 0,
        message: "substitution never reaches a fixed point".into(),
    })
}

/// One left-to-right pass replacing either the expressions (`exprs`) or everything else.
fn substitute_pass(
    current: &str,
    exact_offsets: bool,
    exprs: bool,
    scope: &Scope<'_>,
    venv: &ValueEnv<'_>,
    rng: &mut ExprRng,
) -> Result<String, SubstError> {
    let at = |offset: usize| if exact_offsets { offset } else { 0 };
    let mut next = String::with_capacity(current.len());
    let mut rest = current;
    let mut consumed = 0;
    while let Some(dollar) = rest.find('$') {
        next.push_str(&rest[..dollar]);
        let here = &rest[dollar..];
        let offset = consumed + dollar;
        let (kind, open_len) = if here.starts_with("${") {
            ('v', 2)
        } else if here.starts_with("$env{") {
            ('e', 5)
        } else if here.starts_with("$f{") {
            ('f', 3)
        } else if here.starts_with("$(") {
            ('s', 2)
        } else {
            ('-', 1)
        };
        if kind == '-' || (kind == 'f') != exprs {
            // Not ours in this pass: keep the opener and scan on inside it.
            next.push_str(&here[..open_len]);
            rest = &here[open_len..];
            consumed = offset + open_len;
            continue;
        }
        let close = if kind == 's' {
            matching_paren(here, open_len)
        } else {
            matching_brace(here, open_len)
        };
        let Some(close) = close else {
            let opener = &here[..open_len];
            return Err(SubstError {
                offset: at(offset),
                message: format!("`{opener}` without its closing bracket"),
            });
        };
        let body = &here[open_len..close];
        let replacement = match kind {
            'v' => {
                let (name, default) = match body.split_once('|') {
                    Some((n, d)) => (n.trim(), Some(d)),
                    None => (body.trim(), None),
                };
                match scope
                    .get(name)
                    .map(str::to_owned)
                    .or(default.map(str::to_owned))
                {
                    Some(v) => v,
                    None => {
                        return Err(SubstError {
                            offset: at(offset),
                            message: format!(
                                "undefined variable `{name}` (define it with <variable name=\"{name}\" value=\"…\"/> or write `${{{name}|default}}`)"
                            ),
                        });
                    }
                }
            }
            'e' => match (venv.env)(body.trim()) {
                Some(v) => v,
                None => {
                    return Err(SubstError {
                        offset: at(offset),
                        message: format!("environment variable `{}` is not set", body.trim()),
                    });
                }
            },
            's' => run_command(body.trim(), venv).map_err(|message| SubstError {
                offset: at(offset),
                message,
            })?,
            _ => {
                let vars = |name: &str| numeric_variable(scope, name);
                let value = expr::evaluate(body, &vars, rng).map_err(|e| SubstError {
                    offset: at(offset + open_len + e.offset),
                    message: format!("in `$f{{{}}}`: {}", abbreviated(body), e.message),
                })?;
                expr::format_g(value)
            }
        };
        next.push_str(&replacement);
        rest = &here[close + 1..];
        consumed = offset + close + 1;
    }
    next.push_str(rest);
    Ok(next)
}

/// An expression as quoted in a message: whole if short, else its first 60 characters.
fn abbreviated(body: &str) -> String {
    const SHOWN: usize = 60;
    match body.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &body[..cut]),
        None => body.to_owned(),
    }
}

fn matching_paren(text: &str, from: usize) -> Option<usize> {
    let mut depth = 1usize;
    for (i, b) in text.as_bytes()[from..].iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A user variable's numeric value as ExprTk sees it: MVSim registers every variable whose
/// text starts with a number (`stringstream >> double`: "10abc" is 10, "true" is not a number).
fn numeric_variable(scope: &Scope<'_>, name: &str) -> Option<f64> {
    let text = scope.get(name).or_else(|| {
        // ExprTk's symbol table is case-insensitive.
        scope.layers.iter().find_map(|l| {
            l.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        })
    })?;
    crate::values::leading_f64(text.trim()).map(|(v, _)| v)
}

fn run_command(command: &str, venv: &ValueEnv<'_>) -> Result<String, String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["ros2", "pkg", "prefix", "mvsim"] => return Ok(venv.mvsim_prefix.display().to_string()),
        ["rospack", "find", "mvsim"] => {
            return Ok(venv
                .mvsim_prefix
                .join("share")
                .join("mvsim")
                .display()
                .to_string());
        }
        _ => {}
    }
    if !venv.allow_shell {
        return Err(format!(
            "shell substitution `$({command})` is disabled: a world file must not run commands unless you pass --allow-shell"
        ));
    }
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .output()
        .map_err(|e| format!("could not run `{command}`: {e}"))?;
    if !output.status.success() {
        return Err(format!("`{command}` failed with {}", output.status));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(text.trim().replace(['\r', '\n'], ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn env(name: &str) -> Option<String> {
        (name == "HOME_TEST").then(|| "/home/t".to_owned())
    }

    #[test]
    fn include_time_lookup_order_and_defaults() {
        let attrs = map(&[("sensor_x", "1.5"), ("nested", "${sensor_x}")]);
        let scope = Scope {
            layers: vec![&attrs],
        };
        let sub = |t: &str| substitute_include(t, &scope, &env);
        assert_eq!(sub("${sensor_x|0.5} ${sensor_y|0.0}").unwrap(), "1.5 0.0");
        assert_eq!(sub("${HOME_TEST|x}").unwrap(), "/home/t");
        assert_eq!(sub("${nested}").unwrap(), "1.5", "values are rescanned");
        assert_eq!(
            sub("$f{60.0/${rpm|600}}").unwrap(),
            "$f{60.0/600}",
            "$f survives"
        );
        assert_eq!(
            sub("/${PARENT_NAME}/${NAME}").unwrap(),
            "/${PARENT_NAME}/${NAME}"
        );
        assert_eq!(sub("${a|${sensor_x}}").unwrap(), "1.5", "nested default");
        let e = sub("x ${missing}").unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(e.message.contains("undefined variable `missing`"));
        assert!(
            sub("${missing|}")
                .unwrap_err()
                .message
                .contains("default is empty")
        );
        assert!(sub("${open").unwrap_err().message.contains("closing"));
        let selfref = map(&[("a", "${a}")]);
        let scope = Scope {
            layers: vec![&selfref],
        };
        assert!(
            substitute_include("${a}", &scope, &env)
                .unwrap_err()
                .message
                .contains("never ends")
        );
    }

    fn value(
        text: &str,
        vars: &BTreeMap<String, String>,
        allow_shell: bool,
    ) -> Result<String, SubstError> {
        let prefix = PathBuf::from("/data/mvsim");
        let venv = ValueEnv {
            env: &env,
            allow_shell,
            mvsim_prefix: &prefix,
        };
        substitute_value(
            text,
            &Scope { layers: vec![vars] },
            &venv,
            &mut ExprRng::new(0),
        )
    }

    #[test]
    fn value_time_rules() {
        let vars = map(&[
            ("X", "2"),
            ("CEIL", "6.0"),
            ("i", "3"),
            ("word", "true"),
            ("expr", "$f{X*2}"),
        ]);
        assert_eq!(value("$f{CEIL}", &vars, false).unwrap(), "6");
        assert_eq!(
            value("$f{-7.9+i*1.3} $f{0.9*X+2} 0", &vars, false).unwrap(),
            "-4 3.8 0"
        );
        assert_eq!(value("box_${i}", &vars, false).unwrap(), "box_3");
        assert_eq!(value("${Y|7}", &vars, false).unwrap(), "7");
        assert_eq!(value("$f{${X}+1}", &vars, false).unwrap(), "3");
        assert_eq!(
            value("${expr}", &vars, false).unwrap(),
            "4",
            "passes repeat"
        );
        assert_eq!(
            value("$env{HOME_TEST}/a", &vars, false).unwrap(),
            "/home/t/a"
        );
        assert_eq!(
            value("$f{(60.0/600)/55.296e-6}", &vars, false).unwrap(),
            "1808.45"
        );
        assert_eq!(value("cost: 5$", &vars, false).unwrap(), "cost: 5$");
        assert_eq!(
            value("$(ros2 pkg prefix mvsim)/share", &vars, false).unwrap(),
            "/data/mvsim/share"
        );
        let e = value("a $f{word + 1}", &vars, false).unwrap_err();
        assert!(e.message.contains("unknown variable `word`"), "{e:?}");
        assert_eq!(e.offset, 5);
        let e = value("${nope}", &vars, false).unwrap_err();
        assert!(e.message.contains("undefined variable `nope`"));
        assert!(
            value("$env{NOPE_NOT_SET}", &vars, false)
                .unwrap_err()
                .message
                .contains("not set")
        );
        assert!(
            value("$(echo hi)", &vars, false)
                .unwrap_err()
                .message
                .contains("--allow-shell")
        );
        assert_eq!(value("$(echo hi)", &vars, true).unwrap(), "hi");
        assert!(
            value("$f{1/0}", &vars, false)
                .unwrap_err()
                .message
                .contains("division by zero")
        );
    }
}
