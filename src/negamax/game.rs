//! What the seeds' negamax needs to know about a game: its moves, how to play and take them
//! back, the value of a finished or horizon position for the side to move, and a key.
//! Beside it the search's bookkeeping (`Effort`) and its trace hooks (`Observer`).

use std::fmt::Debug;

/// Larger than any game value: the full window is (-INF, INF), and negating it is safe.
pub const INF: i32 = 1 << 30;

/// A two-player zero-sum game seen from the side to move: every value is for the player
/// about to move, so a child's value is negated for its parent.
pub trait Game {
    type Move: Copy + PartialEq + Debug;
    type Moves: AsRef<[Self::Move]>;

    /// The legal moves, in the order the search should try them.
    fn moves(&self) -> Self::Moves;
    fn play(&mut self, m: Self::Move);
    /// Takes back `m`, which was the last move played.
    fn undo(&mut self, m: Self::Move);
    /// The value when the game is over here whatever the moves (a win already made, a draw
    /// by rule), looked at before the depth: None while the game goes on.
    fn terminal(&self) -> Option<i32>;
    /// The value when there is no legal move (checkmate or stalemate in chess), asked only
    /// below the horizon and when `terminal` said None.
    fn value_without_moves(&self) -> i32;
    /// The estimated value at the horizon. It may spend `effort` (a quiescence search does)
    /// and gives up with None when the budget runs out.
    fn heuristic(&mut self, effort: &mut Effort) -> Option<i32>;
    /// A key of the position for the transposition table.
    fn key(&self) -> u64;
    /// How a move reads for people, in the current position.
    fn move_name(&self, m: Self::Move) -> String {
        format!("{m:?}")
    }
}

/// Nodes visited by a search and the budget of work it may still spend (a node of the
/// search proper costs one, a heuristic may spend more); out of budget, or past a limit on
/// nodes, searches give None.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effort {
    pub nodes: u64,
    budget: u64,
    node_limit: u64,
}

impl Effort {
    pub fn unlimited() -> Effort {
        Effort::with_budget(u64::MAX)
    }

    pub fn with_budget(budget: u64) -> Effort {
        Effort {
            nodes: 0,
            budget,
            node_limit: u64::MAX,
        }
    }

    /// The same, visiting at most `limit` nodes.
    pub fn limit_nodes(self, limit: u64) -> Effort {
        Effort {
            node_limit: limit,
            ..self
        }
    }

    pub fn budget_left(&self) -> u64 {
        self.budget
    }

    /// One unit of work, None when the budget is spent.
    pub fn spend(&mut self) -> Option<()> {
        self.budget = self.budget.checked_sub(1)?;
        Some(())
    }

    /// A node of the search proper: counted, and paid for.
    pub fn visit(&mut self) -> Option<()> {
        if self.nodes >= self.node_limit {
            return None;
        }
        self.spend()?;
        self.nodes += 1;
        Some(())
    }
}

/// How a node's search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The game is over here.
    Terminal,
    /// The horizon: the heuristic value.
    Heuristic,
    /// No legal move.
    NoMoves,
    /// The transposition table's entry settled the value without a search.
    Table,
    /// The children were searched.
    Searched,
}

/// Hooks the searches call as they walk the tree, so a recorder can draw it; the default
/// methods do nothing and compile away.
pub trait Observer<M> {
    /// A node is entered by `into` (None at the root) with the window it is searched with
    /// (None for plain negamax, which has none).
    fn enter(&mut self, _into: Option<M>, _window: Option<(i32, i32)>) {}
    /// The node just entered returns `value`, from its side to move.
    fn leave(&mut self, _value: i32, _exit: Exit) {}
    /// At the current node a child's value reached beta while the window was (alpha, beta):
    /// the moves in `pruned` are not searched.
    fn cutoff(&mut self, _alpha: i32, _beta: i32, _pruned: &[M]) {}
}

/// The observer that watches nothing.
pub struct Silent;

impl<M> Observer<M> for Silent {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effort_counts_nodes_and_runs_out_of_budget() {
        let mut e = Effort::with_budget(3);
        assert_eq!(e.visit(), Some(()));
        assert_eq!(e.spend(), Some(()));
        assert_eq!(e.visit(), Some(()));
        assert_eq!(e.visit(), None);
        assert_eq!(e.nodes, 2);
        assert_eq!(e.budget_left(), 0);
        let mut e = Effort::unlimited().limit_nodes(2);
        assert_eq!(e.visit(), Some(()));
        assert_eq!(e.spend(), Some(()));
        assert_eq!(e.visit(), Some(()));
        assert_eq!(e.visit(), None);
        assert_eq!(e.nodes, 2);
    }
}
