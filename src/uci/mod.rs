//! The UCI protocol: the stdin loop, reading commands, the option table, and writing engine
//! output (with the win/draw/loss model `UCI_ShowWDL` shows).

pub mod options;
pub mod output;
pub mod parse;
pub mod stdin;
pub mod wdl;
