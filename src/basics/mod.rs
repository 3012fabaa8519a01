//! What everything else stands on: the chess game itself (position, moves, the incremental
//! Zobrist key, the draw rules) and the seeded random numbers that make runs repeatable.

pub mod changes;
pub mod position;
pub mod rng;
pub mod tactical;
