//! How the evaluations learn from Ferrum's own games: self-play data (`datagen`) in a packed
//! record format, the hand-written evaluation's tuner, and the NNUE trainer.

pub mod adjudication;
pub mod datagen;
pub mod packed;
pub mod train;
pub mod tune;
