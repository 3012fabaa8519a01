//! What everything else stands on: the chess game itself (position, moves, the incremental
//! Zobrist key, the draw rules), the seeded random numbers that make runs repeatable, the
//! operating system's memory and XML text for the drawings.

pub mod changes;
pub mod memory;
pub mod position;
pub mod positions;
pub mod rng;
pub mod tactical;
pub mod xml;
