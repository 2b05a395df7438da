//! Loops the compiler lays out in vectors, compiled a second and a third time for the wider
//! vectors of AVX-512 and AVX2 and chosen at run time by what the CPU has.
//!
//! The default x86-64 target stops at SSE2: four `f32` lanes. A loop of independent
//! operations (a camera run's shadow ray origins, a chunk's grid cells) compiled with AVX2
//! runs eight lanes to an instruction, with AVX-512 sixteen. Rust never fuses a product and a
//! sum, nor reorders floating-point operations, whatever the target: each lane's IEEE
//! operations are the scalar code's, so every path gives the same bits. Only whole functions
//! carry target features, hence [`widest_vectors!`], which compiles one `#[inline(always)]`
//! body three times behind a check made once.
//!
//! Owns: which vector width runs (`PASSERBY_VECTORS=baseline|avx2|avx512` narrows it, for
//! comparing the paths in one build; `PASSERBY_NO_AVX512` stops at AVX2). Must not touch: what
//! the loops compute.
//!
//! `unsafe`: only the call into code compiled for features the CPU reported (in the macro).

use std::sync::atomic::{AtomicU8, Ordering};

/// The widest vectors [`widest_vectors!`] bodies run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// The target's own (SSE2 on x86-64).
    Baseline,
    /// AVX2: eight `f32` lanes.
    Avx2,
    /// AVX-512 (F, VL, BW, DQ): sixteen `f32` lanes.
    Avx512,
}

/// What this CPU runs, narrowed by the environment (checked once).
pub fn width() -> Width {
    static STATE: AtomicU8 = AtomicU8::new(0);
    match STATE.load(Ordering::Relaxed) {
        1 => Width::Baseline,
        2 => Width::Avx2,
        3 => Width::Avx512,
        _ => {
            let width = detect();
            let code = match width {
                Width::Baseline => 1,
                Width::Avx2 => 2,
                Width::Avx512 => 3,
            };
            STATE.store(code, Ordering::Relaxed);
            width
        }
    }
}

fn detect() -> Width {
    let cpu = cpu_width();
    let asked = match std::env::var("PASSERBY_VECTORS").as_deref() {
        Ok("baseline") => Width::Baseline,
        Ok("avx2") => Width::Avx2,
        _ if std::env::var_os("PASSERBY_NO_AVX512").is_some() => Width::Avx2,
        _ => Width::Avx512,
    };
    let rank = |w: Width| w as u8;
    if rank(asked) < rank(cpu) { asked } else { cpu }
}

#[cfg(target_arch = "x86_64")]
fn cpu_width() -> Width {
    use std::arch::is_x86_feature_detected as has;
    let avx512 = has!("avx512f") && has!("avx512vl") && has!("avx512bw") && has!("avx512dq");
    if avx512 && has!("avx2") {
        Width::Avx512
    } else if has!("avx2") {
        Width::Avx2
    } else {
        Width::Baseline
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_width() -> Width {
    Width::Baseline
}

/// `fn $name(args) -> R { $body(args) }`, with `$body` (an `#[inline(always)]` function of
/// the same arguments) compiled for AVX-512, for AVX2 and for the baseline, the widest the
/// CPU has chosen at each call (see the module's comment: the same results every way).
///
/// `widest_vectors! { up to avx2; fn … }` stops at AVX2: sixteen lanes cost more than they
/// give where runs are short (their last part goes through masks or one lane at a time).
#[macro_export]
macro_rules! widest_vectors {
    (up to avx2; $(#[$attr:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:path) => {
        $(#[$attr])*
        #[allow(unsafe_code)]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                if $crate::widest::width() != $crate::widest::Width::Baseline {
                    // SAFETY: the CPU reported AVX2 (`width`: AVX-512 comes with it).
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
    ($(#[$attr:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:path) => {
        $(#[$attr])*
        #[allow(unsafe_code)]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2")]
                fn avx512($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                match $crate::widest::width() {
                    // SAFETY: the CPU reported these features (`width`).
                    $crate::widest::Width::Avx512 => return unsafe { avx512($($arg),*) },
                    // SAFETY: as above.
                    $crate::widest::Width::Avx2 => return unsafe { avx2($($arg),*) },
                    $crate::widest::Width::Baseline => {}
                }
            }
            $body($($arg),*)
        }
    };
}
