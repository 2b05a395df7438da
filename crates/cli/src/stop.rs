//! The signals that stop a run: SIGINT (Ctrl-C), SIGTERM (`timeout`, `docker stop`, systemd,
//! Kubernetes, Slurm) and SIGHUP (a closed terminal or SSH session). The first one asks the run
//! to stop after its step and finish its recording; a second one while it finishes exits at
//! once with the signal's status (the recording is then cut, and `passerby recover` mends it).
//!
//! Owns: the process's handlers for those signals. Must not touch: what a stopped run does.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// What the handlers set; installed once per process.
struct Flags {
    /// Whether a stop was asked.
    asked: Arc<AtomicBool>,
    /// The number of the last signal that asked (0: none).
    signal: Arc<AtomicUsize>,
}

fn signals() -> &'static [i32] {
    #[cfg(unix)]
    {
        &[
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ]
    }
    #[cfg(not(unix))]
    {
        &[signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM]
    }
}

fn flags() -> &'static Flags {
    static FLAGS: OnceLock<Flags> = OnceLock::new();
    FLAGS.get_or_init(|| {
        let flags = Flags {
            asked: Arc::new(AtomicBool::new(false)),
            signal: Arc::new(AtomicUsize::new(0)),
        };
        for &signal in signals() {
            let status = 128 + signal;
            // Actions run in the order registered: a second signal exits before the flag is
            // set again. An error here leaves that signal's default (the process ends).
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                status,
                flags.asked.clone(),
            );
            let _ =
                signal_hook::flag::register_usize(signal, flags.signal.clone(), signal as usize);
            let _ = signal_hook::flag::register(signal, flags.asked.clone());
        }
        flags
    })
}

/// Installs the handlers (once) and forgets any stop asked before.
pub fn arm() {
    let f = flags();
    f.signal.store(0, Ordering::SeqCst);
    f.asked.store(false, Ordering::SeqCst);
}

/// The signal that asked the run to stop, if one did.
pub fn requested() -> Option<i32> {
    let f = flags();
    if !f.asked.load(Ordering::SeqCst) {
        return None;
    }
    Some(f.signal.load(Ordering::SeqCst) as i32)
}

/// The signal's name and the exit status a process stopped by it reports (128 + its number).
pub fn describe(signal: i32) -> (&'static str, u8) {
    let name = match signal {
        2 => "SIGINT",
        15 => "SIGTERM",
        1 => "SIGHUP",
        _ => "a signal",
    };
    (name, (128 + signal).clamp(0, 255) as u8)
}
