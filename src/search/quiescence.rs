//! Quiescence search: at the horizon, captures and promotions are played out until the
//! position is quiet, so that no score is taken in the middle of an exchange.

use shakmaty::{Chess, MoveList, Position};

use super::ordering::{Picker, is_good_tactical};
use super::score::{DRAW, INFINITY, MAX_PLY, mated_in};
use super::searcher::Searcher;
use super::tt::PackedMove;
use crate::basics::tactical::tactical_moves_into;

impl Searcher<'_> {
    /// Resolves captures and promotions from `pos`, the stack's current node, until the
    /// position is quiet; the side to move may "stand pat" on the static score. In check,
    /// every evasion is searched instead.
    pub(super) fn quiescence(&mut self, pos: &Chess, mut alpha: i32, beta: i32) -> i32 {
        let ply = self.td.stack.ply();
        self.td.pv.clear(ply);
        self.visit();
        if self.stopped {
            return DRAW;
        }
        if pos.is_insufficient_material() {
            return DRAW;
        }
        let in_check = self.td.stack.at(ply).in_check;
        debug_assert_eq!(in_check, pos.is_check());
        if ply >= MAX_PLY {
            return if in_check {
                DRAW
            } else {
                self.td.evaluate(pos)
            };
        }

        let mut best = -INFINITY;
        if !in_check {
            best = self.td.evaluate(pos);
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }

        let mut moves = MoveList::new();
        if in_check {
            moves = pos.legal_moves();
            if moves.is_empty() {
                return mated_in(ply);
            }
        } else {
            // Only captures and promotions that do not lose material by exchange, written
            // into the list in place.
            tactical_moves_into(pos, &mut moves);
            if self.prune {
                moves.retain(|m| is_good_tactical(pos, *m));
            }
        }
        let mut picker = if self.prune && !in_check {
            Picker::known_good(pos, &mut moves)
        } else {
            Picker::new(pos, &mut moves, PackedMove::NONE, None)
        };
        // By reference, as in `negamax`: the picker is not copied into the loop.
        for m in picker.by_ref() {
            let child = self.td.push_quiescence(pos, m);
            let score = -self.quiescence(&child, -beta, -alpha);
            self.td.pop_quiescence();
            if self.stopped {
                return best.max(DRAW);
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.td.pv.update(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
