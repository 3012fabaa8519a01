//! The UCI protocol: the stdin loop, reading commands, the option table, and writing engine
//! output.

pub mod options;
pub mod output;
pub mod parse;
pub mod stdin;
