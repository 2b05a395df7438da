//! Whether posing ahead pays on a world ([`AheadTrial`]): measured in a run's first steps on
//! more than one thread, then kept or dropped for the rest of the run. Owns the measurement
//! and the verdict; the engine acts on it.

use std::time::Duration;

/// Whether posing the next step during the sensors pays on a world, measured rather than
/// assumed: it doubles the simulation's steps (the second simulation makes each step too) and
/// the scene's posing, which only running them beside the sensors hides. Worlds whose sensors
/// are cheap against their simulation (dozens of small 2D lasers on driven robots) run faster
/// without it. The first window of steps (a simulated second, so that every sensor's period
/// falls into it alike) runs without posing ahead, the second with it (the second simulation
/// catching up once); the faster way is kept for the rest of the run. Observations are the same
/// either way, so the choice, timed and so not reproducible, changes nothing but speed.
#[derive(Clone, Debug)]
pub(crate) struct AheadTrial {
    /// Steps per half of the trial.
    pub(crate) window: u32,
    /// Steps recorded so far.
    pub(crate) steps: u32,
    /// Wall time of the half without posing ahead, and of the half with it (their first
    /// tenth left out: warming up).
    pub(crate) without: Duration,
    pub(crate) with: Duration,
    /// Mean wall seconds per step without and with, and the choice, once measured.
    pub(crate) means: Option<(f64, f64, bool)>,
    pub(crate) decided: Option<bool>,
    /// The choice made whatever the timings (tests).
    pub(crate) forced: Option<bool>,
}

/// What a step's timing decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Still measuring.
    Measuring,
    /// The half with posing ahead begins.
    Resume,
    /// Posing ahead pays: go on.
    Keep,
    /// Posing ahead costs more than it saves: stop it.
    Drop,
}

impl AheadTrial {
    pub(crate) fn new(timestep: f64) -> AheadTrial {
        let window = (1.0 / timestep.max(1e-6)).round().clamp(20.0, 2000.0) as u32;
        AheadTrial::with_window(window)
    }

    pub(crate) fn with_window(window: u32) -> AheadTrial {
        AheadTrial {
            window,
            steps: 0,
            without: Duration::ZERO,
            with: Duration::ZERO,
            means: None,
            decided: None,
            forced: None,
        }
    }

    /// A trial already decided (tests).
    #[cfg(test)]
    pub(crate) fn decided(keep: bool) -> AheadTrial {
        AheadTrial {
            decided: Some(keep),
            ..AheadTrial::with_window(20)
        }
    }

    /// Whether the coming step poses ahead.
    pub(crate) fn poses_ahead(&self) -> bool {
        self.decided.unwrap_or(self.steps >= self.window)
    }

    /// Records a step's wall time.
    pub(crate) fn record(&mut self, wall: Duration) -> Verdict {
        if self.decided.is_some() {
            return Verdict::Keep;
        }
        let (half, at) = (self.steps / self.window, self.steps % self.window);
        self.steps += 1;
        if at >= self.window / 10 {
            match half {
                0 => self.without += wall,
                _ => self.with += wall,
            }
        }
        if self.steps == self.window {
            return Verdict::Resume;
        }
        if self.steps < 2 * self.window {
            return Verdict::Measuring;
        }
        // Posing ahead is kept unless doing without is clearly faster (5 %).
        let keep =
            (self.forced).unwrap_or(self.with.as_secs_f64() <= self.without.as_secs_f64() / 0.95);
        let measured = f64::from(self.window - self.window / 10);
        self.means = Some((
            self.without.as_secs_f64() / measured,
            self.with.as_secs_f64() / measured,
            keep,
        ));
        self.decided = Some(keep);
        if keep { Verdict::Keep } else { Verdict::Drop }
    }
}
