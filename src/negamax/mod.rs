//! The negamax of the seeds over any two-player zero-sum game: one procedure scores a
//! position for the side to move and negates its children. Plain negamax, fail-soft
//! alpha-beta, a transposition table with bounds, iterative deepening and null windows.

pub mod alphabeta;
pub mod game;
pub mod null_window;
pub mod plain;
pub mod table;
pub mod with_table;

#[cfg(test)]
mod tests;

pub use alphabeta::alphabeta;
pub use game::{Effort, Exit, Game, INF, Observer, Silent};
pub use null_window::{null_window, solve};
pub use plain::negamax;
pub use table::{Bound, Entry, Table};
pub use with_table::{Iteration, alphabeta_tt, iterative_deepening};
