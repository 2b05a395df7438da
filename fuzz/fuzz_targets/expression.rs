//! `$f{}` expressions and `%g` formatting never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use passerby_mvsim::expr::{ExprRng, evaluate, format_g};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let vars = |name: &str| (name == "x").then_some(2.5);
    if let Ok(v) = evaluate(&text, &vars, &mut ExprRng::new(0)) {
        let _ = format_g(v);
    }
});
