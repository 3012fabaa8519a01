//! Per-thread search state that lives from one search to the next: the search stack, the
//! move-ordering heuristics, the node count and the principal variations.

use super::ordering::Heuristics;
use super::pv::PvTable;
use super::stack::SearchStack;
use crate::eval::PawnCache;

#[derive(Default)]
pub struct ThreadData {
    pub stack: SearchStack,
    /// History and counter moves: true of the game from move to move, so kept.
    pub heuristics: Heuristics,
    /// The evaluation's pawn-structure cache, warm from one search to the next.
    pub pawn_cache: PawnCache,
    /// Nodes searched by this thread in the current search.
    pub nodes: u64,
    /// Deepest ply reached in the current iteration.
    pub seldepth: usize,
    pub pv: PvTable,
}

impl ThreadData {
    /// Prepares for a search from the game's repetition `keys` (ending with the root's):
    /// the per-search state is cleared, the heuristics are kept.
    pub fn start_search(&mut self, keys: Vec<u64>) {
        self.stack.reset(keys);
        self.nodes = 0;
        self.seldepth = 0;
    }
}
