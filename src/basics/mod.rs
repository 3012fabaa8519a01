//! What everything else stands on: the chess game itself (position, moves, the incremental
//! Zobrist key, the draw rules), the seeded random numbers that make runs repeatable, and
//! the operating system's memory.

pub mod changes;
pub mod memory;
pub mod position;
pub mod positions;
pub mod rng;
pub mod tactical;
