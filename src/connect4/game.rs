//! Connect-Four as a `crate::negamax::Game`, for the generic searches (the tree pictures
//! and the cross-checks of the solver): moves from the centre out, the solver's scores at
//! the end of the game, and 0 (unknown, read as a draw) at a horizon.

use super::position::{Position, WIDTH, loss_score};
use crate::negamax::{Effort, Game};

/// The playable columns (0-based), centre first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Columns {
    cols: [u8; WIDTH],
    len: usize,
}

impl AsRef<[u8]> for Columns {
    fn as_ref(&self) -> &[u8] {
        &self.cols[..self.len]
    }
}

/// A position the generic searches can play moves on.
#[derive(Clone, Copy, Debug)]
pub struct Board(pub Position);

impl Game for Board {
    type Move = u8;
    type Moves = Columns;

    fn moves(&self) -> Columns {
        let mut out = Columns::default();
        for col in [3, 2, 4, 1, 5, 0, 6] {
            if self.0.can_play(col) {
                out.cols[out.len] = col as u8;
                out.len += 1;
            }
        }
        out
    }

    fn play(&mut self, col: u8) {
        self.0.play_col(col as usize);
    }

    fn undo(&mut self, col: u8) {
        let cell = self.0.top_stone(col as usize);
        self.0.undo(cell);
    }

    fn terminal(&self) -> Option<i32> {
        if self.0.is_lost() {
            Some(loss_score(self.0.moves()))
        } else if self.0.is_full() {
            Some(0)
        } else {
            None
        }
    }

    fn value_without_moves(&self) -> i32 {
        0
    }

    fn heuristic(&mut self, _effort: &mut Effort) -> Option<i32> {
        Some(0)
    }

    fn key(&self) -> u64 {
        self.0.key()
    }

    fn move_name(&self, col: u8) -> String {
        (col + 1).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect4::solver::Solver;
    use crate::negamax::{INF, Silent, Table, alphabeta_tt, iterative_deepening, negamax};

    fn depth_limited(pos: Position, depth: u32) -> Option<i32> {
        negamax(
            &mut Board(pos),
            depth,
            &mut Effort::unlimited(),
            &mut Silent,
        )
    }

    /// A horizon with no end of the game before it is worth 0 (unknown, read as a draw):
    /// the empty board searched to a few plies is 0 at every depth. A win inside the
    /// horizon has the solver's score.
    #[test]
    fn the_horizon_reads_as_a_draw_and_a_win_inside_it_has_the_solvers_score() {
        for depth in 1..=4 {
            assert_eq!(
                depth_limited(Position::default(), depth),
                Some(0),
                "depth {depth}"
            );
        }
        // The first player has three stones in column 1 and plays the fourth.
        let pos = Position::from_moves("121212").unwrap();
        let exact = Solver::new().solve(&pos);
        assert!(exact > 0);
        for depth in 1..=3 {
            assert_eq!(depth_limited(pos, depth), Some(exact), "depth {depth}");
        }
    }

    /// Alpha-beta with a table gives plain negamax's values, in positions with wins and
    /// losses inside the horizon.
    #[test]
    fn with_a_table_the_values_are_plain_negamaxs() {
        let mut decided = 0;
        for line in ["", "121212", "4455443", "334455", "1234567"] {
            let pos = Position::from_moves(line).unwrap();
            for depth in 1..=7 {
                let mut table = Table::new(1 << 10);
                let v = alphabeta_tt(
                    &mut Board(pos),
                    depth,
                    -INF,
                    INF,
                    &mut table,
                    &mut Effort::unlimited(),
                    &mut Silent,
                );
                let plain = depth_limited(pos, depth);
                assert_eq!(v, plain, "{line} depth {depth}");
                decided += usize::from(plain != Some(0));
            }
        }
        assert!(decided > 5, "{decided} searches saw a win or a loss");
    }

    /// Iterative deepening keeps one table through its iterations, so each iteration meets
    /// the entries of the one before, the root's among them. Every iteration's value is
    /// still plain negamax's at that depth, and its move is one that reaches that value.
    #[test]
    fn iterative_deepening_gives_plain_negamaxs_value_at_every_depth() {
        let mut decided = 0;
        for line in ["121212", "4455443", "334455", "1234567", "44444", "3344551"] {
            let pos = Position::from_moves(line).unwrap();
            // A prime number of slots: the keys are bit patterns, and the root's entry must
            // outlive each iteration for its move to be read back.
            let mut table = Table::new(1_000_003);
            let iterations = iterative_deepening(
                &mut Board(pos),
                7,
                &mut table,
                &mut Effort::unlimited(),
                &mut Silent,
            )
            .unwrap();
            assert_eq!(iterations.len(), 7, "{line}");
            for it in iterations {
                let plain = depth_limited(pos, it.depth).unwrap();
                assert_eq!(it.value, plain, "{line} depth {}", it.depth);
                decided += usize::from(plain != 0);
                let col = it.best.unwrap();
                let mut child = pos;
                child.play_col(usize::from(col));
                let after = depth_limited(child, it.depth - 1).unwrap();
                assert_eq!(-after, plain, "{line} depth {} move {col}", it.depth);
            }
        }
        assert!(decided > 5, "{decided} iterations saw a win or a loss");
    }
}
