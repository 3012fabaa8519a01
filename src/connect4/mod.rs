//! Connect-Four (7 x 6): a bitboard position, a solver giving exact scores (how soon the
//! winner wins), the game for the generic negamax, and the `ferrum connect4` command.

pub mod game;
pub mod position;
pub mod sets;
pub mod solver;
pub mod table;

pub use game::Board;
pub use position::{MoveError, Position};
pub use solver::Solver;
