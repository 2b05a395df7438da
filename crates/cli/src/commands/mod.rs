//! One module per subcommand.

pub mod bench;
pub mod check;
pub mod export;
pub mod model;
pub mod open;
pub mod recover;
pub mod render;
pub mod run;
pub mod serve;
pub mod sweep;
