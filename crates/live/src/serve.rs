//! The serving loop: steps the engine at its pace (a real-time factor, or as fast as it can),
//! or only when asked (lockstep, or paused), and applies clients' [`Control`]s between steps.
//!
//! Lockstep works as CARLA's synchronous mode and Gazebo's step service do: a step request is
//! answered once its last step's messages are handed to every publisher, and commands sent
//! before it are in force for its steps, so a controller that reads, commands and steps gives
//! the same run every time, at any thread count.

use crate::control::{Control, ControlReceiver, Reply, RunState};
use passerby_engine::{Engine, EngineError};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A publisher, as the loop sees it: something that can run a callback once everything handed
/// to it so far is published.
pub trait Published: Send + Sync {
    /// Calls `then` once every step fed to this publisher's sink before now is published.
    fn then(&self, then: Box<dyn FnOnce() + Send>);
}

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Simulated seconds per wall second (0: as fast as possible). Ignored in lockstep.
    pub realtime_factor: f64,
    /// Step only on request.
    pub lockstep: bool,
    /// Stop after this many simulated seconds.
    pub duration: Option<f64>,
    /// Whether clients may reset the world (not while recording: a recording's time would go
    /// back).
    pub allow_reset: bool,
}

/// What a served run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServeReport {
    /// Steps made.
    pub steps: u64,
    /// Simulated seconds at the end.
    pub simulated: f64,
    /// Wall seconds the loop ran.
    pub wall: f64,
    /// Velocity commands applied.
    pub commands: u64,
    /// Transform sets and releases applied.
    pub transforms: u64,
    /// Requests answered (pause, resume, step, reset).
    pub requests: u64,
    /// Commands and transform sets refused (an unknown vehicle or part), with why.
    pub refused: Vec<String>,
}

/// Why serving stopped early.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A step failed (a sink's error, say).
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// The loop's own state.
struct Loop<'a> {
    engine: &'a mut Engine,
    published: &'a [Arc<dyn Published>],
    options: &'a ServeOptions,
    paused: bool,
    /// Step requests not yet done: steps left, and the reply.
    pending: VecDeque<(u64, Reply)>,
    /// Simulated seconds per wall second now (clients may change it).
    realtime_factor: f64,
    /// Wall instant and simulated time the pace counts from.
    pace_from: (Instant, f64),
    report: ServeReport,
}

/// Serves `engine` until `should_stop` says so, `options.duration` is reached, or (in
/// lockstep) every client's sender is gone and nothing is pending. Controls arrive on
/// `controls`; step requests are answered once `published` have published their steps.
pub fn serve(
    engine: &mut Engine,
    controls: &ControlReceiver,
    published: &[Arc<dyn Published>],
    options: &ServeOptions,
    should_stop: &dyn Fn() -> bool,
) -> Result<ServeReport, ServeError> {
    let start = engine.time();
    let started = Instant::now();
    let mut run = Loop {
        engine,
        published,
        options,
        paused: options.lockstep,
        pending: VecDeque::new(),
        realtime_factor: options.realtime_factor,
        pace_from: (Instant::now(), start),
        report: ServeReport::default(),
    };
    let result = run.serve(controls, should_stop);
    // Whoever still waits learns that no more steps come.
    for (_, reply) in run.pending.drain(..) {
        reply.send(Err("the server stopped".into()));
    }
    while let Ok(control) = controls.try_recv() {
        control.refuse("the server stopped");
    }
    run.report.simulated = run.engine.time();
    run.report.wall = started.elapsed().as_secs_f64();
    result.map(|()| run.report)
}

