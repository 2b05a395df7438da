//! One module per subcommand.

pub mod bench;
pub mod check;
pub mod model;
pub mod reserved;
pub mod simulate;
