//! Ferrum, a UCI chess engine: the library behind the `ferrum` binary, so tests and
//! subcommands reach the same code the protocol uses. Each folder is one part of the
//! architecture (the table in docs/layout.md says what each owns).

pub mod basics;
pub mod cli;
pub mod connect4;
pub mod eval;
pub mod learn;
pub mod measure;
pub mod negamax;
pub mod play;
pub mod search;
pub mod tree;
pub mod uci;
