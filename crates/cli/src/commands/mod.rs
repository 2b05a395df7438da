//! One module per subcommand.

pub mod check;
pub mod model;
pub mod reserved;
