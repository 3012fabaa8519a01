//! The search: iterative deepening over alpha-beta negamax, with its table, ordering and clock.

pub mod correction;
pub mod driver;
pub mod history;
pub mod lag;
mod negamax;
mod node;
#[cfg(test)]
mod oracle_tests;
pub mod ordering;
pub mod params;
pub mod pool;
pub mod pv;
mod quiescence;
pub mod reference;
pub mod root;
pub mod score;
pub(crate) mod searcher;
pub mod see;
#[cfg(test)]
mod singular_tests;
pub mod stack;
pub mod stats;
pub mod syzygy;
pub mod thread;
pub mod time;
pub mod tt;
