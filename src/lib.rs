//! Ferrum, a UCI chess engine: the library behind the `ferrum` binary, so tests and
//! subcommands reach the same code the protocol uses.

pub mod bench;
pub mod cli;
pub mod connect4;
pub mod datagen;
pub mod engine;
pub mod epd;
pub mod eval;
pub mod eval_params;
pub mod negamax;
pub mod packed;
pub mod perft;
pub mod position;
pub mod rng;
pub mod search;
pub mod strength;
pub mod syzygy;
pub mod train;
pub mod tree;
pub mod tune;
pub mod uci;
