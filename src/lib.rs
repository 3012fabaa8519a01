//! Ferrum, a UCI chess engine: the library behind the `ferrum` binary, so tests and
//! subcommands reach the same code the protocol uses. Each folder is one part of the
//! architecture (the table in docs/layout.md says what each owns).
//!
//! Outside tests nothing unwraps: input from outside (commands, files, options) is answered
//! with an error that names it, and what cannot fail is said so by the code's shape.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

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
