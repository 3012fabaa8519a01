//! The search: iterative deepening over alpha-beta negamax, with its table, ordering and clock.

pub mod driver;
pub mod negamax;
pub mod ordering;
pub mod reference;
pub mod score;
pub mod see;
pub mod time;
pub mod tt;
