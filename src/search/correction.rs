//! Correction history: by how much the search's scores have differed from the static
//! evaluation, kept per side to move and pawn structure, and added to later evaluations of
//! positions with that structure. The net misjudges some structures the same way again and
//! again; the search's results show by how much.

use shakmaty::{Board, Color};

use super::params;
use super::score::INFINITY;
use crate::eval::pawn_key;

/// Records per side (a power of two); a pawn structure's key picks one.
const ENTRIES: usize = 16384;
/// Records are kept in 1/GRAIN cp, so that small weighted steps are not lost to rounding.
const GRAIN: i32 = 256;

/// A pawn structure key's record: its high bits.
fn slot(key: u64) -> usize {
    (key >> (64 - ENTRIES.trailing_zeros())) as usize
}

pub struct Correction {
    records: Box<[[i32; ENTRIES]; 2]>,
}

impl Default for Correction {
    fn default() -> Correction {
        Correction {
            records: Box::new([[0; ENTRIES]; 2]),
        }
    }
}

impl Correction {
    /// Every record back to zero.
    pub fn clear(&mut self) {
        self.records.as_flattened_mut().fill(0);
    }

    /// The correction (cp) for `side` to move with the pawns of `board`.
    pub fn get(&self, side: Color, board: &Board) -> i32 {
        self.records[side as usize][slot(pawn_key(board))] / GRAIN
    }

    /// Records that are not zero (tests).
    #[cfg(test)]
    pub fn learnt(&self) -> usize {
        self.records
            .as_flattened()
            .iter()
            .filter(|&&r| r != 0)
            .count()
    }

    /// `raw`, a static evaluation of `board` with `side` to move, corrected; "none"
    /// (-INFINITY, in check) stays as it is.
    pub fn apply(&self, side: Color, board: &Board, raw: i32) -> i32 {
        if raw == -INFINITY {
            raw
        } else {
            raw + self.get(side, board)
        }
    }

    /// A search of `depth` found the position `diff` cp above its raw static evaluation: the
    /// record moves toward `diff` by `depth + 1` 256ths (at most `correction_max_weight`),
    /// and stays within `correction_limit` cp either way.
    pub fn update(&mut self, side: Color, board: &Board, depth: i32, diff: i32) {
        let limit = params::correction_limit();
        let weight = (depth + 1).clamp(1, params::correction_max_weight());
        let target = diff.clamp(-limit, limit) * GRAIN;
        let record = &mut self.records[side as usize][slot(pawn_key(board))];
        let moved = (i64::from(*record) * i64::from(256 - weight)
            + i64::from(target) * i64::from(weight))
            / 256;
        *record = (moved as i32).clamp(-limit * GRAIN, limit * GRAIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game;
    use shakmaty::Position;

    fn board(fen: &str) -> Board {
        Game::from_fen(fen, false).unwrap().pos.board().clone()
    }

    #[test]
    fn records_move_toward_the_search_for_that_side_and_structure_only() {
        let mut c = Correction::default();
        let ours = board("4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1");
        // The same pawns with other pieces share the record; other pawns do not.
        let same_pawns = board("3qk3/pp6/8/8/8/8/PPP5/R3K3 w - - 0 1");
        let other_pawns = board("4k3/pp6/8/8/8/P7/1PP5/4K3 w - - 0 1");
        for _ in 0..400 {
            c.update(Color::White, &ours, 10, 60);
        }
        let got = c.get(Color::White, &ours);
        assert!((58..=60).contains(&got), "{got}");
        assert_eq!(c.get(Color::White, &same_pawns), got);
        assert_eq!(c.get(Color::White, &other_pawns), 0);
        assert_eq!(c.get(Color::Black, &ours), 0);
        assert_eq!(c.apply(Color::White, &ours, 100), 100 + got);
        assert_eq!(c.apply(Color::White, &ours, -INFINITY), -INFINITY);
        c.clear();
        assert_eq!(c.get(Color::White, &ours), 0);
    }

    #[test]
    fn records_stay_within_the_limit_and_deep_searches_weigh_more() {
        let limit = params::correction_limit();
        let mut c = Correction::default();
        let b = board("4k3/pp6/8/8/8/8/PPP5/4K3 b - - 0 1");
        for _ in 0..400 {
            c.update(Color::Black, &b, 20, -5000);
        }
        assert!((-limit..=-limit + 2).contains(&c.get(Color::Black, &b)));
        let (mut shallow, mut deep) = (Correction::default(), Correction::default());
        shallow.update(Color::Black, &b, 1, 80);
        deep.update(Color::Black, &b, 12, 80);
        let i = slot(pawn_key(&b));
        let (s, d) = (
            shallow.records[Color::Black as usize][i],
            deep.records[Color::Black as usize][i],
        );
        assert!(0 < s && s < d, "{s} {d}");
    }

    /// A search learns corrections, and the table keeps the evaluation itself: the root's
    /// entry holds the raw evaluation while the root's pawn structure has a record. A search
    /// without pruning (the one compared with the reference negamax) learns none.
    #[test]
    fn a_search_learns_corrections_but_the_table_keeps_the_raw_evaluation() {
        use crate::basics::position::zobrist;
        use crate::eval::{PawnCache, evaluate_with};
        use crate::search::driver::search_on_thread;
        use crate::search::searcher::Searcher;
        use crate::search::thread::ThreadData;
        use crate::search::time::{Clock, Limits, StopToken};
        use crate::search::tt::TranspositionTable;
        let game = Game::from_fen(
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
            false,
        )
        .unwrap();
        let (side, board) = (game.pos.turn(), game.pos.board());
        let clock = Clock::unlimited(StopToken::detached());
        let limits = Limits {
            depth: Some(8),
            ..Limits::default()
        };
        let tt = TranspositionTable::new(4).unwrap();
        let mut td = ThreadData::default();
        search_on_thread(&game, &limits, &tt, &clock, None, &mut td, &mut |_| {});
        assert!(td.correction.learnt() > 0);
        assert_ne!(td.correction.get(side, board), 0);
        let root = tt.probe(zobrist(&game.pos), 0).unwrap();
        assert_eq!(
            root.eval,
            evaluate_with(&game.pos, &mut PawnCache::default())
        );

        // Without pruning: the same position a ply down, searched with a full window.
        let tt = TranspositionTable::new(4).unwrap();
        let mut td = ThreadData::default();
        let mut s = Searcher::new(&tt, &clock, &mut td, game.repetition_keys());
        s.prune = false;
        s.td.stack.at_mut(0).in_check = game.pos.is_check();
        let first = game.pos.legal_moves()[0];
        let child = s.td.push_move(&game.pos, first);
        s.negamax::<crate::search::node::Pv>(&child, -INFINITY, INFINITY, 4);
        assert_eq!(s.td.correction.learnt(), 0);
    }
}