impl Loop<'_> {
    fn serve(
        &mut self,
        controls: &ControlReceiver,
        should_stop: &dyn Fn() -> bool,
    ) -> Result<(), ServeError> {
        loop {
            if should_stop() || self.finished() {
                return Ok(());
            }
            let mut senders_gone = false;
            loop {
                match controls.try_recv() {
                    Ok(control) => self.apply(control)?,
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        senders_gone = true;
                        break;
                    }
                }
            }
            if let Some((left, _)) = self.pending.front_mut() {
                *left -= 1;
                let last = *left == 0;
                self.step()?;
                if last && let Some((_, reply)) = self.pending.pop_front() {
                    self.answer_when_published(reply);
                }
                continue;
            }
            if self.paused {
                if senders_gone {
                    return Ok(());
                }
                match controls.recv_timeout(Duration::from_millis(50)) {
                    Ok(control) => self.apply(control)?,
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                }
                continue;
            }
            if let Some(wait) = self.time_to_next_step() {
                // Short naps, so that controls and stops are seen while waiting.
                std::thread::sleep(wait.min(Duration::from_millis(20)));
                continue;
            }
            self.step()?;
        }
    }

    /// Whether `--duration` is reached.
    fn finished(&self) -> bool {
        self.options
            .duration
            .is_some_and(|d| self.engine.time() >= d - 1e-9)
    }

    fn step(&mut self) -> Result<(), ServeError> {
        self.engine.step()?;
        self.report.steps += 1;
        Ok(())
    }

    /// How long until the next step is due at the real-time factor (`None`: now).
    fn time_to_next_step(&self) -> Option<Duration> {
        let factor = self.realtime_factor;
        if factor <= 0.0 || self.options.lockstep {
            return None;
        }
        let (wall, sim) = self.pace_from;
        let due = wall + Duration::from_secs_f64(((self.engine.time() - sim) / factor).max(0.0));
        due.checked_duration_since(Instant::now())
    }

    fn state(&self) -> RunState {
        RunState {
            time: self.engine.time(),
            steps: self.engine.sim().steps(),
            paused: self.paused,
        }
    }

    fn apply(&mut self, control: Control) -> Result<(), ServeError> {
        match control {
            Control::Command { vehicle, twist } => {
                match self.engine.set_command(&vehicle, twist) {
                    Ok(()) => self.report.commands += 1,
                    Err(e) => self.report.refused.push(e.to_string()),
                }
                return Ok(());
            }
            Control::Transform {
                object,
                part,
                transform,
            } => {
                match self
                    .engine
                    .set_transform(&object, part.as_deref(), transform)
                {
                    Ok(()) => self.report.transforms += 1,
                    Err(e) => self.report.refused.push(e.to_string()),
                }
                return Ok(());
            }
            Control::Release { object } => {
                match self.engine.release(&object) {
                    Ok(()) => self.report.transforms += 1,
                    Err(e) => self.report.refused.push(e.to_string()),
                }
                return Ok(());
            }
            Control::RealtimeFactor { factor } => {
                if !self.options.lockstep && factor >= 0.0 && factor.is_finite() {
                    self.realtime_factor = factor;
                    self.pace_from = (Instant::now(), self.engine.time());
                }
                return Ok(());
            }
            Control::Pause { reply } => {
                self.paused = true;
                reply.send(Ok(self.state()));
            }
            Control::Resume { reply } => {
                if self.options.lockstep {
                    reply.send(Err("serving in lockstep: only step requests step".into()));
                } else {
                    self.paused = false;
                    self.pace_from = (Instant::now(), self.engine.time());
                    reply.send(Ok(self.state()));
                }
            }
            Control::Step { steps, reply } => {
                if steps == 0 {
                    reply.send(Ok(self.state()));
                } else {
                    self.pending.push_back((steps, reply));
                }
            }
            Control::Reset { reply } => {
                if !self.options.allow_reset {
                    reply.send(Err(
                        "reset is refused while recording (the recording's time would go back)"
                            .into(),
                    ));
                } else {
                    self.engine.reset()?;
                    self.pace_from = (Instant::now(), self.engine.time());
                    reply.send(Ok(self.state()));
                }
            }
        }
        self.report.requests += 1;
        Ok(())
    }

    /// Answers `reply` with the current state once every publisher has published up to here.
    fn answer_when_published(&self, reply: Reply) {
        let state = self.state();
        if self.published.is_empty() {
            reply.send(Ok(state));
            return;
        }
        let left = Arc::new(AtomicUsize::new(self.published.len()));
        let reply = Arc::new(Mutex::new(Some(reply)));
        for p in self.published {
            let (left, reply) = (left.clone(), reply.clone());
            p.then(Box::new(move || {
                if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                    let taken = reply.lock().ok().and_then(|mut r| r.take());
                    if let Some(reply) = taken {
                        reply.send(Ok(state));
                    }
                }
            }));
        }
    }
}
