//! Fail-soft alpha-beta negamax and quiescence search; every score is from the side to move.

use shakmaty::{Chess, Move, MoveList, Position};
use shakmaty_syzygy::Wdl;

use super::node::{Node, NodeBest, Step, Tried};
use super::ordering::{Picker, QuietOrder, is_good_tactical, is_tactical};
use super::params;
use super::score::{
    DRAW, INFINITY, MATE_BOUND, MAX_PLY, TB_WIN_BOUND, is_mate, mated_in, tb_win_in,
};
use super::searcher::Searcher;
use super::see::loses_by_exchange;
use super::stats::{Event, Stats};
use super::tt::{Bound, PackedMove};
use crate::basics::position::gives_check;
use crate::basics::tactical::tactical_moves_into;

/// Plies to reduce the `moves`-th move at `depth`: grows with the logarithm of both.
#[cfg(not(feature = "tune"))]
fn lmr_reduction(depth: i32, moves: usize) -> i32 {
    static TABLE: std::sync::OnceLock<[[i32; 64]; 64]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = lmr_formula(d, m);
            }
        }
        t
    });
    table[(depth as usize).min(63)][moves.min(63)]
}

/// A tuning build computes each reduction afresh, as the parameters may change.
#[cfg(feature = "tune")]
fn lmr_reduction(depth: i32, moves: usize) -> i32 {
    lmr_formula((depth as usize).min(63), moves.min(63))
}

