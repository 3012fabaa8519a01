//! Playing a game for a GUI: the engine between the protocol and the search (position,
//! options, table, thread pool, `go` to `bestmove`) and the weakened play of
//! `UCI_LimitStrength`.

pub mod engine;
pub mod strength;
