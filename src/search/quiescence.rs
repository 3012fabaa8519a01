//! Quiescence search: at the horizon, captures and promotions are played out until the
//! position is quiet, so that no score is taken in the middle of an exchange.

use shakmaty::{Chess, MoveList, Position};

use super::ordering::{Picker, is_good_tactical};
use super::score::{DRAW, INFINITY, MAX_PLY, mated_in};
use super::searcher::Searcher;
use super::tt::{Bound, EVAL_LIMIT, PackedMove, TtEntry};
use crate::basics::tactical::tactical_moves_into;

impl Searcher<'_> {
    /// Resolves captures and promotions from `pos`, the stack's current node, until the
    /// position is quiet; the side to move may "stand pat" on the static score. In check,
    /// every evasion is searched instead. The table is probed (a stored bound that decides a
    /// null window ends the search, the stored evaluation and move are used) and the result
    /// stored at depth 0.
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
                let raw = self.td.evaluate(pos);
                self.corrected(pos, raw)
            };
        }

        let key = self.td.stack.key();
        let hit = if self.use_tt {
            self.tt.probe(key, ply)
        } else {
            None
        };
        // Without pruning only quiescence's own entries (depth 0) bound it, so a search of
        // fixed depth keeps its exact value.
        if let Some(h) = hit
            && beta - alpha == 1
            && (self.prune || h.depth == 0)
            && h.bound.decides(h.score, alpha, beta)
        {
            return h.score;
        }
        let tt_move = hit.map_or(PackedMove::NONE, |h| h.mv);
        let alpha_orig = alpha;

        let mut best = -INFINITY;
        let mut static_eval = -INFINITY;
        if !in_check {
            static_eval = match hit {
                // Not the table's clamp of "none" (an entry stored in check).
                Some(h) if h.eval > -EVAL_LIMIT => h.eval,
                _ => self.td.evaluate(pos),
            };
            // Standing pat on the evaluation as the correction history has it (the table
            // keeps the evaluation itself).
            best = self.corrected(pos, static_eval);
            if best >= beta {
                if hit.is_none() {
                    self.store_quiescence(key, PackedMove::NONE, best, static_eval, Bound::Lower);
                }
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
            Picker::known_good(pos, &mut moves, tt_move)
        } else {
            Picker::new(pos, &mut moves, tt_move, None)
        };
        let mut best_move = None;
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
                    best_move = Some(m);
                    self.td.pv.update(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let mv = best_move.map_or(PackedMove::NONE, PackedMove::new);
        let bound = Bound::of_result(best, alpha_orig, beta);
        self.store_quiescence(key, mv, best, static_eval, bound);
        best
    }

    /// Stores a result of quiescence at the current ply, at depth 0 (`store_shallow`: never
    /// over a deeper entry of this search), when the table is in use.
    fn store_quiescence(&self, key: u64, mv: PackedMove, score: i32, eval: i32, bound: Bound) {
        if !self.use_tt {
            return;
        }
        let entry = TtEntry {
            mv,
            score,
            eval,
            depth: 0,
            bound,
        };
        self.tt.store_shallow(key, self.td.stack.ply(), entry);
    }
}