fn lmr_formula(depth: usize, moves: usize) -> i32 {
    if depth == 0 || moves == 0 {
        return 0;
    }
    let base = f64::from(params::lmr_base()) / 100.0;
    let divisor = f64::from(params::lmr_divisor()) / 100.0;
    (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32
}

/// Quiet moves tried at `depth` after which late move pruning skips the rest.
fn late_move_count(depth: i32) -> usize {
    (params::lmp_base_moves() + depth * depth) as usize
}

impl Searcher<'_> {
    /// Null-move pruning: if passing the move still leaves us at or above beta after a
    /// shallower search, a real move would too. Not in check, not twice in a row, not with
    /// beta among mate or tablebase scores, and not with only king and pawns (where passing
    /// may be the best move: zugzwang).
    fn null_move(
        &mut self,
        pos: &Chess,
        depth: i32,
        beta: i32,
        ply: usize,
        static_eval: i32,
        in_check: bool,
    ) -> Option<i32> {
        if !self.prune
            || depth < params::null_min_depth()
            || self.td.stack.at(ply).after_null
            || beta.abs() >= TB_WIN_BOUND
            || in_check
        {
            return None;
        }
        let board = pos.board();
        let ours = board.by_color(pos.turn());
        if (ours & !(board.pawns() | board.kings())).is_empty() || static_eval < beta {
            return None;
        }
        let null_pos = pos.clone().swap_turn().ok()?;
        let reduction = params::null_base_reduction() + depth / params::null_depth_divisor();
        let floor = self.td.push_null(pos, ply);
        // After passing, the side to move is the one that just moved, and a legal position
        // never leaves the side that moved in check.
        let score = -self.negamax(
            &null_pos,
            false,
            depth - 1 - reduction,
            -beta,
            -beta + 1,
            ply + 1,
        );
        self.td.pop_null(ply, floor);
        if self.stopped || score < beta {
            return None;
        }
        // A mate (or tablebase win) found after passing is not a real one, as passing is not
        // a move: claim only the bound.
        Some(if score >= TB_WIN_BOUND { beta } else { score })
    }

    /// A node below the root (`ply` >= 1; the root is `search_root`); `in_check` is
    /// `pos.is_check()`, which the parent already knows.
    pub fn negamax(
        &mut self,
        pos: &Chess,
        in_check: bool,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        debug_assert!(ply > 0);
        self.td.pv.clear(ply);
        if self.td.stack.is_draw(pos, ply) {
            return DRAW;
        }
        debug_assert_eq!(in_check, pos.is_check());
        // Check extension: a position in check is searched one ply deeper, so forcing lines
        // are not cut off at the horizon. Not again in a search without one of the moves
        // (singular extensions): the node's depth already has it.
        let depth = if in_check && self.prune && self.td.stack.at(ply).excluded.is_none() {
            self.td.stats.add(Event::CheckExtension);
            depth + 1
        } else {
            depth
        };
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiescence(pos, in_check, alpha, beta, ply);
        }
        self.visit(ply);
        if self.stopped {
            return DRAW;
        }

        let key = self.td.stack.key();
        let tt_hit = if self.use_tt {
            self.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = tt_hit.map_or(PackedMove::NONE, |h| h.mv);
        // At PV nodes the table's score is not taken: the search goes on to find the line.
        // Nor in a search without one of the moves (singular extensions): the table's entry
        // is of the node with all of them.
        let pv_node = beta - alpha > 1;
        let excluded = self.td.stack.at(ply).excluded;
        if let Some(hit) = tt_hit
            && !pv_node
            && excluded.is_none()
            && hit.depth >= depth
            && hit.bound.decides(hit.score, alpha, beta)
        {
            self.td.stats.add(Event::TableCut);
            return hit.score;
        }

        // A position just reached by a capture or pawn move, with few enough pieces, is
        // scored by the tablebases: a win or loss as a bound just inside the mate range, a
        // draw exactly. Where the bound does not decide the node, the search goes on within
        // it.
        let (mut tb_floor, mut tb_ceiling) = (-INFINITY, INFINITY);
        let alpha_orig = alpha;
        if let Some(tb) = self.tb
            && excluded.is_none()
            && depth >= tb.depth
            && pos.halfmoves() == 0
            && !pos.castles().any()
            && pos.board().occupied().count() <= tb.limit
            && let Some(wdl) = tb.tables.probe_wdl(pos)
        {
            let (score, bound) = match wdl {
                Wdl::Win => (tb_win_in(ply), Bound::Lower),
                Wdl::Loss => (-tb_win_in(ply), Bound::Upper),
                Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => (DRAW, Bound::Exact),
            };
            if bound.decides(score, alpha, beta) {
                if self.use_tt {
                    let eval = if in_check {
                        -INFINITY
                    } else {
                        self.td.evaluate(pos, ply)
                    };
                    let stored_depth =
                        (depth + params::tb_store_extra_depth()).min(MAX_PLY as i32 - 1);
                    self.tt
                        .store(key, tt_move, score, eval, stored_depth, bound, ply);
                }
                return score;
            }
            match bound {
                Bound::Lower => {
                    tb_floor = score;
                    alpha = alpha.max(score);
                }
                _ => tb_ceiling = score,
            }
        }

        // The table keeps the static evaluation too, which saves computing it again.
        let static_eval = match tt_hit {
            _ if in_check => -INFINITY,
            Some(hit) if self.use_tt => hit.eval,
            _ => self.td.evaluate(pos, ply),
        };
        self.td.stack.at_mut(ply).static_eval = static_eval;
        // Without an evaluation two plies back (near the root, or after a check) the
        // position is taken as improving, which errs on the side of searching more.
        let before = self.td.stack.two_back(ply).static_eval;
        let improving = !in_check && (before == -INFINITY || static_eval > before);
        // A stored bound on the true score, when it lies on the right side, is a better
        // estimate than the static one.
        // Not in a search without one of the moves: the stored score may be that move's.
        let estimate = match tt_hit {
            Some(hit) if !in_check && excluded.is_none() && !is_mate(hit.score) => {
                match hit.bound {
                    Bound::Exact => hit.score,
                    Bound::Lower => hit.score.max(static_eval),
                    Bound::Upper => hit.score.min(static_eval),
                }
            }
            _ => static_eval,
        };
        let selective = self.prune && !pv_node && !in_check;
        // Reverse futility pruning: far enough above beta that a shallow search will not
        // bring the score back down; the margin is a ply smaller when things are improving.
        if selective
            && depth <= params::rfp_max_depth()
            && beta.abs() < MATE_BOUND
            && estimate - params::rfp_margin() * (depth - i32::from(improving)) >= beta
        {
            self.td.stats.add(Event::ReverseFutilityCut);
            return estimate;
        }
        if excluded.is_none()
            && let Some(score) = self.null_move(pos, depth, beta, ply, estimate, in_check)
        {
            self.td.stats.add(Event::NullMoveCut);
            return score;
        }
        // Stopped inside the null-move search: no node more may be visited.
        if self.stopped {
            return DRAW;
        }
        let depth = if self.prune && depth >= params::iir_min_depth() && tt_move.is_none() {
            self.td.stats.add(Event::InternalReduction);
            depth - 1
        } else {
            depth
        };

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }
        if let Some(x) = excluded {
            moves.retain(|m| *m != x);
            // Without the left-out move nothing is playable: all the others "fail low".
            if moves.is_empty() {
                return alpha;
            }
        }

        // Singular extension of the table move: when a search of the node without it, at
        // half the depth, fails low against the stored score less a margin, it is the only
        // good move and is searched a ply deeper; when that search fails high even against
        // beta, several moves reach beta and the node is cut (multi-cut).
        let mut singular = false;
        if let Some(hit) = tt_hit
            && self.prune
            && excluded.is_none()
            && depth >= params::singular_min_depth()
            && !tt_move.is_none()
            && hit.bound != Bound::Upper
            && hit.depth >= depth - params::singular_depth_margin()
            && hit.score.abs() < TB_WIN_BOUND
            && (ply as i32) < 2 * self.root_depth
            && let Some(tm) = moves.iter().copied().find(|m| tt_move.matches(*m))
        {
            let singular_beta = hit.score - params::singular_margin() * depth;
            self.td.stack.at_mut(ply).excluded = Some(tm);
            let score = self.negamax(
                pos,
                in_check,
                (depth - 1) / 2,
                singular_beta - 1,
                singular_beta,
                ply,
            );
            // The node's own frame and line are its again: the search without the move
            // may have left another evaluation (corrected since) and its line there.
            let frame = self.td.stack.at_mut(ply);
            frame.excluded = None;
            frame.static_eval = static_eval;
            self.td.pv.clear(ply);
            if self.stopped {
                return DRAW;
            }
            if score < singular_beta {
                self.td.stats.add(Event::SingularExtension);
                singular = true;
            } else if singular_beta >= beta {
                self.td.stats.add(Event::MultiCut);
                return singular_beta;
            }
        }

        let mut node = NodeBest::new(tb_floor, alpha, alpha_orig);
        let mut tried = Tried::new();
        let frame = *self.td.stack.at(ply);
        let previous = frame.played;
        let order = QuietOrder::new(&self.td.heuristics, frame.killers, pos.turn(), previous);
        // Iterated by reference: moving the picker (a kilobyte of keys) into the loop's
        // adaptor would copy it at every node.
        let mut picker = Picker::new(pos, &mut moves, tt_move, Some(&order));
        for (i, m) in picker.by_ref().enumerate() {
            // Near the leaves, quiet moves late in the ordering (late move pruning) or with
            // no hope of reaching alpha (futility pruning) are skipped, once a move has been
            // searched and as long as we are not being mated; checks are always searched.
            let (mut late, mut futile) = (false, false);
            if selective && i > 0 && !is_tactical(m) && node.score > -MATE_BOUND {
                late = depth <= params::lmp_max_depth()
                    && tried.quiets.len() >= late_move_count(depth);
                futile = depth <= params::futility_max_depth()
                    && estimate + params::futility_margin() * depth <= node.alpha;
            }
            // Exchange pruning: a move that loses too much material by exchange is skipped,
            // once a move has been searched, at PV nodes too and even if it gives check.
            if self.prune
                && !in_check
                && i > 0
                && !late
                && !futile
                && depth <= params::see_prune_max_depth()
                && node.score > -MATE_BOUND
                && loses_by_exchange(
                    pos,
                    m,
                    depth,
                    params::see_quiet_margin(),
                    params::see_capture_margin(),
                )
            {
                self.td.stats.add(Event::ExchangePruned);
                continue;
            }
            let pruned = if late {
                Event::LateMovePruned
            } else {
                Event::FutilityPruned
            };
            // A pruned move that cannot give check is skipped without being made.
            if (late || futile) && gives_check(pos, m) == Some(false) {
                if futile {
                    node.score = node.score.max(estimate + params::futility_margin() * depth);
                }
                self.td.stats.add(pruned);
                continue;
            }
            let child = self.td.push_move(pos, m, ply);
            self.tt.prefetch(self.td.stack.key());
            let child_in_check = child.is_check();
            if (late || futile) && !child_in_check {
                self.td.stats.add(pruned);
                self.td.pop_move();
                if futile {
                    // Fail-soft: the skipped move might have been worth up to this much, so
                    // the bound stored for this node must not claim less.
                    node.score = node.score.max(estimate + params::futility_margin() * depth);
                }
                continue;
            }
            let extension = i32::from(i == 0 && singular && tt_move.matches(m));
            let score = self.search_child(
                &child,
                child_in_check,
                m,
                i,
                depth + extension,
                node.alpha,
                beta,
                ply,
                pv_node,
                in_check,
                improving,
            );
            self.td.pop_move();
            if self.stopped {
                return node.score.max(DRAW);
            }
            let at = Node {
                pos,
                ply,
                depth,
                previous,
            };
            if self.record(&mut node, &at, m, score, beta, &mut tried) == Step::Cutoff {
                break;
            }
        }

        node.score = node.score.min(tb_ceiling);
        if excluded.is_none() {
            self.store_node(key, &node, beta, static_eval, depth, ply);
        }
        node.score
    }

    /// Searches the `i`-th move of a node (its `child`) by principal variation search: the
    /// first move gets the full window; the rest are only proved worse with a null window,
    /// and searched again if that fails.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn search_child(
        &mut self,
        child: &Chess,
        child_in_check: bool,
        m: Move,
        i: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
        in_check: bool,
        improving: bool,
    ) -> i32 {
        if i == 0 {
            return -self.negamax(child, child_in_check, depth - 1, -beta, -alpha, ply + 1);
        }
        // Late move reductions: quiet moves far down the ordering are searched less deep
        // first; one that surprises is searched again at full depth.
        let reduction = if self.prune
            && depth >= params::lmr_min_depth()
            && i >= params::lmr_min_moves() as usize
            && !in_check
            && !is_tactical(m)
            && !child_in_check
        {
            let r = lmr_reduction(depth, i) - i32::from(pv_node) + i32::from(!improving);
            let divisor = params::lmr_history_divisor();
            let by_history = if divisor > 0 {
                // The mover is the side not to move in the child.
                self.td.heuristics.history(!child.turn(), m) / divisor
            } else {
                0
            };
            let most = (depth - 2).max(0);
            let reduction = (r - by_history).clamp(0, most);
            if Stats::counting() {
                let without = r.clamp(0, most);
                if reduction < without {
                    self.td.stats.add(Event::ReducedLessByHistory);
                } else if reduction > without {
                    self.td.stats.add(Event::ReducedMoreByHistory);
                }
            }
            reduction
        } else {
            0
        };
        if reduction > 0 {
            self.td.stats.add(Event::Reduced);
        }
        let reduced = depth - 1 - reduction;
        let mut s = -self.negamax(child, child_in_check, reduced, -alpha - 1, -alpha, ply + 1);
        if s > alpha && reduction > 0 && !self.stopped {
            s = -self.negamax(
                child,
                child_in_check,
                depth - 1,
                -alpha - 1,
                -alpha,
                ply + 1,
            );
        }
        if s > alpha && s < beta && !self.stopped {
            -self.negamax(child, child_in_check, depth - 1, -beta, -alpha, ply + 1)
        } else {
            s
        }
    }

    /// Resolves captures and promotions until the position is quiet; the side to move may
    /// "stand pat" on the static score. In check (`in_check`, known to the parent), every
    /// evasion is searched instead.
    pub fn quiescence(
        &mut self,
        pos: &Chess,
        in_check: bool,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.td.pv.clear(ply);
        self.visit(ply);
        if self.stopped {
            return DRAW;
        }
        if pos.is_insufficient_material() {
            return DRAW;
        }
        debug_assert_eq!(in_check, pos.is_check());
        if ply >= MAX_PLY {
            return if in_check {
                DRAW
            } else {
                self.td.evaluate(pos, ply)
            };
        }

        let mut best = -INFINITY;
        if !in_check {
            best = self.td.evaluate(pos, ply);
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
            let child = self.td.play_in_quiescence(pos, m, ply);
            let score = -self.quiescence(&child, child.is_check(), -beta, -alpha, ply + 1);
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
