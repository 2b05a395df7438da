//! Integration tests of the MVSim loader: one binary, topic modules, shared helpers.
#![allow(clippy::unwrap_used)] // test helpers panic on setup failures by design

mod util;

mod bad_input;
mod language;
mod limits;
mod mutations;
mod shared_worlds;
