//! The UCI protocol: reading commands, the option table, and writing engine output.

pub mod options;
pub mod output;
pub mod parse;
