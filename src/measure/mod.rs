//! The engine's instruments: `bench` (the node-count signature and speed), perft (move
//! generation counted and checked), and EPD test suites.

pub mod bench;
pub mod epd;
pub mod perft;
